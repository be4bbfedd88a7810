#!/usr/bin/env bash
# the session's final device run: detect, doctor, validate (a) deb (b) wheel (c) a prefix made by
# `cudnnctl install` from a local mirror built on the device, PyTorch timing, tree install/uninstall.
set -u
REAL_OUT=$OUT; export OUT=/tmp/out; mkdir -p $OUT
D=$(cd "$(dirname "$0")" && pwd); BIN=$D/bin/cudnnctl
CUDA=/usr/local/cuda-13.0
{
echo "===== detect"; $BIN detect; $BIN detect --json > $OUT/detect.json; echo "exit $?"
echo "===== doctor"; $BIN doctor; echo "exit $?"
echo "===== (c) install into a prefix from a local mirror built here, then validate it"
W=/tmp/c; rm -rf $W; mkdir -p $W
python3 scripts/local-mirror --lib-dir /usr/lib/x86_64-linux-gnu --include-dir /usr/include/x86_64-linux-gnu \
  --cuda 13 --xz-preset -0 --xz-threads 0 --out $W/mirror > $W/mirror.json; cat $W/mirror.json
MF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest"])' $W/mirror.json)
V4=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cudnn_version"])' $W/mirror.json)
/usr/bin/time -f "install+validate: %e s, peak RSS %M KiB" $BIN --state-dir $W/state --cache-dir $W/cache \
  install --manifest "$MF" --mirror $W/mirror --cudnn "$V4" --cuda 13 --platform linux-x86_64 \
  --prefix /opt/cudnn-c --json > $OUT/c-install.json; echo "install exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["result"], d["target"], d.get("validation",{}).get("status"))' $OUT/c-install.json
ls -l /opt/cudnn-c /opt/cudnn-c/current/lib | head -30
$BIN validate /opt/cudnn-c --cuda-home $CUDA --timeout 120 --json > $OUT/c.json; echo "validate (c) json exit $?"
$BIN validate /opt/cudnn-c --cuda-home $CUDA --timeout 120; echo "validate (c) human exit $?"
} 2>&1 | tee $OUT/final-c.txt
OUT=/tmp/out/validate bash $D/run.sh > /dev/null 2>&1; echo "validate run.sh exit $?"
OUT=/tmp/out/install bash bench/install-h200/run.sh $D/bin > /dev/null 2>&1; echo "install run.sh exit $?"
tail -5 /tmp/out/validate/summary.txt /tmp/out/install/summary.txt
tar czf $REAL_OUT/out.tgz -C $OUT .
cp $OUT/final-c.txt $REAL_OUT/
