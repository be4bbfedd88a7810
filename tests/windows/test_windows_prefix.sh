#!/usr/bin/env bash
# test_windows_prefix.sh: prefix mode where no directory junction can be made, end to end under
# wine (FSCTL_SET_REPARSE_POINT answers ERROR_NOT_SUPPORTED there, as on FAT32/exFAT and many
# network shares). On NTFS PREFIX\current is a junction and Path names PREFIX\current\bin; here:
#  1. install --prefix of a real cuDNN 9.1.0.70 Windows zip (NVIDIA's layout: bin\, include\,
#     lib\x64\, repacked at test time from the nvidia-cudnn-cu12 win_amd64 wheel, cached outside
#     the clone) succeeds: every DLL, header and import lib is in PREFIX\cudnn-9.1.0.70-cuda12 (bin\,
#     include\, lib\: the layout every archive is mapped onto) with the wheel's bytes, there is no PREFIX\current, a warning says why, the receipt says
#     "direct": true with no current_link, STATE\direct.json records the install as selected, and
#     HKCU Path starts with PREFIX\cudnn-9.1.0.70-cuda12\bin (the user's entries kept after it);
#  2. list shows it active and "prefix (no link)"; env --shell cmd PREFIX names the version dir,
#     and wine's cmd.exe running that activation gets it first on PATH;
#  3. a second install (9.2.0.82, a test-double DLL) becomes the selected one: Path names its bin
#     and no longer 9.1's; use --prefix --cudnn 9.1 switches back (Path, record, list, env);
#  4. uninstall of 9.1 while another process keeps its cudnn64_9.dll loaded works: the version dir
#     is gone (the loaded DLL renamed aside and queued, the holder named), 9.2 is selected again
#     (Path, record); after the holder exits the next run deletes what was queued;
#  5. uninstall of the last one leaves the prefix without cudnn-* dirs, HKCU Path exactly as before
#     the first install, and the prefix forgotten (no STATE\direct.json: nothing left to record).
# On a wine that can make junctions the junction path is checked instead (current\bin on Path).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}" "${CUDART_DOUBLE:?}" "${HOLDDLL:?}"

. "$(dirname "${BASH_SOURCE[0]}")/cudnn_wheel.sh"

W="$WINEPREFIX/drive_c/cudnnctl-pfxtest"
PFX="$W/prefix"
WP='C:\cudnnctl-pfxtest\prefix'
STATE="$WINEPREFIX/drive_c/ProgramData/cudnnctl"
KEY='HKCU\Environment'
V91=cudnn-9.1.0.70-cuda12
V92=cudnn-9.2.0.82-cuda12
TMP=$(mktemp -d)
HOLDER=""
cleanup() {
  [ -n "$HOLDER" ] && { touch "$W/release"; wait "$HOLDER" 2>/dev/null || true; }
  "$WINE" reg delete "$KEY" /v Path /f >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$W" "$STATE" "$TMP"
}
trap cleanup EXIT
cd "$WINEPREFIX/drive_c"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W" "$STATE"
mkdir -p "$W"
"$WINE" reg add "$KEY" /v Path /t REG_EXPAND_SZ /d '%USERPROFILE%\bin' /f >/dev/null 2>&1 || fail "reg add Path"
reg_path() { "$WINE" reg query "$KEY" /v Path 2>/dev/null | tr -d '\r' | sed -n 's/^ *Path *REG_[A-Z_]* *//p'; }
ORIG_PATH=$(reg_path)
[ "$ORIG_PATH" = '%USERPROFILE%\bin' ] || fail "reg query Path gave '$ORIG_PATH'"

# ---- the zips: NVIDIA's Windows layout, 9.1 from the real wheel (cached), 9.2 a test double ------
TOP91=cudnn-windows-x86_64-9.1.0.70_cuda12-archive
ZIP91="$CACHE/zips/$TOP91.zip"
if [ ! -s "$ZIP91" ]; then
  mkdir -p "$CACHE/zips"
  python3 - "$WHL" "$ZIP91.part" "$TOP91" <<'PY'
import sys, zipfile
whl, out, top = sys.argv[1:4]
z = zipfile.ZipFile(whl)
# NVIDIA's 9.1 Windows zip: bin\*.dll, include\*.h, lib\x64\*.lib, LICENSE (stored: the DLLs are
# 1 GB, deflating them again would only cost time)
with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as o:
    for i in z.infolist():
        n = i.filename
        if n.startswith("nvidia/cudnn/") and not n.endswith("/") and "/__" not in n and not n.endswith(".py"):
            o.writestr(f"{top}/{n[len('nvidia/cudnn/'):]}", z.read(n))
    o.writestr(f"{top}/LICENSE", z.read("nvidia_cudnn_cu12-9.1.0.70.dist-info/License.txt"))
