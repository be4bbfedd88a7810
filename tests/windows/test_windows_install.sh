#!/usr/bin/env bash
# test_windows_install.sh: cudnnctl.exe install / uninstall under wine into the fake
# C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4, from a zip built at test time in NVIDIA's
# 8.8-9.17 layout (bin, include, lib\x64) out of the real cuDNN 9.1.0.70 Windows files:
#  - --cuda-home given as a Windows path; each DLL lands in bin\, headers in include\, import libs
#    in lib\x64\ with the zip's bytes; a foreign include\cudnn.h is replaced and kept as backup;
#  - HKCU\Environment then holds CUDA_PATH and CUDA_PATH_V12_4 = the tree, and a Path (still
#    REG_EXPAND_SZ, the user's %USERPROFILE% entry unexpanded) with the tree's bin exactly once,
#    also after a second install; the receipt records the old values;
#  - `use 13.0` repoints
#    CUDA_PATH at v13.0 and swaps v12.4\bin for v13.0\bin;v13.0\bin\x64 on Path, once each;
#  - uninstall restores every file of the tree and every registry value (wine reg query) exactly
#    (after the use: leaves what `use` set, removes CUDA_PATH_V12_4 the install added);
#  - a 9.18+ zip (bin\x64 layout) into the CUDA 13 tree puts the DLLs in bin\x64 (where that
#    toolkit keeps its DLLs) and both bin and bin\x64 on Path once; uninstall restores it all.
# Runs under scripts/test-windows.sh (WINE, WINEPREFIX, CUDNNCTL set by CTest).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${CUDNNCTL:?}"

. "$(dirname "${BASH_SOURCE[0]}")/cudnn_wheel.sh"

ROOT="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit"
TREE="$ROOT/CUDA/v12.4"
WTREE='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4'
W="$WINEPREFIX/drive_c/cudnnctl-insttest"
STATE="$WINEPREFIX/drive_c/ProgramData/cudnnctl"
KEY='HKCU\Environment'
TMP=$(mktemp -d)
reg_restore() { # put the user's environment back as the test found it
  "$WINE" reg delete "$KEY" /v CUDA_PATH /f >/dev/null 2>&1 || true
  "$WINE" reg delete "$KEY" /v CUDA_PATH_V12_4 /f >/dev/null 2>&1 || true
  "$WINE" reg delete "$KEY" /v CUDA_PATH_V13_0 /f >/dev/null 2>&1 || true
  "$WINE" reg delete "$KEY" /v Path /f >/dev/null 2>&1 || true
}
trap 'reg_restore; [ -n "${KEEP:-}" ] || rm -rf "$ROOT" "$W" "$STATE" "$TMP"' EXIT
cd "$WINEPREFIX/drive_c" # current drive C: (Z: is the Linux root)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$ROOT" "$W" "$STATE"
mkdir -p "$W" "$TREE/bin" "$TREE/include" "$TREE/lib/x64"

TOP=cudnn-windows-x86_64-${VER}_cuda12-archive
python3 - "$WHL" "$W" "$TOP" <<'PY'
import hashlib, sys, zipfile
whl, out, top = sys.argv[1:4]
z = zipfile.ZipFile(whl)
files = {
    f"bin/{n}": z.read(f"nvidia/cudnn/bin/{n}") for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll")
}
files.update({f"include/{n}": z.read(f"nvidia/cudnn/include/{n}") for n in ("cudnn.h", "cudnn_version.h")})
files.update({f"lib/x64/{n}": z.read(f"nvidia/cudnn/lib/x64/{n}") for n in ("cudnn.lib", "cudnn64_9.lib")})
with zipfile.ZipFile(f"{out}/{top}.zip", "w", zipfile.ZIP_DEFLATED) as o:
    for rel, b in files.items():
        o.writestr(f"{top}/{rel}", b)
    o.writestr(f"{top}/LICENSE", b"license text\n")
with open(f"{out}/expected.txt", "w") as exp:
    for rel, b in files.items():
        exp.write(f"{rel} {hashlib.sha256(b).hexdigest()}\n")
PY
SHA=$(sha256sum "$W/$TOP.zip" | cut -d' ' -f1)

# the toolkit as the CUDA installer leaves it, plus a stale cudnn.h of someone else's
echo '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}' >"$TREE/version.json"
printf 'MZ cudart test double\n' >"$TREE/bin/cudart64_12.dll"
printf '/* foreign cudnn.h */\n' >"$TREE/include/cudnn.h"
printf 'cuda lib\n' >"$TREE/lib/x64/cudart.lib"
snapshot() { (cd "$TREE" && find . -printf '%y %p\n' | sort && find . -type f -exec sha256sum {} + | sort -k2); }
snapshot >"$TMP/tree.before"

