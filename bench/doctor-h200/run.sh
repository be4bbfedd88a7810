#!/usr/bin/env bash
# run.sh: doctor, report --validate and compare on the device machine (a real GPU, driver, CUDA
# 13.0 debs, cuDNN 9.14 debs and the 9.19 PyTorch wheel). BIN = the bundle of make-bundle.sh.
# Outputs go to $OUT (doctor.json, doctor_ldpath.json, report.json, timing.txt, log.txt).
set -uo pipefail
D=$(cd "$(dirname "$0")" && pwd)
BIN=$D/bin/cudnnctl
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine"; uname -a; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
echo "== detect"; "$BIN" detect
echo "== doctor (exit code follows)"; "$BIN" doctor; echo "exit $?"
"$BIN" doctor --json > "$OUT/doctor.json"
echo "== doctor with the deb cuDNN dir on LD_LIBRARY_PATH (failure mode 4)"
LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu "$BIN" doctor; echo "exit $?"
LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu "$BIN" doctor --json > "$OUT/doctor_ldpath.json"
echo "== doctor timing (20 runs, wall ms of the whole command)"
python3 - "$BIN" <<'PY' | tee "$OUT/timing.txt"
import subprocess, sys, time
t = []
for i in range(21):
    a = time.perf_counter()
    subprocess.run([sys.argv[1], "doctor", "--json"], stdout=subprocess.DEVNULL)
    t.append((time.perf_counter() - a) * 1000)
t = sorted(t[1:])
print("doctor: min %.1f ms, median %.1f ms, max %.1f ms" % (t[0], t[10], t[-1]))
t = []
for i in range(21):
    a = time.perf_counter()
    subprocess.run([sys.argv[1], "detect", "--json"], stdout=subprocess.DEVNULL)
    t.append((time.perf_counter() - a) * 1000)
t = sorted(t[1:])
print("detect: min %.1f ms, median %.1f ms, max %.1f ms" % (t[0], t[10], t[-1]))
PY
echo "== report --validate (the deb cuDNN 9.14 with CUDA 13.0)"
"$BIN" report --validate /usr/lib/x86_64-linux-gnu --cuda-home /usr/local/cuda-13.0 > "$OUT/report.json"; echo "exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["validate"]; print("validate:", v["status"], v.get("cudnn_version"), "on", v.get("gpu")); print("doctor in report:", [f["code"] for f in d["doctor"]["findings"]])' "$OUT/report.json"
