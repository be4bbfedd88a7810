#!/usr/bin/env bash
# test_windows_inuse.sh: files in use under wine. A second process (tests/tools/win_holddll.c) keeps
# bin\cudnn64_9.dll loaded — wine refuses to delete or replace a loaded DLL (ERROR_ACCESS_DENIED) but
# lets it be renamed, like Windows — while cudnnctl.exe:
#  - installs another cuDNN over it: the install succeeds, the DLL name holds the new bytes, the old
#    file sits beside it as .cudnnctl-<txn>-old-cudnn64_9.dll, STATE\cleanup.json lists it (and the
#    backup clone, a hard link of the loaded file), the warning names the holder "win_holddll.exe
#    (pid N)" (wine's Restart Manager is a stub that names nobody: the loaded-module scan does), and
#    the elevated run queued it in PendingFileRenameOperations (MOVEFILE_DELAY_UNTIL_REBOOT);
#  - once the holder exits, the next run (uninstall) deletes what the list names and removes the list
#    (installs stack: uninstalling B restores A's DLL);
#  - uninstall while the DLL is loaded: the name is gone at once, the loaded file is queued, the
#    holder named, and the next run (install) deletes it.
# The DLLs are a real PE DLL (the cudart test double) under cuDNN's names; LoadLibrary needs no more.
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}" "${HOLDDLL:?}" "${CUDART_DOUBLE:?}"

W="$WINEPREFIX/drive_c/cudnnctl-inuse"
TREE="$W/CUDA/v12.4"
WTREE='C:\cudnnctl-inuse\CUDA\v12.4'
STATE="$WINEPREFIX/drive_c/ProgramData/cudnnctl"
KEY='HKCU\Environment'
TMP=$(mktemp -d)
HOLDER=""
cleanup() {
  [ -n "$HOLDER" ] && { touch "$W/release"; wait "$HOLDER" 2>/dev/null || true; }
  "$WINE" reg delete "$KEY" /v CUDA_PATH /f >/dev/null 2>&1 || true
  "$WINE" reg delete "$KEY" /v CUDA_PATH_V12_4 /f >/dev/null 2>&1 || true
  "$WINE" reg delete "$KEY" /v Path /f >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$W" "$STATE" "$TMP"
}
trap cleanup EXIT
cd "$WINEPREFIX/drive_c"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W" "$STATE"
mkdir -p "$TREE/bin" "$TREE/include" "$TREE/lib/x64"
echo '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}' >"$TREE/version.json"

mkzip() { # mkzip VERSION TAG: a zip whose DLLs are the PE test double plus TAG bytes
  python3 - "$CUDART_DOUBLE" "$W" "$1" "$2" <<'PY'
import sys, zipfile
dll, out, ver, tag = sys.argv[1:5]
pe = open(dll, "rb").read() + tag.encode()   # bytes after the image: still a loadable DLL
top = f"cudnn-windows-x86_64-{ver}_cuda12-archive"
maj, mnr, pat = ver.split(".")[:3]
with zipfile.ZipFile(f"{out}/{top}.zip", "w", zipfile.ZIP_DEFLATED) as o:
    for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll"):
        o.writestr(f"{top}/bin/{n}", pe)
    o.writestr(f"{top}/include/cudnn_version.h",
               f"#define CUDNN_MAJOR {maj}\n#define CUDNN_MINOR {mnr}\n#define CUDNN_PATCHLEVEL {pat}\n")
    o.writestr(f"{top}/lib/x64/cudnn.lib", b"lib " + tag.encode())
open(f"{out}/{tag}.sha", "w").write(__import__("hashlib").sha256(pe).hexdigest())
PY
}
install() { # install VERSION
  local top="cudnn-windows-x86_64-$1_cuda12-archive" sha
  sha=$(sha256sum "$W/$top.zip" | cut -d' ' -f1)
  "$WINE" "$CUDNNCTL" install --json --no-validate --archive "C:\\cudnnctl-inuse\\$top.zip" \
    --sha256 "$sha" --cuda-home "$WTREE" 2>"$TMP/err" | tr -d '\r' >"$TMP/install.json"
}
hold() { # keep bin\cudnn64_9.dll loaded in another process
  rm -f "$W/ready" "$W/release"
  "$WINE" "$HOLDDLL" "$WTREE\\bin\\cudnn64_9.dll" 'C:\cudnnctl-inuse\ready' 'C:\cudnnctl-inuse\release' &
  HOLDER=$!
  for _ in $(seq 100); do [ -s "$W/ready" ] && break; sleep 0.1; done
  [ -s "$W/ready" ] || fail "the holder did not load the DLL"
  HPID=$(tr -d '\r\n' <"$W/ready")
}
release() { touch "$W/release"; wait "$HOLDER" || true; HOLDER=""; }
asides() { find "$TREE/bin" -name '.cudnnctl-*-old-cudnn64_9.dll' | wc -l; }

