#!/usr/bin/env bash
# ranges_bench.sh: time to an installed cuDNN on a realistic link — a per-connection limit far
# below the line rate, as many users see on NVIDIA's CDN — in one interleaved run.
#
# Workload: the machine's real cuDNN 9.19 payload (~471 MiB unpacked) in NVIDIA's 9.x layout,
# packed once with `xz -T1 -6` into one block (the payload of bench/install_bench.sh, shared in
# build/bench/). One local server (tests/tools/httpd.py) paces each connection at CONN_RATE
# (default 10 MB/s) and all of them together at LINK_RATE (default 200 MB/s). Per round, in turn:
#   S  curl -s URL | tar -xJ      one connection, streamed into tar (the single-stream baseline)
#   D  xz -dc ARCHIVE > /dev/null the decode floor (no network at all)
#   P  parse_redist.py            NVIDIA's reference parser (bench/third_party), same server
#   C  cudnnctl install --prefix  the default, automatic connection count
# then, unthrottled (loopback), tar -xJf vs cudnnctl install, interleaved.
# ROUNDS (default 3) rounds; medians; peak RSS of every cudnnctl install (/usr/bin/time -v).
# Append the printed figures to docs/performance.md with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
CONN_RATE=${CONN_RATE:-10000000}
LINK_RATE=${LINK_RATE:-200000000}
BIN=${CUDNNCTL:-build/cudnnctl}
SKIP_PARSE_REDIST=${SKIP_PARSE_REDIST:-0}
work=build/bench
[ -x "$BIN" ] || { echo "build first: cmake --preset default && cmake --build --preset default" >&2; exit 1; }
if [ ! -f "$work/mirror/done.json" ]; then
  echo "ranges_bench: packing the payload once (xz -T1 -6, a few minutes)..." >&2
  mkdir -p "$work/mirror"
  scripts/local-mirror --lib-dir "${SRC_LIB:-/usr/local/cuda-13.0/lib}" \
    --include-dir "${SRC_INC:-/usr/local/cuda-13.0/include}" --cuda 13 --xz-preset -6 \
    --xz-threads 1 --out "$work/mirror" > "$work/mirror/done.json.tmp"
  mv "$work/mirror/done.json.tmp" "$work/mirror/done.json"
fi
read -r manifest archive ver size rel < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["manifest"], d["archive"], d["cudnn_version"], d["size"], d["relative_path"])' "$work/mirror/done.json")
manifest=$(realpath "$manifest"); archive=$(realpath "$archive")

tmp=$(mktemp -d /tmp/cudnnctl-rbench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
start_server() { # $1 = name, then httpd.py options; the port lands in $tmp/port.$1
  local name=$1; shift
  python3 tests/tools/httpd.py --root "$work/mirror" --port-file "$tmp/port.$name" \
    --parent $$ --max-lifetime 7200 "$@" &
  pids+=($!)
  for _ in $(seq 200); do [ -s "$tmp/port.$name" ] && break; sleep 0.05; done
}
start_server link --throttle "$CONN_RATE" --link-rate "$LINK_RATE"; lport=$(cat "$tmp/port.link")
start_server fast; fport=$(cat "$tmp/port.fast")

now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f\n", a - b }'; } # no bc: not on every machine
run_install() { # $1 = port; prints seconds and peak RSS KiB
  rm -rf "$tmp/p" "$tmp/cache" "$tmp/state"; mkdir -p "$tmp/p"; sync
  local t0; t0=$(now)
  /usr/bin/time -v -o "$tmp/time.txt" "$BIN" --cache-dir "$tmp/cache" --state-dir "$tmp/state" -q \
    install --manifest "$manifest" --mirror "http://127.0.0.1:$1/" --cudnn "$ver" --cuda 13 \
    --platform linux-x86_64 --prefix "$tmp/p" --no-validate --no-ldconfig >/dev/null
  echo "$(since "$t0") $(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/time.txt")"
}
run_stream() { # one connection, streamed into tar
  rm -rf "$tmp/sx"; mkdir "$tmp/sx"; sync
  local t0; t0=$(now)
  curl -sf "http://127.0.0.1:$lport/$rel" | tar -xJ -C "$tmp/sx"
  since "$t0"
}
run_decode() { local t0; t0=$(now); xz -dc "$archive" > /dev/null; since "$t0"; }
run_parse_redist() {
  rm -rf "$tmp/pr"; mkdir "$tmp/pr"; sync
  local t0; t0=$(now)
  (cd "$tmp/pr" && python3 "$OLDPWD/bench/third_party/parse_redist.py" \
     --url "http://127.0.0.1:$lport/$(basename "$manifest")" --os linux --arch x86_64 \
     --variant cuda13 --output flat > log.txt 2>&1)
  since "$t0"
}
run_tar() { rm -rf "$tmp/t"; mkdir "$tmp/t"; sync; local t0; t0=$(now); tar -xJf "$archive" -C "$tmp/t"; since "$t0"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for f in s d p c t l rss; do : > "$tmp/res.$f"; done
for i in $(seq "$ROUNDS"); do
  run_stream >> "$tmp/res.s"
  run_decode >> "$tmp/res.d"
  [ "$SKIP_PARSE_REDIST" = 1 ] || run_parse_redist >> "$tmp/res.p"
  read -r t r < <(run_install "$lport"); echo "$t" >> "$tmp/res.c"; echo "$r" >> "$tmp/res.rss"
  echo "link round $i: curl|tar $(tail -1 "$tmp/res.s") s, xz -dc $(tail -1 "$tmp/res.d") s," \
       "parse_redist $(tail -1 "$tmp/res.p" 2>/dev/null || echo -) s, cudnnctl $t s, rss $r KiB" >&2
done
for i in $(seq "$ROUNDS"); do
  run_tar >> "$tmp/res.t"
  read -r t r < <(run_install "$fport"); echo "$t" >> "$tmp/res.l"; echo "$r" >> "$tmp/res.rss"
  echo "loopback round $i: tar -xJf $(tail -1 "$tmp/res.t") s, cudnnctl $t s, rss $r KiB" >&2
done
python3 - "$tmp" "$size" "$ROUNDS" "$CONN_RATE" "$LINK_RATE" <<'PY'
import statistics, sys
tmp, size, rounds, conn, link = sys.argv[1:]
def col(n):
    try: return [float(x) for x in open(f"{tmp}/res.{n}").read().split()]
    except FileNotFoundError: return []
m = lambda n: statistics.median(col(n)) if col(n) else float("nan")
S, D, P, C, T, L = (m(x) for x in "sdpctl")
rss = max(col("rss")) / 1024
print(f"archive {int(size)/2**20:.0f} MiB (xz -6, one block), {rounds} rounds, medians; "
      f"link: {int(conn)/1e6:.0f} MB/s a connection, {int(link)/1e6:.0f} MB/s in all")
print(f"curl | tar -xJ (one connection)   {S:7.2f} s")
print(f"xz -dc alone (decode floor)       {D:7.2f} s")
if col("p"): print(f"parse_redist.py (NVIDIA)          {P:7.2f} s")
print(f"cudnnctl install (link)           {C:7.2f} s   {C/S:.3f}x curl|tar   {C/D:.3f}x xz -dc"
      + (f"   {C/P:.3f}x parse_redist.py" if col("p") else ""))
print(f"tar -xJf (loopback)               {T:7.2f} s")
print(f"cudnnctl install (loopback)       {L:7.2f} s   {L/T:.3f}x tar -xJf")
print(f"peak RSS, every cudnnctl install  {rss:7.1f} MiB")
PY
