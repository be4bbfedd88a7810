#!/usr/bin/env bash
# test_zip_stream.sh: a zip downloaded over http is unpacked as its bytes land
# (src/lib/extract/extract_zip_stream.c), and the result is the one the verified-file way gives:
#  - NVIDIA's real nvidia-cudnn-cu13 9.19.0.56 wheel over loopback: streamed (the log says so),
#    and the installed tree equals the install of the same wheel from a local file (paths, types,
#    modes, link targets, bytes) and the receipt's per-file SHA-256s are the files' own
#  - small wheels (ELF test doubles with the right SONAMEs, tests/tools/make_wheel_zip.py):
#    * a mode only the central directory carries (0755) is applied
#    * entry sizes after the data (data descriptors), or a stub before the first entry: not
#      streamed, unpacked from the verified file, same tree
#    * an entry the central directory hides (zip smuggling): streamed into staging, then the
#      directory disagrees: staging emptied, the verified-file way installs without it
#    * a '..' entry: refused as it arrives, exit 4, nothing installed, no receipt
#    * the wrong --sha256: exit 3 though every entry unpacked, nothing installed, no receipt,
#      the download quarantined, staging empty
set -euo pipefail
: "${CUDNNCTL:?}"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
WHEEL=nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl
T=$(mktemp -d /tmp/cudnnctl-zip-stream.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
MK=$SOURCE_DIR/tests/tools/make_wheel_zip.py
INC=/usr/local/cuda-13.0/include

serve() { # serve DIR: sets $port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  (cd "$1" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
  pids+=($!)
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
}
# tree DIR: every path under DIR with its type, mode, link target or content hash
tree() { (cd "$1" && find . -mindepth 1 -printf '%y %m %p %l\n' | sort | while read -r t m p l; do
  if [ "$t" = f ]; then echo "$t $m $p $(sed -e "s#$2#PREFIX#g" "$p" | sha256sum | cut -c1-16)"; else echo "$t $m $p $l"; fi
done); }
# inst NAME ARCHIVE ARGS...: install into $T/NAME (its own state and cache), log in $T/NAME.log
inst() { local n=$1 a=$2; shift 2
  "$CUDNNCTL" -v --no-progress --state-dir "$T/$n.s" --cache-dir "$T/$n.c" install --json --no-validate \
    --no-ldconfig --archive "$a" --prefix "$T/$n" "$@" >"$T/$n.json" 2>"$T/$n.log"; }
streamed() { grep -q 'layout wheel.*(streamed)' "$T/$1.log"; }
# receipt_true NAME MIN: every regular file the receipt of $T/NAME lists has its SHA-256 and mode
receipt_true() {
  local r
  r=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['receipt']['path'])" "$T/$1.json")
  python3 - "$r" "$2" <<'PY' || fail "$1: the receipt does not describe the files installed"
import hashlib, json, os, stat, sys
rec, n = json.load(open(sys.argv[1])), 0
for f in rec["files"]:
    p = f["path"]
    if os.path.islink(p) or not f.get("sha256"):
        continue
    st = os.stat(p)
    assert hashlib.sha256(open(p, "rb").read()).hexdigest() == f["sha256"], p
    assert f["mode"] == "0%o" % stat.S_IMODE(st.st_mode), (p, f["mode"], oct(st.st_mode))
    n += 1
assert n >= int(sys.argv[2]), n
PY
}
D=cudnn-9.19.0.56-cuda13

# ---- the small wheels
mkdir -p "$T/src" "$T/www"
printf 'int cudnnGetVersion(void){return 91900;}\n' >"$T/src/v.c"
for l in libcudnn libcudnn_ops libcudnn_hidden; do
  cc -shared -fPIC -Wl,-soname,$l.so.9 -o "$T/src/$l.so.9" "$T/src/v.c"
done
F=(--file "nvidia/cudnn/include/cudnn_version.h=$INC/cudnn_version.h" --file "nvidia/cudnn/include/cudnn.h=$INC/cudnn.h"
   --file "nvidia/cudnn/lib/libcudnn.so.9=$T/src/libcudnn.so.9:755" --file "nvidia/cudnn/lib/libcudnn_ops.so.9=$T/src/libcudnn_ops.so.9")
mk() { local d=$T/www/$1; mkdir -p "$d"; shift; python3 "$MK" "$d/$WHEEL" "${F[@]}" "$@"; }
mk plain
mk desc --descriptors
mk sfx --prefix-bytes 64
mk hidden --file "nvidia/cudnn/lib/libcudnn_hidden.so.9=$T/src/libcudnn_hidden.so.9" --cd-drop nvidia/cudnn/lib/libcudnn_hidden.so.9
mk evil --file "nvidia/cudnn/../../../../evil=$T/src/v.c"
serve "$T/www"
U=http://127.0.0.1:$port
sha() { sha256sum "$T/www/$1/$WHEEL" | cut -c1-64; }

