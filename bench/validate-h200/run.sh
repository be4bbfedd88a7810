#!/usr/bin/env bash
# run.sh: the validate issue's device run (H200): validate the deb cuDNN 9.14, the 9.19 wheel and a
# prefix in NVIDIA's tarball layout; show the child's scrubbed LD_LIBRARY_PATH and a missing
# sub-library on real files; time validate against the seeds' PyTorch check.
set -u
D=$(cd "$(dirname "$0")" && pwd)
BIN=$D/bin/cudnnctl
O=${OUT:-/tmp/out}; mkdir -p "$O"
S=$O/summary.txt
say() { echo; echo "===== $*"; }
CUDA=${CUDA:-/usr/local/cuda-13.0}
DEB=${DEB:-/usr/lib/x86_64-linux-gnu}
main() {

say machine
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
uname -r; grep PRETTY /etc/os-release; python3 -V; ldd --version | head -1
cat /proc/driver/nvidia/version 2>&1 | head -2
ls -l $DEB/libcudnn*.so* 2>&1 | head -30
ls -ld $CUDA $CUDA/lib64 2>&1; ls $CUDA/lib64/ | grep -E "^lib(cudart|cublas|cublasLt|nvrtc)\.so" | tr '\n' ' '; echo
ls -l /usr/include/x86_64-linux-gnu/cudnn_version* /usr/include/cudnn_version* 2>&1
WHEEL=${WHEEL:-$(python3 -c 'import nvidia.cudnn,os;print(list(nvidia.cudnn.__path__)[0])')}
echo "WHEEL=$WHEEL"; ls -l "$WHEEL/lib" "$WHEEL/include" | head -30; ls "$WHEEL/.." | tr '\n' ' '; echo
ldd "$BIN"

v() { # NAME ARGS...: JSON to $O/NAME.json, human table to the summary
    local name=$1; shift
    "$BIN" validate "$@" --timeout 120 --json >"$O/$name.json" 2>"$O/$name.err"; echo "[$name json] exit $?"; cat "$O/$name.err"; rm -f "$O/$name.err"
    "$BIN" validate "$@" --timeout 120; echo "[$name human] exit $?"
}

say "(a) deb cuDNN 9.14 in $DEB, toolkit $CUDA"
v a $DEB --cuda-home $CUDA
say "(b) 9.19 wheel $WHEEL (CUDA from its sibling wheels)"
v b "$WHEEL"

say "(c') prefix in NVIDIA's tarball layout, files copied from the 9.19 wheel (cudnnctl install --archive not in main yet)"
P=/tmp/pfx; R=$P/cudnn-9.19.0.56-cuda13; rm -rf $P; mkdir -p $R/lib $R/include
for f in "$WHEEL"/lib/libcudnn*.so.9; do b=$(basename "$f" .so.9); cp "$f" "$R/lib/$b.so.9.19.0"; ln -s "$b.so.9.19.0" "$R/lib/$b.so.9"; ln -s "$b.so.9" "$R/lib/$b.so"; done
cp "$WHEEL"/include/cudnn*.h $R/include/; ln -s cudnn-9.19.0.56-cuda13 $P/current; ls -l $R/lib | head -12
v c $P --cuda-home $CUDA

say "LD_LIBRARY_PATH=$DEB (the deb 9.14) around validate of the 9.19 wheel: must not reach the child"
echo "control, no scrub (python ctypes, LD_LIBRARY_PATH=$DEB):"
LD_LIBRARY_PATH=$DEB python3 -c "
import ctypes; l = ctypes.CDLL('$WHEEL/lib/libcudnn.so.9'); l.cudnnGraphVersionCheck(); l.cudnnGetVersion.restype = ctypes.c_size_t
print('cudnnGetVersion', l.cudnnGetVersion()); print([x.split()[-1] for x in open('/proc/self/maps') if 'libcudnn' in x and 'r-xp' in x])"
LD_LIBRARY_PATH=$DEB "$BIN" validate "$WHEEL" --timeout 120 --json >"$O/ldpath.json"; echo "[ldpath] exit $?"
python3 -c "import json; r=json.load(open('$O/ldpath.json')); print(r['status'], 'child LD_LIBRARY_PATH:', r['child_ld_library_path']); print('\n'.join(r['loaded_from']))"

say "missing sub-library: prefix without libcudnn_ops (the loader falls back to ld.so.cache → deb 9.14)"
M=/tmp/pfx-missing; rm -rf $M; mkdir -p $M/lib; for f in $R/lib/libcudnn*; do ln -s "$f" $M/lib/; done; rm $M/lib/libcudnn_ops*
"$BIN" validate $M --cuda-home $CUDA --timeout 120 --json >"$O/missing.json"; echo "[missing json] exit $?"
"$BIN" validate $M --cuda-home $CUDA --timeout 120; echo "[missing human] exit $?"

say "detect --json"
"$BIN" detect --json >"$O/detect.txt" 2>&1; echo "[detect] exit $?"; cat "$O/detect.txt"

say "timing: validate (wheel) vs the seeds' PyTorch check, 1 warm-up each + 5 interleaved rounds"
python3 "$D/timing.py" "$BIN" "$WHEEL" 5 "$O/timing.json"
if [ -x /usr/bin/time ]; then
    say "/usr/bin/time -v, once each"
    /usr/bin/time -v "$BIN" validate "$WHEEL" --json 2>&1 >/dev/null | grep -E "Elapsed|Maximum resident"
    /usr/bin/time -v python3 "$D/torch_check.py" 2>&1 | grep -E "Elapsed|Maximum resident|torch"
else
    echo "/usr/bin/time not installed: wall/RSS from wait4() in timing.json only"
fi
say done
}
main 2>&1 | tee "$S"
