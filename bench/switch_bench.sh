#!/usr/bin/env bash
# switch_bench.sh: how long `cudnnctl use --cudnn V --prefix P` takes to switch between two
# versions installed side by side (journaled link flip + every file checked against its receipt).
# Two small NVIDIA-layout archives (tests/integration/install_lib.sh), installed into a prefix
# under a temp --root; then ROUNDS switches alternating 9.19 / 9.14, each timed around the whole
# process; prints the median and the fastest. Append the figures to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CUDNNCTL:-build/cudnnctl}; ROUNDS=${ROUNDS:-21}
SOURCE_DIR=$PWD; . tests/integration/install_lib.sh
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
C=("$BIN" --root "$T/root" --cache-dir "$T/cache")
mkdir -p "$T/root/srv" "$T/root/opt"
A19=$(make_archive "$T/root/srv" 9.19.0.56 "libcudnn libcudnn_graph libcudnn_ops libcudnn_cnn")
A14=$(make_archive "$T/root/srv" 9.14.0.64 "libcudnn libcudnn_graph libcudnn_ops libcudnn_cnn")
for a in "$A19" "$A14"; do
  "${C[@]}" -q install --prefix /opt/p --archive "$a" --sha256 "$(sha256sum "$a" | cut -d' ' -f1)" --no-validate 2>/dev/null
done
for i in $(seq "$ROUNDS"); do
  v=9.19; [ $((i % 2)) -eq 0 ] && v=9.14
  t0=$(date +%s%N); "${C[@]}" -q use --cudnn "$v" --prefix /opt/p; t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
done | sort -n | awk '{a[NR]=$1} END {printf "use --cudnn (switch): median %.1f ms, fastest %.1f ms, %d rounds\n", a[int((NR+1)/2)]/1000, a[1]/1000, NR}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
