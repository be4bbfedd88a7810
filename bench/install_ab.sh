#!/usr/bin/env bash
# install_ab.sh OLD NEW [MIB]: two builds of cudnnctl, interleaved, installing the same archive
# (MIB MiB of random bytes in a static library, NVIDIA's 9.x layout, default 64) from a loopback
# server (tests/tools/httpd.py, unpaced) into a fresh prefix with an empty cache, over one
# connection and over 4 (byte ranges: the path whose progress counting issue 21 changed).
# Progress on (stderr to a file: the per-stage lines). ROUNDS (default 3); medians in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1"); NEW=$(realpath "$2"); MIB=${3:-64}
ROUNDS=${ROUNDS:-3}
T=$(mktemp -d /tmp/cudnnctl-ab.XXXXXX)
trap '[ -z "${HP:-}" ] || kill "$HP" 2>/dev/null; rm -rf "$T"' EXIT
. tests/integration/cli_lib.sh
. bench/page_warm.sh
page_warm_state >&2
V=9.97.0.42
cli_make_root "$T/r"
cli_make_archive "$T/www" $V "$MIB"
cli_make_manifest "$T/www" $V "$T/r/m.json"
python3 tests/tools/httpd.py --root "$T/www" --port-file "$T/port" --parent $$ &
HP=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
U="http://127.0.0.1:$(cat "$T/port")/"
one() { # BIN CONNS TAG -> seconds
    rm -rf "$T/c" "$T/s" "$T/r/opt/p"
    local t0 t1
    sync
    page_warm "$T"
    t0=$(date +%s%N)
    "$1" --root "$T/r" --cache-dir "$T/c" --state-dir "$T/s" install --manifest /m.json --cudnn $V \
        --mirror "$U" --prefix /opt/p --connections "$2" --no-validate --no-ldconfig >/dev/null 2>"$T/err" ||
        { cat "$T/err" >&2; exit 1; }
    t1=$(date +%s%N)
    echo "$3 $(( (t1 - t0) / 1000000 ))" >>"$T/times"
}
for _ in $(seq "$ROUNDS"); do
    for c in 1 4; do one "$OLD" $c old-$c; one "$NEW" $c new-$c; done
done
python3 - "$T/times" <<'PY'
import statistics, sys
d = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    d.setdefault(k, []).append(int(v) / 1000)
for k in sorted(d):
    print("%-6s median %.3f s  (%s)" % (k, statistics.median(d[k]), " ".join("%.3f" % x for x in d[k])))
PY
