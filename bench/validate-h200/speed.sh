#!/usr/bin/env bash
# speed.sh (runs on the device machine, from the repo root, with .device/perf carried): validate of
# the torch wheel's cuDNN 9.19, new build against the previous one, against its floor (conv_floor:
# load cuDNN + one conv) and the seeds' PyTorch check; then one JSON validate for the per-check
# times. Output under $OUT.
set -uo pipefail
D=.device/perf
W=/opt/torch/.venv/lib/python3.12/site-packages/nvidia
PY=$(command -v python3)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
"$D/new/bin/cudnnctl" validate "$W/cudnn" --json > "$OUT/validate-new.json"; echo "validate new rc=$?"
"$D/new/bin/cudnnctl-old" validate "$W/cudnn" --json > "$OUT/validate-old.json"; echo "validate old rc=$?"
"$D/conv_floor" "$W/cudnn/lib/libcudnn.so.9" "$W/cu13/lib/libcudart.so.13"; echo "floor rc=$?"
python3 "$D/speed.py" "${ROUNDS:-7}" "$OUT/speed.json" \
  "new=$D/new/bin/cudnnctl validate $W/cudnn --json" \
  "old=$D/new/bin/cudnnctl-old validate $W/cudnn --json" \
  "floor=$D/conv_floor $W/cudnn/lib/libcudnn.so.9 $W/cu13/lib/libcudart.so.13" \
  "torch=$PY $D/torch_check.py" 2>&1 | tee "$OUT/speed.txt"
