#!/usr/bin/env bash
# The consumers' own loaders (issue 20): what torch, jax's CUDA plugins, NVIDIA's cudnn-frontend,
# onnxruntime-gpu and cupy load by their own Python code, modelled from that code as installed —
# real package files from PyPI (pip download into a cache outside the clone, unpacked, READ: no
# framework is ever imported). cuDNN itself is the machine's real 9.19 in NVIDIA's wheel layout,
# and NVIDIA's nvidia-cudnn-cu12 9.1.0.70 / nvidia-cudnn-cu11 8.9.6.50 wheel files.
#   torch 2.11.0      torch/__init__.py: _load_global_deps() always calls _preload_cuda_deps():
#                     the first sys.path entry's nvidia/cudnn/lib/libcudnn.so.*[0-9] by path; with
#                     an older cuDNN wheel earlier on sys.path (PYTHONPATH) torch takes that one,
#                     and the fix is PYTHONPATH without it (not pip: the wheel is installed)
#   jax 0.10.2        jax_plugins/xla_cuda13/__init__.py: _load("cudnn", ["libcudnn.so.9"]) from
#                     the nvidia.cudnn package on sys.path, for the plugin and the pjrt consumer
#   cudnn-frontend    1.32.0: each LD_LIBRARY_PATH dir's libcudnn.so.9 first (the H200's "two
#                     libcudnn.so.9 in one process"); 1.16.0: purelib's wheel first
#   onnxruntime-gpu   1.31.1: the provider finds cuDNN only through the loader (no RUNPATH, no
#                     DT_NEEDED); onnxruntime.preload_dlls() is named as the opt-in
#   cupy-cuda12x 13.6 cupy/.data/_wheel.json names cuDNN 8.8.1: `libcudnn.so.8.8.1` by name, then
#                     the extension cudnn.cpython-312-x86_64-linux-gnu.so's DT_NEEDED libcudnn.so.8
set -euo pipefail
SRC=/usr/local/cuda-13.0
[ -e "$SRC/lib64/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC"; exit 77; }
command -v python3 >/dev/null || exit 77
. "$(dirname "$0")/consumers_lib.sh"
TORCH=$(fetch "$C" 'torch-2.11.0-cp312-*.whl' torch==2.11.0 3.12 "${ML[@]}")
JAXP=$(fetch "$C" 'jax_cuda13_plugin-0.10.2-*.whl' jax-cuda13-plugin==0.10.2 3.11 "${ML[@]}")
JAXR=$(fetch "$C" 'jax_cuda13_pjrt-0.10.2-*.whl' jax-cuda13-pjrt==0.10.2 3.12 "${ML[@]}")
FE32=$(fetch "$C" 'nvidia_cudnn_frontend-1.32.0-*.whl' nvidia-cudnn-frontend==1.32.0 3.12 "${ML[@]}")
FE16=$(fetch "$C" 'nvidia_cudnn_frontend-1.16.0-*.whl' nvidia-cudnn-frontend==1.16.0 3.12 "${ML[@]}")
ORT=$(fetch "$C" 'onnxruntime_gpu-1.31.1-*.whl' onnxruntime-gpu==1.31.1 3.11 "${ML[@]}")
CUPY=$(fetch "$C" 'cupy_cuda12x-13.6.0-cp312-*.whl' cupy-cuda12x==13.6.0 3.12 "${ML[@]}")
W12=$(fetch "$W" 'nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl' nvidia-cudnn-cu12==9.1.0.70 3.10 manylinux2014_x86_64)
W8=$(fetch "$W" 'nvidia_cudnn_cu11-8.9.6.50-*manylinux*.whl' nvidia-cudnn-cu11==8.9.6.50 3.10 manylinux1_x86_64)
for w in "$TORCH" "$JAXP" "$JAXR" "$FE32" "$FE16" "$ORT" "$CUPY" "$W12" "$W8"; do
    [ -n "$w" ] || { echo "a wheel is neither cached nor downloadable"; exit 77; }
