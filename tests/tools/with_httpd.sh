#!/usr/bin/env bash
# with_httpd.sh DIR NAME[:OPTIONS]... -- COMMAND...: start tests/tools/httpd.py servers on the Linux
# side for a test that cannot start them itself (the cross build's test_fetch*.exe under wine: no
# python3 there), run COMMAND with CUDNNCTL_TEST_HTTPD_DIR=DIR, stop them, remove DIR.
# DIR gets www/ (the web root), requests.log, cert.pem + key.pem (self-signed for 127.0.0.1),
# dead-port (a loopback port nobody listens on) and one port file NAME per server; OPTIONS are
# httpd.py options, "tls" standing for the certificate's. The exit status is COMMAND's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=$1
shift
rm -rf "$dir"
mkdir -p "$dir/www"
pids=()
cleanup() {
  local rc=$?
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
  exit $rc
}
trap cleanup EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/key.pem" \
  -out "$dir/cert.pem" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' \
  >"$dir/dead-port"
names=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  name=${1%%:*}
  opts=""
  [[ $1 == *:* ]] && opts=${1#*:}
  [ "$opts" = tls ] && opts="--tls-cert $dir/cert.pem --tls-key $dir/key.pem"
  # shellcheck disable=SC2086 # opts are words
  python3 "$here/httpd.py" --root "$dir/www" --port-file "$dir/$name" --log "$dir/requests.log" \
    --max-lifetime 900 $opts </dev/null >/dev/null 2>&1 &
  pids+=($!)
  names+=("$name")
  shift
done
[ "${1:-}" = "--" ] || { echo "with_httpd.sh: no -- COMMAND" >&2; exit 2; }
shift
for name in "${names[@]}"; do
  for _ in $(seq 200); do [ -s "$dir/$name" ] && break; sleep 0.05; done
  [ -s "$dir/$name" ] || { echo "with_httpd.sh: httpd.py wrote no port to $dir/$name" >&2; exit 1; }
done
rc=0
CUDNNCTL_TEST_HTTPD_DIR=$dir "$@" || rc=$?
exit $rc
