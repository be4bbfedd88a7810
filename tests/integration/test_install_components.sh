#!/usr/bin/env bash
# test_install_components.sh: flavours and components through the real binary, from a mirror in
# NVIDIA's layout whose manifest has both components (cudnn and cudnn_jit, as 9.12+ do):
#  - install --flavor jit installs the cudnn_jit archive (only libcudnn, libcudnn_graph,
#    libcudnn_engines_runtime_compiled); the receipt, list and install --json say jit;
#  - the full flavour over it in the same target is refused (exit 1, nothing changed) and, with
#    --force, replaces it: no mix, rollback brings the JIT install back exactly;
#  - --components runtime leaves no header, no static archive, no libX.so link (libX.so.9 stay);
#    --components dev later adds the headers and links and leaves every runtime file as it was
#    (same inode, same bytes); a third install adds static; a fourth is "unchanged";
#  - the same into a CUDA tree (runtime only: no cudnn*.h in its include/);
#  - plan and install --dry-run state the sizes of the selection.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
C=("$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache" --no-progress)
S="$T/root/srv"
M="$S/mirror"
V=9.29.0.7 # a release no embedded manifest names: its file names are ours to describe
mkdir -p "$M/cudnn/linux-x86_64" "$M/cudnn_jit/linux-x86_64"

FULL="cudnn-linux-x86_64-${V}_cuda13-archive"
JIT="cudnn_jit-linux-x86_64-${V}_cuda13-archive"
build_archive "$M/cudnn/linux-x86_64" "$FULL" 9.29.0 \
  "libcudnn libcudnn_graph libcudnn_ops libcudnn_cnn libcudnn_engines_runtime_compiled" 1
build_archive "$M/cudnn_jit/linux-x86_64" "$JIT" 9.29.0 \
  "libcudnn libcudnn_graph libcudnn_engines_runtime_compiled" 0
python3 - "$M" "$V" "$S/redistrib_9.29.0.json" <<'PY'
import hashlib, json, os, sys
m, v, out = sys.argv[1:]
def entry(rel):
    b = open(os.path.join(m, rel), "rb").read()
    return {"relative_path": rel, "sha256": hashlib.sha256(b).hexdigest(),
            "md5": hashlib.md5(b).hexdigest(), "size": str(len(b))}
doc = {"release_date": "2026-11-02", "release_label": "9.29.0", "release_product": "cudnn",
       "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn", "version": v,
                 "linux-x86_64": {"cuda13": entry("cudnn/linux-x86_64/cudnn-linux-x86_64-%s_cuda13-archive.tar.xz" % v)},
                 "cuda_variant": ["13"]},
       "cudnn_jit": {"name": "NVIDIA CUDA Deep Neural Network Graph JIT library", "license": "cudnn",
                     "version": v, "linux-x86_64": {"cuda13": entry("cudnn_jit/linux-x86_64/cudnn_jit-linux-x86_64-%s_cuda13-archive.tar.xz" % v)},
                     "cuda_variant": ["13"]}}
json.dump(doc, open(out, "w"), indent=1)
PY
SRC=(--manifest /srv/redistrib_9.29.0.json --mirror /srv/mirror --cudnn $V --cuda 13
     --platform linux-x86_64 --no-validate)

# ---- usage errors name what is accepted ----
set +e
"$CUDNNCTL" available --components headers 2> "$T/err"; rc1=$?
"$CUDNNCTL" plan --flavor tiny 2>> "$T/err"; rc2=$?
set -e
[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] || fail "bad --components / --flavor: exit $rc1 / $rc2, want 2"
grep -q "runtime, dev and static" "$T/err" && grep -q "full .* or jit" "$T/err" || { cat "$T/err"; fail "the usage errors do not name the choices"; }

# ---- available / plan know both flavours and say what each costs ----
"${C[@]}" available --manifest /srv/redistrib_9.29.0.json --cudnn $V --platform linux-x86_64 \
  --flavor jit --json > "$T/av.json"