# the plain wheel streamed; from a local file (the verified-file way) the same tree
inst plain "$U/plain/$WHEEL" --sha256 "$(sha plain)" || { cat "$T/plain.log"; fail "plain wheel"; }
streamed plain || { cat "$T/plain.log"; fail "the plain wheel over http was not streamed"; }
inst plainf "$T/www/plain/$WHEEL" --sha256 "$(sha plain)" || { cat "$T/plainf.log"; fail "plain wheel, local"; }
! streamed plainf || fail "a local file was 'streamed'"
[ "$(stat -c %a "$T/plain/$D/lib/libcudnn.so.9.19.0")" = 755 ] || fail "the central directory's 0755 was not applied"
[ "$(stat -c %a "$T/plain/$D/include/cudnn.h")" = 644 ] || fail "cudnn.h is not 0644"
diff <(tree "$T/plain/$D" "$T/plain") <(tree "$T/plainf/$D" "$T/plainf") >&2 || fail "streamed and file installs differ"
receipt_true plain 4

# not streamable: the verified-file way, the same tree
for v in desc sfx; do
  inst $v "$U/$v/$WHEEL" --sha256 "$(sha $v)" || { cat "$T/$v.log"; fail "$v wheel"; }
  grep -q 'not unpacked as it downloads' "$T/$v.log" || { cat "$T/$v.log"; fail "$v: no fallback said"; }
  diff <(tree "$T/$v/$D" "$T/$v") <(tree "$T/plainf/$D" "$T/plainf") >&2 || fail "$v: the tree differs"
done
grep -q "sizes come after its data" "$T/desc.log" || fail "desc: the reason is not named"

# an entry hidden from the central directory: streamed, then discarded
inst hidden "$U/hidden/$WHEEL" --sha256 "$(sha hidden)" || { cat "$T/hidden.log"; fail "hidden wheel"; }
grep -q 'central directory does not list what it streamed' "$T/hidden.log" || { cat "$T/hidden.log"; fail "hidden: the directory check did not fire"; }
! ls "$T/hidden/$D/lib" | grep -q hidden || fail "the hidden entry was installed"
diff <(tree "$T/hidden/$D" "$T/hidden") <(tree "$T/plainf/$D" "$T/plainf") >&2 || fail "hidden: the tree differs"

# a '..' entry: refused on arrival
set +e; inst evil "$U/evil/$WHEEL" --sha256 "$(sha evil)"; rc=$?; set -e
[ $rc -eq 4 ] && grep -q "'\.\.' component" "$T/evil.log" || { cat "$T/evil.log"; fail "evil: exit $rc, want 4"; }
[ ! -e "$T/evil/$D" ] && [ ! -e "$T/evil.s/receipts/000001.json" ] || fail "evil: something was installed"
[ -z "$(find "$T" -maxdepth 3 -name evil -type f)" ] || fail "evil: the '..' entry was written"

# the wrong SHA-256: every entry unpacked first, then refused whole
set +e; inst badsha "$U/plain/$WHEEL" --sha256 "$(printf '%064d' 0)"; rc=$?; set -e
[ $rc -eq 3 ] || { cat "$T/badsha.log"; fail "wrong --sha256: exit $rc, want 3"; }
[ ! -e "$T/badsha/$D" ] && [ ! -e "$T/badsha.s/receipts/000001.json" ] || fail "wrong --sha256: installed"
[ -z "$(find "$T/badsha" -type f 2>/dev/null)" ] || { find "$T/badsha" >&2; fail "wrong --sha256: files left in the prefix"; }
ls "$T/badsha.c/quarantine/" | grep -q . || fail "wrong --sha256: the download was not quarantined"

# ---- NVIDIA's real wheel
w=$CACHE/wheels/$WHEEL
if [ -f "$w" ]; then
  mkdir -p "$T/www/real" && ln -s "$w" "$T/www/real/$WHEEL"
  inst real "$U/real/$WHEEL" --components runtime,dev || { cat "$T/real.log"; fail "real wheel"; }
  streamed real || { cat "$T/real.log"; fail "the real wheel was not streamed"; }
  inst realf "$w" --components runtime,dev || { cat "$T/realf.log"; fail "real wheel, local"; }
  diff <(tree "$T/real/$D" "$T/real") <(tree "$T/realf/$D" "$T/realf") >&2 || fail "real: streamed and file installs differ"
  receipt_true real 8
else
  echo "note: $WHEEL not cached: the real-wheel part did not run (test_wheel_source downloads it)" >&2
fi
echo "PASS: zips over http unpack as they land, with the verified-file result; hidden, unsafe and wrong-hash zips refused or re-read"
