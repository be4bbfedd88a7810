#!/usr/bin/env bash
# ranges_ab.sh OLD NEW: two cudnnctl binaries against each other on the link of ranges_bench.sh
# (each connection paced at CONN_RATE, all together at LINK_RATE), with `xz -dc` of the same
# archive as the decode floor, interleaved (xz, OLD, NEW per round), ROUNDS rounds, medians.
# For a change to the download schedule, where the difference is small next to the drift of a
# busy machine: only the interleaved ratio in one run says which is faster.
# Needs the payload of ranges_bench.sh (build/bench/mirror; ranges_bench.sh packs it once).
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1"); NEW=$(realpath "$2")
ROUNDS=${ROUNDS:-5}
CONN_RATE=${CONN_RATE:-10000000}
LINK_RATE=${LINK_RATE:-200000000}
work=build/bench
[ -f "$work/mirror/done.json" ] || { echo "ranges_ab: no payload: run bench/ranges_bench.sh once" >&2; exit 1; }
read -r manifest archive ver < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["manifest"], d["archive"], d["cudnn_version"])' "$work/mirror/done.json")
manifest=$(realpath "$manifest"); archive=$(realpath "$archive")
tmp=$(mktemp -d /tmp/cudnnctl-rab.XXXXXX)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
python3 tests/tools/httpd.py --root "$work/mirror" --port-file "$tmp/port" --parent $$ \
  --max-lifetime 7200 --throttle "$CONN_RATE" --link-rate "$LINK_RATE" &
pid=$!
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port")
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f\n", a - b }'; }
install() { # $1 = binary
  rm -rf "$tmp/p" "$tmp/cache" "$tmp/state"; mkdir -p "$tmp/p"; sync
  local t0; t0=$(now)
  "$1" --cache-dir "$tmp/cache" --state-dir "$tmp/state" -q install --manifest "$manifest" \
    --mirror "http://127.0.0.1:$port/" --cudnn "$ver" --cuda 13 --platform linux-x86_64 \
    --prefix "$tmp/p" --no-validate --no-ldconfig > /dev/null 2>&1
  since "$t0"
}
: > "$tmp/d"; : > "$tmp/o"; : > "$tmp/n"
for i in $(seq "$ROUNDS"); do
  t0=$(now); xz -dc "$archive" > /dev/null; since "$t0" >> "$tmp/d"
  install "$OLD" >> "$tmp/o"
  install "$NEW" >> "$tmp/n"
  echo "round $i: xz -dc $(tail -1 "$tmp/d") s, old $(tail -1 "$tmp/o") s, new $(tail -1 "$tmp/n") s" >&2
done
python3 - "$tmp" "$ROUNDS" <<'PY'
import statistics, sys
tmp, rounds = sys.argv[1:]
m = lambda n: statistics.median(float(x) for x in open(f"{tmp}/{n}").read().split())
D, O, N = m("d"), m("o"), m("n")
print(f"{rounds} rounds, medians: xz -dc {D:.2f} s; old {O:.2f} s ({O/D:.3f}x xz -dc); "
      f"new {N:.2f} s ({N/D:.3f}x xz -dc); new/old {N/O:.3f}")
PY
