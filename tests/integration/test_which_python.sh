#!/usr/bin/env bash
# `which --python EXE` on real consumer wheels from PyPI (jax-cuda13-plugin; onnxruntime-gpu when
# cached or downloadable) in a real venv, read without importing them, with the machine's real
# cuDNN 9.19 in the wheel layout (nvidia/cudnn/lib) and NVIDIA's real nvidia-cudnn-cu11 8.9.6
# wheel for a consumer built against cuDNN 8. The model's answer for the jax plugin is checked
# against the real loader: a shim built with the plugin's own DT_RPATH, in the plugin's dir, in
# that venv's interpreter, dlopen()s libcudnn.so.9 and reports the file mapped.
# Wheels are cached outside the clone (${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/consumers);
# exit 77 when neither the cache nor PyPI has them.
set -euo pipefail
CUDA=/usr/local/cuda-13.0
[ -f "$CUDA/lib/libcudnn.so.9" ] || { echo "no $CUDA/lib/libcudnn.so.9"; exit 77; }
command -v python3 >/dev/null && command -v cc >/dev/null || { echo "no python3 / cc"; exit 77; }
C=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/consumers
mkdir -p "$C"
fetch() { # fetch GLOB SPEC: a wheel from the cache, else from PyPI
    local w; w=$(ls "$C"/$1 2>/dev/null | head -1 || true)
    if [ -z "$w" ]; then
        timeout 600 python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
            --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$C" "$2" >&2 || true
        w=$(ls "$C"/$1 2>/dev/null | head -1 || true)
    fi
    echo "$w"
}
JAX=$(fetch 'jax_cuda13_plugin-*.whl' 'jax-cuda13-plugin==0.10.2')
[ -n "$JAX" ] || { echo "jax-cuda13-plugin: not cached and PyPI unreachable"; exit 77; }
ORT=$(fetch 'onnxruntime_gpu-*.whl' 'onnxruntime-gpu==1.31.1')
DNN8=$(fetch 'nvidia_cudnn_cu11-8.9.6.50-*.whl' 'nvidia-cudnn-cu11==8.9.6.50')
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
python3 -m venv --without-pip "$T/venv"
PY=$T/venv/bin/python
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
unzip() { python3 - "$@" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); pats = sys.argv[3:]
for n in z.namelist():
    if not pats or any(n.startswith(p) or n.endswith(p) for p in pats):
        z.extract(n, sys.argv[2])
