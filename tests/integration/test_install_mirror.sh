#!/usr/bin/env bash
# test_install_mirror.sh: install from a local mirror dir (--mirror DIR, NVIDIA's relative_path
# joined to it) with a manifest file carrying the archive's real SHA-256 (--manifest FILE), into a
# fake CUDA tree and into a prefix under a temp --root; --dry-run writes nothing; a held lock
# exits 8 naming its holder; a target the user may not write exits 9 with the fix; rollback
# after an upgrade brings the earlier install back exactly.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
C=("$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache")
# inputs (archives, mirror, manifests) live inside the root: --root resolves every path the
# tool reads, and one already under the root is taken as it is
S="$T/root/srv"
mkdir -p "$S"

# a mirror laid out like NVIDIA's redist tree, and a manifest in NVIDIA's format
M="$S/mirror"
mkdir -p "$M/cudnn/linux-x86_64"
A1=$(make_archive "$S" 9.19.0.56 "libcudnn libcudnn_graph")
A2=$(make_archive "$S" 9.19.1.3 "libcudnn libcudnn_graph libcudnn_engines_tensor_ir")
mv "$A1" "$A2" "$M/cudnn/linux-x86_64/"
python3 - "$M" "$S/manifest.json" <<'PY'
import hashlib, json, os, sys
m, out = sys.argv[1], sys.argv[2]
docs = []
for ver in ("9.19.0.56", "9.19.1.3"):
    rel = "cudnn/linux-x86_64/cudnn-linux-x86_64-%s_cuda13-archive.tar.xz" % ver
    data = open(os.path.join(m, rel), "rb").read()
    docs.append({"release_date": "2026-02-03", "release_label": ver.rsplit(".", 1)[0],
                 "release_product": "cudnn",
                 "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                           "version": ver,
                           "linux-x86_64": {"cuda13": {"relative_path": rel,
                                                       "sha256": hashlib.sha256(data).hexdigest(),
                                                       "md5": hashlib.md5(data).hexdigest(),
                                                       "size": str(len(data))}},
                           "cuda_variant": ["13"]}})
for i, d in enumerate(docs):
    json.dump(d, open(out.replace(".json", "-%d.json" % i), "w"), indent=1)
PY
MF1="$S/manifest-0.json"; MF2="$S/manifest-1.json"
make_tree "$T/root"
TREE="$T/root/usr/local/cuda-13.0"
snap "$TREE" > "$T/before"

# ---- manifest trust: MF1 gives the rebuilt archive NVIDIA's file name but its own SHA-256 and
# size: refused (exit 3) with both values and both sources, even under -q; nothing written ----
NV_SHA=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["cudnn"]["linux-x86_64"]["cuda13"]["sha256"])' \
  "$SOURCE_DIR/data/manifests/cudnn/redistrib_9.19.0.json")
set +e
"${C[@]}" -q install --cuda 13 --cudnn 9.19.0.56 --cuda-home /usr/local/cuda --mirror "$M" \
  --manifest "$MF1" --no-validate --force 2> "$T/err"
rc=$?
set -e
[ $rc -eq 3 ] || { cat "$T/err"; fail "a manifest contradicting NVIDIA's: exit $rc, want 3"; }
SHA1=$(sha256sum "$M/cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz" | cut -d' ' -f1)
grep "error:" "$T/err" | grep -q "$SHA1" || { cat "$T/err"; fail "the refusal does not give the manifest's SHA-256"; }
grep "error:" "$T/err" | grep -q "$NV_SHA" || { cat "$T/err"; fail "the refusal does not give NVIDIA's SHA-256"; }
grep "error:" "$T/err" | grep -q "manifest-0.json" && grep "error:" "$T/err" | grep -q "redistrib_9.19.0.json" \
  || { cat "$T/err"; fail "the refusal does not name both sources"; }
grep -q -- "--allow-manifest-override" "$T/err" || fail "the refusal does not name the override"
grep -q "warning: manifest .*manifest-0.json gives" "$T/err" || { cat "$T/err"; fail "-q hid the integrity warning"; }
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "a refused manifest changed the tree"

