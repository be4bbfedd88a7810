#!/usr/bin/env bash
# test_windows_registry.sh: the registry block of platform.h against wine's own `reg` tool: values
# written through cc_pf_reg_set are what `reg query` shows (REG_EXPAND_SZ kept, %VARS% unexpanded),
# values written by `reg add` (HKCU and the HKLM CUDA toolkit key layout) read back with their types,
# subkeys list, deletes are real, and the WM_SETTINGCHANGE broadcast returns.
# Runs under scripts/test-windows.sh (WINE, WINEPREFIX, WINREG set by CTest).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${WINREG:?}"

reg() { "$WINE" reg "$@" 2>/dev/null | tr -d '\r'; }
wr() { "$WINE" "$WINREG" "$@" 2>&1 | tr -d '\r'; }
ENV_KEY='HKCU\Environment'
SW_KEY='HKCU\Software\cudnnctl-regtest'
CUDA_KEY='HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA'
cleanup() {
  "$WINE" reg delete "$ENV_KEY" /v CUDNNCTL_TEST_PATH /f >/dev/null 2>&1 || true
  "$WINE" reg delete "$SW_KEY" /f >/dev/null 2>&1 || true
  "$WINE" reg delete 'HKLM\SOFTWARE\NVIDIA Corporation' /f >/dev/null 2>&1 || true
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. written by us, read by reg.exe
val='%USERPROFILE%\cudnn\bin;C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin'
out=$(wr set "$ENV_KEY" CUDNNCTL_TEST_PATH expand_sz "$val") || fail "win_reg set: $out"
q=$(reg query "$ENV_KEY" /v CUDNNCTL_TEST_PATH) || fail "reg query found no CUDNNCTL_TEST_PATH"
grep -qF "CUDNNCTL_TEST_PATH    REG_EXPAND_SZ    $val" <<<"$q" || fail "reg query shows: $q"
[ "$(wr get "$ENV_KEY" CUDNNCTL_TEST_PATH)" = "expand_sz $val" ] || fail "read back differs"

# 2. written by reg.exe, read by us: the toolkit key layout detection reads (64-bit view)
reg add "$CUDA_KEY\\v12.4" /v InstallDir /t REG_SZ /d 'C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4' /f >/dev/null
reg add "$CUDA_KEY\\v12.4" /v 64BitInstalled /t REG_DWORD /d 1 /f >/dev/null
reg add "$CUDA_KEY\\v13.0" /v InstallDir /t REG_SZ /d 'C:\cuda13' /f >/dev/null
[ "$(wr get "$CUDA_KEY\\v12.4" InstallDir)" = 'sz C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4' ] ||
  fail "InstallDir: $(wr get "$CUDA_KEY\\v12.4" InstallDir)"
[ "$(wr get "$CUDA_KEY\\v12.4" 64BitInstalled)" = "dword 1" ] || fail "64BitInstalled: $(wr get "$CUDA_KEY\\v12.4" 64BitInstalled)"
[ "$(wr subkeys "$CUDA_KEY" | sort | tr '\n' ' ')" = "v12.4 v13.0 " ] || fail "subkeys: $(wr subkeys "$CUDA_KEY")"
[ "$(wr get "$CUDA_KEY\\v12.4" NoSuchValue)" = "none " ] || fail "absent value not reported as none"
[ "$(wr get 'HKLM\SOFTWARE\cudnnctl-no-such-key' X)" = "none " ] || fail "absent key not reported as none"

# 3. REG_SZ and REG_EXPAND_SZ stay distinct; delete is real
wr set "$SW_KEY" Plain sz '%PATH%' >/dev/null || fail "set sz"
grep -qF 'Plain    REG_SZ    %PATH%' <<<"$(reg query "$SW_KEY" /v Plain)" || fail "REG_SZ not kept"
wr delete "$ENV_KEY" CUDNNCTL_TEST_PATH >/dev/null || fail "delete"
if reg query "$ENV_KEY" /v CUDNNCTL_TEST_PATH >/dev/null; then fail "value still there after delete"; fi
wr delete "$ENV_KEY" CUDNNCTL_TEST_PATH >/dev/null || fail "deleting an absent value must succeed"

# 4. bad input and the broadcast
if wr get 'HKXX\Foo' X >/dev/null; then fail "an unknown root key must fail"; fi
wr broadcast >/dev/null || fail "WM_SETTINGCHANGE broadcast failed"
echo "ok: registry values, types, subkeys and deletes agree with wine's reg.exe"
