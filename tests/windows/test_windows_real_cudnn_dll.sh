#!/usr/bin/env bash
# test_windows_real_cudnn_dll.sh: NVIDIA's real Windows cuDNN DLLs (the nvidia-cudnn-cu12 9.1.0.70
# win_amd64 wheel from PyPI, cached outside the clone) placed in a fake
# C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin inside the wine prefix and loaded by
# absolute path through the platform layer (LoadLibraryExW, 0x1100 search flags):
#  - cudnn64_9.dll loads and cudnnGetVersion() equals the version in the wheel's cudnn_version.h,
#    and the loaded-modules list names the file in the fake tree;
#  - cudnn_cnn64_9.dll fails with error 126 because its dependency cudnn_ops64_9.dll is absent
#    (cudnn_graph64_9.dll beside it is found: the DLL's own directory is searched);
#  - a zlibwapi.dll that is no 64-bit PE fails with error 193 (the seeds' zlibwapi failure).
# Runs under scripts/test-windows.sh (WINE, WINEPREFIX, DLCHECK set by CTest).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${DLCHECK:?}"

. "$(dirname "${BASH_SOURCE[0]}")/cudnn_wheel.sh"

TREE_WIN='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4'
TREE="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4"
mkdir -p "$TREE/bin"
cleanup() { rm -rf "$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit"; }
trap cleanup EXIT

python3 - "$WHL" "$TREE/bin" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll", "cudnn_cnn64_9.dll"):
    open(f"{sys.argv[2]}/{n}", "wb").write(z.read(f"nvidia/cudnn/bin/{n}"))
open(f"{sys.argv[2]}/cudnn_version.h", "wb").write(z.read("nvidia/cudnn/include/cudnn_version.h"))
PY
want=$(awk '/#define CUDNN_MAJOR/{a=$3} /#define CUDNN_MINOR/{b=$3} /#define CUDNN_PATCHLEVEL/{c=$3}
            END{print a*10000+b*100+c}' "$TREE/bin/cudnn_version.h")
printf 'MZ this is not a 64-bit PE image\n' >"$TREE/bin/zlibwapi.dll"

# 1. The tree's bin not on PATH: cudnn64_9.dll loads by absolute path, but its first call looks for
#    cudnn_graph64_9.dll through the standard search (not beside itself) and NVIDIA's shim ends the
#    process: the "sub-DLL not found" failure mode that the bin dirs on PATH fix.
set +e
out=$("$WINE" "$DLCHECK" "$TREE_WIN\\bin\\cudnn64_9.dll" 2>"$TREE/stderr" | tr -d '\r')
rc=$?
set -e
echo "$out"; tr -d '\r' <"$TREE/stderr"
grep -qiF "loaded $TREE_WIN\\bin\\cudnn64_9.dll from=$TREE_WIN\\bin\\cudnn64_9.dll" <<<"$out" ||
  { echo "FAIL: cudnn64_9.dll did not load from the fake tree by absolute path"; exit 1; }
[ "$rc" -ne 0 ] || { echo "FAIL: without the bin dir on PATH the call should have failed"; exit 1; }
grep -q "cudnn_graph64_9.dll" "$TREE/stderr" ||
  { echo "FAIL: NVIDIA's message about cudnn_graph64_9.dll is missing"; exit 1; }
if grep -q '^cudnnGetVersion=' <<<"$out"; then echo "FAIL: got a version without the sub-DLL"; exit 1; fi

# 2. With the bin dir on PATH (WINEPATH is prepended to the Windows PATH): the version, the sub-DLL
#    from the same tree, error 126 for cudnn_cnn64_9.dll (cudnn_ops64_9.dll absent), 193 for zlibwapi.
set +e
out=$(WINEPATH="$TREE_WIN\\bin" "$WINE" "$DLCHECK" "$TREE_WIN\\bin\\cudnn64_9.dll" \
        "$TREE_WIN\\bin\\cudnn_cnn64_9.dll" "$TREE_WIN\\bin\\zlibwapi.dll" 2>/dev/null | tr -d '\r')
rc=$?
set -e
echo "$out"
[ "$rc" -eq 2 ] || { echo "FAIL: win_dlcheck exit $rc, want 2 (two DLLs must fail)"; exit 1; }
grep -qx "cudnnGetVersion=$want" <<<"$out" ||
  { echo "FAIL: cudnnGetVersion is not $want (cudnn_version.h of the wheel)"; exit 1; }
grep -qiF "$TREE_WIN\\bin\\cudnn_graph64_9.dll" <<<"$(grep -m1 '^modules=' <<<"$out")" ||
  { echo "FAIL: cudnn_graph64_9.dll was not loaded from the fake tree"; exit 1; }
line=$(grep 'cudnn_cnn64_9\.dll' <<<"$out")
grep -q '^fail .* NOT_FOUND .*error 126' <<<"$line" ||
  { echo "FAIL: cudnn_cnn64_9.dll without cudnn_ops64_9.dll must fail with error 126: $line"; exit 1; }
line=$(grep 'zlibwapi\.dll' <<<"$out")
grep -q '^fail .* LOAD .*error 193' <<<"$line" ||
  { echo "FAIL: a non-PE zlibwapi.dll must fail with error 193: $line"; exit 1; }

echo "ok: real cudnn64_9.dll $VER under wine: cudnnGetVersion=$want with bin on PATH, sub-DLL failure without; 126 and 193 reported"