# ---- dry-run: the plan, nothing written ----
"${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --cuda-home /usr/local/cuda --mirror "$M" \
  --manifest "$MF1" --allow-manifest-override --dry-run --json > "$T/dry.json"
json_assert "$T/dry.json" 'd["result"] == "dry-run" and d["archive"]["url"] == "/srv/mirror/" + d["archive"]["relative_path"]'
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "dry-run changed the tree"
[ ! -e "$T/root/var/lib/cudnnctl" ] || fail "dry-run created the state dir"

# ---- a held lock: exit 8, the holder named ----
mkdir -p "$T/root/var/lib/cudnnctl"
exec 9> "$T/root/var/lib/cudnnctl/lock"
flock -n 9 || fail "could not take the lock for the test"
echo "pid $$ since test" >&9
set +e
"${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --cuda-home /usr/local/cuda --mirror "$M" \
  --manifest "$MF1" --allow-manifest-override --no-validate 2> "$T/err"
rc=$?
set -e
exec 9>&-
[ $rc -eq 8 ] || { cat "$T/err"; fail "a held lock: exit $rc, want 8"; }
grep -q "pid $$" "$T/err" || { cat "$T/err"; fail "the lock holder is not named"; }
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "a locked install changed the tree"

# ---- from the mirror into the tree, then an upgrade that adds a sub-library ----
"${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --cuda-home /usr/local/cuda --mirror "$M" \
  --manifest "$MF1" --allow-manifest-override --no-validate --force --json > "$T/i1.json" 2> "$T/err" || { cat "$T/err"; fail "mirror install"; }
json_assert "$T/i1.json" 'd["result"] == "installed" and d["archive"]["verified"] and d["cudnn_version"] == "9.19.0.56"'
json_assert "$T/i1.json" 'd["archive"]["manifest"] is not None'
json_assert "$T/i1.json" 'any(w.startswith("--allow-manifest-override: manifest ") for w in d["warnings"])'
json_assert "$T/root/var/lib/cudnnctl/receipts/000001.json" '"'"$NV_SHA"'" in d["manifest"]["override"]' 
[ "$(readlink "$TREE/lib/libcudnn_graph.so.9")" = "libcudnn_graph.so.9.19.0" ] || fail "graph link"
snap "$TREE" > "$T/after1"
"${C[@]}" install --cuda 13 --cudnn 9.19.1.3 --cuda-home /usr/local/cuda --mirror "$M" \
  --manifest "$MF2" --no-validate --json > "$T/i2.json" 2> "$T/err" || { cat "$T/err"; fail "upgrade"; }
json_assert "$T/i2.json" 'd["result"] == "installed" and d["cudnn_version"] == "9.19.1.3"'
[ "$(readlink "$TREE/lib/libcudnn.so.9")" = "libcudnn.so.9.19.1" ] || fail "upgrade link"
[ -f "$TREE/lib/libcudnn_engines_tensor_ir.so.9.19.1" ] || fail "new sub-library"
! ls "$TREE/lib" | grep -q '9\.19\.0' || fail "9.19.0 files left next to 9.19.1: $(ls "$TREE/lib")"
R="$T/root/var/lib/cudnnctl/receipts/000002.json"
json_assert "$R" 'd["manifest"]["origin"] is not None'
"${C[@]}" list --json > "$T/list.json"
json_assert "$T/list.json" '[i["active"] for i in d["installs"]] == [False, True]'
# the older install cannot go from under the newer one
set +e
"${C[@]}" uninstall --cuda-home /usr/local/cuda --version 9.19.0 2> "$T/err"; rc=$?
set -e
[ $rc -ne 0 ] && grep -q rollback "$T/err" || fail "removing a superseded install was not refused"
# rollback: exactly the 9.19.0 tree again; then uninstall: exactly as before
"${C[@]}" rollback --cuda-home /usr/local/cuda > /dev/null
snap "$TREE" > "$T/now"; same_snap "$T/after1" "$T/now" "rollback after the upgrade"
"${C[@]}" uninstall --all --cuda-home /usr/local/cuda > /dev/null
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "uninstall --all"
no_leftovers "$TREE"

