#!/usr/bin/env bash
# Issue 20 on the H200: `which --python` predictions against /proc/self/maps of the frameworks
# themselves, not activated and activated, and the one-fix acceptance (install, validate and
# doctor print the same fix; after it doctor and doctor --python report no error or warning).
# The image: CUDA 13.0, the distribution's cuDNN 9.14 debs in /usr/lib/x86_64-linux-gnu, torch
# 2.11+cu130 and jax with NVIDIA's nvidia-cudnn-cu13 9.19 wheel in /opt/torch/.venv (and NVIDIA's
# cudnn-frontend where installed). No network. Carried as .device/i20 (bin/ = make-bundle.sh).
#   A. not activated: each framework's libcudnn* maps after a real convolution on the GPU vs the
#      model (which --python --json: consumers[].maps); the front library must be the same file
#      and every mapped libcudnn* must be one the model names
#   B. install /opt/p20 from a local mirror packed from the wheel's own files (9.19.0.56, full
#      version from the release tag), the fixes install / validate / doctor print, the activation
#      run exactly as install printed it, doctor and doctor --python after it, then A again
#   C. torch and cudnn-frontend in one process, activated: the two libcudnn.so.9 the issue saw
# Output: $OUT/summary.txt (the whole log) and the JSON files; grep '^RESULT' for the verdicts.
set -u
D=$(cd "$(dirname "$0")" && pwd); BIN=$D/bin/cudnnctl
OUT=${OUT:-/tmp/i20-out}; mkdir -p "$OUT"
W=/tmp/w20; rm -rf $W; mkdir -p $W/bin
printf '#!/bin/sh\nexec %s --state-dir %s/state --cache-dir %s/cache "$@"\n' "$BIN" $W $W >$W/bin/cudnnctl
chmod +x $W/bin/cudnnctl; export PATH=$W/bin:$PATH
PY=/opt/torch/.venv/bin/python
SITE=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
FWS="torch jax"; [ -e "$SITE/cudnn/__init__.py" ] && FWS="$FWS cudnn"
# real FW TAG: run the framework's own first cuDNN operation, print its libcudnn* maps (realpath)
real() {
    $PY - "$1" >"$OUT/real-$1-$2.txt" 2>"$OUT/real-$1-$2.err" <<'PYEOF'
import os, sys
fw = sys.argv[1]
if fw == "torch":
    import torch
    x = torch.randn(1, 3, 16, 16, device="cuda"); w = torch.randn(4, 3, 3, 3, device="cuda")
    torch.nn.functional.conv2d(x, w); torch.cuda.synchronize()
    print("version", torch.backends.cudnn.version())
elif fw == "jax":
    import jax, jax.numpy as jnp
    x = jnp.ones((1, 16, 16, 3)); k = jnp.ones((3, 3, 3, 4))
    jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC")).block_until_ready()
    print("version", "jax", jax.__version__)
elif fw == "cudnn":
    import cudnn
    print("version", cudnn.backend_version())
elif fw == "both":
    import torch, cudnn
    x = torch.randn(1, 3, 16, 16, device="cuda"); w = torch.randn(4, 3, 3, 3, device="cuda")
    torch.nn.functional.conv2d(x, w); torch.cuda.synchronize()
    print("version", torch.backends.cudnn.version(), cudnn.backend_version())
for p in sorted({l.split()[-1] for l in open("/proc/self/maps") if "/libcudnn" in l}):
    print("mapped", p, os.path.realpath(p))
PYEOF
    echo "  real $1 ($2): exit $? $(head -1 "$OUT/real-$1-$2.txt")"
}
# compare FW TAG: the model (which JSON) against the real maps
compare() {
    python3 - "$OUT/which-$2.json" "$OUT/real-$1-$2.txt" "$1" "$2" <<'PYEOF'
import json, os, sys
rep = json.load(open(sys.argv[1])); fw = sys.argv[3]
names = {"torch": ["torch"], "jax": ["jax_cuda13_plugin", "jax_cuda13_pjrt", "jax_cuda12_plugin", "jax_cuda12_pjrt"],
         "cudnn": ["nvidia_cudnn_frontend"]}[fw]
cs = [c for c in rep["consumers"] if c["name"] in names and c.get("maps")]
real = [l.split()[2] for l in open(sys.argv[2]) if l.startswith("mapped ")]
if not cs or not real:
    print("RESULT", fw, sys.argv[4], "NO-DATA", "model consumers:", [c["name"] for c in cs], "real maps:", len(real)); sys.exit(0)
c = cs[0]
model = [os.path.realpath(p) for p in c["maps"]]
front_real = [p for p in real if os.path.basename(p).startswith("libcudnn.so")]
front_ok = bool(front_real) and os.path.realpath(front_real[0]) == model[0]
missing = [p for p in real if os.path.realpath(p) not in model]
print("RESULT", fw, sys.argv[4], "MATCH" if front_ok and not missing else "DIFF",
      "| model:", c["name"], c["verdict"], "front", model[0], "| real front", front_real[:1],
      "| mapped not predicted:", missing or "none", "| notes:", len(c.get("notes", [])),
      "| problems:", c.get("problems", []))
PYEOF
}
{
echo "===== 0. image"; uname -r; ldd --version | head -1; ls -l /usr/lib/x86_64-linux-gnu/libcudnn.so.9*
echo "frameworks: $FWS"; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH-(unset)}"
cudnnctl doctor --json >$OUT/doctor-0.json; echo "doctor exit $?"
echo "===== A. not activated"
cudnnctl which --python $PY --json >$OUT/which-plain.json; echo "which --python exit $?"
cudnnctl which --python $PY | grep -E '^[a-z_]+ |libcudnn.so.9 |verdict|note|problem'
for fw in $FWS; do real $fw plain; compare $fw plain; done
echo "===== B. install /opt/p20 from the wheel's own files; the fixes"
python3 scripts/local-mirror --lib-dir $SITE/nvidia/cudnn/lib --include-dir $SITE/nvidia/cudnn/include \
  --cuda 13 --xz-preset -0 --xz-threads 0 --out $W/mirror >$W/mirror.json; cat $W/mirror.json
