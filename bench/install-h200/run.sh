#!/usr/bin/env bash
# run.sh: the install issue's device run (H200, a disposable machine with CUDA 13.0 and a
# wheel-style cuDNN 9.19 in /usr/local/cuda-13.0). From a local mirror built from the machine's own
# cuDNN files (scripts/local-mirror: NVIDIA's layout, a manifest with the real SHA-256):
#   1. install into a temp prefix, validated on the GPU
#   2. install into the real CUDA tree (its wheel-style files become the .so chain), validated
#   3. uninstall from the tree: every file, link and mode byte for byte as before
#   4. rollback of the prefix install: the prefix as before
# Usage there: bash bench/install-h200/run.sh BIN_DIR (BIN_DIR/cudnnctl, made by make-bundle.sh).
set -u
BIN=$(cd "$1" && pwd)/cudnnctl
O=${OUT:-/tmp/out}; mkdir -p "$O"
CUDA=/usr/local/cuda-13.0
W=$(mktemp -d /tmp/cudnnctl-h200.XXXXXX)
say() { echo; echo "===== $*"; }
snap() { (cd "$1" && find . -printf '%p %y %l %m\n' | LC_ALL=C sort &&
          find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum); }
{
say machine
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -l $CUDA/lib/libcudnn*.so* | head -20
say "local mirror from $CUDA (NVIDIA layout)"
/usr/bin/time -f "mirror: %e s" python3 scripts/local-mirror --lib-dir $CUDA/lib --include-dir $CUDA/include \
  --cuda 13 --xz-preset -0 --xz-threads 0 --out $W/mirror > $W/mirror.json
cat $W/mirror.json
MF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest"])' $W/mirror.json)
SRC=(--manifest "$MF" --mirror $W/mirror --cudnn 9.19.0.56 --cuda 13 --platform linux-x86_64)
C=("$BIN" --state-dir $W/state --cache-dir $W/cache)

say "1. install into a prefix, validated on the GPU"
/usr/bin/time -f "install+validate: %e s, peak RSS %M KiB" "${C[@]}" install "${SRC[@]}" \
  --prefix $W/prefix --json > $O/prefix.json; echo "exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["validation"]; print(d["result"], d["target"]["install_dir"], "validation:", v["status"] if isinstance(v, dict) else v, [c["name"] for c in v.get("checks", []) if not c["ok"] and not c.get("skipped")] if isinstance(v, dict) else "")' $O/prefix.json
ls -l $W/prefix $W/prefix/current/lib | head -30

say "2. install into the real CUDA tree, validated on the GPU"
snap $CUDA > $W/tree-before
/usr/bin/time -f "install+validate: %e s, peak RSS %M KiB" "${C[@]}" install "${SRC[@]}" \
  --cuda-home $CUDA --no-ldconfig --json > $O/tree.json; echo "exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["validation"]; print(d["result"], d["target"]["path"], d["target"]["lib_dir"], "replaced:", len(d["files_replaced"]), "validation:", v["status"] if isinstance(v, dict) else v, v.get("loaded_from", v.get("loaded")) if isinstance(v, dict) else "")' $O/tree.json
ls -l $CUDA/lib/libcudnn*.so* | head -30
"${C[@]}" list

say "3. uninstall from the tree: byte for byte"
/usr/bin/time -f "uninstall: %e s" "${C[@]}" uninstall --cuda-home $CUDA --no-ldconfig --json > $O/uninstall.json; echo "exit $?"
snap $CUDA > $W/tree-after
if cmp -s $W/tree-before $W/tree-after; then echo "tree identical: $(wc -l < $W/tree-after) entries and hashes compared"
else echo "TREE DIFFERS"; diff $W/tree-before $W/tree-after | head -20; fi

say "4. rollback of the prefix install"
"${C[@]}" rollback --prefix $W/prefix; echo "exit $?"
ls -la $W/prefix
"${C[@]}" list --json
} 2>&1 | tee $O/summary.txt
rm -rf $W