# ---- from the mirror into a prefix ----
mkdir -p "$T/root/opt"
"${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --prefix /opt/cudnn --mirror "$M" --manifest "$MF1" --allow-manifest-override \
  --no-validate --json > "$T/p.json" 2>/dev/null
json_assert "$T/p.json" 'd["result"] == "installed" and d["target"]["mode"] == "prefix"'
P="$T/root/opt/cudnn"
[ "$(readlink "$P/current")" = "cudnn-9.19.0.56-cuda13" ] || fail "prefix current"
[ "$(readlink "$P/cudnn-9.19.0.56-cuda13/lib/libcudnn.so")" = "libcudnn.so.9" ] || fail "prefix links"
# a second install of the same: unchanged, from the cache
"${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --prefix /opt/cudnn --mirror "$M" --manifest "$MF1" --allow-manifest-override \
  --no-validate --json > "$T/p2.json" 2>/dev/null
json_assert "$T/p2.json" 'd["result"] == "unchanged"'
# --dry-run of an install that is there says so (Ansible's check mode predicts no change) ...
snap "$P" > "$T/pbefore"
"${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --prefix /opt/cudnn --mirror "$M" --manifest "$MF1" \
  --allow-manifest-override --dry-run --json > "$T/p3.json" 2>/dev/null
json_assert "$T/p3.json" 'd["result"] == "unchanged" and d["steps"][-1].startswith("unchanged: cuDNN 9.19.0.56")'
snap "$P" > "$T/pnow"; same_snap "$T/pbefore" "$T/pnow" "dry-run of an installed version changed the prefix"
# ... and with --force it would reinstall
"${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --prefix /opt/cudnn --mirror "$M" --manifest "$MF1" \
  --allow-manifest-override --dry-run --force --json > "$T/p4.json" 2>/dev/null
json_assert "$T/p4.json" 'd["result"] == "dry-run"'
"${C[@]}" uninstall --prefix /opt/cudnn > /dev/null
[ ! -e "$P" ] || fail "the prefix we created is still there: $(ls -la "$P")"

# ---- a tree the user may not write: exit 9 with the fix ----
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv > /dev/null || fail "setpriv (util-linux) is needed to test as an unprivileged user"
  chmod -R a+rX "$T" "$M"
  # the user's own state and cache (a 0777 one is refused as untrusted: test_rootsafe_state.sh)
  mkdir -m 0700 "$T/nstate" "$T/ncache"; chown 65534:65534 "$T/nstate" "$T/ncache"
  set +e
  setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/nstate" \
    "$CUDNNCTL" --root "$T/root" --cache-dir "$T/ncache" --state-dir "$T/nstate" install --cuda 13 \
    --cudnn 9.19.0.56 --cuda-home /usr/local/cuda --mirror "$M" --manifest "$MF1" --allow-manifest-override --no-validate \
    2> "$T/err"
  rc=$?
  set -e
else
  chmod a-w "$TREE" "$TREE/lib" "$TREE/include"
  set +e
  "${C[@]}" install --cuda 13 --cudnn 9.19.0.56 --cuda-home /usr/local/cuda --mirror "$M" \
    --manifest "$MF1" --allow-manifest-override --no-validate 2> "$T/err"
  rc=$?
  set -e
  chmod u+w "$TREE" "$TREE/lib" "$TREE/include"
fi
[ $rc -eq 9 ] || { cat "$T/err"; fail "an unwritable tree: exit $rc, want 9"; }
grep -q -- "--prefix" "$T/err" && grep -qi "root\|sudo" "$T/err" || { cat "$T/err"; fail "exit 9 without the fix"; }
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "a refused install changed the tree"
echo "ok: mirror installs (tree + prefix), dry-run, lock (8), permission (9), upgrade + rollback"
