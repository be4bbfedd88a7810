#!/usr/bin/env bash
# test_install_store.sh: the unpacked store (issue 24 item 1). A verified archive extracted once
# is kept under CACHE/store/v1/<key>; a later install of it into any target is staged from there
# (--link-mode auto|copy|reflink|hardlink) and goes through the same journaled commit:
#  1. warm into a second prefix: store "hit", every archive file byte-identical to the cold one,
#     the receipt owns each, uninstall removes exactly it (the first prefix and the store stay);
#     cold, uninstall, warm into the same prefix: the whole snapshot identical;
#  2. --link-mode hardlink into a prefix: the files are the store's inodes; uninstall leaves the
#     store whole (cache verify); into a CUDA tree: refused (exit 2) with the fix, tree untouched;
#     a warm copy into a CUDA tree equals the cold one;
#  3. a store file changed in place is found (mtime), re-hashed, the entry quarantined and
#     rebuilt from the archive; a change that hides its mtime is found by `cache verify` (exit 3);
#  4. as root, a store dir another user can write, or an entry another user owns, is refused
#     (exit 9), never read;
#  5. kill -9 during a fill (a throttled download) leaves no entry believed: the next install
#     extracts the archive again and fills the store; `cache clean` removes the partial fill.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
A=$(make_archive "$T/srv" 9.19.0.56 "libcudnn libcudnn_graph libcudnn_ops")
S=$(sha256sum "$A" | cut -c1-64)
# installs from a mirror dir with its manifest (the store serves catalog and mirror installs; an
# --archive handed over is always read and checked, and fills the store)
REL="cudnn/linux-x86_64/$(basename "$A")"
mkdir -p "$T/mirror/cudnn/linux-x86_64"; cp "$A" "$T/mirror/$REL"
write_manifest "$T/m.json" 9.19.0.56 "$REL" "$S" "$(stat -c %s "$A")"
# the store is used when --link-mode is given (an install without it neither fills nor reads it)
SEL=(--cudnn 9.19.0.56 --cuda 13 --platform linux-x86_64 --allow-manifest-override --no-validate --no-ldconfig --link-mode auto)
I=(install --manifest "$T/m.json" --mirror "$T/mirror" "${SEL[@]}")
V=cudnn-9.19.0.56-cuda13
store_of() { find "$T/cache/store/v1" -mindepth 1 -maxdepth 1 -name "$S-*-$1" | head -1; }
# the archive's own files (build metadata names its prefix, so it differs between prefixes)
arch_snap() { snap "$1" | grep -v -e '/pkgconfig' -e '/cmake' ; }

# ---- 1. cold (from the archive handed over: it fills the store), then warm ----
"${C[@]}" --json install --archive "$A" --sha256 "$S" --no-validate --no-ldconfig --link-mode auto --prefix "$T/p1" \
  > "$T/1.json" 2>/dev/null || fail "cold install"
json_assert "$T/1.json" 'd["store"]["result"] == "filled" and d["result"] == "installed"'
E=$(store_of any); [ -n "$E" ] && [ -f "$E/manifest.json" ] || fail "no store entry after a cold install"
[ -z "$(find "$E/tree" -type f -perm /222)" ] || fail "store files are writable"
"${C[@]}" --json "${I[@]}" --prefix "$T/p2" > "$T/2.json" 2>/dev/null || fail "warm install"
json_assert "$T/2.json" 'd["store"]["result"] == "hit" and d["store"]["link_mode"] in ("copy", "reflink") and d["result"] == "installed"'
arch_snap "$T/p1/$V" > "$T/s1"; arch_snap "$T/p2/$V" > "$T/s2"
same_snap "$T/s1" "$T/s2" "a warm install differs from the cold one"
R2=$(json_get "$T/2.json" 'd["receipt"]["path"] if isinstance(d.get("receipt"), dict) else d["receipt_path"]' 2>/dev/null || true)
"${C[@]}" list --prefix "$T/p2" --json > "$T/l2.json" || fail "list"
python3 - "$T/state/receipts" "$T/p2/$V" <<'PY' || fail "the receipt does not own every warm-installed file"
import json, os, sys, hashlib, glob
owned = {}
for f in glob.glob(sys.argv[1] + "/*.json"):
    r = json.load(open(f))
    for e in r.get("files", []):
        owned[e["path"]] = e
root = sys.argv[2]
for dp, dn, fn in os.walk(root):
    for n in fn:
        p = os.path.join(dp, n)
        if os.path.islink(p):
            continue
        e = owned.get(p)
        assert e, "not owned: " + p
        assert e.get("sha256") == hashlib.sha256(open(p, "rb").read()).hexdigest(), p
