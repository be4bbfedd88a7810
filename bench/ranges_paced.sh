#!/usr/bin/env bash
# ranges_paced.sh OLD NEW [RATE]: the download schedule alone, free of CPU noise. OLD and NEW are
# two builds of bench/fetch_bench (build/bench/fetch_bench); each fetches the payload of
# ranges_bench.sh over the same paced link (CONN_RATE a connection, LINK_RATE in all) and hands
# the bytes to a reader paced at RATE bytes/s (default 31.5e6: xz -dc's speed on this payload on
# the H200 host), which sleeps instead of decoding. SIZE/RATE is the floor; what a run takes over
# it is the time the download kept the decoder waiting. Interleaved, ROUNDS rounds, medians.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1"); NEW=$(realpath "$2"); RATE=${3:-31500000}
ROUNDS=${ROUNDS:-5}
CONN_RATE=${CONN_RATE:-10000000}
LINK_RATE=${LINK_RATE:-200000000}
work=build/bench
[ -f "$work/mirror/done.json" ] || { echo "ranges_paced: no payload: run bench/ranges_bench.sh once" >&2; exit 1; }
read -r rel sha size < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["relative_path"], d["sha256"], d["size"])' "$work/mirror/done.json")
tmp=$(mktemp -d /tmp/cudnnctl-rpaced.XXXXXX)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
python3 tests/tools/httpd.py --root "$work/mirror" --port-file "$tmp/port" --parent $$ \
  --max-lifetime 7200 --throttle "$CONN_RATE" --link-rate "$LINK_RATE" &
pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
url="http://127.0.0.1:$(cat "$tmp/port")/$rel"
one() { rm -rf "$tmp/cache"; "$1" fetch "$url" "$sha" "$size" "$tmp/cache" "$RATE" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["paced_seconds"])'; }
: > "$tmp/o"; : > "$tmp/n"
for i in $(seq "$ROUNDS"); do
  one "$OLD" >> "$tmp/o"; one "$NEW" >> "$tmp/n"
  echo "round $i: old $(tail -1 "$tmp/o") s, new $(tail -1 "$tmp/n") s" >&2
done
python3 - "$tmp" "$size" "$RATE" "$ROUNDS" <<'PY'
import statistics, sys
tmp, size, rate, rounds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
m = lambda n: statistics.median(float(x) for x in open(f"{tmp}/{n}").read().split())
F, O, N = size / rate, m("o"), m("n")
print(f"{rounds} rounds, medians; reader paced at {rate/1e6:.1f} MB/s: floor {F:.2f} s; "
      f"old {O:.2f} s (+{O-F:.2f} s waiting); new {N:.2f} s (+{N-F:.2f} s waiting)")
PY
