#!/usr/bin/env bash
# test_windows_dll_order.sh: the Windows DLL search order, modelled (`cudnnctl which --dll NAME`,
# docs/which.md) against Wine's real LoadLibrary (`cudnnctl __load-probe NAME`, which loads the
# plain name with the standard search and names the module file it got), with NVIDIA's real
# cudnn64_9.dll (the nvidia-cudnn-cu12 9.1.0.70 win_amd64 wheel, cached outside the clone):
#  1. two copies on PATH (WINEPATH): the first PATH entry wins, in both;
#  2. a copy beside the program: the application dir wins over PATH, in both;
#  3. none anywhere: both say not found.
# Runs under scripts/test-windows.sh (WINE, WINEPREFIX set by CTest).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}"
. "$(dirname "${BASH_SOURCE[0]}")/cudnn_wheel.sh"

D="$WINEPREFIX/drive_c/cudnnctl-dll"; DW='C:\cudnnctl-dll'
rm -rf "$D"; mkdir -p "$D/app" "$D/a" "$D/b" "$D/none"
trap 'rm -rf "$D"' EXIT
python3 - "$WHL" "$D/a" "$D/b" <<'PY'
import sys, zipfile
data = zipfile.ZipFile(sys.argv[1]).read("nvidia/cudnn/bin/cudnn64_9.dll")
for d in sys.argv[2:]:
    open(f"{d}/cudnn64_9.dll", "wb").write(data)
PY
cp "$CUDNNCTL" "$D/app/cudnnctl.exe"
EXE="$D/app/cudnnctl.exe"
fails=0
norm() { tr -d '\r' | tr 'A-Z/' 'a-z\\'; }
check() { # check NAME WINEPATH WANT(substring, lower case, or "none")
    local name=$1 wp=$2 want=$3 real model
    real=$(WINEPATH="$wp" "$WINE" "$EXE" __load-probe cudnn64_9.dll 2>/dev/null | norm |
           sed -n 's/^cudnnctl-load: cudnn64_9.dll //p' || true)
    model=$(WINEPATH="$wp" "$WINE" "$EXE" which --dll cudnn64_9.dll --json 2>/dev/null | tr -d '\r' |
            python3 -c 'import json,sys; r=json.load(sys.stdin); print((r["path"] or "none") + " " + r["rule"])' ||
            true)  # which exits 6 when nothing is found
    local mpath=${model% *}; mpath=$(norm <<<"$mpath")
    [[ "$real" == "- "* ]] && real=none
    if [ "$mpath" = "$real" ] && [[ "$real" == *"$want"* ]]; then
        echo "ok   case $name (PATH+=$wp): real '$real' = model '$model'"
    else
        echo "FAIL case $name (PATH+=$wp): real '$real', model '$model', want '*$want*'"; fails=$((fails + 1))
    fi
}
check path-order "$DW\\b;$DW\\a" 'c:\cudnnctl-dll\b\cudnn64_9.dll'
cp "$D/a/cudnn64_9.dll" "$D/app/"
check app-dir "$DW\\b;$DW\\a" 'c:\cudnnctl-dll\app\cudnn64_9.dll'
rm "$D/app/cudnn64_9.dll"
check not-found "$DW\\none" none
[ "$fails" -eq 0 ]
