#!/usr/bin/env bash
# wheel_bench.sh: the wheel source against uv on the same bytes, interleaved (A B C A B C ...),
# medians, wall time and peak RSS (/usr/bin/time -v), and the parallel unzip of a Windows-layout zip
# against a one-thread extraction of it.
#
#   bench/wheel_bench.sh [--wheel FILE] [--rounds N] [--work DIR] [--build DIR] [--cores LIST]
#
#   --wheel FILE   NVIDIA's wheel (default: nvidia_cudnn_cu13-9.19.0.56 x86_64 from
#                  ~/.cache/cudnnctl-test/wheels)
#   --rounds N     rounds (default 3)
#   --cores LIST   taskset CPU list for every timed command (default: all; e.g. 0,1 for 2 cores)
#   --ab CLI       also url-ab: url-src with another cudnnctl binary (an A/B of the install path)
#   --no-pip       leave out pip-src (pip's own download dominates it)
#   --link-rate B  tests/tools/httpd.py paces every connection together as one link of B bytes/s
#                  (default: unpaced)
#
# Each round, each with a new target, cache and state (cold), in an order rotated by one each round:
#   uv        uv pip install --target T --no-deps --index-url LOOPBACK/simple nvidia-cudnn-cuM==V
#             (uv installed into a venv here with pip, its cache new each run)
#   idx-src   cudnnctl install --source wheel --index-url LOOPBACK/simple (the index's PEP 691
#             page read by cudnnctl, the wheel downloaded and unpacked as it lands; no pip)
#   idx-stock idx-src for a user whose login start-up files are Debian's stock ones (the check
#             after the install runs the user's login shell: bench/stock_home.sh; root's here run
#             pyenv init); only where unshare -m works
#   idx-nlc   idx-src with --no-login-check (that check without a login shell)
#   pip-src   cudnnctl install --source wheel --index-url LOOPBACK/html (an index of HTML only:
#             pip download, then verify + parallel unzip + commit)
#   url-src   cudnnctl install --archive LOOPBACK/<the wheel> (cudnnctl's own download, the wheel
#             catalog's SHA-256)
#   unzip     unzip -q (the floor)
# and for the Windows zip (the wheel's files in NVIDIA's Windows layout, bin/x64/*.dll):
#   zip-1t    extract_tool --threads 1     zip-all   extract_tool (one thread per core)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
wheel=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/wheels/nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl
rounds=3 work="" build="$here/build" cores="" ab="" nopip="" rate=""
while [ $# -gt 0 ]; do
  case "$1" in
    --wheel) wheel=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --cores) cores=$2; shift 2 ;;
    --ab) ab=$2; shift 2 ;;
    --no-pip) nopip=1; shift ;;
    --link-rate) rate=$2; shift 2 ;;
    *) echo "wheel_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -f "$wheel" ] || { echo "wheel_bench.sh: no wheel $wheel" >&2; exit 1; }
