#!/usr/bin/env bash
# test_windows_prefix.sh: prefix mode under wine. On Windows PREFIX\current is a directory junction
# (no privilege needed; the Path entry is PREFIX\current\bin, so a switch rewrites no registry value).
# wine 8 cannot create junctions (FSCTL_SET_REPARSE_POINT answers ERROR_NOT_SUPPORTED) nor symbolic
# links (CreateSymbolicLinkW is a stub), so what this test can prove under wine is the failure path:
# install --prefix stops with exit 1 (unsupported) and a message that names the directory junction
# and the fix (an NTFS or ReFS drive), the transaction is rolled back (no cudnn-* dir, no staging,
# no current, no journal) and the user's Path is untouched. The junction itself, its in-place
# retargeting and readlink are in unit/test_platform (dir_link_is_junction), which runs them on
# Windows and proves the error path under wine; the Path entry is in unit/test_winpolicy.
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}" "${CUDART_DOUBLE:?}"

W="$WINEPREFIX/drive_c/cudnnctl-pfxtest"
PFX="$W/prefix"
STATE="$WINEPREFIX/drive_c/ProgramData/cudnnctl"
KEY='HKCU\Environment'
TMP=$(mktemp -d)
trap '"$WINE" reg delete "$KEY" /v Path /f >/dev/null 2>&1 || true; [ -n "${KEEP:-}" ] || rm -rf "$W" "$STATE" "$TMP"' EXIT
cd "$WINEPREFIX/drive_c"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W" "$STATE"
mkdir -p "$W"
"$WINE" reg add "$KEY" /v Path /t REG_EXPAND_SZ /d '%USERPROFILE%\bin' /f >/dev/null 2>&1 || fail "reg add Path"

TOP=cudnn-windows-x86_64-9.1.0.70_cuda12-archive
python3 - "$CUDART_DOUBLE" "$W/$TOP.zip" "$TOP" <<'PY'
import sys, zipfile
pe = open(sys.argv[1], "rb").read()
with zipfile.ZipFile(sys.argv[2], "w") as o:
    o.writestr(f"{sys.argv[3]}/bin/cudnn64_9.dll", pe)
    o.writestr(f"{sys.argv[3]}/include/cudnn_version.h", "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n")
    o.writestr(f"{sys.argv[3]}/lib/x64/cudnn.lib", b"lib")
PY
SHA=$(sha256sum "$W/$TOP.zip" | cut -d' ' -f1)
rc=0
"$WINE" "$CUDNNCTL" install --no-validate --archive "C:\\cudnnctl-pfxtest\\$TOP.zip" --sha256 "$SHA" \
  --prefix 'C:\cudnnctl-pfxtest\prefix' >"$TMP/out" 2>"$TMP/err" || rc=$?
tr -d '\r' <"$TMP/err" >"$TMP/err.txt"
if [ "$rc" -eq 0 ]; then
  # a wine that can make junctions: then the real thing must hold
  [ -d "$PFX/current/bin" ] || fail "install succeeded but PREFIX\\current\\bin is missing"
  "$WINE" reg query "$KEY" /v Path 2>/dev/null | tr -d '\r' | grep -qiF 'C:\cudnnctl-pfxtest\prefix\current\bin' ||
    fail "Path does not name PREFIX\\current\\bin"
  echo "ok: this wine makes junctions: prefix install with current as a junction, Path = PREFIX\\current\\bin"
  exit 0
fi
[ "$rc" -eq 1 ] || fail "install --prefix: exit $rc (want 1, unsupported): $(cat "$TMP/err.txt")"
grep -q 'directory junction' "$TMP/err.txt" || fail "the error does not name the junction: $(cat "$TMP/err.txt")"
grep -q 'NTFS or ReFS' "$TMP/err.txt" || fail "the error names no fix: $(cat "$TMP/err.txt")"
left=$(cd "$PFX" 2>/dev/null && find . -mindepth 1 | head -5 || true)
[ -z "$left" ] || fail "the rolled-back install left files in the prefix: $left"
[ ! -e "$STATE/journal.json" ] || fail "a journal is left: $(cat "$STATE/journal.json")"
ls "$STATE/receipts"/*.json >/dev/null 2>&1 && fail "a receipt was written for a failed install"
"$WINE" reg query "$KEY" /v Path 2>/dev/null | tr -d '\r' | grep -qxF '    Path    REG_EXPAND_SZ    %USERPROFILE%\bin' ||
  fail "Path changed by a failed install: $("$WINE" reg query "$KEY" /v Path 2>/dev/null)"
echo "ok: wine cannot make junctions: install --prefix fails with exit 1 naming the junction and the fix, fully rolled back"
