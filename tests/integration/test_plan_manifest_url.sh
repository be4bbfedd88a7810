#!/usr/bin/env bash
# test_plan_manifest_url.sh: --manifest http://... from a real local HTTP server: the manifest is
# fetched through the source layer, its own SHA-256 is recorded (entries and cache copy), and
# when the server is gone the cached copy is used with a warning; no copy → exit 10.
# Needs the fetch work's cc_source (with src/lib/source_stub_catalog.c it fails: no network).
set -euo pipefail
: "${CUDNNCTL:?set by ctest}"
T=$(mktemp -d)
srv_pid=
cleanup() { [ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$T/srv"
cat >"$T/srv/redistrib_9.99.0.json" <<'JSON'
{"release_date": "2030-01-02", "release_label": "9.99.0", "release_product": "cudnn",
 "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "version": "9.99.0.1",
  "linux-x86_64": {"cuda13": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz",
     "sha256": "1111111111111111111111111111111111111111111111111111111111111111", "size": "4242"}},
  "cuda_variant": ["13"]}}
JSON
want=$(sha256sum "$T/srv/redistrib_9.99.0.json" | cut -d' ' -f1)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$T/srv" && exec python3 -m http.server --bind 127.0.0.1 "$port" >"$T/srv.log" 2>&1) &
srv_pid=$!
for _ in $(seq 50); do
    curl -fsS "http://127.0.0.1:$port/redistrib_9.99.0.json" >/dev/null 2>&1 && break
    sleep 0.1
done
url="http://127.0.0.1:$port/redistrib_9.99.0.json"
A() { "$CUDNNCTL" --cache-dir "$T/cache" "$@"; }

A available --json --manifest "$url" --platform linux-x86_64 --cudnn 9.99 >"$T/a.json" 2>"$T/err" ||
    fail "available --manifest URL: exit $? $(cat "$T/err")"
python3 - "$T/a.json" "$url" "$want" <<'PY' || fail "entry: $(cat "$T/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d) == 1, d
assert d[0]["manifest"] == sys.argv[2] and d[0]["manifest_sha256"] == sys.argv[3], d[0]
assert d[0]["sha256"] == "1" * 64 and d[0]["size"] == 4242
PY
cmp -s "$T/srv/redistrib_9.99.0.json" "$T/cache/manifests/$want.json" ||
    fail "no cached copy under its SHA-256 in $T/cache/manifests"
grep -q "GET /redistrib_9.99.0.json" "$T/srv.log" || fail "the server saw no request"

# a 404 is a network-class error (10)
set +e
A available --manifest "http://127.0.0.1:$port/redistrib_0.0.0.json" >/dev/null 2>"$T/err"; rc=$?
set -e
[ "$rc" = 10 ] || fail "404: exit $rc: $(cat "$T/err")"

# the server goes away: the cached copy is used, with a warning
kill "$srv_pid"; wait "$srv_pid" 2>/dev/null || true; srv_pid=
A --json plan --manifest "$url" --platform linux-x86_64 --cuda 13 --prefix /opt/x >"$T/p.json" 2>"$T/err" ||
    fail "offline plan: exit $? $(cat "$T/err")"
grep -q "using the copy cached" "$T/err" || fail "offline: no warning: $(cat "$T/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["cudnn_version"]=="9.99.0.1" and d["archive"]["manifest_sha256"]==sys.argv[2], d' \
    "$T/p.json" "$want" || fail "offline plan JSON"
# a damaged copy is not used
echo garbage >>"$T/cache/manifests/$want.json"
set +e
A available --manifest "$url" >/dev/null 2>"$T/err"; rc=$?
set -e
[ "$rc" = 10 ] || fail "damaged copy: exit $rc: $(cat "$T/err")"
# no copy at all
set +e
"$CUDNNCTL" --cache-dir "$T/cache2" available --manifest "$url" >/dev/null 2>"$T/err"; rc=$?
set -e
[ "$rc" = 10 ] || fail "no copy: exit $rc"
grep -q "no copy of it is cached" "$T/err" || fail "no copy: message: $(cat "$T/err")"
echo "ok: manifests from URLs"
