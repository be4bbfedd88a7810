#!/usr/bin/env bash
# test_windows_env_cmd.sh: `cudnnctl.exe env --shell cmd 13.0` evaluated for real by wine's cmd.exe:
# with v12.4\bin on PATH first, calling the activation (twice) leaves CUDA_PATH = v13.0 and PATH =
# v13.0\bin;v13.0\bin\x64 followed by the user's entries, v12.4\bin gone, nothing duplicated.
# Runs under scripts/test-windows.sh (WINE, WINEPREFIX, CUDNNCTL set by CTest).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}"
ROOT="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit"
W="$WINEPREFIX/drive_c/cudnnctl-envcmd"
trap 'rm -rf "$ROOT" "$W"' EXIT
cd "$WINEPREFIX/drive_c"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$ROOT" "$W"
mkdir -p "$ROOT/CUDA/v12.4/bin" "$ROOT/CUDA/v13.0/bin/x64" "$W"
echo '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}' >"$ROOT/CUDA/v12.4/version.json"
echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.1"}}' >"$ROOT/CUDA/v13.0/version.json"
TK='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA'

"$WINE" "$CUDNNCTL" env --shell cmd 13.0 2>"$W/err" >"$W/act.cmd" || fail "env --shell cmd: $(cat "$W/err")"
printf '@set "PATH=%s\\v12.4\\bin;C:\\tools;%%PATH%%"\r\n@call C:\\cudnnctl-envcmd\\act.cmd\r\n@call C:\\cudnnctl-envcmd\\act.cmd\r\n@echo CP=%%CUDA_PATH%%\r\n@echo P=%%PATH%%\r\n' "$TK" >"$W/t.cmd"
"$WINE" cmd /c 'C:\cudnnctl-envcmd\t.cmd' 2>&1 | tr -d '\r' >"$W/out" || fail "cmd: $(cat "$W/out")"
grep -qxF "CP=$TK\\v13.0" "$W/out" || fail "CUDA_PATH: $(cat "$W/out")"
path=$(sed -n 's/^P=//p' "$W/out")
case "$path" in
  "$TK\\v13.0\\bin;$TK\\v13.0\\bin\\x64;C:\\tools;"*) ;;
  *) fail "PATH does not start with v13.0\\bin;v13.0\\bin\\x64;C:\\tools: $path" ;;
esac
grep -qi 'v12.4' <<<"$path" && fail "v12.4 still on PATH: $path"
[ "$(tr ';' '\n' <<<"$path" | sort | uniq -d | wc -l)" -eq 0 ] || fail "duplicates on PATH: $path"
echo "ok: cmd.exe evaluated env --shell cmd 13.0 (twice): CUDA_PATH = v13.0, PATH = v13.0\\bin;bin\\x64 once, v12.4 gone"