MF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest"])' $W/mirror.json)
V4=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cudnn_version"])' $W/mirror.json)
cudnnctl install --manifest "$MF" --mirror $W/mirror --cudnn "$V4" --cuda 13 --platform linux-x86_64 \
  --prefix /opt/p20 >$W/install.out 2>$W/install.err; echo "install exit $?"; cat $W/install.out $W/install.err
F_INSTALL=$(grep -h "this environment maps" $W/install.err $W/install.out | sed -n 's/.*; fix: //p;s/.*own files: //p' | head -1)
cudnnctl validate /opt/p20 --json >$OUT/validate-plain.json 2>/dev/null; echo "validate exit $?"
F_VALIDATE=$(python3 -c '
import json,sys
c=[c for c in json.load(open(sys.argv[1]))["checks"] if c["name"]=="effective_load"][0]
t=c.get("error") or c.get("detail") or ""
print(t.rsplit("fix: ",1)[-1] if "fix: " in t else t.rsplit("own files: ",1)[-1])' $OUT/validate-plain.json)
cudnnctl doctor --json >$OUT/doctor-plain.json
F_DOCTOR=$(python3 -c '
import json,sys
f=[f for f in json.load(open(sys.argv[1]))["findings"] if f["code"] in ("CUDNN_PREFIX_NOT_ACTIVE","CUDNN_NOT_IN_LOADER_PATH")]
print(f[0]["command"] if f else "")' $OUT/doctor-plain.json)
echo "fix install:  $F_INSTALL"; echo "fix validate: $F_VALIDATE"; echo "fix doctor:   $F_DOCTOR"
[ -n "$F_INSTALL" ] && [ "$F_INSTALL" = "$F_VALIDATE" ] && { [ -z "$F_DOCTOR" ] || [ "$F_DOCTOR" = "$F_INSTALL" ]; } &&
  echo "RESULT one-fix SAME" || echo "RESULT one-fix DIFFERENT"
echo "--- activated exactly as install printed it"
eval "$F_INSTALL"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
cudnnctl doctor --json >$OUT/doctor-activated.json; echo "doctor exit $?"
cudnnctl doctor --python $PY --json >$OUT/doctor-python-activated.json; echo "doctor --python exit $?"
for f in doctor-activated doctor-python-activated; do
  python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
bad=[(f["code"],f["severity"]) for f in d["findings"] if f["severity"]!="info"]
print("RESULT", sys.argv[2], "CLEAN" if not bad else "FINDINGS", bad)' $OUT/$f.json $f
done
cudnnctl which --python $PY --json >$OUT/which-activated.json; echo "which --python exit $?"
cudnnctl which --python $PY | grep -E '^[a-z_]+ |libcudnn.so.9 |verdict|note|problem'
for fw in $FWS; do real $fw activated; compare $fw activated; done
echo "===== C. torch and cudnn-frontend in one process (activated)"
if [ -e "$SITE/cudnn/__init__.py" ]; then real both activated; cat $OUT/real-both-activated.txt; fi
echo "===== cleanup"; rm -rf /opt/p20
} 2>&1 | tee $OUT/summary.txt
