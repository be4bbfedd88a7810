#!/usr/bin/env bash
# The H200 acceptance of issue 11 (docs/which-h200.md): on the image (CUDA 13.0, a distribution's
# cuDNN 9.14 in /usr/lib/x86_64-linux-gnu, torch 2.11+cu130 with the nvidia-cudnn-cu13 9.19 wheel
# in /opt/torch/.venv):
#  1. which (the environment) and the real loader before anything
#  2. install cuDNN 9.19 (packed from the wheel's own files into a local NVIDIA-layout mirror on
#     the device) into /opt/p1: install itself warns which copy wins and how to fix it
#  3. run that fix (eval "$(cudnnctl env --prefix /opt/p1)"): a fresh process maps the install
#     (the probe, python ctypes + /proc/self/maps, and cudnnGetVersion from the mapped library)
#  4. the login-shell fix (env --persist --system) and a new login shell
#  5. which --python /opt/torch/.venv/bin/python; which --env-of; validate's effective_load
#  6. torch with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu: the model's answer (a mixed cuDNN)
#     against torch itself; doctor --python names it, its fix is run, torch works again
# Carried as .device/loader (bin/ = make-bundle.sh output). Raw output: $OUT/*.
set -u
D=$(cd "$(dirname "$0")" && pwd); BIN=$D/bin/cudnnctl
W=/tmp/w; rm -rf $W; mkdir -p $W/bin
printf '#!/bin/sh\nexec %s --state-dir %s/state --cache-dir %s/cache "$@"\n' "$BIN" $W $W >$W/bin/cudnnctl
chmod +x $W/bin/cudnnctl; export PATH=$W/bin:$PATH
SITE=$(/opt/torch/.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
probe() { cudnnctl __load-probe libcudnn.so.9 | sed -n 's/^cudnnctl-load: //p'; }
pyprobe() { python3 -c '
import ctypes
h = ctypes.CDLL("libcudnn.so.9")
maps = [l.split()[-1] for l in open("/proc/self/maps") if "libcudnn.so" in l]
print("python ctypes.CDLL(libcudnn.so.9): /proc/self/maps:", sorted(set(maps)), "cudnnGetVersion() =", h.cudnnGetVersion())'; }
{
echo "===== 0. image"; uname -r; ldd --version | head -1; id -u; ls -l /usr/lib/x86_64-linux-gnu/libcudnn.so.9*; ls /etc/ld.so.conf.d/
echo "===== 1. before: which (environment) and the real loader"
cudnnctl which; echo "exit $?"; cudnnctl which --json >$OUT/which-env.json
echo "probe: $(probe)"; pyprobe
echo "===== 2. install 9.19 (from the wheel's files, local mirror) into /opt/p1, no activation"
python3 scripts/local-mirror --lib-dir $SITE/nvidia/cudnn/lib --include-dir $SITE/nvidia/cudnn/include \
  --cuda 13 --xz-preset -0 --xz-threads 0 --out $W/mirror >$W/mirror.json; cat $W/mirror.json
MF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest"])' $W/mirror.json)
V4=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cudnn_version"])' $W/mirror.json)
cudnnctl install --manifest "$MF" --mirror $W/mirror --cudnn "$V4" --cuda 13 --platform linux-x86_64 \
  --prefix /opt/p1 2>&1; echo "install exit $?"
cudnnctl install --manifest "$MF" --mirror $W/mirror --cudnn "$V4" --cuda 13 --platform linux-x86_64 \
  --prefix /opt/p1 --force --no-validate --json >$OUT/install.json 2>/dev/null; echo "install --json exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(" effective_load", e["scope"], e["mapped"], e["matches"], (e["model"] or {}).get("rule"), "fix:", e["fix"]) for e in d["effective_load"]]' $OUT/install.json
echo "===== 3. the fix for this shell, as install printed it, then fresh processes"
cudnnctl env --shell bash --prefix /opt/p1 >$W/act.sh
cudnnctl which --env-of $W/act.sh; echo "which --env-of exit $?"
( eval "$(cudnnctl env --prefix /opt/p1)"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; echo "probe: $(probe)"; pyprobe
  cudnnctl validate /opt/p1 --cuda-home /usr/local/cuda-13.0 --json >$OUT/validate-activated.json; echo "validate exit $?"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" validate status", d["status"], [ (c["name"], c["ok"], c.get("detail")) for c in d["checks"] if c["name"] in ("effective_load","loaded_from")])' $OUT/validate-activated.json )
echo "--- without activation (--no-ld-library-path is the old behaviour):"
( eval "$(cudnnctl env --prefix /opt/p1 --no-ld-library-path)"; echo "probe: $(probe)" )
cudnnctl validate /opt/p1 --cuda-home /usr/local/cuda-13.0 --json >$OUT/validate-unwired.json; echo "validate (unwired) exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" validate status", d["status"], [ (c["name"], c["ok"], c.get("error")) for c in d["checks"] if c["name"]=="effective_load"])' $OUT/validate-unwired.json
echo "===== 4. the login-shell fix: env --persist --system, then a new login shell"
cudnnctl env --persist --system --prefix /opt/p1 2>&1; echo "env --persist --system exit $?"
ls /etc/ld.so.conf.d/; cat /etc/ld.so.conf.d/cudnnctl-*.conf; ldconfig -p | grep "libcudnn.so.9 "
env -i HOME=/root TERM=dumb PATH=$W/bin:/usr/bin:/bin bash -lic 'echo "login shell probe: $(cudnnctl __load-probe libcudnn.so.9 | tail -1)"' 2>/dev/null
echo "===== 5. which --python /opt/torch/.venv/bin/python"
cudnnctl which --python /opt/torch/.venv/bin/python; echo "exit $?"
cudnnctl which --python /opt/torch/.venv/bin/python --json >$OUT/which-torch.json
echo "--- torch itself (for the record): the cuDNN it reports and maps"
/opt/torch/.venv/bin/python -c '
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())
print(sorted(set(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn" in l))[:3])'
echo "===== 6. the same interpreter with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu (the distro 9.14)"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
cudnnctl which --python /opt/torch/.venv/bin/python --json >$OUT/which-torch-llp.json; echo "which --json exit $?"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); c = [c for c in d["consumers"] if c["name"] == "torch"][0]
print(" model, torch:", [(l["soname"], l["path"], l["rule"]) for l in c["loads"] if l["soname"].startswith("libcudnn")][:3])
print(" verdict", c["verdict"], "system_install_affects", c["system_install_affects"], "ld_library_path_affects", c["ld_library_path_affects"])
for p in c["problems"][:2]: print(" problem:", p)' $OUT/which-torch-llp.json
/opt/torch/.venv/bin/python -c '
import torch
maps = sorted(set(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn" in l))
print("real, torch:", maps[:3])
print("torch.backends.cudnn.version():", torch.backends.cudnn.version())' 2>&1 | tail -3
echo "--- doctor --python (a finding with a fix), the fix run, doctor and torch again"
cudnnctl doctor --python /opt/torch/.venv/bin/python --json >$OUT/doctor-python.json; echo "doctor exit $?"
FIX=$(python3 -c '
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["code"].startswith("PYTHON_")]
for x in f: print(" finding", x["code"], "|", x["message"][:300], "| fix:", x["fix"], file=sys.stderr)
print(f[0]["fix"] if f else "true")' $OUT/doctor-python.json)
echo "running the fix: $FIX"; eval "$FIX"; echo "LD_LIBRARY_PATH now: ${LD_LIBRARY_PATH-(unset)}"
cudnnctl doctor --python /opt/torch/.venv/bin/python --json | python3 -c '
import json, sys; print(" PYTHON_* findings after the fix:", len([x for x in json.load(sys.stdin)["findings"] if x["code"].startswith("PYTHON_")]))'
/opt/torch/.venv/bin/python -c '
import torch; print("real, torch after the fix: cudnn", torch.backends.cudnn.version())' 2>&1 | tail -1
} 2>&1 | tee $OUT/summary.txt