json_assert "$T/av.json" 'len(d) == 1 and d[0]["flavor"] == "jit" and d[0]["relative_path"].startswith("cudnn_jit/")'
"${C[@]}" plan "${SRC[@]:0:8}" --flavor jit --components runtime --prefix /opt/p --json > "$T/plan.json"
json_assert "$T/plan.json" 'd["flavor"] == "jit" and d["archive"]["relative_path"].startswith("cudnn_jit/") and d["sizes"]["components"] == "runtime" and d["sizes"]["download"] == d["archive"]["size"]'
json_assert "$T/plan.json" 'any("only the components runtime" in s["detail"] for s in d["steps"])'

# ---- the JIT flavour into a prefix ----
P=/opt/jit
"${C[@]}" install "${SRC[@]}" --flavor jit --prefix $P --json > "$T/jit.json"
json_assert "$T/jit.json" 'd["result"] == "installed" and d["flavor"] == "jit" and d["archive"]["relative_path"].startswith("cudnn_jit/")'
L="$T/root$P/cudnn-$V-cuda13/lib"
libs=$(cd "$L" && ls libcudnn*.so.9.29.0 | tr '\n' ' ')
[ "$libs" = "libcudnn.so.9.29.0 libcudnn_engines_runtime_compiled.so.9.29.0 libcudnn_graph.so.9.29.0 " ] \
  || fail "the JIT install holds: $libs"
R=$(json_get "$T/jit.json" 'd["receipt"]["path"]')
json_assert "$T/root$R" 'd["flavor"] == "jit" and d["components"] == "runtime,dev,static"'
"${C[@]}" list $P --json > "$T/list.json"
json_assert "$T/list.json" 'd["installs"][0]["flavor"] == "jit" and "libcudnn_engines_runtime_compiled" in d["installs"][0]["sublibs"] and "libcudnn_ops" not in d["installs"][0]["sublibs"]'

# ---- the full flavour over it: refused, nothing changed; with --force: replaced ----
snap "$T/root$P" > "$T/before"
set +e
"${C[@]}" install "${SRC[@]}" --prefix $P 2> "$T/err"
rc=$?
set -e
[ $rc -eq 1 ] || { cat "$T/err"; fail "full over jit without --force: exit $rc, want 1"; }
grep -q "jit flavour" "$T/err" && grep -q -- "--force" "$T/err" || { cat "$T/err"; fail "the refusal does not say which flavour is there and how to replace it"; }
snap "$T/root$P" > "$T/now"; same_snap "$T/before" "$T/now" "a refused flavour change changed the prefix"
"${C[@]}" install "${SRC[@]}" --prefix $P --force --json > "$T/full.json" 2> "$T/err"
json_assert "$T/full.json" 'd["result"] == "installed" and d["flavor"] == "full"'
[ -f "$L/libcudnn_ops.so.9.29.0" ] || fail "--force did not install the full flavour"
grep -q "replaced by the full flavour" "$T/err" || { cat "$T/err"; fail "no warning that the jit flavour was replaced"; }
"${C[@]}" rollback $P > /dev/null
snap "$T/root$P" > "$T/now"; same_snap "$T/before" "$T/now" "rollback did not bring the JIT install back exactly"

# ---- components: runtime, then dev, then the rest ----
Q=/opt/parts
"${C[@]}" install "${SRC[@]}" --prefix $Q --components runtime --json > "$T/rt.json"
json_assert "$T/rt.json" 'd["components"] == "runtime" and d["components_installed"] == "runtime"'
D="$T/root$Q/cudnn-$V-cuda13"
[ ! -e "$D/include" ] || fail "--components runtime left an include dir: $(ls -R "$D/include")"
[ -z "$(find "$D" -name '*.a')" ] || fail "--components runtime left static archives: $(find "$D" -name '*.a')"
[ -z "$(find "$D" -name '*.so')" ] || fail "--components runtime left .so dev links: $(find "$D" -name '*.so')"
[ ! -e "$D/lib/pkgconfig" ] && [ ! -e "$D/lib/cmake" ] || fail "--components runtime left build metadata (it is dev)"
[ -L "$D/lib/libcudnn.so.9" ] && [ -f "$D/lib/libcudnn.so.9.29.0" ] && [ -f "$D/LICENSE" ] \
  || fail "--components runtime lacks the runtime files"
