#!/usr/bin/env bash
# test_install_http.sh: the install issue's acceptance over a real loopback HTTP server
# (tests/tools/httpd.py): install --prefix and install --cuda-home (fake tree) put every header,
# library and link where specified and write a receipt; uninstall restores each tree byte for
# byte; one flipped byte exits 3 with the target untouched and the bytes quarantined; a cut
# download fails, and the rerun resumes it (the server log shows the Range request).
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
R=$T/root
C=("$CUDNNCTL" --root "$R" --no-progress)
VER=9.19.0.56
NAME=cudnn-linux-x86_64-${VER}_cuda13-archive.tar.xz
REL=cudnn/linux-x86_64/$NAME

# ---- the archive (real cuDNN 9.19 files where the machine has them), served over HTTP ----------
mkdir -p "$T/build" "$T/www/cudnn/linux-x86_64" "$T/www/bad/cudnn/linux-x86_64" "$R/srv"
A=$(make_archive "$T/build" "$VER" "libcudnn libcudnn_graph libcudnn_cnn")
cp "$A" "$T/www/$REL"
cp "$A" "$T/www/bad/$REL"
flip_byte "$T/www/bad/$REL"
SHA=$(sha256sum "$A" | cut -c1-64); SIZE=$(stat -c %s "$A")
write_manifest "$R/srv/manifest.json" "$VER" "$REL" "$SHA" "$SIZE"
start_httpd "$T/www" --log "$T/http.log"
# the archive is rebuilt under NVIDIA's name: its manifest contradicts the embedded catalog, which
# is refused unless accepted knowingly (docs/security.md "Manifest trust")
SEL=(--manifest /srv/manifest.json --allow-manifest-override --cudnn "$VER" --cuda 13
     --platform linux-x86_64 --no-validate)

# ---- prefix mode ------------------------------------------------------------------------------------
mkdir -p "$R/opt"
snap "$R/opt" > "$T/opt.before"
"${C[@]}" --cache-dir "$T/c1" install "${SEL[@]}" --mirror "$U/" --prefix /opt/cudnn --json > "$T/p.json" ||
  fail "install --prefix over HTTP"
json_assert "$T/p.json" 'd["result"] == "installed" and d["target"]["mode"] == "prefix"'
P=$R/opt/cudnn/cudnn-$VER-cuda13
[ "$(readlink "$R/opt/cudnn/current")" = "cudnn-$VER-cuda13" ] || fail "current link"
for s in libcudnn libcudnn_graph libcudnn_cnn; do
  [ -f "$P/lib/$s.so.9.19.0" ] && [ ! -L "$P/lib/$s.so.9.19.0" ] || fail "$s.so.9.19.0 not a file"
  [ "$(readlink "$P/lib/$s.so.9")" = "$s.so.9.19.0" ] || fail "$s.so.9 link"
  [ "$(readlink "$P/lib/$s.so")" = "$s.so.9" ] || fail "$s.so link"
  cmp -s "$P/lib/$s.so.9.19.0" "$T/build/build-$VER/${NAME%.tar.xz}/lib/$s.so.9.19.0" || fail "$s bytes"
