#!/usr/bin/env bash
# test_windows_detect.sh: `cudnnctl.exe detect --json` under wine on fake CUDA trees in the wine
# prefix: C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4 (version.json 12.4.1, a nvcc.exe
# test double, cuda.h, bin\cudart64_12.dll, NVIDIA's real cudnn64_9.dll + cudnn_graph64_9.dll 9.1.0 in
# bin with the wheel's cudnn_version.h, a 32-bit "zlibwapi.dll") and ...\v13.0 (version.json 13.0.2,
# bin\x64\cudart64_13.dll, cuDNN 9 DLL doubles in bin\x64 without headers), the HKLM toolkit keys,
# CUDA_PATH / CUDA_PATH_V12_4 / PATH. Checks versions, sources, active toolkit, lib dirs, the cuDNN
# copies, in_loader_path and the zlibwapi problem. Runs under scripts/test-windows.sh.
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}" "${NVCC_DOUBLE:?}"

. "$(dirname "${BASH_SOURCE[0]}")/cudnn_wheel.sh"

ROOT_WIN='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA'
ROOT="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
CUDA_KEY='HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA'
TMP=$(mktemp -d)
cleanup() {
  rm -rf "$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit" "$TMP"
  "$WINE" reg delete 'HKLM\SOFTWARE\NVIDIA Corporation' /f >/dev/null 2>&1 || true
}
trap cleanup EXIT
mkdir -p "$ROOT/v12.4/bin" "$ROOT/v12.4/include" "$ROOT/v13.0/bin/x64" "$ROOT/v13.0/include"

echo '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}' >"$ROOT/v12.4/version.json"
echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.2"}}' >"$ROOT/v13.0/version.json"
printf '#define CUDA_VERSION 12040\n' >"$ROOT/v12.4/include/cuda.h"
printf '#define CUDA_VERSION 13000\n' >"$ROOT/v13.0/include/cuda.h"
cp "$NVCC_DOUBLE" "$ROOT/v12.4/bin/nvcc.exe"
# cudart names are what detect reads; the bytes are a small PE (the nvcc double), named as doubles
cp "$NVCC_DOUBLE" "$ROOT/v12.4/bin/cudart64_12.dll"
cp "$NVCC_DOUBLE" "$ROOT/v13.0/bin/x64/cudart64_13.dll"
python3 - "$WHL" "$ROOT/v12.4" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll"):
    open(f"{sys.argv[2]}/bin/{n}", "wb").write(z.read(f"nvidia/cudnn/bin/{n}"))
open(f"{sys.argv[2]}/include/cudnn_version.h", "wb").write(z.read("nvidia/cudnn/include/cudnn_version.h"))
# a 32-bit PE header: MZ, e_lfanew=0x40, "PE\0\0", machine 0x14c (i386)
hdr = bytearray(512); hdr[0:2] = b"MZ"; hdr[0x3c] = 0x40; hdr[0x40:0x44] = b"PE\0\0"; hdr[0x44:0x46] = b"\x4c\x01"
open(f"{sys.argv[2]}/bin/zlibwapi.dll", "wb").write(bytes(hdr))
PY
cp "$NVCC_DOUBLE" "$ROOT/v13.0/bin/x64/cudnn64_9.dll"
cp "$NVCC_DOUBLE" "$ROOT/v13.0/bin/x64/cudnn_ops64_9.dll"

"$WINE" reg add "$CUDA_KEY\\v12.4" /v InstallDir /t REG_SZ /d "$ROOT_WIN\\v12.4" /f >/dev/null 2>&1
"$WINE" reg add "$CUDA_KEY\\v13.0" /v InstallDir /t REG_SZ /d "$ROOT_WIN\\v13.0" /f >/dev/null 2>&1

set +e
# the current drive is C: (from the Unix cwd): wine's Z: drive is the Linux root, where the Linux
# finders' /usr/local/cuda would really exist; on Windows \usr\local\cuda is nothing
cd "$WINEPREFIX/drive_c"
CUDA_PATH="$ROOT_WIN\\v13.0" CUDA_PATH_V12_4="$ROOT_WIN\\v12.4" WINEPATH="$ROOT_WIN\\v13.0\\bin\\x64" \
  "$WINE" "$CUDNNCTL" detect --json >"$TMP/out.json" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || { echo "FAIL: detect exit $rc: $(cat "$TMP/err")"; exit 1; }

python3 - "$TMP/out.json" "$ROOT_WIN" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read().decode().replace("\r", "")
d = json.loads(raw)
root = sys.argv[2]
def fail(msg):
    print("FAIL:", msg); print(json.dumps(d, indent=1)); sys.exit(1)
if d["platform"] != "windows-x86_64": fail("platform")
tks = {t["version"]: t for t in d["toolkits"]}
if sorted(tks) != ["12.4", "13.0"]: fail(f"toolkits {sorted(tks)}")
t12, t13 = tks["12.4"], tks["13.0"]
if [t["version"] for t in d["toolkits"]] != ["13.0", "12.4"]: fail("not newest first")
if t12["path"].lower() != (root + "\\v12.4").lower(): fail("v12.4 path")
if t12["version_full"] != "12.4.1": fail("12.4 version_full")
for s in ("version.json", "nvcc", "cuda.h", "registry", "env", "soname"):
    if s not in t12["sources"]: fail(f"12.4 sources lack {s}: {t12['sources']}")
if not all(r["agrees"] for r in t12["readings"]): fail("12.4 readings disagree")
if t12["lib_dir"].lower() != (root + "\\v12.4\\bin").lower(): fail("12.4 lib_dir")
if t12["found_via"] != "CUDA_PATH_V12_4": fail("12.4 found_via " + t12["found_via"])
if not t13["active"] or t13["active_reason"] != "CUDA_PATH": fail("13.0 must be active through CUDA_PATH")
if t12["active"]: fail("12.4 must not be active")
if t13["lib_dir"].lower() != (root + "\\v13.0\\bin\\x64").lower(): fail("13.0 lib_dir must be bin\\x64")
cud = {c["path"].lower(): c for c in d["cudnn"]}
c12 = cud.get((root + "\\v12.4\\bin").lower())
c13 = cud.get((root + "\\v13.0\\bin\\x64").lower())
if not c12 or not c13: fail("cuDNN copies missing")
if c12["version"] != "9.1.0" or c12["version_source"] != "header": fail("12.4 cuDNN version from header")
if c12["libs"] != ["cudnn64_9.dll", "cudnn_graph64_9.dll"]: fail(f"12.4 libs {c12['libs']}")
if c12["in_loader_path"]: fail("12.4 bin is not on PATH")
if not any("zlibwapi.dll" in p and "193" in p and "32-bit" in p for p in c12["problems"]): fail("no zlibwapi 32-bit problem")
if c13["version"] != "9" or c13["version_source"] != "file-name": fail("13.0 cuDNN version from the DLL name")
if not c13["in_loader_path"]: fail("13.0 bin\\x64 is on PATH (WINEPATH)")
if c13["problems"]: fail("cuDNN 9 major-only copy needs no zlibwapi")
print("ok: detect found 13.0 (active, bin\\x64) and 12.4 (6 sources), cuDNN 9.1.0 with a 32-bit zlibwapi problem, cuDNN 9 in bin\\x64 on PATH")
PY