PY
}
unzip "$JAX" "$SITE"
[ -z "$ORT" ] || unzip "$ORT" "$SITE" onnxruntime/capi/libonnxruntime_providers_cuda.so \
    onnxruntime/capi/build_and_package_info.py .dist-info/METADATA
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
q() { python3 -c "import json,sys; r=json.load(open('$T/w.json')); $1"; }
fw() { # the consumer NAME's field expression
    q "c=[c for c in r['consumers'] if c['name']=='$1'][0]; l=[x for x in c['loads'] if x['soname'].startswith('libcudnn')][0]; print($2)"
}
real_jax() { # the file the real loader maps for a dlopen from the plugin's dir [and a sub-library]
    local rp; rp=$(readelf -d "$SITE/jax_cuda13_plugin/_versions.so" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
    [ -n "$rp" ] || { echo "no-rpath"; return; }
    cc -shared -fPIC -o "$SITE/jax_cuda13_plugin/_cudnnctl_shim.so" "$SOURCE_DIR/tests/integration/loader/shim.c" \
        -ldl -Wl,--disable-new-dtags,-rpath,"$rp"
    "$PY" -c "
import ctypes, sys
s = ctypes.CDLL(sys.argv[1]); s.shim_load.restype = ctypes.c_char_p; s.shim_sub.restype = ctypes.c_char_p
print(s.shim_load(b'libcudnn.so.9').decode(), *([s.shim_sub(sys.argv[2].encode()).decode()] if sys.argv[2] else []))" \
        "$SITE/jax_cuda13_plugin/_cudnnctl_shim.so" "${1:-}"
}

# A: no nvidia-cudnn wheel in the venv: the plugin's DT_RPATH names nothing; the cache answers
"$CUDNNCTL" which --python "$PY" --json >"$T/w.json" || fail "which exit $? (A)"
"$CUDNNCTL" which --python "$PY" | sed 's/^/    /'
got=$(fw jax_cuda13_plugin "l['path'], l['rule'], c['system_install_affects'], c['verdict']")
real=$(real_jax)
echo "consumer jax_cuda13_plugin (no cudnn wheel): model: $got; real loader: $real"
[ "${got%% *}" = "$real" ] || fail "A: model and real loader differ"
[[ "$got" == *" ld.so.cache True ok" ]] || fail "A: want ld.so.cache, system install affects, ok: $got"
if [ -n "$ORT" ]; then
    got=$(fw onnxruntime_gpu "l['soname'], l['rule'], c['built_for']['cuda'], c['built_for']['cudnn'], c['system_install_affects']")
    echo "consumer onnxruntime_gpu: model: $got"
    [ "$got" = "libcudnn.so.9 ld.so.cache 13.0 ~=9.0 True" ] || fail "onnxruntime-gpu: $got"
fi

# B: the real cuDNN 9.19 in the wheel layout: the plugin's DT_RPATH wins, over LD_LIBRARY_PATH too
mkdir -p "$SITE/nvidia/cudnn/lib" "$SITE/nvidia/cudnn/include" "$T/llp" "$SITE/nvidia_cudnn_cu13-9.19.0.56.dist-info"
cp "$CUDA/lib/libcudnn.so.9" "$CUDA/lib/libcudnn_graph.so.9" "$SITE/nvidia/cudnn/lib/"
for f in "$CUDA"/lib/libcudnn_*.so.9; do   # the big ones as links: the dir is what the loader uses
    [ -e "$SITE/nvidia/cudnn/lib/${f##*/}" ] || ln -s "$f" "$SITE/nvidia/cudnn/lib/"
done
cp "$CUDA/include/cudnn_version.h" "$SITE/nvidia/cudnn/include/"
printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n' >"$SITE/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA"
cp "$CUDA/lib/libcudnn.so.9" "$T/llp/"
# (onnxruntime-gpu has no RPATH: it takes $T/llp's libcudnn.so.9, whose sub-libraries are not
# there, so it is "a mixed cuDNN" and which exits 6: right)
LD_LIBRARY_PATH=$T/llp "$CUDNNCTL" which --python "$PY" --json >"$T/w.json" || [ $? = 6 ] || fail "which (B)"
LD_LIBRARY_PATH=$T/llp "$CUDNNCTL" which --python "$PY" | sed 's/^/    /' || true
got=$(fw jax_cuda13_plugin "l['path'], l['rule'], l['version'], c['loaded_cudnn_cuda_major'], c['system_install_affects'], c['ld_library_path_affects'], c['verdict']")
real=$(LD_LIBRARY_PATH=$T/llp real_jax)
echo "consumer jax_cuda13_plugin (cudnn wheel, LD_LIBRARY_PATH=$T/llp): model: $got; real loader: $real"
[ "${got%% *}" = "${real%% *}" ] || fail "B: model and real loader differ"
# (the version is the release read from the files: the tag in libcudnn_graph.so.9, 9.19.0.56)
[[ "$got" == *"/nvidia/cudnn/lib/libcudnn.so.9 rpath 9.19.0.56 13 False True ok" ]] || fail "B: $got"

# B2: LD_LIBRARY_PATH names a dir with a libcudnn_graph.so.9 of the SAME release (a copy of the
# same 9.19 file): libcudnn.so.9 comes through the plugin's DT_RPATH, its sub-libraries through
# LD_LIBRARY_PATH (libcudnn.so.9's own DT_RUNPATH comes after it). Two dirs, one release: that
# fits (before issue 20 this was called a mix, exit 6): verdict ok, exit 0, one note.
cp "$CUDA/lib/libcudnn_graph.so.9" "$T/llp/"
set +e; LD_LIBRARY_PATH=$T/llp "$CUDNNCTL" which --python "$PY" --json >"$T/w.json"; rc=$?; set -e
got=$(q "c=[c for c in r['consumers'] if c['name']=='jax_cuda13_plugin'][0]; g=[x for x in c['loads'] if x['soname']=='libcudnn_graph.so.9'][0]; print(g['path'], g['rule'], c['verdict'], len(c['problems']), min(1, len([n for n in c['notes'] if 'the same release 9.19.0.56' in n])))")
real=$(LD_LIBRARY_PATH=$T/llp real_jax libcudnn_graph.so.9)
echo "consumer jax_cuda13_plugin (LD_LIBRARY_PATH with the same release's libcudnn_graph.so.9): model: $got; real loader: $real; exit $rc"
[ "${got%% *}" = "${real##* }" ] || fail "B2: model and real loader differ on libcudnn_graph.so.9"
[ "${got#* }" = "ld_library_path ok 0 1" ] || fail "B2: want ld_library_path, ok, no problem, a same-release note"

# B3: a real mix: LD_LIBRARY_PATH's libcudnn_graph.so.9 is NVIDIA's 9.1.0 (nvidia-cudnn-cu12
# 9.1.0.70 wheel) under the 9.19 front: mismatch, exit 6 (cudnnGetVersion() would say 9.1.0)
W12=$(ls "${XDG_CACHE_HOME:-$HOME/.cache}"/cudnnctl-test/wheels/nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl 2>/dev/null | head -1 || true)
if [ -z "$W12" ]; then
    mkdir -p "${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/wheels"
    timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.10 \
        --platform manylinux2014_x86_64 -d "${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/wheels" \
        nvidia-cudnn-cu12==9.1.0.70 >&2 || true
    W12=$(ls "${XDG_CACHE_HOME:-$HOME/.cache}"/cudnnctl-test/wheels/nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl 2>/dev/null | head -1 || true)
fi
[ -n "$W12" ] || { echo "nvidia-cudnn-cu12 9.1.0.70: not cached and PyPI unreachable"; exit 77; }
unzip "$W12" "$T/w12" nvidia/cudnn/lib/libcudnn_graph.so.9
cp "$T/w12/nvidia/cudnn/lib/libcudnn_graph.so.9" "$T/llp/libcudnn_graph.so.9"
set +e; LD_LIBRARY_PATH=$T/llp "$CUDNNCTL" which --python "$PY" --json >"$T/w.json"; rc=$?; set -e
got=$(q "c=[c for c in r['consumers'] if c['name']=='jax_cuda13_plugin'][0]; g=[x for x in c['loads'] if x['soname']=='libcudnn_graph.so.9'][0]; print(g['path'], g['rule'], g['version'], c['verdict'], len([p for p in c['problems'] if 'mixed' in p]))")
real=$(LD_LIBRARY_PATH=$T/llp real_jax libcudnn_graph.so.9)
echo "consumer jax_cuda13_plugin (LD_LIBRARY_PATH with NVIDIA's 9.1.0 libcudnn_graph.so.9): model: $got; real loader: $real; exit $rc"
[ "${got%% *}" = "${real##* }" ] || fail "B3: model and real loader differ on libcudnn_graph.so.9"
[ "${got#* }" = "ld_library_path 9.1.0.70 mismatch 1" ] && [ "$rc" = 6 ] || fail "B3: want ld_library_path, 9.1.0.70, mismatch, one mixed problem, exit 6"

# doctor --python: the same as a finding with a fix; the test runs the fix, then doctor is clean
# of PYTHON_* findings
set +e; LD_LIBRARY_PATH=$T/llp "$CUDNNCTL" doctor --python "$PY" --json >"$T/d.json"; set -e
fix=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); f = [x for x in r["findings"] if x["code"].startswith("PYTHON_")]
for x in f: print(x["code"], "|", x["message"][:160], "| fix:", x["fix"], "| run:", x["command"], file=sys.stderr)
assert f and all(x["code"] == "PYTHON_FRAMEWORK_CUDNN_MISMATCH" for x in f), f
print(f[0]["command"])' "$T/d.json")
echo "doctor --python fix: $fix"
left=$(LD_LIBRARY_PATH=$T/llp bash -c "$fix; \"$CUDNNCTL\" doctor --python \"$PY\" --json" | python3 -c '
import json, sys
print(len([x for x in json.load(sys.stdin)["findings"] if x["code"].startswith("PYTHON_")]))') || true
echo "after the fix: $left PYTHON_* findings"
[ "$left" = 0 ] || fail "doctor --python: the fix did not clear the findings"

# C: a program built against NVIDIA's cuDNN 8.9.6 (cu11 wheel) and CUDA 13's runtime: mismatch
if [ -n "$DNN8" ]; then
    W8=$T/w8; unzip "$DNN8" "$W8" nvidia/cudnn/lib/libcudnn.so.8 nvidia/cudnn/include/cudnn_version.h .dist-info/METADATA
    cc -o "$T/app8" "$SOURCE_DIR/tests/integration/loader/probe.c" -ldl -Wl,--no-as-needed \
        -L"$W8/nvidia/cudnn/lib" -l:libcudnn.so.8 -L"$CUDA/lib" -l:libcudart.so.13 \
        -Wl,--disable-new-dtags,-rpath,"$W8/nvidia/cudnn/lib"
    set +e; "$CUDNNCTL" which "$T/app8" --json >"$T/w.json"; rc=$?; set -e
    "$CUDNNCTL" which "$T/app8" | sed 's/^/    /' || true
    real=$("$T/app8" | head -1)
    got=$(q "c=r['consumers'][0]; l=[x for x in c['loads'] if x['soname']=='libcudnn.so.8'][0]; print(l['path'], l['version'], c['loaded_cudnn_cuda_major'], c['built_for']['cuda_major'], c['verdict'])")
    echo "consumer app8 (cuDNN 8.9.6 cu11 wheel + libcudart.so.13): model: $got; real: $real; exit $rc"
    [ "mapped ${got%% *}" = "$real" ] || fail "C: model and real loader differ"
    [ "${got#* }" = "8.9.6 11 13 mismatch" ] && [ "$rc" = 6 ] || fail "C: want 8.9.6, CUDA 11 vs 13, mismatch, exit 6"
else
    echo "nvidia-cudnn-cu11 8.9.6.50: not cached and PyPI unreachable: case C not run"
fi
[ "$fails" -eq 0 ]
