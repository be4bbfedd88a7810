#!/usr/bin/env bash
# Real user reports of framework-side cuDNN failures (issue 20, item 4), rebuilt in real venvs from
# real PyPI files (torch 2.11.0, tensorflow 2.21.0, jax 0.10.2, onnxruntime-gpu 1.31.1 — read,
# never imported) and real NVIDIA bytes (the machine's cuDNN 9.19; NVIDIA's nvidia-cudnn-cu12
# 9.1.0.70 / 9.27.0.42 and nvidia-cudnn-cu13 9.19.0.56 / 9.20.0.48 / 9.21.0.82 wheels). Each case
# cites its report, asserts what `which --python` / `doctor --python` (or `which PROGRAM`) says,
# RUNS the command printed (consumers[].fix_command, findings[].command) and shows the failure
# gone. pip commands run as printed; pip is pointed at the wheel cache (PIP_NO_INDEX,
# PIP_FIND_LINKS) so nothing is downloaded during a check. Where a report's copy sat in a system
# dir this machine's /etc cannot hold, LD_LIBRARY_PATH puts it first instead (said per case).
set -euo pipefail
SRC=/usr/local/cuda-13.0
[ -e "$SRC/lib64/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC"; exit 77; }
command -v python3 >/dev/null && command -v cc >/dev/null || exit 77
. "$(dirname "$0")/consumers_lib.sh"
TORCH=$(fetch "$C" 'torch-2.11.0-cp312-*.whl' torch==2.11.0 3.12 "${ML[@]}")
TF=$(fetch "$C" 'tensorflow-2.21.0-cp312-*.whl' tensorflow==2.21.0 3.12 "${ML[@]}")
JAXP=$(fetch "$C" 'jax_cuda13_plugin-0.10.2-*.whl' jax-cuda13-plugin==0.10.2 3.11 "${ML[@]}")
JAXR=$(fetch "$C" 'jax_cuda13_pjrt-0.10.2-*.whl' jax-cuda13-pjrt==0.10.2 3.12 "${ML[@]}")
ORT=$(fetch "$C" 'onnxruntime_gpu-1.31.1-*.whl' onnxruntime-gpu==1.31.1 3.11 "${ML[@]}")
W12=$(fetch "$W" 'nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl' nvidia-cudnn-cu12==9.1.0.70 3.10 manylinux2014_x86_64)
W12N=$(fetch "$W" 'nvidia_cudnn_cu12-9.27.0.42-*x86_64.whl' nvidia-cudnn-cu12==9.27.0.42 3.12 manylinux_2_27_x86_64)
W13=$(fetch "$W" 'nvidia_cudnn_cu13-9.19.0.56-*x86_64.whl' nvidia-cudnn-cu13==9.19.0.56 3.12 manylinux_2_27_x86_64)
W1320=$(fetch "$W" 'nvidia_cudnn_cu13-9.20.0.48-*x86_64.whl' nvidia-cudnn-cu13==9.20.0.48 3.12 manylinux_2_27_x86_64)
W1321=$(fetch "$W" 'nvidia_cudnn_cu13-9.21.0.82-*x86_64.whl' nvidia-cudnn-cu13==9.21.0.82 3.12 manylinux_2_27_x86_64)
for w in "$TORCH" "$TF" "$JAXP" "$JAXR" "$ORT" "$W12" "$W12N" "$W13" "$W1320" "$W1321"; do
    [ -n "$w" ] || { echo "a wheel is neither cached nor downloadable"; exit 77; }