# the user's environment before: a Path with an unexpanded reference, an older CUDA_PATH
reg_restore
"$WINE" reg add "$KEY" /v Path /t REG_EXPAND_SZ /d '%USERPROFILE%\bin;C:\tools' /f >/dev/null 2>&1 ||
  fail "wine reg add Path failed"
"$WINE" reg add "$KEY" /v CUDA_PATH /t REG_SZ /d 'C:\old\cuda' /f >/dev/null 2>&1 ||
  fail "wine reg add CUDA_PATH failed"
# (no match is an empty answer, not a silent exit under pipefail)
regq() { "$WINE" reg query "$KEY" 2>/dev/null | tr -d '\r' | { grep -E '^\s+(CUDA_PATH|Path)' || true; } | sort; }
regq >"$TMP/reg.before"
grep -q 'CUDA_PATH    REG_SZ    C:\\old\\cuda' "$TMP/reg.before" || fail "reg add did not take: $(cat "$TMP/reg.before")"

install() {
  "$WINE" "$CUDNNCTL" install --json --no-validate --archive "C:\\cudnnctl-insttest\\$TOP.zip" \
    --sha256 "$SHA" --cuda-home "$WTREE" "$@" 2>"$TMP/err" | tr -d '\r' >"$TMP/install.json" ||
    fail "install: $(cat "$TMP/err")"
}
# the foreign cudnn.h is no cudnnctl receipt's: replacing it needs --force (docs/security.md)
if "$WINE" "$CUDNNCTL" install --json --no-validate --archive "C:\\cudnnctl-insttest\\$TOP.zip" \
     --sha256 "$SHA" --cuda-home "$WTREE" >/dev/null 2>"$TMP/err"; then
  fail "the foreign cudnn.h was replaced without --force"
fi
grep -q -- "--force" "$TMP/err" || fail "the refusal does not name --force: $(cat "$TMP/err")"
install --force
python3 - "$TMP/install.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
def norm(s): return s.replace("/", "\\").lower()
tree = "c:\\program files\\nvidia gpu computing toolkit\\cuda\\v12.4"
if r["result"] != "installed": print("FAIL: result", r["result"], r.get("warnings")); sys.exit(1)
t = r["target"]
if norm(t["path"]) != tree or norm(t["bin_dir"]) != tree + "\\bin" or norm(t["lib_dir"]) != tree + "\\lib\\x64" \
   or norm(t["include_dir"]) != tree + "\\include":
    print("FAIL: target", t); sys.exit(1)
if any("/C:" in v or "\\" in v for v in t.values()):
    print("FAIL: target paths not in one style:", t); sys.exit(1)
if not any("1 replaced" in s for s in r["steps"]): print("FAIL: the foreign cudnn.h was not backed up:", r["steps"]); sys.exit(1)
print("ok: installed into", t["path"])
PY
while read -r rel sum; do
  got=$(sha256sum "$TREE/$rel" 2>/dev/null | cut -d' ' -f1) || true
  [ "$got" = "$sum" ] || fail "$rel: not in the tree with the zip's bytes (got '${got}')"
done <"$W/expected.txt"
[ -f "$TREE/bin/cudart64_12.dll" ] && [ -f "$TREE/lib/x64/cudart.lib" ] || fail "toolkit files disappeared"
echo "ok: $(wc -l <"$W/expected.txt") files at bin\\, include\\, lib\\x64\\ with the zip's bytes"

