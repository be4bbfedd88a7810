#!/usr/bin/env bash
# test_validate_jit.sh: NVIDIA's real JIT bytes (the nvidia-cudnn-jit-cu13 9.27.0.42 wheel, from
# PyPI once into ~/.cache/cudnnctl-test/wheels) repacked by scripts/local-mirror --flavor jit into
# NVIDIA's cudnn_jit layout, installed with --flavor jit into a prefix, then validated (the
# no-GPU path here; tests/validate-h200... bench/jit-h200/run.sh does the GPU part):
#  - the install holds exactly libcudnn, libcudnn_graph, libcudnn_engines_runtime_compiled;
#  - validate says flavor jit and never asks for the legacy API: sublib_ops/_cnn/_adv are
#    skipped with why, nothing of another release is mapped (loaded_from, jit_no_legacy pass)
#    even on a machine whose ld.so.cache has a full cuDNN of another release;
#  - which and doctor say plainly that a legacy-API program would take libcudnn_ops from
#    elsewhere, and how to prevent it.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
VER=9.27.0.42
CACHE=${CUDNNCTL_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test}
WHL="$CACHE/wheels/nvidia_cudnn_jit_cu13-$VER-py3-none-manylinux_2_27_x86_64.whl"
if [ ! -f "$WHL" ]; then
  mkdir -p "$CACHE/wheels"
  timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --platform manylinux_2_27_x86_64 "nvidia-cudnn-jit-cu13==$VER" -d "$CACHE/wheels" >&2 || true
fi
[ -f "$WHL" ] || { echo "SKIP: no $WHL (PyPI unreachable)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
(cd "$T" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall("w")' "$WHL")
python3 "$SOURCE_DIR/scripts/local-mirror" --lib-dir "$T/w/nvidia/cudnn_jit/lib" \
  --include-dir "$T/w/nvidia/cudnn_jit/include" --version $VER --cuda 13 --flavor jit \
  --xz-preset -0 --out "$T/mirror" > "$T/mirror.json"
json_assert "$T/mirror.json" 'd["relative_path"].startswith("cudnn_jit/linux-x86_64/cudnn_jit-linux-x86_64-") and d["flavor"] == "jit"'
C=("$CUDNNCTL" --state-dir "$T/state" --cache-dir "$T/cache" --no-progress)
"${C[@]}" install --manifest "$T/mirror/redistrib_9.27.0.json" --mirror "$T/mirror" --flavor jit \
  --cudnn $VER --cuda 13 --platform linux-x86_64 --prefix "$T/p" --no-validate --json > "$T/inst.json"
json_assert "$T/inst.json" 'd["result"] == "installed" and d["flavor"] == "jit"'
libs=$(cd "$T/p/current/lib" && ls libcudnn*.so.9.27.0 | tr '\n' ' ')
[ "$libs" = "libcudnn.so.9.27.0 libcudnn_engines_runtime_compiled.so.9.27.0 libcudnn_graph.so.9.27.0 " ] \
  || fail "the JIT install holds: $libs"

set +e
"${C[@]}" validate --prefix "$T/p" --json > "$T/v.json" 2> "$T/v.err"
rc=$?
set -e
# 7: no GPU here (the versions and sub-libraries checked); 0 on a GPU machine
[ $rc -eq 7 ] || [ $rc -eq 0 ] || { cat "$T/v.err"; cat "$T/v.json"; fail "validate of the JIT install: exit $rc"; }
json_assert "$T/v.json" 'd["flavor"] == "jit" and d["cudnn_version"] == "9.27.0"'
chk() { json_assert "$T/v.json" "[c for c in d[\"checks\"] if c[\"name\"] == \"$1\"][0]$2"; }
chk sublib_graph '["ok"]'
for s in ops cnn adv; do
  chk sublib_$s '["skipped"] and "JIT flavour has no libcudnn_'$s'" in [c for c in d["checks"] if c["name"] == "sublib_'$s'"][0]["error"]'
done
chk loaded_from '["ok"]'
chk jit_no_legacy '["ok"]'
json_assert "$T/v.json" 'all("/libcudnn_ops" not in p for p in d["loaded_from"])'
json_assert "$T/v.json" 'any(c["name"] == "graph_conv" for c in d["checks"]) and not any(c["name"] == "conv_fp32_a" for c in d["checks"])'

# which / doctor: the legacy API is not in this install; a program using it pulls it from elsewhere
"${C[@]}" which "$T/p/current/lib/libcudnn.so.9" > "$T/which.txt" 2>&1 || true
grep -q "JIT flavour" "$T/which.txt" && grep -q "libcudnn_ops" "$T/which.txt" \
  || { cat "$T/which.txt"; fail "which does not say what the JIT flavour lacks"; }
"${C[@]}" doctor --json > "$T/doc.json" 2>/dev/null || true
json_assert "$T/doc.json" 'any(f["code"] == "CUDNN_JIT_NO_LEGACY_API" for f in d["findings"])'
echo "ok"
