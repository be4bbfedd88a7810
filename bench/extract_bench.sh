#!/usr/bin/env bash
# extract_bench.sh: cc_extract against `tar -xJf` on the same .tar.xz, interleaved in one run
# (A B A B ...), with wall time and peak RSS from /usr/bin/time. Ratios within one run are what
# count on shared machines (performance.md).
#
#   bench/extract_bench.sh [--archive FILE] [--full] [--rounds N] [--build DIR] [--work DIR]
#                          [--tool PATH]
#
#   --archive FILE  a cuDNN .tar.xz to use (e.g. the coordinator's 471 MiB payload); without it
#                   one is built once from the machine's real cuDNN 9.19 files and kept:
#                   quick (default) = 5 of the 8 libraries (~75 MiB unpacked), --full = all 8
#                   (471 MiB; packing takes minutes), both `tar | xz -T1 -6` like performance.md
#   --rounds N      pairs to run (default 3)
#   --build DIR     the CMake build dir with libcudnnctl.a (default ./build)
#   --work DIR      where to extract (default: next to the archive; same file system matters)
#   --tool PATH     a prebuilt bench/extract_tool (default: built here with cc)
#
# Variants timed each round: tar -xJf; cc_extract from a pull stream (what install does) with the
# writer thread; the same without it (--inline); cc_extract from the file.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
archive="" full=0 rounds=3 build="$here/build" work="" tool=""
while [ $# -gt 0 ]; do
  case "$1" in
    --archive) archive=$2; shift 2 ;;
    --full) full=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --tool) tool=$2; shift 2 ;;
    *) echo "extract_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v /usr/bin/time >/dev/null || { echo "extract_bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$build/bench"
if [ -z "$tool" ]; then
  [ -f "$build/libcudnnctl.a" ] || { echo "extract_bench.sh: no $build/libcudnnctl.a (build first)" >&2; exit 1; }
  tool="$build/bench/extract_tool"
  cc -O2 -Wall -Wextra -I"$here/include" $(for d in "$here"/src/lib/*/; do printf -- "-I%s " "$d"; done) -I"$here/platform" \
     "$here/bench/extract_tool.c" "$build/libcudnnctl.a" -Wl,--as-needed \
     $(pkg-config --libs libarchive libcurl libcrypto libcjson libisal 2>/dev/null || echo "-larchive -lcurl -lcrypto -lcjson -lisal") \
     -lpthread -ldl -o "$tool"
fi

if [ -z "$archive" ]; then
  name=cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
  sub=$([ $full = 1 ] && echo full || echo quick)
  mkdir -p "$build/bench/$sub"
  archive="$build/bench/$sub/$name"
  if [ ! -s "$archive" ]; then
    echo "building the $sub payload (once; kept in $archive) ..." >&2
    python3 "$here/tests/fixtures/make_archive.py" bench "$archive.tmp" $([ $full = 1 ] && echo --full)
    mv "$archive.tmp" "$archive"
  fi
fi
[ -f "$archive" ] || { echo "extract_bench.sh: no archive $archive" >&2; exit 1; }
work=${work:-$(dirname "$(readlink -f "$archive")")/extract-bench.$$}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
link=$archive # its own file name tells cc_extract the expected top directory

unpacked=$(xz -dc "$archive" | wc -c)
echo "archive: $archive ($(stat -c %s "$archive") bytes packed, $unpacked bytes of tar)"
echo "cpus: $(nproc)   rounds: $rounds"

run() { # label dir cmd...: prints "label wall_s maxrss_kib"
  local label=$1 dir=$2; shift 2
  rm -rf "$dir"; mkdir -p "$dir"; sync
  /usr/bin/time -o "$work/time.out" -f "%e %M %x %U %S" "$@" >/dev/null 2>"$work/err.out" || true
  read -r wall rss status user sys < "$work/time.out"
  if [ "$status" != 0 ]; then
    echo "extract_bench.sh: $label failed (exit $status): $(cat "$work/err.out")" >&2; exit 1
  fi
  echo "$label $wall $rss $(echo "$user + $sys" | bc)"
  rm -rf "$dir"
}

results="$work/results.txt"
: > "$results"
for r in $(seq 1 "$rounds"); do
  run tar        "$work/o" tar -xJf "$link" -C "$work/o"                      | tee -a "$results"
  run stream     "$work/o" "$tool" --stream "$link" "$work/o"                  | tee -a "$results"
  run stream-inl "$work/o" "$tool" --stream --inline "$link" "$work/o"         | tee -a "$results"
  run file       "$work/o" "$tool" "$link" "$work/o"                           | tee -a "$results"
done

python3 - "$results" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
by = {}
for label, wall, rss, cpu in rows:
    by.setdefault(label, []).append((float(wall), int(rss), float(cpu)))
tar = statistics.median(w for w, _, _ in by["tar"])
tcpu = statistics.median(c for _, _, c in by["tar"])
print("\n%-11s %9s %8s %12s %10s %8s   %s" % ("variant", "median s", "vs tar", "peak RSS MiB",
                                              "CPU s", "vs tar", "walls"))
for label in ("tar", "stream", "stream-inl", "file"):
    ws = [w for w, _, _ in by[label]]
    cpu = statistics.median(c for _, _, c in by[label])
    rss = max(r for _, r, _ in by[label]) / 1024
    print("%-11s %9.2f %7.3fx %12.1f %10.2f %7.3fx   %s" % (
        label, statistics.median(ws), statistics.median(ws) / tar, rss, cpu, cpu / tcpu,
        " ".join("%.2f" % w for w in ws)))
print("(peak RSS of tar is its largest process, tar or xz; CPU s = user + sys of all processes)")
pairs = [s[0] / t[0] for t, s in zip(by["tar"], by["stream"])]
print("\nstream/tar per round: %s  (median %.3f)" % (" ".join("%.3f" % p for p in pairs),
                                                    statistics.median(pairs)))
EOF