(cd "$D" && find . -printf '%p %i %y %l\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) > "$T/rt-files"
"${C[@]}" install "${SRC[@]}" --prefix $Q --components dev --dry-run > "$T/dry.txt"
grep -q "size: download" "$T/dry.txt" || { cat "$T/dry.txt"; fail "--dry-run does not state the sizes"; }
grep -q "this install adds dev" "$T/dry.txt" || { cat "$T/dry.txt"; fail "--dry-run does not say it adds dev"; }
"${C[@]}" install "${SRC[@]}" --prefix $Q --components dev --json > "$T/dev.json"
json_assert "$T/dev.json" 'd["result"] == "installed" and d["components"] == "dev" and d["components_installed"] == "runtime,dev"'
[ -f "$D/include/cudnn.h" ] && [ -L "$D/include/cudnn_v9.h" ] || fail "--components dev added no headers"
[ -L "$D/lib/libcudnn.so" ] || fail "--components dev added no libcudnn.so link"
[ -f "$D/lib/pkgconfig/cudnn.pc" ] && [ -f "$D/lib/cmake/CUDNN/CUDNNConfig.cmake" ] || fail "--components dev added no build metadata"
[ -z "$(find "$D" -name '*.a')" ] || fail "--components dev brought static archives"
# the runtime files: not touched (same inode, same bytes)
(cd "$D" && find . -printf '%p %i %y %l\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) > "$T/now-files"
while IFS= read -r line; do grep -qxF -- "$line" "$T/now-files" || fail "adding dev changed a runtime file: $line"; done < "$T/rt-files"
"${C[@]}" install "${SRC[@]}" --prefix $Q --json > "$T/st.json"
json_assert "$T/st.json" 'd["result"] == "installed" and d["components"] == "static" and d["components_installed"] == "runtime,dev,static"'
[ -f "$D/lib/libcudnn_ops_static.a" ] || fail "the third install added no static archive"
"${C[@]}" install "${SRC[@]}" --prefix $Q --json > "$T/same.json"
json_assert "$T/same.json" 'd["result"] == "unchanged"'
"${C[@]}" uninstall $Q --all > /dev/null
[ ! -e "$D" ] || fail "uninstall --all left $(find "$D")"
no_leftovers "$T/root"

# ---- a CUDA tree, runtime only ----
make_tree "$T/root" clean
TREE="$T/root/usr/local/cuda-13.0"
"${C[@]}" install "${SRC[@]}" --cuda-home /usr/local/cuda-13.0 --no-ldconfig --components runtime --json > "$T/tree.json"
json_assert "$T/tree.json" 'd["result"] == "installed" and d["components"] == "runtime"'
[ -z "$(ls "$TREE/include" | grep cudnn)" ] || fail "a runtime-only install put headers into the tree: $(ls "$TREE/include")"
[ -f "$TREE/lib/libcudnn_ops.so.9.29.0" ] && [ ! -e "$TREE/lib/libcudnn_ops.so" ] && [ ! -e "$TREE/lib/libcudnn_ops_static.a" ] \
  || fail "the tree's lib holds: $(ls "$TREE/lib")"
# the JIT flavour over it: refused without --force; with it, the sub-libraries the JIT build
# lacks are moved out (no mix), and uninstall restores the tree
set +e
"${C[@]}" install "${SRC[@]}" --cuda-home /usr/local/cuda-13.0 --no-ldconfig --flavor jit 2> "$T/err"
rc=$?
set -e
[ $rc -eq 1 ] || { cat "$T/err"; fail "jit over full in a tree without --force: exit $rc, want 1"; }
"${C[@]}" install "${SRC[@]}" --cuda-home /usr/local/cuda-13.0 --no-ldconfig --flavor jit --force --components runtime > /dev/null 2>&1
left=$(cd "$TREE/lib" && ls libcudnn*.so.9.29.0 | tr '\n' ' ')
[ "$left" = "libcudnn.so.9.29.0 libcudnn_engines_runtime_compiled.so.9.29.0 libcudnn_graph.so.9.29.0 " ] \
  || fail "jit over full in a tree left a mix: $left"
"${C[@]}" detect --json > "$T/det.json" 2>/dev/null
json_assert "$T/det.json" '[c["flavor"] for c in d["cudnn"] if c["path"].startswith("/usr/local/cuda-13.0/lib")] == ["jit"]'
echo "ok"
