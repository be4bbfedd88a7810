#!/bin/bash
# bench/zip_writer_ab.sh ROUNDS (ZIP=FILE, default the Windows-layout zip wheel_bench.sh builds under /tmp/zb; T=extract_tool):
# interleaved, one extraction thread / two with writes inline (before) / two with the big entry's
# writer thread (after); medians.
W=${W:-/tmp/zb}
Z=${ZIP:-$W/cudnn-windows-x86_64-9.19.0.56_cuda13-local-repack-archive.zip}
T=${T:-$W/extract_tool}
: > $W/times
for r in $(seq $1); do
  for c in 1t inline big; do
    D=$W/s-$c; rm -rf $D; mkdir -p $D; sync
    case $c in 1t) a=(--threads 1);; inline) a=(--inline --threads 2);; big) a=(--threads 2);; esac
    s=$(date +%s.%N); $T "${a[@]}" $Z $D >/dev/null || echo FAIL; e=$(date +%s.%N)
    echo "$c $(echo "$e - $s" | bc)" >> $W/times
    rm -rf $D
  done
done
python3 - "$W/times" <<'PY'
import statistics as st, sys
rows={}
for l in open(sys.argv[1]):
    n,w=l.split(); rows.setdefault(n,[]).append(float(w))
m={n:st.median(v) for n,v in rows.items()}
for n,v in rows.items(): print(n, ' '.join(f'{x:.3f}' for x in v), 'median', f'{m[n]:.3f}')
print(f"1t/inline {m['1t']/m['inline']:.2f}x  1t/big {m['1t']/m['big']:.2f}x")
PY