work=${work:-$(mktemp -d /tmp/cudnnctl-wheel-bench.XXXXXX)}
mkdir -p "$work"
cli=$build/cudnnctl
wname=$(basename "$wheel")
pkg=$(sed -E 's/^(nvidia_cudnn[a-z_0-9]*)-.*/\1/; s/_/-/g' <<<"$wname")
ver=$(cut -d- -f2 <<<"$wname")
major=${pkg##*-cu}
tset=(); [ -n "$cores" ] && tset=(taskset -c "$cores")

# uv, into a venv, with pip
if [ ! -x "$work/venv/bin/uv" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q uv
fi
uv=$work/venv/bin/uv
echo "uv: $($uv --version)"
. "$here/bench/page_warm.sh"
page_warm_state

# the loopback index: tests/tools/httpd.py (with --link-rate pacing every connection together as
# one link of that rate). simple/: a project page as PEP 691 JSON (index.json, to a client asking
# for it: uv, cudnnctl) and as HTML (index.html); html/: the HTML page only (an index of PEP 503,
# which cudnnctl leaves to pip). The wheel is copied in: httpd.py serves no links out of its root.
mkdir -p "$work/idx/simple/$pkg" "$work/idx/html/$pkg"
rm -f "$work/idx/simple/$pkg/$wname" "$work/port"
cp -l "$wheel" "$work/idx/simple/$pkg/$wname" 2>/dev/null || cp "$wheel" "$work/idx/simple/$pkg/$wname"
sha=$(sha256sum "$wheel" | cut -c1-64)
printf '<!DOCTYPE html><html><body><a href="%s#sha256=%s">%s</a></body></html>\n' "../../simple/$pkg/$wname" "$sha" "$wname" \
  >"$work/idx/html/$pkg/index.html"
printf '<!DOCTYPE html><html><body><a href="%s#sha256=%s">%s</a></body></html>\n' "$wname" "$sha" "$wname" \
  >"$work/idx/simple/$pkg/index.html"
printf '{"meta": {"api-version": "1.1"}, "name": "%s", "files": [{"filename": "%s", "url": "%s", "hashes": {"sha256": "%s"}, "size": %s}]}\n' \
  "$pkg" "$wname" "$wname" "$sha" "$(stat -c %s "$wheel")" >"$work/idx/simple/$pkg/index.json"
python3 "$here/tests/tools/httpd.py" --root "$work/idx" --port-file "$work/port" \
  ${rate:+--link-rate "$rate"} --dir-index --max-lifetime 7200 >/dev/null 2>&1 &
srv=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
trap 'kill $srv 2>/dev/null || true' EXIT
sleep 1
index=http://127.0.0.1:$port/simple
html_index=http://127.0.0.1:$port/html

# the Windows-layout zip and the extract tool
zip=$work/cudnn-windows-x86_64-${ver}_cuda${major}-local-repack-archive.zip
if [ ! -f "$zip" ]; then
  python3 - "$wheel" "$zip" <<'PY'
import sys, zipfile, os
w, out = sys.argv[1], sys.argv[2]
top = os.path.basename(out)[:-4] + "/"
zi = zipfile.ZipFile(w)
with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zo:
    for i in zi.infolist():
        n = i.filename
        if n.startswith("nvidia/cudnn/lib/"):
            b = os.path.basename(n).replace("lib", "", 1).replace(".so.", "64_") + ".dll"
            zo.writestr(top + "bin/x64/" + b, zi.read(i))
        elif n.startswith("nvidia/cudnn/include/"):
            zo.writestr(top + "include/" + os.path.basename(n), zi.read(i))
os.replace(out + ".tmp", out)
PY
fi
tool=$work/extract_tool
cc -O2 -I"$here/include" $(for d in "$here"/src/lib/*/; do printf -- "-I%s " "$d"; done) -I"$here/platform" \
   "$here/bench/extract_tool.c" "$build/libcudnnctl.a" -Wl,--as-needed \
   $(pkg-config --libs libarchive libcurl libcrypto libcjson libisal 2>/dev/null || echo "-larchive -lcurl -lcrypto -lcjson -lisal") \
   -lpthread -ldl -o "$tool"

run() { # run NAME ROUND CMD...: wall seconds and peak RSS KiB appended to $work/times
  local name=$1 r=$2; shift 2
  local d=$work/run-$name-$r
  rm -rf "$d"; mkdir -p "$d"
  sync
  page_warm "$work"
  /usr/bin/time -v -o "$d/time" "${tset[@]}" "$@" >"$d/out" 2>&1 || { echo "$name failed:"; tail -5 "$d/out"; }
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$d/time")
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$d/time")
  echo "$name $wall $rss" >>"$work/times"
  printf '  %-8s round %s: %6.2f s  %7d KiB\n' "$name" "$r" "$wall" "$rss"
  rm -rf "$d"
}
: >"$work/times"
. "$here/bench/stock_home.sh"
stock=$(stock_home_runner "$here/build/bench/stock-home" "$work")
[ -n "$stock" ] || echo "bench: unshare -m does not work here: no idx-stock rows" >&2
sel=(--cudnn "$ver" --cuda "$major" --platform linux-x86_64 --components runtime,dev --no-validate)
row() { # row NAME ROUND: one row of the table (each into its own new target, cache and state)
  local D=$work/run-$1-$2 c
  local i="install ${sel[*]} --prefix '$D/p'" st="--state-dir '$D/s' --cache-dir '$D/c'"
  case $1 in
    uv) c="'$uv' pip install -q --no-deps --target '$D/t' --cache-dir '$D/c' --index-url '$index' '$pkg==$ver'" ;;
    idx-src) c="'$cli' $st $i --source wheel --index-url '$index' >/dev/null" ;;
    idx-stock) c="'$stock' '$cli' --json $st $i --source wheel --index-url '$index' >'$work/stock.json'" ;;
    idx-nlc) c="'$cli' $st $i --source wheel --index-url '$index' --no-login-check >/dev/null" ;;
    pip-src) c="'$cli' $st $i --source wheel --index-url '$html_index' >/dev/null" ;;
    url-src) c="'$cli' $st $i --archive '$index/$pkg/$wname' >/dev/null" ;;
    url-ab) c="'$ab' $st $i --archive '$index/$pkg/$wname' >/dev/null" ;;
    unzip) c="unzip -q '$wheel' -d '$D/t'" ;;
    zip-1t) c="mkdir -p '$D/s' && '$tool' --threads 1 '$zip' '$D/s' >/dev/null" ;;
    zip-all) c="mkdir -p '$D/s' && '$tool' '$zip' '$D/s' >/dev/null" ;;
  esac
  run "$1" "$2" bash -c "$c"
  [ "$1" != idx-stock ] || stock_home_ran "$work/stock.json"
}
rows=(uv idx-src)
[ -z "$stock" ] || rows+=(idx-stock)
rows+=(idx-nlc)
[ -n "$nopip" ] || rows+=(pip-src)
rows+=(url-src)
[ -z "$ab" ] || rows+=(url-ab)
rows+=(unzip zip-1t zip-all)
# each round starts one row further on (round 2: idx-src ... zip-all uv), so no row always
# follows the same one
for r in $(seq "$rounds"); do
  echo "round $r"
  n=${#rows[@]}
  for k in $(seq 0 $((n - 1))); do
    row "${rows[$(((k + r - 1) % n))]}" "$r"
  done
done
echo
echo "medians over $rounds rounds (cores: ${cores:-all of $(nproc)}; $wname, $(stat -c %s "$wheel") bytes):"
python3 - "$work/times" <<'PY'
import sys, statistics as st
rows = {}
for l in open(sys.argv[1]):
    n, w, r = l.split(); rows.setdefault(n, []).append((float(w), int(r)))
med = {n: (st.median(w for w, _ in v), max(r for _, r in v)) for n, v in rows.items()}
for n, (w, r) in med.items():
    print(f"  {n:8s} {w:7.2f} s   peak RSS {r/1024:6.1f} MiB")
if "uv" in med:
    for n in ("idx-src", "idx-stock", "idx-nlc", "pip-src", "url-src", "url-ab"):
        if n in med:
            print(f"  {n} / uv cold: {med[n][0] / med['uv'][0]:.2f}x")
if "zip-1t" in med and "zip-all" in med:
    print(f"  zip: one thread / all cores: {med['zip-1t'][0] / med['zip-all'][0]:.2f}x faster")
PY
