#!/usr/bin/env bash
# test_fetch_httpd.sh: the test HTTP(S) server (tests/tools/httpd.py) keeps its contract — byte
# exact bodies, Range/206/416, every fault mode, the request log, HTTPS with a self-signed
# certificate, and exiting with its parent — checked with the curl CLI as an independent client.
set -euo pipefail
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
HTTPD="$SOURCE_DIR/tests/tools/httpd.py"
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in python3 curl openssl cmp; do command -v $tool >/dev/null || fail "$tool missing (scripts/bootstrap)"; done

mkdir "$T/www"
head -c 300000 /dev/urandom > "$T/www/f.bin"
SIZE=300000

start() { # start NAME [extra args] → sets PORT
  local name=$1; shift
  python3 "$HTTPD" --root "$T/www" --port-file "$T/$name.port" --log "$T/$name.log" "$@" &
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$T/$name.port" ] && break; sleep 0.05; done
  [ -s "$T/$name.port" ] || fail "httpd.py ($name) did not start"
  PORT=$(cat "$T/$name.port")
}

start plain
U="http://127.0.0.1:$PORT"
code() { curl -s -o "$T/out" -w '%{http_code}' "$@" || true; }

[ "$(code "$U/f.bin")" = 200 ] && cmp -s "$T/out" "$T/www/f.bin" || fail "plain GET not byte-identical"
[ "$(code -r 1000- "$U/f.bin")" = 206 ] || fail "Range did not give 206"
tail -c +1001 "$T/www/f.bin" | cmp -s - "$T/out" || fail "206 body is not the file's tail"
curl -s -D "$T/h" -o /dev/null -r 1000- "$U/f.bin"
grep -qi "^content-range: bytes 1000-$((SIZE - 1))/$SIZE" "$T/h" || fail "Content-Range wrong: $(cat "$T/h")"
[ "$(code -r $SIZE- "$U/f.bin")" = 416 ] || fail "range past the end did not give 416"
[ "$(code --path-as-is "$U/../../etc/passwd")" = 404 ] || fail "path traversal not refused"

[ "$(code "$U/__fault/404/f.bin")" = 404 ] || fail "404 mode"
[ "$(code "$U/__fault/500,times=1/f.bin")" = 500 ] || fail "500 mode, first request"
[ "$(code "$U/__fault/500,times=1/f.bin")" = 200 ] || fail "500,times=1 mode, second request"

rc=0; curl -s -o "$T/out" "$U/__fault/cut,arg=12345/f.bin" || rc=$?
[ $rc = 18 ] || fail "cut mode: curl exit $rc, want 18 (partial file)"
[ "$(stat -c %s "$T/out")" = 12345 ] || fail "cut mode sent $(stat -c %s "$T/out") bytes, want 12345"
rc=0; curl -s -o /dev/null "$U/__fault/reset,arg=50000/f.bin" || rc=$?
[ $rc = 56 ] || [ $rc = 18 ] || fail "reset mode: curl exit $rc, want 56 (recv failure) or 18"
curl -s -D "$T/h" -o /dev/null "$U/__fault/badlen,arg=1000/f.bin" || true
grep -qi "^content-length: $((SIZE + 1000))" "$T/h" || fail "badlen did not announce $((SIZE + 1000))"
rc=0; curl -s -L --max-redirs 5 -o /dev/null "$U/__fault/loop/f.bin" || rc=$?
[ $rc = 47 ] || fail "loop mode: curl exit $rc, want 47 (too many redirects)"
[ "$(code -L "$U/__fault/redirect/f.bin")" = 200 ] && cmp -s "$T/out" "$T/www/f.bin" || fail "redirect mode"
[ "$(code -r 5- "$U/__fault/norange/f.bin")" = 200 ] && cmp -s "$T/out" "$T/www/f.bin" || fail "norange mode"
curl -s -o "$T/out" --max-time 1 "$U/__fault/drip,arg=2000/f.bin" || true
n=$(stat -c %s "$T/out"); [ "$n" -gt 0 ] && [ "$n" -lt 6000 ] || fail "drip at 2000 B/s sent $n bytes in 1 s"

# the log: one JSON object per request, with the Range header
python3 - "$T/plain.log" <<'PY' || fail "request log"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert all(set(r) == {"method", "path", "range", "status"} for r in recs), recs[0]
assert any(r["path"] == "/f.bin" and r["range"] == "bytes=1000-" and r["status"] == 206 for r in recs)
assert [r["status"] for r in recs if r["path"] == "/__fault/500,times=1/f.bin"] == [500, 200]
assert sum(r["path"] == "/__fault/loop/f.bin" for r in recs) == 6
PY

# HTTPS: an unknown certificate is refused, --cacert makes it pass
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || fail "openssl req"
start tls --tls-cert "$T/cert.pem" --tls-key "$T/key.pem"
rc=0; curl -s -o /dev/null "https://127.0.0.1:$PORT/f.bin" || rc=$?
[ $rc = 60 ] || fail "self-signed certificate: curl exit $rc, want 60"
[ "$(code --cacert "$T/cert.pem" "https://127.0.0.1:$PORT/f.bin")" = 200 ] && cmp -s "$T/out" "$T/www/f.bin" \
  || fail "HTTPS with --cacert"

# it goes away with its parent
# (--parent covers a parent that is gone before the server even started, as on a loaded machine)
bash -c "python3 '$HTTPD' --root '$T/www' --port-file '$T/orphan.port' --parent \$\$ & echo \$! > '$T/orphan.pid'; sleep 0.3"
opid=$(cat "$T/orphan.pid")
for _ in $(seq 150); do kill -0 "$opid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$opid" 2>/dev/null; then kill "$opid"; fail "httpd.py outlived its parent"; fi
echo "test_fetch_httpd: ok"