done
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# ---- torch 2.11.0 and jax 0.10.2 in one venv, with the 9.19 wheel ------------------------------
S=$(venv "$T/v1"); PY=$T/v1/bin/python
cudnn_wheel "$S"
X=$(unpack "$TORCH" torch/__init__.py torch/version.py torch/lib/libtorch_cuda.so torch-2.11.0.dist-info/METADATA)
link_tree "$X" "$S"
X=$(unpack "$JAXR" jax_plugins/xla_cuda13/ jax_cuda13_pjrt-0.10.2.dist-info/METADATA); link_tree "$X" "$S"
X=$(unpack "$JAXP" jax_cuda13_plugin/ jax_cuda13_plugin-0.10.2.dist-info/METADATA); link_tree "$X" "$S"
rc=$(which_json "$PY" "$T/w1.json" -u LD_LIBRARY_PATH -u PYTHONPATH)
for n in torch jax_cuda13_pjrt jax_cuda13_plugin; do
    got=$(lib_of "$T/w1.json" $n "l.get('rule'), l.get('path','').endswith('/nvidia/cudnn/lib/libcudnn.so.9'), c['verdict']")
    why=$(lib_of "$T/w1.json" $n "l.get('why','')[:90]")
    echo "$n: $got | $why"
    case $n in
    torch) [ "$got" = "path True ok" ] && [[ "$why" == *_preload_cuda_deps* ]] || fail "torch: preload by path from the wheel: $got" ;;
    jax_cuda13_pjrt) [[ "$got" == "path True "* ]] && [[ "$why" == *_load_nvidia_libraries* ]] || fail "$n: preload by path: $got" ;;
    *) [[ "$got" == "path True "* ]] || fail "$n: preload by path: $got" ;;
    esac
done
[ "$rc" = 0 ] || fail "which exit $rc with the wheel in place"
# an older cuDNN wheel earlier on sys.path (PYTHONPATH): torch's and jax's code take it
mkdir -p "$T/early"
X=$(unpack "$W12" nvidia/cudnn/lib/ nvidia/cudnn/__init__.py nvidia/__init__.py)
link_tree "$X" "$T/early"; : >"$T/early/nvidia/cudnn/__init__.py"
rc=$(which_json "$PY" "$T/w2.json" -u LD_LIBRARY_PATH PYTHONPATH="$T/early")
got=$(lib_of "$T/w2.json" torch "l.get('path','').startswith('$T/early/'), l.get('version'), c['verdict'], c['fix_command']")
echo "torch with PYTHONPATH=$T/early: $got (exit $rc)"
[[ "$got" == "True 9.1.0.70 mismatch export PYTHONPATH="* || "$got" == "True 9.1.0.70 mismatch unset PYTHONPATH" ]] ||
    fail "torch must take the earlier sys.path entry's 9.1.0 and name PYTHONPATH as the fix: $got"
case $(lib_of "$T/w2.json" torch "c['fix'] or ''") in *"pip install"*) fail "torch: no pip install for an installed wheel" ;; esac
got=$(lib_of "$T/w2.json" jax_cuda13_pjrt "l.get('path','').startswith('$T/early/')")
[ "$got" = True ] || fail "jax pjrt: nvidia.cudnn is imported from the first sys.path entry: $got"
cmd=$(lib_of "$T/w2.json" torch "c['fix_command']")
rc=$(env -u LD_LIBRARY_PATH PYTHONPATH="$T/early" bash -c "$cmd; \"$CUDNNCTL\" which --python \"$PY\" --json" >"$T/w3.json"; echo $?)
got=$(lib_of "$T/w3.json" torch "c['verdict']")
echo "after '$cmd': torch $got"
[ "$got" = ok ] || fail "the printed fix did not clear torch's mismatch"

