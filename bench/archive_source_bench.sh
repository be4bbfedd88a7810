#!/usr/bin/env bash
# archive_source_bench.sh: two cudnnctl binaries (A = before, B = after a change) interleaved over
# the four ways an install gets its archive — a .tar.xz from a loopback HTTP mirror, the same
# .tar.xz as a local --archive, a .zip of the same payload (Windows layout) as a local --archive,
# and that .zip from the mirror — each into an empty prefix with an empty cache. Made for issue 18
# item 5 (a zip unpacked through the descriptor it was hashed from, a download's zip hashed again,
# a trust check per local archive). Prints the median of ROUNDS runs per binary and case.
#   bench/archive_source_bench.sh A_BIN B_BIN MIRROR_DIR   (MIRROR_DIR: scripts/local-mirror --out)
set -euo pipefail
A=$1 B=$2 M=$3
ROUNDS=${ROUNDS:-5}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/cudnnctl-asb.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
manifest=$(ls "$M"/redistrib_*.json | head -1)
tarx=$(ls "$M"/cudnn/linux-x86_64/*.tar.xz | head -1)
ver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cudnn"]["version"])' "$manifest")
zipname=cudnn-windows-x86_64-${ver}_cuda13-archive.zip
zip=$M/$zipname
if [ ! -f "$zip" ]; then # the tar's files as a Windows zip (libX.so.* -> bin/x64/X.dll), deflate -1
  python3 - "$tarx" "$zip" "${zipname%.zip}" <<'PY'
import sys, tarfile, zipfile
src, out, top = sys.argv[1:]
with tarfile.open(src) as t, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    for m in t.getmembers():
        if not m.isfile():
            continue
        name = m.name.split("/", 1)[1]
        if name.startswith("lib/"):
            name = "bin/x64/" + name[4:].split(".so")[0][3:] + "64_9.dll"
        z.writestr(top + "/" + name, t.extractfile(m).read())
PY
fi
zsha=$(sha256sum "$zip" | cut -c1-64)
tsha=$(sha256sum "$tarx" | cut -c1-64)
python3 tests/tools/httpd.py --root "$M" --port-file "$tmp/port" --parent $$ --max-lifetime 3600 &
pids+=($!)
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
U=http://127.0.0.1:$(cat "$tmp/port")
run() { # BIN CASE → seconds
  local bin=$1 c=$2 args
  case $c in
    tar-http) args=(--manifest "$manifest" --mirror "$U/" --cudnn "$ver" --cuda 13 --platform linux-x86_64) ;;
    tar-local) args=(--archive "$tarx" --sha256 "$tsha") ;;
    zip-local) args=(--archive "$zip" --sha256 "$zsha" --platform windows-x86_64 --cuda 13) ;;
    zip-http) args=(--archive "$U/$zipname" --sha256 "$zsha" --platform windows-x86_64 --cuda 13) ;;
  esac
  rm -rf "$tmp/p" "$tmp/c" "$tmp/s"; mkdir -p "$tmp/p"; sync
  local t0 t1; t0=$(date +%s.%N)
  "$bin" -q --no-progress --cache-dir "$tmp/c" --state-dir "$tmp/s" install "${args[@]}" \
    --prefix "$tmp/p" --no-validate --no-ldconfig > /dev/null 2>&1 || { echo "FAIL: $bin $c" >&2; exit 1; }
  t1=$(date +%s.%N); echo "$t1 - $t0" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
for c in ${CASES:-tar-http tar-local zip-local zip-http}; do
  : > "$tmp/A"; : > "$tmp/B"
  for i in $(seq "$ROUNDS"); do run "$A" $c >> "$tmp/A"; run "$B" $c >> "$tmp/B"; done
  a=$(median < "$tmp/A"); b=$(median < "$tmp/B")
  printf '%-10s A %7.2f s  B %7.2f s  B/A %.3f   (A: %s; B: %s)\n' $c "$a" "$b" "$(echo "$b / $a" | bc -l)" \
    "$(tr '\n' ' ' < "$tmp/A")" "$(tr '\n' ' ' < "$tmp/B")"
done
