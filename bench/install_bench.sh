#!/usr/bin/env bash
# install_bench.sh: cudnnctl install against `tar -xJf` of the same archive, in one interleaved run.
#
# Workload (reference/performance.md): the machine's real cuDNN 9.19 payload (8 libraries + headers,
# ~471 MiB unpacked) in NVIDIA's 9.x layout, packed once with `xz -T1 -6` into one block and kept
# in build/bench/. Then, A B A B ...:
#   A  tar -xJf ARCHIVE -C DIR
#   B  cudnnctl install --prefix DIR from a loopback HTTP server (empty cache: it downloads,
#      hashes, checks every entry, extracts, links, writes receipts, fsyncs and commits)
# then, interleaved per round, at THROTTLE bytes/s (httpd.py --throttle: a paced link — time a
# slow reader leaves unused is lost): curl alone, xz -dc alone, the streaming bound of the
# payload at that rate (bench/xz_stream_bound.py) and B' = the install from that server.
# XZ_PRESET (default -6) picks the xz preset of the payload; ROUNDS the number of A B pairs.
# Prints medians, ratios and peak RSS; append them to docs/performance.md yourself with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
THROTTLE=${THROTTLE:-40000000}
BIN=${CUDNNCTL:-build/cudnnctl}
SRC_LIB=${SRC_LIB:-/usr/local/cuda-13.0/lib}
SRC_INC=${SRC_INC:-/usr/local/cuda-13.0/include}
work=build/bench
mkdir -p "$work"
[ -x "$BIN" ] || { echo "build first: cmake --preset default && cmake --build --preset default" >&2; exit 1; }

if [ ! -f "$work/mirror/done.json" ]; then
  echo "bench: packing the payload once (xz -T1 -6, a few minutes)..." >&2
  rm -rf "$work/mirror"
  mkdir -p "$work/mirror" # the JSON goes in it before local-mirror has made it
  scripts/local-mirror --lib-dir "$SRC_LIB" --include-dir "$SRC_INC" --cuda 13 --xz-preset "${XZ_PRESET:--6}" \
    --xz-threads 1 --out "$work/mirror" > "$work/mirror/done.json.tmp"
  mv "$work/mirror/done.json.tmp" "$work/mirror/done.json"
fi
read -r manifest archive ver size < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["manifest"], d["archive"], d["cudnn_version"], d["size"])' "$work/mirror/done.json")

tmp=$(mktemp -d /tmp/cudnnctl-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
start_server() { # $1 = throttle bytes/s (0 = none); the port lands in $tmp/port.$1
  local pf="$tmp/port.$1"
  python3 tests/tools/httpd.py --root "$work/mirror" --port-file "$pf" --throttle "$1" \
    --parent $$ --max-lifetime 3600 &
  pids+=($!)
  for _ in $(seq 200); do [ -s "$pf" ] && break; sleep 0.05; done
}
start_server 0; port=$(cat "$tmp/port.0")
start_server "$THROTTLE"; tport=$(cat "$tmp/port.$THROTTLE")

now() { date +%s.%N; }
. bench/page_warm.sh
page_warm_state >&2
run_tar() { rm -rf "$tmp/t"; mkdir "$tmp/t"; sync; page_warm "$tmp"; local t0; t0=$(now); tar -xJf "$archive" -C "$tmp/t"; echo "$(now) - $t0" | bc; }
run_install() { # $1 = port
  rm -rf "$tmp/p" "$tmp/cache" "$tmp/state"; mkdir -p "$tmp/p"; sync; page_warm "$tmp"
  local t0; t0=$(now)
  /usr/bin/time -v -o "$tmp/time.txt" "$BIN" --cache-dir "$tmp/cache" --state-dir "$tmp/state" -q \
    install --manifest "$manifest" --mirror "http://127.0.0.1:$1/" --cudnn "$ver" --cuda 13 \
    --platform linux-x86_64 --prefix "$tmp/p" --no-validate --no-ldconfig >/dev/null
  local t1; t1=$(now)
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/time.txt")
  echo "$(echo "$t1 - $t0" | bc) $rss"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
rel=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["relative_path"])' "$work/mirror/done.json")

# 1. loopback: A = tar -xJf, B = install, interleaved
: > "$tmp/a"; : > "$tmp/b"; : > "$tmp/rss"
for i in $(seq "$ROUNDS"); do
  run_tar >> "$tmp/a"
  read -r t r < <(run_install "$port"); echo "$t" >> "$tmp/b"; echo "$r" >> "$tmp/rss"
  echo "loopback round $i: tar $(tail -1 "$tmp/a") s, install $t s, rss ${r} KiB" >&2
done

# 2. throttled (a paced link: httpd.py --throttle): download alone, decode alone, the streaming
#    bound of this payload at this rate (bench/xz_stream_bound.py), install — interleaved
: > "$tmp/dl"; : > "$tmp/dec"; : > "$tmp/tb"; : > "$tmp/bound"
for i in $(seq "$ROUNDS"); do
  curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$tport/$rel" >> "$tmp/dl"
  t0=$(now); xz -dc "$archive" > /dev/null; echo "$(now) - $t0" | bc >> "$tmp/dec"
  python3 bench/xz_stream_bound.py "$archive" "$THROTTLE" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["bound_s"])' >> "$tmp/bound"
  read -r t r < <(run_install "$tport"); echo "$t" >> "$tmp/tb"; echo "$r" >> "$tmp/rss"
  echo "throttled round $i: download $(tail -1 "$tmp/dl") s, xz -dc $(tail -1 "$tmp/dec") s," \
       "streaming bound $(tail -1 "$tmp/bound") s, install $t s, rss ${r} KiB" >&2
done
A=$(median < "$tmp/a"); B=$(median < "$tmp/b"); RSS=$(sort -n "$tmp/rss" | tail -1)
DL=$(median < "$tmp/dl"); DEC=$(median < "$tmp/dec"); TB=$(median < "$tmp/tb")
BOUND=$(median < "$tmp/bound")

python3 - "$A" "$B" "$RSS" "$DL" "$DEC" "$TB" "$BOUND" "$size" "$ROUNDS" "$THROTTLE" "$tmp" <<'PY'
import sys
A,B,RSS,DL,DEC,TB,BOUND,size,rounds,rate,tmp = sys.argv[1:]
def col(n): return [float(x) for x in open(f"{tmp}/{n}").read().split()]
A,B,DL,DEC,TB,BOUND=map(float,(A,B,DL,DEC,TB,BOUND))
M=max(DL,DEC)
print(f"archive: {int(size)/2**20:.0f} MiB xz, rounds: {rounds} (medians), throttle {int(rate)/1e6:.0f} MB/s")
print(f"tar -xJf                         {A:7.2f} s")
print(f"cudnnctl install (loopback)      {B:7.2f} s   ratio {B/A:.3f}x tar -xJf")
print(f"download alone (throttled)       {DL:7.2f} s")
print(f"xz -dc alone                     {DEC:7.2f} s")
print(f"streaming bound (xz, at rate)    {BOUND:7.2f} s   = {BOUND/M:.3f}x max(download, decode)")
print(f"cudnnctl install (throttled)     {TB:7.2f} s   ratio {TB/M:.3f}x max(download, decode), {TB/BOUND:.3f}x the bound")
print(f"peak RSS (all installs)          {int(RSS)/1024:7.1f} MiB")
print(f"fastest rounds: tar {min(col('a')):.2f} s, install {min(col('b')):.2f} s "
      f"({min(col('b'))/min(col('a')):.3f}x); throttled install {min(col('tb')):.2f} s, "
      f"bound {min(col('bound')):.2f} s")
PY