PY
snap "$T/p1" > "$T/p1.before"; snap "$E" > "$T/store.before"
"${C[@]}" uninstall --prefix "$T/p2" --all >/dev/null 2>&1 || fail "uninstall of the warm install"
[ ! -e "$T/p2" ] || { find "$T/p2" >&2; fail "uninstall left something in the warm prefix"; }
snap "$T/p1" > "$T/p1.after"; same_snap "$T/p1.before" "$T/p1.after" "uninstall of p2 changed p1"
snap "$E" > "$T/store.after"; same_snap "$T/store.before" "$T/store.after" "uninstall changed the store"
# cold, uninstall, warm into the same prefix: identical, build metadata too
snap "$T/p1/$V" > "$T/full.cold"
"${C[@]}" uninstall --prefix "$T/p1" --all >/dev/null 2>&1 || fail "uninstall p1"
"${C[@]}" --json "${I[@]}" --prefix "$T/p1" > "$T/3.json" 2>/dev/null || fail "warm reinstall"
json_assert "$T/3.json" 'd["store"]["result"] == "hit"'
snap "$T/p1/$V" > "$T/full.warm"; same_snap "$T/full.cold" "$T/full.warm" "warm into the same prefix differs"

# ---- 2. hardlinks: prefixes only ----
"${C[@]}" --json "${I[@]}" --prefix "$T/p3" --link-mode hardlink > "$T/h.json" 2>/dev/null || fail "hardlink install"
json_assert "$T/h.json" 'd["store"]["link_mode"] == "hardlink"'
[ "$(stat -c %i "$T/p3/$V/lib/libcudnn.so.9.19.0")" = "$(stat -c %i "$E/tree/lib/libcudnn.so.9.19.0")" ] ||
  fail "--link-mode hardlink did not link the store's file"
cmp -s "$T/p3/$V/lib/libcudnn.so.9.19.0" "$T/p1/$V/lib/libcudnn.so.9.19.0" || fail "hardlinked bytes differ"
"${C[@]}" uninstall --prefix "$T/p3" --all >/dev/null 2>&1 || fail "uninstall of the hardlinked install"
[ -f "$E/tree/lib/libcudnn.so.9.19.0" ] || fail "uninstall removed the store's file"
"${C[@]}" cache verify >/dev/null 2>&1 || fail "the store does not verify after a hardlink uninstall"
R=$T/root; make_tree "$R" clean; mkdir -p "$R/srv"; cp -r "$T/mirror" "$T/m.json" "$R/srv/"
IR=(install --manifest /srv/m.json --mirror /srv/mirror "${SEL[@]}")
snap "$R/usr/local/cuda-13.0" > "$T/tree.before"
set +e
"${C[@]}" --root "$R" "${IR[@]}" --cuda-home /usr/local/cuda-13.0 --link-mode hardlink > /dev/null 2> "$T/hl.err"
rc=$?; set -e
[ $rc = 2 ] || { cat "$T/hl.err" >&2; fail "hardlink into a CUDA tree: exit $rc, not 2"; }
grep -q -- "--link-mode copy" "$T/hl.err" && grep -q -- "--prefix DIR" "$T/hl.err" || { cat "$T/hl.err" >&2; fail "no fix named"; }
snap "$R/usr/local/cuda-13.0" > "$T/tree.after"; same_snap "$T/tree.before" "$T/tree.after" "a refused install changed the tree"
# CUDA tree: cold, uninstall, warm copy: the same tree
"${C[@]}" --root "$R" --json "${IR[@]}" --cuda-home /usr/local/cuda-13.0 > "$T/t1.json" 2>/dev/null || fail "tree install"
json_assert "$T/t1.json" 'd["store"]["result"] == "filled"'
snap "$R/usr/local/cuda-13.0" > "$T/tree.cold"
"${C[@]}" --root "$R" uninstall --cuda-home /usr/local/cuda-13.0 --all >/dev/null 2>&1 || fail "tree uninstall"
snap "$R/usr/local/cuda-13.0" > "$T/tree.undone"; same_snap "$T/tree.before" "$T/tree.undone" "tree uninstall not exact"
"${C[@]}" --root "$R" --json "${IR[@]}" --cuda-home /usr/local/cuda-13.0 --link-mode copy > "$T/t2.json" 2>/dev/null || fail "warm tree install"
json_assert "$T/t2.json" 'd["store"]["result"] == "hit" and d["store"]["link_mode"] == "copy"'
snap "$R/usr/local/cuda-13.0" > "$T/tree.warm"; same_snap "$T/tree.cold" "$T/tree.warm" "a warm tree install differs"

# ---- 3. a corrupted store file: found, quarantined, rebuilt ----
F="$E/tree/lib/libcudnn_graph.so.9.19.0"
chmod u+w "$F"; flip_byte "$F"; chmod a-w "$F"
"${C[@]}" --json "${I[@]}" --prefix "$T/p4" > "$T/c.json" 2>/dev/null || fail "install over a corrupted store"
json_assert "$T/c.json" 'd["store"]["result"] == "rebuilt"'
ls "$T/cache/store/quarantine" | grep -q -- "$S" || fail "the bad entry was not quarantined"
cmp -s "$T/p4/$V/lib/libcudnn_graph.so.9.19.0" "$T/p1/$V/lib/libcudnn_graph.so.9.19.0" || fail "a corrupted store file was installed"
"${C[@]}" cache verify >/dev/null 2>&1 || fail "the rebuilt entry does not verify"
# a change that keeps size and mtime: only a re-hash sees it
chmod u+w "$F"; cp -p "$F" "$T/keep"; flip_byte "$F"; touch -r "$T/keep" "$F"; chmod a-w "$F"
set +e; "${C[@]}" --json cache verify > "$T/v.json" 2>/dev/null; rc=$?; set -e
[ $rc = 3 ] || fail "cache verify: exit $rc for a changed store file, not 3"
json_assert "$T/v.json" 'any(e["kind"] == "store" and e["verified"] is False for e in d["entries"])'
json_assert "$T/v.json" 'all(isinstance(e["last_used"], (int, float)) for e in d["entries"])'
"${C[@]}" cache clean >/dev/null 2>&1 || fail "cache clean"
[ -z "$(find "$T/cache/store/v1" -mindepth 1 2>/dev/null)" ] || fail "cache clean left the store"

