#!/usr/bin/env bash
# run.sh: the JIT flavour's device run (issue 22), on the H200 (CUDA 13.0, driver 580, the
# distribution's cuDNN 9.14 debs in /usr/lib/x86_64-linux-gnu — in ld.so.cache, so any
# sub-library the JIT flavour lacks would come from there: the mix validate must not make).
#   1. install --flavor jit into a temp prefix from the local mirror (NVIDIA's real JIT bytes: the
#      nvidia-cudnn-jit-cu13 9.27.0.42 wheel repacked by scripts/local-mirror --flavor jit)
#   2. validate it on the GPU: a convolution built from backend descriptors and run by a
#      runtime-compiled engine, the legacy API never asked for, nothing of another release mapped
#   3. which / doctor on it: what a legacy-API program would load, and from where
# Usage there: bash bench/jit-h200/run.sh BUNDLE (made here by bench/jit-h200/make-bundle.sh:
# BUNDLE/bin/cudnnctl and BUNDLE/mirror/). Output: $OUT/summary.txt and the JSON documents.
set -u
B=$(cd "$1" && pwd)
M=$B/mirror
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=$(mktemp -d /tmp/cudnnctl-jit.XXXXXX)
tar -C "$W" -xJf "$B/bin.tar.xz" # bin/cudnnctl and bin/lib (RPATH $ORIGIN/lib)
BIN=$W/bin/cudnnctl
C=("$BIN" --state-dir "$W/state" --cache-dir "$W/cache" --no-progress)
say() { echo; echo "===== $*"; }
{
say machine
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ldd "$BIN" | grep "not found" && echo "MISSING LIBRARIES: the bundle relies on the system's libxml2/ICU"
ldconfig -p | grep -E 'libcudnn(_ops|_graph|_engines_precompiled)?\.so\.9 ' | head
sha256sum "$M"/cudnn_jit/linux-x86_64/*.tar.xz

say "1. install --flavor jit into a prefix (no validation yet)"
/usr/bin/time -f "install: %e s, peak RSS %M KiB" "${C[@]}" install --manifest "$M/redistrib_9.27.0.json" \
  --mirror "$M" --flavor jit --cudnn 9.27.0.42 --cuda 13 --platform linux-x86_64 \
  --prefix "$W/p" --no-validate --json > "$O/install-jit.json"; echo "exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["result"], d["flavor"], d["archive"]["relative_path"], d["target"]["install_dir"])' "$O/install-jit.json"
ls -l "$W/p/current/lib"

say "2. validate the JIT install on the GPU"
/usr/bin/time -f "validate: %e s" "${C[@]}" validate --prefix "$W/p" --json > "$O/validate-jit.json"
echo "exit $? (0: every check passed)"
python3 - "$O/validate-jit.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("status:", d["status"], "flavor:", d["flavor"], "cudnn:", d["cudnn_version"], "gpu:", d.get("gpu"))
for c in d["checks"]:
    state = "ok" if c["ok"] else ("skip" if c.get("skipped") else ("warn" if c.get("advisory") else "FAIL"))
    print("  %-16s %-4s %s" % (c["name"], state, (c.get("error") or c.get("detail") or "")[:300]))
print("libcudnn* mapped:", d["loaded_from"])
PY

say "3. which and doctor on the JIT install"
"${C[@]}" which "$W/p/current/lib/libcudnn.so.9" > "$O/which-jit.txt" 2>&1; echo "which exit $?"
grep -E 'problem|->' "$O/which-jit.txt" | cut -c1-300
"${C[@]}" doctor --json > "$O/doctor-jit.json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(f["code"], "|", f["message"][:200], "| fix:", f["fix"][:160]) for f in d["findings"] if f["code"] == "CUDNN_JIT_NO_LEGACY_API"]' "$O/doctor-jit.json"
} 2>&1 | tee "$O/summary.txt"
rm -rf "$W"