check_reg() {
  "$WINE" reg query "$KEY" 2>/dev/null | tr -d '\r' >"$TMP/reg.now"
  grep -qxF "    CUDA_PATH    REG_SZ    $WTREE" "$TMP/reg.now" || fail "CUDA_PATH: $(grep CUDA_PATH "$TMP/reg.now")"
  grep -qxF "    CUDA_PATH_V12_4    REG_SZ    $WTREE" "$TMP/reg.now" || fail "CUDA_PATH_V12_4: $(cat "$TMP/reg.now")"
  local path
  path=$(grep -E '^    Path    REG_EXPAND_SZ    ' "$TMP/reg.now" | sed 's/^    Path    REG_EXPAND_SZ    //') ||
    fail "Path is no longer REG_EXPAND_SZ: $(grep Path "$TMP/reg.now")"
  [ "$path" = "$WTREE\\bin;%USERPROFILE%\\bin;C:\\tools" ] || fail "Path: $path"
  [ "$(tr ';' '\n' <<<"$path" | grep -cixF "$WTREE\\bin")" -eq 1 ] || fail "the tree's bin is not on Path exactly once: $path"
}
check_reg
echo "ok: HKCU\\Environment: CUDA_PATH, CUDA_PATH_V12_4 = the tree; Path = tree\\bin once, REG_EXPAND_SZ kept"
python3 - "$STATE"/receipts/*.json <<'PY' || exit 1
import json, sys
env = json.load(open(sys.argv[1]))["env"]
by = {e["name"]: e for e in env}
if by.get("CUDA_PATH", {}).get("old") != "C:\\old\\cuda" or by["Path"]["old"] != "%USERPROFILE%\\bin;C:\\tools" \
   or by["Path"]["old_type"] != "REG_EXPAND_SZ" or by.get("CUDA_PATH_V12_4", {}).get("old_type") != "none":
    print("FAIL: receipt env", env); sys.exit(1)
print("ok: the receipt records", len(env), "registry values with their old values and types")
PY

# again (same bytes): unchanged, and Path still holds the bin once
install
grep -q '"result": *"unchanged"' "$TMP/install.json" || fail "second install: $(head -c 300 "$TMP/install.json")"
check_reg
echo "ok: a second install changes nothing"

# a CUDA 13 toolkit beside it (DLLs in bin\x64); first the plain uninstall, then install + use 13.0
TREE13="$ROOT/CUDA/v13.0"
WTREE13='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0'
mkdir -p "$TREE13/bin/x64" "$TREE13/include"
echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.1"}}' >"$TREE13/version.json"
printf 'MZ cudart test double\n' >"$TREE13/bin/x64/cudart64_13.dll"
"$WINE" "$CUDNNCTL" uninstall --json 2>"$TMP/err" | tr -d '\r' >"$TMP/un.json" || fail "uninstall: $(cat "$TMP/err")"
snapshot >"$TMP/tree.after"
diff "$TMP/tree.before" "$TMP/tree.after" >&2 || fail "uninstall did not restore the tree (above)"
regq >"$TMP/reg.after"
diff "$TMP/reg.before" "$TMP/reg.after" >&2 || fail "uninstall did not restore the registry (above)"
echo "ok: uninstall restored the tree (foreign cudnn.h back) and CUDA_PATH / CUDA_PATH_V12_4 / Path"

install --force # the foreign cudnn.h is back
check_reg
"$WINE" "$CUDNNCTL" use 13.0 --json 2>"$TMP/err" | tr -d '\r' >"$TMP/use.json" || fail "use 13.0: $(cat "$TMP/err")"
python3 -c 'import json,sys; u=json.load(open(sys.argv[1])); assert u["changed"] and u["mechanism"] == "registry" and u["toolkit"]["version"].startswith("13.0"), u' "$TMP/use.json" ||
  fail "use 13.0 --json: $(cat "$TMP/use.json")"
"$WINE" reg query "$KEY" 2>/dev/null | tr -d '\r' >"$TMP/reg.now"
grep -qxF "    CUDA_PATH    REG_SZ    $WTREE13" "$TMP/reg.now" || fail "use 13.0: CUDA_PATH: $(cat "$TMP/reg.now")"
grep -qxF "    CUDA_PATH_V13_0    REG_SZ    $WTREE13" "$TMP/reg.now" || fail "use 13.0: CUDA_PATH_V13_0: $(cat "$TMP/reg.now")"
want="    Path    REG_EXPAND_SZ    $WTREE13\\bin;$WTREE13\\bin\\x64;%USERPROFILE%\\bin;C:\\tools"
grep -qxF "$want" "$TMP/reg.now" || fail "use 13.0: Path: $(grep Path "$TMP/reg.now") (want $want)"
echo "ok: use 13.0 repoints CUDA_PATH and swaps v12.4\\bin for v13.0\\bin;bin\\x64 on Path"
"$WINE" "$CUDNNCTL" use 13.0 --json 2>/dev/null | tr -d '\r' | grep -q '"changed":false' || fail "use 13.0 twice changed something"
"$WINE" "$CUDNNCTL" uninstall --json 2>"$TMP/err" | tr -d '\r' >"$TMP/un.json" || fail "uninstall after use: $(cat "$TMP/err")"
"$WINE" reg query "$KEY" 2>/dev/null | tr -d '\r' >"$TMP/reg.now"
grep -qxF "    CUDA_PATH    REG_SZ    $WTREE13" "$TMP/reg.now" || fail "uninstall after use changed CUDA_PATH: $(cat "$TMP/reg.now")"
grep -qxF "$want" "$TMP/reg.now" || fail "uninstall after use changed Path: $(grep Path "$TMP/reg.now")"
grep -q CUDA_PATH_V12_4 "$TMP/reg.now" && fail "uninstall left CUDA_PATH_V12_4, which the install added"
grep -q 'CUDA_PATH.*was changed after the install' "$TMP/un.json" || fail "no warning about the CUDA_PATH that use changed: $(cat "$TMP/un.json")"
echo "ok: uninstall after use keeps what use set, removes what the install added"

# 9.18+ layout (bin\x64, lib\x64) for CUDA 13 into v13.0 (DLLs in bin\x64): the same real bytes
# under a 9.19 CUDA 13 name, with a matching version header
reg_restore
"$WINE" reg add "$KEY" /v Path /t REG_EXPAND_SZ /d '%USERPROFILE%\bin;C:\tools' /f >/dev/null 2>&1 ||
  fail "wine reg add Path failed"
regq >"$TMP/reg13.before"
grep -q 'Path    REG_EXPAND_SZ' "$TMP/reg13.before" || fail "reg add did not take: $(cat "$TMP/reg13.before")"
(cd "$TREE13" && find . -printf '%y %p\n' | sort) >"$TMP/tree13.before"
TOP13=cudnn-windows-x86_64-9.19.0.56_cuda13-archive
python3 - "$WHL" "$W" "$TOP13" <<'PY'
import hashlib, sys, zipfile
whl, out, top = sys.argv[1:4]
z = zipfile.ZipFile(whl)
files = {f"bin/x64/{n}": z.read(f"nvidia/cudnn/bin/{n}") for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll")}
files["include/cudnn.h"] = z.read("nvidia/cudnn/include/cudnn.h")
files["include/cudnn_version.h"] = b"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n"
files.update({f"lib/x64/{n}": z.read(f"nvidia/cudnn/lib/x64/{n}") for n in ("cudnn.lib", "cudnn64_9.lib")})
with zipfile.ZipFile(f"{out}/{top}.zip", "w", zipfile.ZIP_DEFLATED) as o:
    for rel, b in files.items():
        o.writestr(f"{top}/{rel}", b)
with open(f"{out}/expected13.txt", "w") as exp:
    for rel, b in files.items():
        exp.write(f"{rel} {hashlib.sha256(b).hexdigest()}\n")
PY
SHA13=$(sha256sum "$W/$TOP13.zip" | cut -d' ' -f1)
"$WINE" "$CUDNNCTL" install --json --no-validate --archive "C:\\cudnnctl-insttest\\$TOP13.zip" \
  --sha256 "$SHA13" --cuda-home "$WTREE13" 2>"$TMP/err" | tr -d '\r' >"$TMP/install13.json" ||
  fail "install into v13.0: $(cat "$TMP/err")"
while read -r rel sum; do
  got=$(sha256sum "$TREE13/$rel" 2>/dev/null | cut -d' ' -f1) || true
  [ "$got" = "$sum" ] || fail "v13.0: $rel not in the tree with the zip's bytes (got '${got}')"
done <"$W/expected13.txt"
[ ! -e "$TREE13/bin/cudnn64_9.dll" ] || fail "v13.0: a DLL landed in bin\\ instead of bin\\x64\\"
"$WINE" reg query "$KEY" 2>/dev/null | tr -d '\r' >"$TMP/reg.now"
want13="    Path    REG_EXPAND_SZ    $WTREE13\\bin;$WTREE13\\bin\\x64;%USERPROFILE%\\bin;C:\\tools"
grep -qxF "$want13" "$TMP/reg.now" || fail "v13.0 Path: $(grep Path "$TMP/reg.now") (want $want13)"
grep -qxF "    CUDA_PATH_V13_0    REG_SZ    $WTREE13" "$TMP/reg.now" || fail "v13.0: CUDA_PATH_V13_0: $(cat "$TMP/reg.now")"
echo "ok: a 9.18+ zip into v13.0: DLLs in bin\\x64, Path = bin;bin\\x64 once each"
"$WINE" "$CUDNNCTL" uninstall --json 2>"$TMP/err" | tr -d '\r' >"$TMP/un13.json" || fail "uninstall v13.0: $(cat "$TMP/err")"
(cd "$TREE13" && find . -printf '%y %p\n' | sort) >"$TMP/tree13.after"
diff "$TMP/tree13.before" "$TMP/tree13.after" >&2 || fail "uninstall did not restore v13.0 (above)"
regq >"$TMP/reg13.after"
diff "$TMP/reg13.before" "$TMP/reg13.after" >&2 || fail "uninstall did not restore the registry after the v13.0 install (above)"
echo "ok: uninstall restored v13.0 and the registry"