mkzip 9.1.0.70 A
mkzip 9.1.1.17 B
install 9.1.0.70 || fail "install A: $(cat "$TMP/err")"
[ "$(sha256sum "$TREE/bin/cudnn64_9.dll" | cut -d' ' -f1)" = "$(cat "$W/A.sha")" ] || fail "A not installed"

hold
# proof the situation is real: wine refuses to delete the loaded DLL
"$WINE" cmd /c del "$WTREE\\bin\\cudnn64_9.dll" >/dev/null 2>&1 || true
[ -f "$TREE/bin/cudnn64_9.dll" ] || fail "wine deleted a loaded DLL: this test proves nothing here"
install 9.1.1.17 || fail "install B over a loaded DLL: $(cat "$TMP/err")"
grep -q '"result": *"installed"' "$TMP/install.json" || fail "install B: $(head -c 400 "$TMP/install.json")"
[ "$(sha256sum "$TREE/bin/cudnn64_9.dll" | cut -d' ' -f1)" = "$(cat "$W/B.sha")" ] ||
  fail "cudnn64_9.dll does not hold B's bytes after the install"
[ "$(asides)" -eq 1 ] || fail "no (or more than one) old cudnn64_9.dll renamed aside: $(ls -a "$TREE/bin")"
old=$(find "$TREE/bin" -name '.cudnnctl-*-old-cudnn64_9.dll')
[ "$(sha256sum "$old" | cut -d' ' -f1)" = "$(cat "$W/A.sha")" ] || fail "the file aside is not A's DLL"
tr -d '\r' <"$TMP/err" | grep -q "cudnn64_9.dll is in use by win_holddll.exe (pid $HPID)" ||
  fail "the warning does not name the holder (pid $HPID): $(cat "$TMP/err")"
python3 - "$STATE/cleanup.json" "$(basename "$old")" <<'PY' || exit 1
import json, sys
files = json.load(open(sys.argv[1]))["files"]
if not any(f.replace("\\", "/").endswith("/" + sys.argv[2]) for f in files):
    print("FAIL: cleanup.json does not list", sys.argv[2], files); sys.exit(1)
print("ok: cleanup.json lists", len(files), "file(s) held open")
PY
"$WINE" reg query 'HKLM\SYSTEM\CurrentControlSet\Control\Session Manager' /v PendingFileRenameOperations 2>/dev/null |
  tr -d '\r' | grep -qF "$(basename "$old")" || fail "not queued for deletion at reboot (elevated run)"
echo "ok: install over a loaded DLL: new bytes in place, old one renamed aside, holder named (pid $HPID), queued"

release
# installs stack: uninstalling B puts A's files back (B's DLL is free now), then A goes
"$WINE" "$CUDNNCTL" uninstall --json 2>"$TMP/err" | tr -d '\r' >"$TMP/un.json" || fail "uninstall B: $(cat "$TMP/err")"
[ "$(asides)" -eq 0 ] || fail "the next run did not delete the old DLL: $(ls -a "$TREE/bin")"
[ ! -e "$STATE/cleanup.json" ] || fail "cleanup.json left after everything was deleted: $(cat "$STATE/cleanup.json")"
[ "$(sha256sum "$TREE/bin/cudnn64_9.dll" | cut -d' ' -f1)" = "$(cat "$W/A.sha")" ] || fail "uninstall of B did not restore A's DLL"
echo "ok: the next run deleted what was left and the list; uninstalling B restored A"

hold # A's DLL loaded while A is uninstalled
"$WINE" "$CUDNNCTL" uninstall --json 2>"$TMP/err" | tr -d '\r' >"$TMP/un.json" ||
  fail "uninstall while the DLL is loaded: $(cat "$TMP/err")"
[ ! -e "$TREE/bin/cudnn64_9.dll" ] || fail "uninstall left cudnn64_9.dll under its name"
[ -s "$STATE/cleanup.json" ] || fail "uninstall did not queue the loaded DLL"
tr -d '\r' <"$TMP/err" | grep -q "in use by win_holddll.exe (pid $HPID)" || fail "uninstall: holder not named: $(cat "$TMP/err")"
release
install 9.1.0.70 || fail "install after release: $(cat "$TMP/err")" # any install or uninstall empties the list
[ ! -e "$STATE/cleanup.json" ] || fail "cleanup.json left: $(cat "$STATE/cleanup.json")"
[ -z "$(find "$TREE/bin" -name '.cudnnctl-*')" ] || fail "temp names left in bin: $(ls -a "$TREE/bin")"
"$WINE" "$CUDNNCTL" uninstall --json >/dev/null 2>&1 || fail "final uninstall"
[ ! -e "$TREE/bin/cudnn64_9.dll" ] || fail "final uninstall left cudnn64_9.dll"
echo "ok: uninstall while loaded: queued, holder named, deleted by the next run"
