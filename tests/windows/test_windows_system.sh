#!/usr/bin/env bash
# test_windows_system.sh: --system (the machine environment,
# HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment) end to end under wine, whose
# processes run elevated: install --system writes CUDA_PATH, CUDA_PATH_V12_4 and the tree's bin on
# the machine Path (type REG_EXPAND_SZ kept) and leaves HKCU\Environment alone; use --system 13.0
# repoints them; uninstall restores every machine value the install changed and the receipt names
# the HKLM key. Checked with `wine reg query`.
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}" "${CUDART_DOUBLE:?}"

W="$WINEPREFIX/drive_c/cudnnctl-systest"
ROOT="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit"
TREE="$ROOT/CUDA/v12.4"
WTREE='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4'
TREE13="$ROOT/CUDA/v13.0"
WTREE13='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0'
STATE="$WINEPREFIX/drive_c/ProgramData/cudnnctl"
HKLM='HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
HKCU='HKCU\Environment'
TMP=$(mktemp -d)
# Once in CI the script ended right after "use --system 13.0 ..." with no message: a failing
# `wine reg query` inside regq's pipeline ends it that way under set -e. It is retried, a
# failure says so, and any other failing line is named by the ERR trap.
regq() {
  local out i
  for i in 1 2 3; do
    if out=$("$WINE" reg query "$1" 2>/dev/null); then
      printf '%s\n' "$out" | tr -d '\r' | { grep -iE '^\s+(CUDA_PATH|Path)' || true; } | sort
      return 0
    fi
    sleep 0.5
  done
  echo "FAIL: wine reg query $1 failed 3 times" >&2
  return 1
}
trap 'echo "FAIL: line $LINENO exited $? ($BASH_COMMAND)" >&2' ERR
ORIG_PATH=""
restore() {
  for v in CUDA_PATH CUDA_PATH_V12_4 CUDA_PATH_V13_0; do "$WINE" reg delete "$HKLM" /v $v /f >/dev/null 2>&1 || true; done
  [ -n "$ORIG_PATH" ] && "$WINE" reg add "$HKLM" /v Path /t REG_EXPAND_SZ /d "$ORIG_PATH" /f >/dev/null 2>&1
  [ -n "${KEEP:-}" ] || rm -rf "$W" "$ROOT" "$STATE" "$TMP"
}
trap restore EXIT
cd "$WINEPREFIX/drive_c"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W" "$ROOT" "$STATE"
mkdir -p "$W" "$TREE/bin" "$TREE/include" "$TREE/lib/x64" "$TREE13/bin/x64" "$TREE13/include"
echo '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}' >"$TREE/version.json"
echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.1"}}' >"$TREE13/version.json"
printf 'MZ cudart test double\n' >"$TREE13/bin/x64/cudart64_13.dll"

ORIG_PATH=$("$WINE" reg query "$HKLM" /v Path 2>/dev/null | tr -d '\r' | sed -n 's/^    Path    REG_[A-Z_]*    //Ip')
[ -n "$ORIG_PATH" ] || fail "the wine prefix has no machine Path"
"$WINE" reg add "$HKLM" /v CUDA_PATH /t REG_SZ /d 'C:\old\cuda' /f >/dev/null 2>&1 || fail "reg add CUDA_PATH (HKLM)"
regq "$HKLM" >"$TMP/hklm.before"
regq "$HKCU" >"$TMP/hkcu.before"

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
"$WINE" "$CUDNNCTL" install --system --json --no-validate --archive "C:\\cudnnctl-systest\\$TOP.zip" \
  --sha256 "$SHA" --cuda-home "$WTREE" 2>"$TMP/err" | tr -d '\r' >"$TMP/install.json" ||
  fail "install --system: $(cat "$TMP/err")"
"$WINE" reg query "$HKLM" 2>/dev/null | tr -d '\r' >"$TMP/hklm.now"
grep -qxF "    CUDA_PATH    REG_SZ    $WTREE" "$TMP/hklm.now" || fail "HKLM CUDA_PATH: $(grep CUDA_PATH "$TMP/hklm.now")"
grep -qxF "    CUDA_PATH_V12_4    REG_SZ    $WTREE" "$TMP/hklm.now" || fail "HKLM CUDA_PATH_V12_4 missing"
path=$(sed -n 's/^    Path    REG_EXPAND_SZ    //Ip' "$TMP/hklm.now")
[ "$path" = "$WTREE\\bin;$ORIG_PATH" ] || fail "HKLM Path: '$path' (want the tree's bin first, then '$ORIG_PATH', REG_EXPAND_SZ)"
regq "$HKCU" >"$TMP/hkcu.after"
diff "$TMP/hkcu.before" "$TMP/hkcu.after" >&2 || fail "install --system changed HKCU\\Environment (above)"
python3 - "$STATE"/receipts/*.json <<'PY' || exit 1
import json, sys
env = json.load(open(sys.argv[1]))["env"]
if not env or any(not e["key"].startswith("HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment") for e in env):
    print("FAIL: receipt env keys", env); sys.exit(1)
print("ok: the receipt records", len(env), "machine values")
PY
echo "ok: install --system: CUDA_PATH, CUDA_PATH_V12_4, Path in HKLM; HKCU untouched"

"$WINE" "$CUDNNCTL" use --system 13.0 --json 2>"$TMP/err" | tr -d '\r' >"$TMP/use.json" || fail "use --system 13.0: $(cat "$TMP/err")"
"$WINE" reg query "$HKLM" 2>/dev/null | tr -d '\r' >"$TMP/hklm.now"
grep -qxF "    CUDA_PATH    REG_SZ    $WTREE13" "$TMP/hklm.now" || fail "use --system: HKLM CUDA_PATH: $(grep CUDA_PATH "$TMP/hklm.now")"
path=$(sed -n 's/^    Path    REG_EXPAND_SZ    //Ip' "$TMP/hklm.now")
[ "$path" = "$WTREE13\\bin;$WTREE13\\bin\\x64;$ORIG_PATH" ] || fail "use --system: HKLM Path: '$path'"
grep -q 'HKLM' "$TMP/use.json" || fail "use --system --json names no HKLM change: $(cat "$TMP/use.json")"
regq "$HKCU" >"$TMP/hkcu.after"
diff "$TMP/hkcu.before" "$TMP/hkcu.after" >&2 || fail "use --system changed HKCU\\Environment (above)"
echo "ok: use --system 13.0 repoints the machine environment"

# back to 12.4 (as the install left it), so the uninstall finds every value as written
"$WINE" "$CUDNNCTL" use --system 12.4 --json >/dev/null 2>"$TMP/err" || fail "use --system 12.4: $(cat "$TMP/err")"
"$WINE" "$CUDNNCTL" uninstall --json 2>"$TMP/err" | tr -d '\r' >"$TMP/un.json" || fail "uninstall: $(cat "$TMP/err")"
regq "$HKLM" >"$TMP/hklm.after"
grep -q CUDA_PATH_V13_0 "$TMP/hklm.after" && sed -i '/CUDA_PATH_V13_0/d' "$TMP/hklm.after" # use's own, not the install's
diff "$TMP/hklm.before" "$TMP/hklm.after" >&2 || fail "uninstall did not restore the machine environment (above)"
echo "ok: uninstall restored CUDA_PATH (C:\\old\\cuda), removed CUDA_PATH_V12_4, Path as before"
