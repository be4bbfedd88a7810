#!/usr/bin/env bash
# test_windows_doctor.sh: `cudnnctl.exe doctor --json` natively under wine on two cuDNN 9.1 copies:
#  - a complete one in the CUDA 12.4 tree's bin (cudnn64_9.dll, cudnn_graph64_9.dll and the six
#    sub-DLLs, a 64-bit zlibwapi.dll beside them): no CUDNN_INCOMPLETE / CUDNN_SUBLIB_MISSING /
#    zlibwapi finding for it (the checks use the Windows DLL names of the host profile, not
#    libcudnn.so.9);
#  - an incomplete one from NVIDIA's graphical installer (CUDNN\v9.1\bin\12.4: cudnn64_9.dll only,
#    no zlibwapi.dll): CUDNN_INCOMPLETE names cudnn_graph64_9.dll, CUDNN_SUBLIB_MISSING names
#    cudnn_ops64_9.dll, and the zlibwapi.dll problem detect found is reported.
# The other Windows checks (CUDA 13 bin\x64 off Path, a CUDA_PATH naming a removed toolkit, two DLL
# sets on Path) belong to the doctor work; this test is where their native runs go.
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}" "${CUDART_DOUBLE:?}"

ROOT="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit"
INST="$WINEPREFIX/drive_c/Program Files/NVIDIA/CUDNN"
TREE="$ROOT/CUDA/v12.4"
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$ROOT" "$INST" "$TMP"' EXIT
cd "$WINEPREFIX/drive_c"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$ROOT" "$INST"
mkdir -p "$TREE/bin" "$TREE/include" "$INST/v9.1/bin/12.4" "$INST/v9.1/include/12.4"
echo '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}' >"$TREE/version.json"
cp "$CUDART_DOUBLE" "$TREE/bin/cudart64_12.dll"
for n in cudnn64_9 cudnn_graph64_9 cudnn_ops64_9 cudnn_cnn64_9 cudnn_adv64_9 cudnn_engines_precompiled64_9 \
         cudnn_engines_runtime_compiled64_9 cudnn_heuristic64_9 zlibwapi; do
  cp "$CUDART_DOUBLE" "$TREE/bin/$n.dll" # a 64-bit PE DLL (zlibwapi.dll must be one)
done
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' >"$TREE/include/cudnn_version.h"
cp "$CUDART_DOUBLE" "$INST/v9.1/bin/12.4/cudnn64_9.dll"
cp "$TREE/include/cudnn_version.h" "$INST/v9.1/include/12.4/"

"$WINE" "$CUDNNCTL" doctor --json 2>"$TMP/err" | tr -d '\r' >"$TMP/doc.json" || true
python3 - "$TMP/doc.json" <<'PY' || { cat "$TMP/err"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
tree = "c:\\program files\\nvidia gpu computing toolkit\\cuda\\v12.4\\bin"
inst = "c:\\program files\\nvidia\\cudnn\\v9.1\\bin\\12.4"
by = {}
for f in d["findings"]:
    by.setdefault((f.get("path") or "").lower(), []).append(f)
bad = [f for f in by.get(tree, []) if f["code"] in ("CUDNN_INCOMPLETE", "CUDNN_SUBLIB_MISSING")
       or "zlibwapi" in f["message"]]
if bad:
    print("FAIL: findings for the complete copy:", bad); sys.exit(1)
codes = {f["code"]: f["message"] for f in by.get(inst, [])}
if "cudnn_graph64_9.dll" not in codes.get("CUDNN_INCOMPLETE", ""):
    print("FAIL: CUDNN_INCOMPLETE for the installer copy:", by.get(inst)); sys.exit(1)
if "cudnn_ops64_9.dll" not in codes.get("CUDNN_SUBLIB_MISSING", "") or ".so" in codes["CUDNN_SUBLIB_MISSING"]:
    print("FAIL: CUDNN_SUBLIB_MISSING for the installer copy:", codes.get("CUDNN_SUBLIB_MISSING")); sys.exit(1)
if not any("zlibwapi.dll" in m for m in codes.values()):
    print("FAIL: no zlibwapi finding for the installer copy:", codes); sys.exit(1)
print("ok: doctor (native, wine): the complete copy is clean; the installer copy's missing DLLs are named the Windows way")
PY