PY
  mv "$ZIP91.part" "$ZIP91"
fi
cp "$ZIP91" "$W/$TOP91.zip"
TOP92=cudnn-windows-x86_64-9.2.0.82_cuda12-archive
python3 - "$CUDART_DOUBLE" "$W/$TOP92.zip" "$TOP92" <<'PY'
import sys, zipfile
pe = open(sys.argv[1], "rb").read() + b"9.2"
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as o:
    for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll"):
        o.writestr(f"{sys.argv[3]}/bin/{n}", pe)
    o.writestr(f"{sys.argv[3]}/include/cudnn_version.h", "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 2\n#define CUDNN_PATCHLEVEL 0\n")
    o.writestr(f"{sys.argv[3]}/lib/x64/cudnn.lib", b"lib 9.2")
PY
install() { # install TOP: --json into $TMP/install.json, stderr into $TMP/err
  local sha
  sha=$(sha256sum "$W/$1.zip" | cut -d' ' -f1)
  "$WINE" "$CUDNNCTL" install --json --no-validate --archive "C:\\cudnnctl-pfxtest\\$1.zip" \
    --sha256 "$sha" --prefix "$WP" 2>"$TMP/err" | tr -d '\r' >"$TMP/install.json"
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
path_first() { reg_path | cut -d';' -f1; }
recorded() { [ -e "$STATE/direct.json" ] || { echo -; return; }; python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["prefixes"].get("C:/cudnnctl-pfxtest/prefix", "-"))' "$STATE/direct.json"; }
list_json() { "$WINE" "$CUDNNCTL" list --json "$WP" 2>/dev/null | tr -d '\r' >"$TMP/list.json"; }
active() { list_json; json "$TMP/list.json" '" ".join(i["install_dir"].rsplit("/",1)[1] for i in d["installs"] if i["active"])'; }

# ---- 1. install the real 9.1 zip ----------------------------------------------------------------
t0=$(date +%s)
install "$TOP91" || fail "install --prefix of the real 9.1 zip: $(tr -d '\r' <"$TMP/err")"
echo "install of the real cuDNN 9.1.0.70 zip ($(( $(stat -c %s "$ZIP91") >> 20 )) MiB): $(( $(date +%s) - t0 )) s"
if [ -e "$PFX/current" ]; then
  # a wine that can make junctions: then the real thing must hold
  [ -d "$PFX/current/bin" ] || fail "PREFIX\\current\\bin is missing"
  [ "$(path_first)" = "$WP\\current\\bin" ] || fail "Path does not start with PREFIX\\current\\bin: $(reg_path)"
  echo "ok: this wine makes junctions: prefix install with current as a junction, Path = PREFIX\\current\\bin"
  exit 0
fi
[ "$(json "$TMP/install.json" 'd["result"]')" = installed ] || fail "install: $(head -c 400 "$TMP/install.json")"
json "$TMP/install.json" '"\n".join(d["warnings"])' | grep -q 'cannot hold a directory junction' ||
  fail "no warning says why there is no current: $(json "$TMP/install.json" 'd["warnings"]')"
python3 - "$WHL" "$PFX/$V91" <<'PY' || fail "the installed files are not the wheel's"
import hashlib, os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
n = 0
for i in z.infolist():
    if i.filename.startswith("nvidia/cudnn/") and i.filename.endswith((".dll", ".h", ".lib")):
        rel = i.filename[len("nvidia/cudnn/"):].replace("lib/x64/", "lib/") # the one layout (layout.c)
        p = os.path.join(sys.argv[2], rel)
        got = hashlib.sha256(open(p, "rb").read()).hexdigest() if os.path.exists(p) else "missing"
        if got != hashlib.sha256(z.read(i.filename)).hexdigest():
            sys.exit(f"{rel}: {got}")
        n += 1
print(f"ok: {n} DLLs, headers and import libs of the real 9.1.0.70 in PREFIX\\{os.path.basename(sys.argv[2])} with the wheel's bytes")
PY
[ ! -e "$PFX/current" ] && [ ! -L "$PFX/current" ] || fail "a PREFIX\\current was made"
# (the prefix's ledger of its installs, .cudnnctl-owners, is state: docs/security.md)
[ -z "$(find "$PFX" -maxdepth 1 -name '.*' ! -name .cudnnctl-owners)" ] || fail "temp names left in the prefix: $(ls -a "$PFX")"
RCPT=$(ls "$STATE"/receipts/*.json)
[ "$(json "$RCPT" 'd["target"].get("direct")')" = True ] || fail "the receipt does not say direct: $(cat "$RCPT" | head -c 600)"
[ "$(json "$RCPT" 'd["target"]["current_link"]')" = None ] || fail "the receipt names a current link"
[ "$(recorded)" = "$V91" ] || fail "STATE\\direct.json: $(cat "$STATE/direct.json")"
[ "$(path_first)" = "$WP\\$V91\\bin" ] || fail "Path does not start with PREFIX\\$V91\\bin: $(reg_path)"
[ "$(reg_path)" = "$WP\\$V91\\bin;%USERPROFILE%\\bin" ] || fail "Path: $(reg_path)"
echo "ok: no junction possible: installed, no current, receipt direct, recorded, Path = PREFIX\\$V91\\bin;..."

# ---- 2. list and env ------------------------------------------------------------------------------
[ "$(active)" = "$V91" ] || fail "list: active $(active): $(cat "$TMP/list.json")"
[ "$(json "$TMP/list.json" 'd["installs"][0]["direct"]')" = True ] || fail "list --json: no direct"
"$WINE" "$CUDNNCTL" list "$WP" 2>&1 | tr -d '\r' >"$TMP/list.txt"
grep -q 'prefix (no link)' "$TMP/list.txt" || fail "list: $(cat "$TMP/list.txt")"
envcheck() { # VERSION-DIR: env --shell cmd PREFIX names it, and cmd.exe puts its bin first
  # (the activation joins the prefix as given with '/': C:\...\prefix/cudnn-...\bin, which Windows
  # reads as one path; compared here with '\' throughout)
  "$WINE" "$CUDNNCTL" env --shell cmd "$WP" 2>"$TMP/err" | tr -d '\r' >"$W/act.cmd" || fail "env --shell cmd: $(cat "$TMP/err")"
  grep '^@set "PATH=[^%]' "$W/act.cmd" | tr '/' '\\' | grep -qF "$WP\\$1\\bin;" ||
    fail "env does not put PREFIX\\$1\\bin on PATH: $(cat "$W/act.cmd")"
  ! grep '^@set "PATH=[^%]' "$W/act.cmd" | grep -q 'current' || fail "env puts PREFIX\\current on PATH: $(cat "$W/act.cmd")"
  sed 's/$/\r/' "$W/act.cmd" >"$W/act2.cmd"
  printf '@set "PATH=C:\\tools;%%PATH%%"\r\n@call C:\\cudnnctl-pfxtest\\act2.cmd\r\n@echo P=%%PATH%%\r\n' >"$W/t.cmd"
  "$WINE" cmd /c 'C:\cudnnctl-pfxtest\t.cmd' 2>&1 | tr -d '\r' >"$TMP/cmd.out" || fail "cmd: $(cat "$TMP/cmd.out")"
  case "$(sed -n 's/^P=//p' "$TMP/cmd.out" | tr '/' '\\')" in
    "$WP\\$1\\bin;"*) ;;
    *) fail "cmd.exe's PATH after the activation does not start with PREFIX\\$1\\bin: $(cat "$TMP/cmd.out")" ;;
  esac
}
envcheck "$V91"
echo "ok: list shows it active (prefix, no link); env --shell cmd PREFIX names the version dir, cmd.exe agrees"

# ---- 3. a second install, then use --prefix switches back ------------------------------------------
install "$TOP92" || fail "install 9.2: $(tr -d '\r' <"$TMP/err")"
[ "$(path_first)" = "$WP\\$V92\\bin" ] || fail "after 9.2: Path $(reg_path)"
! reg_path | grep -qF "$V91" || fail "after 9.2: 9.1's bin still on Path: $(reg_path)"
[ "$(recorded)" = "$V92" ] && [ "$(active)" = "$V92" ] || fail "after 9.2: record $(recorded), active $(active)"
"$WINE" "$CUDNNCTL" use --json --prefix "$WP" --cudnn 9.1 2>"$TMP/err" | tr -d '\r' >"$TMP/use.json" ||
  fail "use --prefix --cudnn 9.1: $(cat "$TMP/err")"
[ "$(json "$TMP/use.json" 'd["result"]')" = switched ] || fail "use: $(cat "$TMP/use.json")"
[ "$(json "$TMP/use.json" 'd["previous"]')" = "$V92" ] || fail "use: previous: $(cat "$TMP/use.json")"
[ "$(reg_path)" = "$WP\\$V91\\bin;%USERPROFILE%\\bin" ] || fail "after use 9.1: Path $(reg_path)"
[ "$(recorded)" = "$V91" ] && [ "$(active)" = "$V91" ] || fail "after use 9.1: record $(recorded), active $(active)"
envcheck "$V91"
"$WINE" "$CUDNNCTL" use --json --prefix "$WP" --cudnn 9.1 2>/dev/null | tr -d '\r' >"$TMP/use.json"
[ "$(json "$TMP/use.json" 'd["result"]')" = already-current ] || fail "use again: $(cat "$TMP/use.json")"
echo "ok: a second install is selected (Path, record, list); use --prefix --cudnn 9.1 switches back; again: already-current"

# ---- 4. uninstall 9.1 while its cudnn64_9.dll is loaded ----------------------------------------------
rm -f "$W/ready" "$W/release"
"$WINE" "$HOLDDLL" "$WP\\$V91\\bin\\cudnn64_9.dll" 'C:\cudnnctl-pfxtest\ready' 'C:\cudnnctl-pfxtest\release' &
HOLDER=$!
for _ in $(seq 150); do [ -s "$W/ready" ] && break; sleep 0.1; done
[ -s "$W/ready" ] || fail "the holder did not load the real cudnn64_9.dll"
HPID=$(tr -d '\r\n' <"$W/ready")
"$WINE" cmd /c del "$WP\\$V91\\bin\\cudnn64_9.dll" >/dev/null 2>&1 || true
[ -f "$PFX/$V91/bin/cudnn64_9.dll" ] || fail "wine deleted a loaded DLL: this part proves nothing here"
"$WINE" "$CUDNNCTL" uninstall --json --prefix "$WP" --version 9.1 2>"$TMP/err" | tr -d '\r' >"$TMP/un.json" ||
  fail "uninstall 9.1 while its DLL is loaded: $(tr -d '\r' <"$TMP/err")"
[ ! -e "$PFX/$V91/bin/cudnn64_9.dll" ] || fail "uninstall left PREFIX\\$V91\\bin\\cudnn64_9.dll under its name"
tr -d '\r' <"$TMP/err" | grep -q "in use by win_holddll.exe (pid $HPID)" || fail "the holder is not named: $(tr -d '\r' <"$TMP/err")"
[ "$(reg_path)" = "$WP\\$V92\\bin;%USERPROFILE%\\bin" ] || fail "after uninstall 9.1: Path $(reg_path)"
[ "$(recorded)" = "$V92" ] && [ "$(active)" = "$V92" ] || fail "after uninstall 9.1: record $(recorded), active $(active)"
touch "$W/release"; wait "$HOLDER" || true; HOLDER=""
echo "ok: uninstall of 9.1 with its DLL loaded (holder pid $HPID named): 9.2 selected again (Path, record, list)"

# ---- 5. the last uninstall ---------------------------------------------------------------------------
"$WINE" "$CUDNNCTL" uninstall --json --prefix "$WP" 2>"$TMP/err" | tr -d '\r' >"$TMP/un.json" ||
  fail "uninstall 9.2: $(tr -d '\r' <"$TMP/err")"
[ -z "$(find "$PFX" -mindepth 1 -maxdepth 1 -name 'cudnn-*' 2>/dev/null)" ] || fail "cudnn-* dirs left: $(ls -a "$PFX")"
[ ! -e "$STATE/cleanup.json" ] || fail "what was queued was not deleted by the next run: $(cat "$STATE/cleanup.json")"
[ "$(reg_path)" = "$ORIG_PATH" ] || fail "Path not restored: '$(reg_path)', was '$ORIG_PATH'"
[ ! -e "$STATE/direct.json" ] || fail "STATE\\direct.json left with nothing to record: $(cat "$STATE/direct.json")"
ls "$STATE/receipts"/*.json >/dev/null 2>&1 && fail "receipts left: $(ls "$STATE/receipts")"
echo "ok: the last uninstall: no cudnn-* dir, Path exactly as before, the prefix forgotten, no receipt"
