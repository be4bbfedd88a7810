#!/usr/bin/env bash
# test_windows_validate.sh: `cudnnctl.exe validate` under wine on NVIDIA's real cuDNN 9.1.0.70
# Windows DLLs (cudnn64_9, cudnn_graph64_9, cudnn_ops64_9, cudnn_cnn64_9, cudnn_adv64_9 from the
# nvidia-cudnn-cu12 win_amd64 wheel, extracted once into the test cache, 350 MB), with a fake
# v12.4 toolkit whose cudart64_12.dll / cublas64_12.dll / cublasLt64_12.dll / nvrtc64_120_0.dll
# are mingw-built TEST DOUBLES (runtime 12.4, no GPU):
#  - the child loads cudnn64_9.dll by absolute path, cudnnGetVersion() = 90100, the four
#    sub-library checks pass, every cudnn*.dll was mapped from the validated dir; no GPU: exit 7;
#  - a dir with only cudnn64_9.dll + cudnn_graph64_9.dll: NVIDIA's shim ends the child ("Could
#    not locate cudnn_ops64_9.dll"), reported as that missing sub-DLL with the fix, exit 6.
# Runs under scripts/test-windows.sh (WINE, WINEPREFIX, CUDNNCTL, CUDART_DOUBLE set by CTest).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}" "${CUDART_DOUBLE:?}"

. "$(dirname "${BASH_SOURCE[0]}")/cudnn_wheel.sh"

FULL="$CACHE/cudnn-win-$VER-full"
if [ ! -f "$FULL/.done" ]; then
  rm -rf "$FULL"
  mkdir -p "$FULL"
  python3 - "$WHL" "$FULL" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll", "cudnn_ops64_9.dll", "cudnn_cnn64_9.dll", "cudnn_adv64_9.dll"):
    with open(f"{sys.argv[2]}/{n}", "wb") as f:
        f.write(z.read(f"nvidia/cudnn/bin/{n}"))
PY
  touch "$FULL/.done"
fi

ROOT="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit"
TREE="$ROOT/CUDA/v12.4"
WTREE='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4'
PART="$WINEPREFIX/drive_c/cudnnctl-valpart"
TMP=$(mktemp -d)
trap 'rm -rf "$ROOT" "$PART" "$TMP"' EXIT
cd "$WINEPREFIX/drive_c"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$ROOT" "$PART"
mkdir -p "$TREE/bin" "$PART"
echo '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}' >"$TREE/version.json"
for n in cudart64_12 cublas64_12 cublasLt64_12 nvrtc64_120_0; do cp "$CUDART_DOUBLE" "$TREE/bin/$n.dll"; done
WFULL="Z:$(tr '/' '\\' <<<"$FULL")"

set +e
"$WINE" "$CUDNNCTL" validate --json --cuda-home "$WTREE" "$WFULL" 2>"$TMP/err" | tr -d '\r' >"$TMP/v.json"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 7 ] || fail "validate on the real DLLs: exit $rc (want 7, no GPU): $(cat "$TMP/err") $(head -c 2000 "$TMP/v.json")"
python3 - "$TMP/v.json" <<'PY' || exit 1
import json, sys
v = json.load(open(sys.argv[1]))
checks = {c["name"]: c for c in v["checks"]}
def ok(n):
    c = checks.get(n)
    if not c or not c["ok"] or c["skipped"]: print("FAIL: check", n, c); sys.exit(1)
for n in ("load_cudnn", "cudnn_version", "sublib_graph", "sublib_ops", "sublib_cnn", "sublib_adv", "load_cudart", "loaded_from"):
    ok(n)
if "90100" not in (checks["cudnn_version"].get("detail") or ""): print("FAIL: version", checks["cudnn_version"]); sys.exit(1)
if not checks["driver"]["skipped"] or "nvcuda.dll" not in checks["driver"]["error"]:
    print("FAIL: driver", checks["driver"]); sys.exit(1)
mods = [m["path"].lower() for m in v["loaded"]]
want = {f"cudnn{s}64_9.dll" for s in ("", "_graph", "_ops", "_cnn", "_adv")}
if {m.replace("/", "\\").rsplit("\\", 1)[1] for m in mods} != want or any(m.endswith(".exe") for m in mods):
    print("FAIL: loaded", mods); sys.exit(1)
print("ok: real cudnn64_9.dll 9.1.0.70 loaded, cudnnGetVersion() = 90100, 4 sub-libraries ok, no GPU: exit 7")
PY

cp "$FULL/cudnn64_9.dll" "$FULL/cudnn_graph64_9.dll" "$PART/"
set +e
"$WINE" "$CUDNNCTL" validate --json --cuda-home "$WTREE" 'C:\cudnnctl-valpart' 2>"$TMP/err" | tr -d '\r' >"$TMP/p.json"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 6 ] || fail "validate with missing sub-DLLs: exit $rc (want 6): $(cat "$TMP/err")"
python3 - "$TMP/p.json" <<'PY' || exit 1
import json, sys
v = json.load(open(sys.argv[1]))
child = [c for c in v["checks"] if c["name"] == "child"]
if not child or "could not locate cudnn_ops64_9.dll" not in child[0]["error"] or "complete cuDNN set" not in child[0]["error"]:
    print("FAIL: child check", child, [c["name"] for c in v["checks"]]); sys.exit(1)
print("ok: a missing cudnn_ops64_9.dll is named (exit 6):", child[0]["error"][:120], "...")
PY