done
[ -f "$P/include/cudnn_version.h" ] && [ -f "$P/LICENSE" ] || fail "headers / LICENSE"
ls "$R"/var/lib/cudnnctl/receipts/*.json >/dev/null 2>&1 || fail "no receipt"
grep -q "\"GET\"" "$T/http.log" || fail "nothing was fetched over HTTP"
"${C[@]}" uninstall --prefix /opt/cudnn --all >/dev/null || fail "uninstall --prefix"
snap "$R/opt" > "$T/opt.after"
same_snap "$T/opt.before" "$T/opt.after" "prefix not restored byte for byte"

# ---- CUDA-tree mode (a fake tree that already holds a foreign wheel-style cuDNN) -------------------
make_tree "$R"
TREE=$R/usr/local/cuda-13.0
snap "$TREE" > "$T/tree.before"
"${C[@]}" --cache-dir "$T/c1" install "${SEL[@]}" --mirror "$U/" --cuda-home /usr/local/cuda-13.0 \
  --no-ldconfig --force --json > "$T/t.json" || fail "install --cuda-home over HTTP"
json_assert "$T/t.json" 'd["result"] == "installed" and d["target"]["mode"] == "cuda-tree"'
for s in libcudnn libcudnn_graph libcudnn_cnn; do
  [ "$(readlink "$TREE/lib/$s.so.9")" = "$s.so.9.19.0" ] || fail "tree: $s.so.9 link"
  [ "$(readlink "$TREE/lib/$s.so")" = "$s.so.9" ] || fail "tree: $s.so link"
done
cmp -s "$TREE/include/cudnn_version.h" "$T/build/build-$VER/${NAME%.tar.xz}/include/cudnn_version.h" ||
  fail "tree: header"
"${C[@]}" uninstall --cuda-home /usr/local/cuda-13.0 --no-ldconfig >/dev/null || fail "uninstall tree"
snap "$TREE" > "$T/tree.after"
same_snap "$T/tree.before" "$T/tree.after" "tree not restored byte for byte"

# ---- reinstalling into the tree from the cache: no network at all (the mirror is unreachable) -----
n_before=$(wc -l < "$T/http.log")
"${C[@]}" --cache-dir "$T/c1" install "${SEL[@]}" --mirror "http://127.0.0.1:1/" --force \
  --cuda-home /usr/local/cuda-13.0 --no-ldconfig --json > "$T/t2.json" ||
  fail "reinstall into the tree with the archive in the cache needed the network"
json_assert "$T/t2.json" 'd["result"] == "installed"'
[ "$(wc -l < "$T/http.log")" = "$n_before" ] || fail "the reinstall from the cache asked the server"
"${C[@]}" uninstall --cuda-home /usr/local/cuda-13.0 --no-ldconfig >/dev/null || fail "uninstall tree (2)"
snap "$TREE" > "$T/tree.after"
same_snap "$T/tree.before" "$T/tree.after" "tree not restored byte for byte (2)"

# ---- one flipped byte: exit 3, the tree untouched, the bytes quarantined ---------------------------
set +e
"${C[@]}" --cache-dir "$T/c2" install "${SEL[@]}" --mirror "$U/bad/" --cuda-home /usr/local/cuda-13.0 \
  --no-ldconfig > "$T/bad.out" 2> "$T/bad.err"
rc=$?
set -e
[ $rc -eq 3 ] || { cat "$T/bad.err"; fail "flipped byte: exit $rc, want 3"; }
grep -q "$SHA" "$T/bad.err" || fail "the error does not show the expected hash: $(cat "$T/bad.err")"
snap "$TREE" > "$T/tree.now"
same_snap "$T/tree.before" "$T/tree.now" "a hash mismatch changed the tree"
ls "$T/c2/quarantine/"* >/dev/null 2>&1 || fail "bad bytes not quarantined"
no_leftovers "$TREE"

# ---- a cut download fails; the rerun resumes with a Range request ----------------------------------
# every try of the first run is cut after 200 kB (times=4 = the fetch's tries), the 5th request is not
CUT="$U/__fault/cut,arg=200000,times=4/"
set +e
"${C[@]}" --cache-dir "$T/c3" install "${SEL[@]}" --mirror "$CUT" --prefix /opt/cut > "$T/cut1.out" 2> "$T/cut1.err"
rc=$?
set -e
[ $rc -ne 0 ] || fail "the cut download should have failed"
[ ! -e "$R/opt/cut/current" ] || fail "a failed download left an install"
ls "$T/c3/blobs/sha256/$SHA.part" >/dev/null 2>&1 || fail "no resumable .part kept: $(ls -R "$T/c3")"
before=$(wc -l < "$T/http.log")
"${C[@]}" --cache-dir "$T/c3" install "${SEL[@]}" --mirror "$CUT" --prefix /opt/cut --json > "$T/cut2.json" ||
  fail "the rerun did not finish the download: $(cat "$T/cut2.json")"
json_assert "$T/cut2.json" 'd["result"] == "installed"'
tail -n +"$((before + 1))" "$T/http.log" | grep -q '"range": "bytes=[1-9]' ||
  fail "the rerun did not resume (no Range request): $(tail -n +"$((before + 1))" "$T/http.log")"
echo "ok: prefix + tree over HTTP, byte-exact uninstall, flipped byte exit 3, cut download resumed"
