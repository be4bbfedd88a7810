#!/usr/bin/env bash
# test_fetch_poison.sh: a download refused for its content leaves nothing to resume (issue 12
# item 5). A server that sends an endless body without Content-Length (the right bytes then
# junk, or junk from the first byte) is refused with exit 3 and its part is discarded; so is a
# download whose SHA-256 does not match (quarantined). The next install, against a good server,
# then succeeds the first time — it does not resume on top of the junk.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
R=$T/root
VER=9.19.0.56
NAME=cudnn-linux-x86_64-${VER}_cuda13-archive.tar.xz
REL=cudnn/linux-x86_64/$NAME
mkdir -p "$T/build" "$T/www/cudnn/linux-x86_64" "$T/www/bad/cudnn/linux-x86_64" "$R/srv" "$R/opt"
A=$(make_archive "$T/build" "$VER" "libcudnn libcudnn_graph")
cp "$A" "$T/www/$REL"
cp "$A" "$T/www/bad/$REL"
flip_byte "$T/www/bad/$REL" 3
SHA=$(sha256sum "$A" | cut -c1-64); SIZE=$(stat -c %s "$A")
write_manifest "$R/srv/manifest.json" "$VER" "$REL" "$SHA" "$SIZE"
start_httpd "$T/www" --log "$T/http.log"
SEL=(--manifest /srv/manifest.json --allow-manifest-override --cudnn "$VER" --cuda 13 --platform linux-x86_64 --no-validate)
PART=$T/cache/blobs/sha256/$SHA.part

round() { # round NAME BAD-MIRROR WANT-TEXT
  local name=$1 bad=$2 want=$3
  rm -rf "$T/cache" "$R/var/lib/cudnnctl" "$R/opt/cudnn"
  set +e
  "$CUDNNCTL" --root "$R" --cache-dir "$T/cache" --no-progress install "${SEL[@]}" --mirror "$bad" \
    --prefix /opt/cudnn 2> "$T/err"
  rc=$?
  set -e
  [ $rc -eq 3 ] || { cat "$T/err"; fail "$name: exit $rc, want 3"; }
  grep -q "$want" "$T/err" || { cat "$T/err"; fail "$name: the error does not say '$want'"; }
  [ ! -e "$PART" ] && [ ! -e "$PART.prefix" ] || fail "$name: the refused bytes stayed as a resumable part"
  [ ! -e "$R/opt/cudnn/current" ] || fail "$name: something was installed"
  : > "$T/http.log"
  "$CUDNNCTL" --root "$R" --cache-dir "$T/cache" --no-progress install "${SEL[@]}" --mirror "$U/" \
    --prefix /opt/cudnn > "$T/out" 2>&1 || { cat "$T/out"; fail "$name: the good server's install failed"; }
  [ "$(readlink "$R/opt/cudnn/current")" = "cudnn-$VER-cuda13" ] || fail "$name: not installed"
  ! grep -q '"range": "bytes=' "$T/http.log" || fail "$name: the good download resumed a refused part"
  [ -f "$T/cache/blobs/sha256/$SHA" ] || fail "$name: no verified blob in the cache"
}

round "endless body after the file" "$U/__fault/endless/" "sent more than"
round "endless junk" "$U/__fault/endless,junk=1/" "sent more than"
round "wrong SHA-256" "$U/bad/" "does not match"
echo "ok: refused downloads discard their part; the next install succeeds first time"