# ---- cudnn-frontend: 1.32.0 takes LD_LIBRARY_PATH's copy first, 1.16.0 the wheel -------------
mkdir -p "$T/llp"; for f in "$SRC"/lib64/libcudnn*.so.9; do ln -f "$f" "$T/llp/" 2>/dev/null || cp "$f" "$T/llp/"; done
for fe in "$FE32" "$FE16"; do
    v=$(basename "$fe" | cut -d- -f2)
    S2=$(venv "$T/fe$v"); cudnn_wheel "$S2"
    X=$(unpack "$fe" cudnn/__init__.py cudnn/_compiled_module "nvidia_cudnn_frontend-$v.dist-info/METADATA")
    link_tree "$X" "$S2"
    rc=$(which_json "$T/fe$v/bin/python" "$T/f.json" -u PYTHONPATH LD_LIBRARY_PATH="$T/llp")
    got=$(lib_of "$T/f.json" nvidia_cudnn_frontend "l.get('rule'), l.get('path')")
    echo "cudnn-frontend $v with LD_LIBRARY_PATH=$T/llp: $got"
    if [ "$v" = 1.32.0 ]; then
        [ "$got" = "path $T/llp/libcudnn.so.9" ] || fail "frontend 1.32: LD_LIBRARY_PATH's copy first: $got"
    else
        [ "$got" = "path $S2/nvidia/cudnn/lib/libcudnn.so.9" ] || fail "frontend 1.16: the wheel first: $got"
    fi
done

# ---- onnxruntime-gpu: no RUNPATH; the wheel installed but not searched -------------------------
S3=$(venv "$T/ort"); cudnn_wheel "$S3"
X=$(unpack "$ORT" onnxruntime/__init__.py onnxruntime/capi/libonnxruntime_providers_cuda.so \
    onnxruntime/capi/build_and_package_info.py onnxruntime_gpu-1.31.1.dist-info/METADATA)
link_tree "$X" "$S3"
rc=$(which_json "$T/ort/bin/python" "$T/o.json" -u LD_LIBRARY_PATH -u PYTHONPATH)
note=$(lib_of "$T/o.json" onnxruntime_gpu "' '.join(c['notes'])")
[[ "$note" == *"onnxruntime.preload_dlls()"*"$S3/nvidia/cudnn/lib/libcudnn.so.9"* ]] || fail "onnxruntime: the preload_dlls note: $note"
got=$(lib_of "$T/o.json" onnxruntime_gpu "l.get('rule')")
echo "onnxruntime-gpu 1.31.1: libcudnn.so.9 by $got (the provider has no RUNPATH); note: ${note:0:100}"
[ "$got" != path ] && [ "$got" != runpath ] || fail "onnxruntime: the provider must not be said to find the wheel itself"

# ---- cupy-cuda12x 13.6.0: _wheel.json's cuDNN 8.8.1 by name, then the extension's NEEDED ----
S4=$(venv "$T/cupy")
X=$(unpack "$CUPY" cupy/_environment.py cupy/.data/_wheel.json cupy_backends/cuda/libs/cudnn. cupy_cuda12x-13.6.0.dist-info/METADATA)
link_tree "$X" "$S4"
X8=$(unpack "$W8" nvidia/cudnn/lib/)
rc=$(which_json "$T/cupy/bin/python" "$T/c.json" -u PYTHONPATH LD_LIBRARY_PATH="$X8/nvidia/cudnn/lib" HOME="$T/home")
got=$(lib_of "$T/c.json" cupy_cuda12x "c['extension'].rsplit('/',1)[-1], l.get('soname'), l.get('path'), l.get('version')")
echo "cupy-cuda12x 13.6.0: $got"
[[ "$got" == "cudnn.cpython-312-x86_64-linux-gnu.so libcudnn.so.8 $X8/nvidia/cudnn/lib/libcudnn.so.8 8.9.6.50" ]] ||
    fail "cupy: libcudnn.so.8.8.1 is found nowhere, so the extension's own libcudnn.so.8: $got"
[ "$fails" = 0 ]