# ---- 4. as root: a store others can write is not believed ----
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null; then
  "${C[@]}" "${I[@]}" --prefix "$T/p5" >/dev/null 2>&1 || fail "refill"
  chmod o+w "$T/cache/store/v1"
  set +e; "${C[@]}" "${I[@]}" --prefix "$T/p6" > /dev/null 2> "$T/u.err"; rc=$?; set -e
  [ $rc = 9 ] || { cat "$T/u.err" >&2; fail "a world-writable store: exit $rc, not 9"; }
  grep -q "store" "$T/u.err" || { cat "$T/u.err" >&2; fail "the refusal does not name the store"; }
  cat "$T/u.err" >&2
  [ ! -e "$T/p6/$V" ] || fail "installed from an untrusted store"
  chmod o-w "$T/cache/store/v1"
  SU="ccst$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
  useradd -M -U -s /bin/sh "$SU" >/dev/null
  trap 'userdel "$SU" >/dev/null 2>&1 || true; groupdel "$SU" >/dev/null 2>&1 || true; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
  E=$(store_of any); chown -R "$SU:$SU" "$E"
  set +e; "${C[@]}" "${I[@]}" --prefix "$T/p6" > /dev/null 2> "$T/u2.err"; rc=$?; set -e
  [ $rc = 9 ] || { cat "$T/u2.err" >&2; fail "an entry another user owns: exit $rc, not 9"; }
  grep -q "$SU" "$T/u2.err" || { cat "$T/u2.err" >&2; fail "the refusal does not name the owner"; }
  [ ! -e "$T/p6/$V" ] || fail "installed from another user's store entry"
  chown -R root:root "$E"
fi

# ---- 5. kill -9 during a fill ----
"${C[@]}" cache clean >/dev/null 2>&1
start_httpd "$T/mirror" --throttle $(( $(stat -c %s "$A") / 6 ))
"${C[@]}" install --manifest "$T/m.json" --mirror "$U/" --cudnn 9.19.0.56 --cuda 13 --platform linux-x86_64 \
  --prefix "$T/p7" --no-validate --no-ldconfig --allow-manifest-override --link-mode auto >/dev/null 2>&1 &
ip=$!
for _ in $(seq 100); do [ -n "$(find "$T/cache/store/tmp" -type f 2>/dev/null | head -1)" ] && break; sleep 0.1; done
[ -n "$(find "$T/cache/store/tmp" -type f 2>/dev/null | head -1)" ] || fail "the fill never started"
kill -9 "$ip" || fail "the install ended before the kill: no fill was interrupted"
wait "$ip" 2>/dev/null || true
[ -z "$(find "$T/cache/store/v1" -mindepth 1 2>/dev/null)" ] || fail "a killed fill left an entry in the store"
"${C[@]}" --json cache list > "$T/k.json" 2>/dev/null
json_assert "$T/k.json" 'not any(e["kind"] == "store" for e in d["entries"])'
"${C[@]}" --json "${I[@]}" --prefix "$T/p8" > "$T/k2.json" 2>/dev/null || fail "install after a killed fill"
json_assert "$T/k2.json" 'd["store"]["result"] == "filled"'
"${C[@]}" cache verify >/dev/null 2>&1 || fail "the store after a killed fill does not verify"
"${C[@]}" cache clean >/dev/null 2>&1
[ -z "$(find "$T/cache/store/tmp" -mindepth 1 2>/dev/null)" ] || fail "cache clean left the partial fill"
# ---- 6. without --link-mode the store is neither filled nor read (the cold path as before) ----
"${C[@]}" --json install --manifest "$T/m.json" --mirror "$T/mirror" --cudnn 9.19.0.56 --cuda 13 \
  --platform linux-x86_64 --allow-manifest-override --no-validate --no-ldconfig --prefix "$T/p9" \
  > "$T/n.json" 2>/dev/null || fail "install without --link-mode"
json_assert "$T/n.json" 'not (d.get("store") or {}).get("result")'
[ -z "$(find "$T/cache/store/v1" -mindepth 1 -maxdepth 1 2>/dev/null)" ] ||
  fail "an install without --link-mode filled the store"
echo "store: warm copy/hardlink/tree, corruption, trust, kill -9 and opt-in checks passed"
