#!/usr/bin/env bash
# extract_bench.sh: cc_extract against `tar -xJf` on the same .tar.xz, interleaved in one run
# (A B A B ...), with wall time and peak RSS from /usr/bin/time. Ratios within one run are what
# count on shared machines (performance.md).
#
#   bench/extract_bench.sh [--archive FILE] [--full] [--rounds N] [--build DIR] [--work DIR]
#
#   --archive FILE  a cuDNN .tar.xz to use (e.g. the coordinator's 471 MiB payload); without it
#                   one is built once from the machine's real cuDNN 9.19 files and kept:
#                   quick (default) = 5 of the 8 libraries (~75 MiB unpacked), --full = all 8
#                   (471 MiB; packing takes minutes), both `tar | xz -T1 -6` like performance.md
#   --rounds N      pairs to run (default 3)
#   --build DIR     the CMake build dir with libcudnnctl.a (default ./build)
#   --work DIR      where to extract (default: next to the archive; same file system matters)
#
# Variants timed each round: tar -xJf; cc_extract from a pull stream (what install does) with the
# writer thread; the same without it (--inline); cc_extract from the file.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
archive="" full=0 rounds=3 build="$here/build" work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --archive) archive=$2; shift 2 ;;
    --full) full=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "extract_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -f "$build/libcudnnctl.a" ] || { echo "extract_bench.sh: no $build/libcudnnctl.a (build first)" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "extract_bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

mkdir -p "$build/bench"
tool="$build/bench/extract_tool"
cc -O2 -Wall -Wextra -I"$here/include" -I"$here/src/lib" -I"$here/platform" \
   "$here/bench/extract_tool.c" "$build/libcudnnctl.a" \
   $(pkg-config --libs libarchive libcurl libcrypto libcjson 2>/dev/null || echo "-larchive -lcurl -lcrypto -lcjson") \
   -lpthread -ldl -o "$tool"

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
  /usr/bin/time -o "$work/time.out" -f "%e %M %x" "$@" >/dev/null 2>"$work/err.out" || true
  read -r wall rss status < "$work/time.out"
  if [ "$status" != 0 ]; then
    echo "extract_bench.sh: $label failed (exit $status): $(cat "$work/err.out")" >&2; exit 1
  fi
  echo "$label $wall $rss"
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
for label, wall, rss in rows:
    by.setdefault(label, []).append((float(wall), int(rss)))
tar = statistics.median(w for w, _ in by["tar"])
print("\n%-11s %9s %9s %12s   %s" % ("variant", "median s", "vs tar", "peak RSS MiB", "walls"))
for label in ("tar", "stream", "stream-inl", "file"):
    ws = [w for w, _ in by[label]]
    rss = max(r for _, r in by[label]) / 1024
    print("%-11s %9.2f %8.3fx %12.1f   %s" % (label, statistics.median(ws), statistics.median(ws) / tar,
                                             rss, " ".join("%.2f" % w for w in ws)))
pairs = [s / t for (t, _), (s, _) in zip(by["tar"], by["stream"])]
print("\nstream/tar per round: %s  (median %.3f)" % (" ".join("%.3f" % p for p in pairs),
                                                    statistics.median(pairs)))
EOF
