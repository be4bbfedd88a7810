#!/usr/bin/env bash
# test_rootsafe_transport.sh: issue 18 item 8 played as the network attacker would. An https
# mirror that redirects to plain http is refused (exit 10, both addresses named, a fix) before
# the http server is asked for a byte, and the prefix stays as it was; the same https mirror
# without the downgrade installs and its receipt says https. --cacert applies to --manifest URLs
# too: a manifest served over https by a test CA is refused without it (exit 10, the error names
# --cacert) and read with it, by available, plan and install alike.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
command -v openssl >/dev/null || { echo "openssl is not installed"; exit 77; }
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
R=$T/root
C=("$CUDNNCTL" --root "$R" --no-progress)
# a version the embedded catalog does not know: its manifest contradicts nothing
VER=9.99.0.1
NAME=cudnn-linux-x86_64-${VER}_cuda13-archive.tar.xz
REL=cudnn/linux-x86_64/$NAME

mkdir -p "$T/build" "$T/www/cudnn/linux-x86_64" "$R/opt"
A=$(make_archive "$T/build" "$VER" "libcudnn libcudnn_graph")
cp "$A" "$T/www/$REL"
SHA=$(sha256sum "$A" | cut -c1-64); SIZE=$(stat -c %s "$A")
write_manifest "$T/www/manifest.json" "$VER" "$REL" "$SHA" "$SIZE"

# a plain http server and an https one (a certificate of our own, as a TLS-inspecting network or
# an internal mirror would have), both serving the same files and logging every request
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/key.pem" \
  -out "$T/cert.pem" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  >/dev/null 2>&1 || fail "openssl req"
start_httpd "$T/www" --log "$T/http.log"
HTTP_PORT=$(cat "$T/port"); rm -f "$T/port"
start_httpd "$T/www" --log "$T/https.log" --tls-cert "$T/cert.pem" --tls-key "$T/key.pem"
S="https://127.0.0.1:$(cat "$T/port")"
M="$S/manifest.json"
SEL=(--cudnn "$VER" --cuda 13 --platform linux-x86_64 --prefix /opt/cudnn)

# ---- --cacert applies to --manifest URLs: without it the test CA is refused (fresh cache: no
# copy to fall back on) ... ----------------------------------------------------------------------
for cmd in available plan install; do
  extra=(); [ $cmd = available ] || extra=("${SEL[@]}")
  [ $cmd = install ] && extra+=(--mirror "$S/" --no-validate)
  set +e
  "${C[@]}" --cache-dir "$T/c-$cmd" $cmd --manifest "$M" "${extra[@]}" > "$T/out" 2> "$T/err"
  rc=$?
  set -e
  [ $rc -eq 10 ] || { cat "$T/err"; fail "$cmd --manifest $M without --cacert: exit $rc, want 10"; }
  grep -q "TLS error talking to $M" "$T/err" && grep -q -- "--cacert FILE" "$T/err" ||
    { cat "$T/err"; fail "$cmd: the TLS refusal of the manifest does not say how to fix it"; }
done
snap "$R/opt" > "$T/opt.before"

# ---- ... and with it the manifest is read (the printed fix works) ---------------------------------
"${C[@]}" --cache-dir "$T/c-ok" available --manifest "$M" --cacert "$T/cert.pem" --cudnn "$VER" \
  --platform linux-x86_64 --json > "$T/avail.json" || fail "available --manifest https --cacert"
json_assert "$T/avail.json" "[a['cudnn_version'] for a in d] == ['$VER'] and d[0]['manifest'] == '$M' and d[0]['sha256'] == '$SHA'"
"${C[@]}" --cache-dir "$T/c-ok" plan --manifest "$M" --cacert "$T/cert.pem" "${SEL[@]}" \
  --json > "$T/plan.json" || fail "plan --manifest https --cacert"
json_assert "$T/plan.json" "d['archive']['relative_path'] == '$REL' and d['archive']['manifest'] == '$M'"

# ---- an https mirror that downgrades to http: refused before http is asked, nothing installed ----
DOWN="$S/__fault/plainhttp,arg=$HTTP_PORT/"
set +e
"${C[@]}" --cache-dir "$T/c-down" install --manifest "$M" --cacert "$T/cert.pem" "${SEL[@]}" \
  --no-validate --mirror "$DOWN" --json > "$T/down.json" 2> "$T/err"
rc=$?
set -e
[ $rc -eq 10 ] || { cat "$T/err"; fail "https mirror redirecting to http: exit $rc, want 10"; }
grep -q "redirected to http://127.0.0.1:$HTTP_PORT/$REL: cudnnctl never follows a redirect from https to plain http" "$T/err" ||
  { cat "$T/err"; fail "the refusal does not name the downgrade"; }
grep -q "fix: use an https mirror that does not downgrade" "$T/err" || { cat "$T/err"; fail "no fix given"; }
grep -q "__fault/plainhttp" "$T/https.log" || fail "the https mirror was not even asked (test broken)"
if grep -q "\"path\": \"/$REL\"" "$T/http.log"; then
  cat "$T/http.log" >&2; fail "the plain-http server was asked for the archive"
fi
snap "$R/opt" > "$T/opt.now"; same_snap "$T/opt.before" "$T/opt.now" "a refused download changed the prefix"
ls "$R"/var/lib/cudnnctl/receipts/*.json >/dev/null 2>&1 && fail "a receipt was written for a refused download"

# ---- the same mirror without the downgrade installs, and the receipt says https -----------------
"${C[@]}" --cache-dir "$T/c-ok" install --manifest "$M" --cacert "$T/cert.pem" "${SEL[@]}" \
  --no-validate --mirror "$S/" --json > "$T/ok.json" 2> "$T/err" || { cat "$T/err"; fail "install over https with --cacert"; }
json_assert "$T/ok.json" 'd["result"] == "installed"'
REC=$(ls "$R"/var/lib/cudnnctl/receipts/*.json)
json_assert "$REC" "d['archive']['url'] == '$S/$REL' and d['archive']['sha256'] == '$SHA'"
cmp -s "$R/opt/cudnn/cudnn-$VER-cuda13/lib/libcudnn.so.9.99.0" \
  "$T/build/build-$VER/${NAME%.tar.xz}/lib/libcudnn.so.9.99.0" || fail "installed bytes differ"
echo "PASS: https never downgrades to http (refused, nothing asked over http, prefix untouched); --cacert reaches --manifest URLs (available, plan, install)"