done
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fails=0 REPORTS=()
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
report() { REPORTS+=("$1"); echo "== $1"; }
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$T/wheels PIP_DISABLE_PIP_VERSION_CHECK=1
mkdir -p "$T/wheels"; for w in "$W12N" "$W13"; do ln -f "$w" "$T/wheels/" 2>/dev/null || cp "$w" "$T/wheels/"; done
X12=$(unpack "$W12" nvidia/cudnn/lib/)/nvidia/cudnn/lib
X1320=$(unpack "$W1320" nvidia/cudnn/lib/ nvidia_cudnn_cu13-9.20.0.48.dist-info/METADATA)
X1321=$(unpack "$W1321" nvidia/cudnn/lib/libcudnn_engines_tensor_ir.so.9)/nvidia/cudnn/lib
XT=$(unpack "$TORCH" torch/__init__.py torch/version.py torch/lib/libtorch_cuda.so torch-2.11.0.dist-info/METADATA)
XJR=$(unpack "$JAXR" jax_plugins/xla_cuda13/ jax_cuda13_pjrt-0.10.2.dist-info/METADATA)
XJP=$(unpack "$JAXP" jax_cuda13_plugin/ jax_cuda13_plugin-0.10.2.dist-info/METADATA)
XTF=$(unpack "$TF" tensorflow/libtensorflow_framework.so.2 tensorflow/python/platform/build_info.py tensorflow-2.21.0.dist-info/METADATA)
XO=$(unpack "$ORT" onnxruntime/__init__.py onnxruntime/capi/libonnxruntime_providers_cuda.so onnxruntime/capi/build_and_package_info.py onnxruntime_gpu-1.31.1.dist-info/METADATA)
old91() { mkdir -p "$1"; for f in "$X12"/*.so.9; do ln -f "$f" "$1/" 2>/dev/null || cp "$f" "$1/"; done; }
torch_venv() { # torch_venv DIR: torch 2.11.0 + the 9.19 wheel; prints the python
    local s; s=$(venv "$1"); cudnn_wheel "$s"; link_tree "$XT" "$s"; echo "$1/bin/python"
}
# recheck PY JSON CONSUMER CMD [VAR=VALUE...]: run CMD, then which --python in that shell; CONSUMER's verdict
recheck() {
    local py=$1 out=$2 name=$3 cmd=$4; shift 4
    env "$@" bash -c "$cmd >/dev/null 2>&1; exec \"\$0\" which --python \"\$1\" --json" "$CUDNNCTL" "$py" >"$out" || true
    lib_of "$out" "$name" "c['verdict']"
}

# https://github.com/pytorch/pytorch/pull/80877 (torch's own message: "Looks like your LD_LIBRARY_PATH
# contains incompatible version of cudnn"): an older cuDNN dir on LD_LIBRARY_PATH under torch's wheel
report "pytorch/pytorch#80877: LD_LIBRARY_PATH holds an older cuDNN than torch's wheel"
PY=$(torch_venv "$T/t1"); old91 "$T/old"
rc=$(which_json "$PY" "$T/a.json" -u PYTHONPATH LD_LIBRARY_PATH="$T/old")
got=$(lib_of "$T/a.json" torch "c['verdict'], c['fix_command']")
echo "  which: $got (exit $rc)"
[[ "$got" == "mismatch unset LD_LIBRARY_PATH" ]] && [ "$rc" = 6 ] || fail "80877: $got"
[ "$(recheck "$PY" "$T/b.json" torch "$(lib_of "$T/a.json" torch "c['fix_command']")" -u PYTHONPATH LD_LIBRARY_PATH="$T/old")" = ok ] ||
    fail "80877: the fix did not clear it"

# https://github.com/pytorch/pytorch/issues/119989 (cuDNN sub-libraries from LD_LIBRARY_PATH under torch's
# own libcudnn.so.9): only an older libcudnn_graph.so.9 there, the other dirs of LD_LIBRARY_PATH kept
report "pytorch/pytorch#119989: an older libcudnn_graph.so.9 on LD_LIBRARY_PATH mixes torch's cuDNN"
mkdir -p "$T/g"; ln -f "$X12/libcudnn_graph.so.9" "$T/g/"
rc=$(which_json "$PY" "$T/a.json" -u PYTHONPATH LD_LIBRARY_PATH="$T/keep:$T/g")
got=$(lib_of "$T/a.json" torch "c['verdict'], c['fix_command']")
echo "  which: $got"
[ "$got" = "mismatch export LD_LIBRARY_PATH=$T/keep" ] || fail "119989: want the export without $T/g: $got"
[ "$(recheck "$PY" "$T/b.json" torch "$(lib_of "$T/a.json" torch "c['fix_command']")" -u PYTHONPATH LD_LIBRARY_PATH="$T/keep:$T/g")" = ok ] ||
    fail "119989: the fix did not clear it"

# https://github.com/pytorch/pytorch/issues/185512 (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH: the wheel's
# graph library asks for libcudnn_engines_tensor_ir.so.9, the wheel has none, the host's is another
# release; here NVIDIA's 9.20.0.48 wheel, which lacks it, and 9.21.0.82's tensor_ir on LD_LIBRARY_PATH;
# 9.27's would not even load against the 9.20 graph: four symbols it needs are not there)
report "pytorch/pytorch#185512: a host libcudnn_engines_tensor_ir.so.9 under a wheel that lacks it"
PY2=$(torch_venv "$T/t2"); S2=$("$PY2" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -rf "$S2"/nvidia/cudnn/lib/* "$S2"/nvidia_cudnn_cu13-9.19.0.56.dist-info
link_tree "$X1320" "$S2"; mkdir -p "$T/host"; ln -f "$X1321/libcudnn_engines_tensor_ir.so.9" "$T/host/"
rc=$(which_json "$PY2" "$T/a.json" -u PYTHONPATH LD_LIBRARY_PATH="$T/host")
got=$(lib_of "$T/a.json" torch "c['verdict'], any('SUBLIBRARY_VERSION_MISMATCH' in p and 'tensor_ir' in p for p in c['problems'])")
echo "  which: $got"
[ "$got" = "mismatch True" ] || fail "185512: want the tensor_ir mismatch: $got"
[ "$(recheck "$PY2" "$T/b.json" torch "$(lib_of "$T/a.json" torch "c['fix_command']")" -u PYTHONPATH LD_LIBRARY_PATH="$T/host")" = ok ] ||
    fail "185512: the fix did not clear it"

# https://github.com/pytorch/pytorch/issues/188892 (the same incomplete nvidia-cudnn-cu13 9.20.0.48, seen
# from a C++ program linked against the wheel's libcudnn.so.9 with an RPATH to it)
report "pytorch/pytorch#188892: a program on the 9.20.0.48 wheel meets a host tensor_ir"
cc -I"$SOURCE_DIR/tests/integration/loader" -o "$T/app" "$SOURCE_DIR/tests/integration/loader/front_subs.c" \
    -L"$X1320/nvidia/cudnn/lib" -l:libcudnn.so.9 -Wl,--disable-new-dtags,-rpath,"$X1320/nvidia/cudnn/lib"
set +e; LD_LIBRARY_PATH=$T/host "$CUDNNCTL" which "$T/app" --json >"$T/a.json"; rc=$?; set -e
cmd=$(lib_of "$T/a.json" "$T/app" "c['fix_command']")
echo "  which $T/app: exit $rc, fix: $cmd"
[ "$rc" = 6 ] && [ "$cmd" = "unset LD_LIBRARY_PATH" ] || fail "188892: want exit 6 and the LD_LIBRARY_PATH fix"
set +e; LD_LIBRARY_PATH=$T/host bash -c "$cmd; exec \"\$0\" which \"\$1\"" "$CUDNNCTL" "$T/app" >/dev/null; rc=$?; set -e
[ "$rc" = 0 ] || fail "188892: after the fix which still exits $rc"

# https://github.com/koharu-rs/koharu/issues/694 (a bundled cuDNN 9.21 with a system 9.22 that has the
# unversioned .so names: "LD_LIBRARY_PATH workaround did not resolve"): a program with an RPATH to the
# 9.19 wheel layout, NVIDIA's 9.1.0 with .so names first on LD_LIBRARY_PATH. Checked against the
# real loader: cuDNN's own version check in the program (front_subs.c)
report "koharu-rs/koharu#694: a bundled cuDNN, another release with unversioned names first"
mkdir -p "$T/bundle" "$T/sys"; for f in "$SRC"/lib64/libcudnn*.so.9; do ln -f "$f" "$T/bundle/"; done
for f in "$X12"/*.so.9; do b=$(basename "$f" .so.9); ln -f "$f" "$T/sys/"; ln -sf "$b.so.9" "$T/sys/$b.so"; done
cc -I"$SOURCE_DIR/tests/integration/loader" -o "$T/app2" "$SOURCE_DIR/tests/integration/loader/front_subs.c" \
    -L"$T/bundle" -l:libcudnn.so.9 -Wl,--disable-new-dtags,-rpath,"$T/bundle"
set +e; LD_LIBRARY_PATH=$T/sys "$T/app2" >"$T/real.txt" 2>&1; real=$?
LD_LIBRARY_PATH=$T/sys "$CUDNNCTL" which "$T/app2" --json >"$T/a.json"; rc=$?; set -e
echo "  real: $(head -1 "$T/real.txt") (exit $real); which exit $rc"
[ "$rc" = 6 ] || fail "koharu: which must say mismatch"
grep -q '^version 90100' "$T/real.txt" || fail "koharu: the control: cuDNN reports the other release"
cmd=$(lib_of "$T/a.json" "$T/app2" "c['fix_command']")
set +e; env LD_LIBRARY_PATH="$T/sys" bash -c "$cmd; exec \"\$0\"" "$T/app2" | grep -q '^version 91900'; fixed=$?
LD_LIBRARY_PATH=$T/sys bash -c "$cmd; exec \"\$0\" which \"\$1\"" "$CUDNNCTL" "$T/app2" >/dev/null; rc=$?; set -e
[ "$fixed" = 0 ] && [ "$rc" = 0 ] || fail "koharu: after '$cmd' the program reports 9.19 and which exits 0"

# https://github.com/tensorflow/tensorflow/issues/60913 ("Loaded runtime CuDNN library: 9.1.0 but source
# was compiled with: 9.3.0"): TensorFlow 2.21 (Requires-Dist nvidia-cudnn-cu12>=9.3.0.75) with the
# nvidia-cudnn-cu12 9.1.0.70 wheel in its venv (its RUNPATH finds it)
report "tensorflow/tensorflow#60913: TensorFlow with an older nvidia-cudnn-cu12 wheel"
python3 -m venv "$T/tf" >/dev/null; STF=$("$T/tf/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
link_tree "$XTF" "$STF"; mkdir -p "$STF/nvidia/cudnn/lib" "$STF/nvidia_cudnn_cu12-9.1.0.70.dist-info"; old91 "$STF/nvidia/cudnn/lib"
printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu12\nVersion: 9.1.0.70\n' >"$STF/nvidia_cudnn_cu12-9.1.0.70.dist-info/METADATA"
: >"$STF/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD"
# TensorFlow[and-cuda] brings cuBLAS too: the dependency nvidia-cudnn-cu12 declares is installed
mkdir -p "$STF/nvidia_cublas_cu12-12.9.1.4.dist-info"; : >"$STF/nvidia_cublas_cu12-12.9.1.4.dist-info/RECORD"
printf 'Metadata-Version: 2.1\nName: nvidia-cublas-cu12\nVersion: 12.9.1.4\n' >"$STF/nvidia_cublas_cu12-12.9.1.4.dist-info/METADATA"
rc=$(which_json "$T/tf/bin/python" "$T/a.json" -u PYTHONPATH -u LD_LIBRARY_PATH)
got=$(lib_of "$T/a.json" tensorflow "c['verdict'], l.get('version'), c['fix_command']")
echo "  which: $got"
[[ "$got" == "mismatch 9.1.0.70 "*"-m pip install 'nvidia-cudnn-cu12<10.0,>=9.3.0.75'" ]] || fail "60913: $got"
[ "$(recheck "$T/tf/bin/python" "$T/b.json" tensorflow "$(lib_of "$T/a.json" tensorflow "c['fix_command']")" -u PYTHONPATH -u LD_LIBRARY_PATH)" = ok ] ||
    fail "60913: after pip installed a cuDNN >= 9.3 TensorFlow is still not ok"

# https://github.com/conda-forge/jaxlib-feedstock/issues/329 ("Loaded runtime CuDNN library: 9.10.1 but
# source was compiled with: 9.13.1", a conda env): jax's plugins preload the venv's 9.19 wheel, the
# env's lib dir on LD_LIBRARY_PATH holds an older cuDNN that its sub-libraries come from
report "conda-forge/jaxlib-feedstock#329: jax with an older cuDNN on LD_LIBRARY_PATH (conda env lib)"
SJ=$(venv "$T/j"); cudnn_wheel "$SJ"; link_tree "$XJR" "$SJ"; link_tree "$XJP" "$SJ"; old91 "$T/conda/lib"
rc=$(which_json "$T/j/bin/python" "$T/a.json" -u PYTHONPATH LD_LIBRARY_PATH="$T/conda/lib")
got=$(lib_of "$T/a.json" jax_cuda13_pjrt "c['verdict'], l.get('rule')")
echo "  which: $got"
[ "$got" = "mismatch path" ] || fail "329: want jax's preload and a mix: $got"
[ "$(recheck "$T/j/bin/python" "$T/b.json" jax_cuda13_pjrt "$(lib_of "$T/a.json" jax_cuda13_pjrt "c['fix_command']")" -u PYTHONPATH LD_LIBRARY_PATH="$T/conda/lib")" != mismatch ] ||
    fail "329: the fix did not clear it"

# https://github.com/jax-ml/jax/issues/15268 ("Is there an older CuDNN somewhere on your system?"): an
# older nvidia-cudnn wheel earlier on sys.path, where jax's _load_nvidia_libraries imports nvidia.cudnn
# (the plugin is the consumer that states its cuDNN requirement; the pjrt package states none)
report "jax-ml/jax#15268: an older cuDNN wheel earlier on sys.path"
mkdir -p "$T/early/nvidia/cudnn/lib"; : >"$T/early/nvidia/__init__.py"; : >"$T/early/nvidia/cudnn/__init__.py"; old91 "$T/early/nvidia/cudnn/lib"
rc=$(which_json "$T/j/bin/python" "$T/a.json" -u LD_LIBRARY_PATH PYTHONPATH="$T/early")
got=$(lib_of "$T/a.json" jax_cuda13_plugin "l.get('version'), c['fix_command']")
echo "  which: $got"
[ "$got" = "9.1.0.70 unset PYTHONPATH" ] || fail "15268: $got"
[ "$(recheck "$T/j/bin/python" "$T/b.json" jax_cuda13_plugin "unset PYTHONPATH" -u LD_LIBRARY_PATH PYTHONPATH="$T/early")" != mismatch ] ||
    fail "15268: the fix did not clear it"

# https://github.com/mav-rik/facerestore_cf/issues/27 (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, fixed by
# reinstalling nvidia-cudnn-cu12): the wheel's graph library replaced by another release's behind pip's back
report "mav-rik/facerestore_cf#27: files of the nvidia-cudnn wheel replaced behind pip's back"
python3 -m venv "$T/t3" >/dev/null; S3=$("$T/t3/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cudnn_wheel "$S3"; link_tree "$XT" "$S3"; : >"$S3/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD"
rm -f "$S3/nvidia/cudnn/lib/libcudnn_graph.so.9"; cp "$X12/libcudnn_graph.so.9" "$S3/nvidia/cudnn/lib/"
rc=$(which_json "$T/t3/bin/python" "$T/a.json" -u PYTHONPATH -u LD_LIBRARY_PATH)
cmd=$(lib_of "$T/a.json" torch "c['fix_command']")
echo "  which: $(lib_of "$T/a.json" torch "c['verdict']"), fix: $cmd"
[[ "$cmd" == *"-m pip install --force-reinstall --no-deps 'nvidia-cudnn-cu13==9.19.0.56'" ]] || fail "facerestore#27: $cmd"
[ "$(recheck "$T/t3/bin/python" "$T/b.json" torch "$cmd" -u PYTHONPATH -u LD_LIBRARY_PATH)" = ok ] ||
    fail "facerestore#27: after the reinstall torch is still not ok"

# https://github.com/memoavatar/memo/issues/13 (onnxruntime: "libcudnn_adv.so.9: cannot open shared object
# file"): the wheel's libcudnn_adv.so.9 is gone; doctor names it and the wheel's reinstall
report "memoavatar/memo#13: a sub-library missing from the nvidia-cudnn wheel"
rm -f "$S3/nvidia/cudnn/lib/libcudnn_adv.so.9"
env -u LD_LIBRARY_PATH VIRTUAL_ENV="$T/t3" "$CUDNNCTL" doctor --json >"$T/d.json" || true
cmd=$(python3 -c '
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["code"] == "CUDNN_SUBLIB_MISSING" and "site-packages" in (f["path"] or "")]
print(f[0]["command"] if f else "")' "$T/d.json")
echo "  doctor: CUDNN_SUBLIB_MISSING, fix: $cmd"
[[ "$cmd" == *"-m pip install --force-reinstall --no-deps 'nvidia-cudnn-cu13==9.19.0.56'" ]] || fail "memo#13: $cmd"
env -u LD_LIBRARY_PATH VIRTUAL_ENV="$T/t3" bash -c "$cmd >/dev/null 2>&1; exec \"\$0\" doctor --json" "$CUDNNCTL" >"$T/d2.json" || true
python3 -c '
import json, sys
sys.exit(any(f["code"] == "CUDNN_SUBLIB_MISSING" and "site-packages" in (f["path"] or "") for f in json.load(open(sys.argv[1]))["findings"]))' "$T/d2.json" ||
    fail "memo#13: CUDNN_SUBLIB_MISSING still reported after the reinstall"

# https://github.com/microsoft/onnxruntime/issues/25609 (CUDAExecutionProvider fails although
# nvidia-cudnn-cu12 is installed: the provider does not search the wheel): the preload_dlls note is
# there, and the copy the provider finds here is the machine's, not the wheel's
report "microsoft/onnxruntime#25609: the nvidia-cudnn wheel installed, not searched by the provider"
SO=$(venv "$T/o"); cudnn_wheel "$SO"; link_tree "$XO" "$SO"
rc=$(which_json "$T/o/bin/python" "$T/a.json" -u PYTHONPATH -u LD_LIBRARY_PATH)
got=$(lib_of "$T/a.json" onnxruntime_gpu "l.get('path','').startswith('$SO'), any('preload_dlls' in n for n in c['notes'])")
echo "  which: provider takes the wheel itself: ${got% *}; preload_dlls named: ${got#* }"
[ "$got" = "False True" ] || fail "25609: $got"

echo "${#REPORTS[@]} reports rebuilt"
[ "$fails" = 0 ]
