#!/usr/bin/env bash
# test_install_archive.sh: install an archive at hand (--archive FILE + --sha256) into a fake CUDA
# tree and into a prefix under a temp --root; every header, library and link where specified, the
# receipt, list, and uninstall giving the tree back byte for byte. Negative cases: the catalog's
# digest for a rebuilt archive (exit 3), an unmatched name without a digest (exit 3), one flipped
# byte (exit 3, target byte-identical), --insecure-skip-verify said loudly.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
C=("$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache")
# inputs (archives, mirror, manifests) live inside the root: --root resolves every path the
# tool reads, and one already under the root is taken as it is
S="$T/root/srv"
mkdir -p "$S"

A=$(make_archive "$S" 9.19.0.56 "libcudnn libcudnn_graph libcudnn_cnn")
SHA=$(sha256sum "$A" | cut -d' ' -f1)
make_tree "$T/root"
TREE="$T/root/usr/local/cuda-13.0"
snap "$TREE" > "$T/before"

# ---- the catalog knows this file name with NVIDIA's digest: our rebuilt archive must fail ----
set +e
"${C[@]}" install --cuda-home /usr/local/cuda --archive "$A" --no-validate 2> "$T/err"
rc=$?
set -e
[ $rc -eq 3 ] || { cat "$T/err"; fail "a rebuilt archive under NVIDIA's name: exit $rc, want 3"; }
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "tree changed by a failed verify"
no_leftovers "$TREE"

# ---- the tree holds a cuDNN no receipt owns: replacing it needs --force, and lists it ----
set +e
"${C[@]}" install --cuda-home /usr/local/cuda --archive "$A" --sha256 "$SHA" --no-validate \
  2> "$T/err"
rc=$?
set -e
[ $rc -eq 1 ] || { cat "$T/err"; fail "foreign cuDNN files without --force: exit $rc, want 1"; }
for f in include/cudnn.h lib/libcudnn.so.9 lib/libcudnn.so lib/libcudnn_adv.so.9 lib/libcudnn_adv.so; do
  grep -q "/usr/local/cuda-13.0/$f" "$T/err" || { cat "$T/err"; fail "the refusal does not list $f"; }
done
grep -q -- "--force" "$T/err" || fail "the refusal does not name --force"
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "a refused foreign replace changed the tree"
no_leftovers "$TREE"

# ---- a dry run names the same files (exit 0, nothing written), so a check mode does not
# promise a change that then stops; with --force it says they would be replaced ----
"${C[@]}" install --cuda-home /usr/local/cuda --archive "$A" --sha256 "$SHA" --no-validate \
  --dry-run --json > "$T/dry.json" 2> "$T/err" || { cat "$T/err"; fail "dry run with foreign files"; }
json_assert "$T/dry.json" 'd["result"] == "dry-run"'
for f in include/cudnn.h lib/libcudnn.so.9 lib/libcudnn.so lib/libcudnn_adv.so.9 lib/libcudnn_adv.so; do
  json_assert "$T/dry.json" "any(w.startswith('a real install would stop at /usr/local/cuda-13.0/$f:') for w in d['warnings'])"
done
json_assert "$T/dry.json" 'sum("a real install would stop at" in w and "--force" in w for w in d["warnings"]) == 5'
"${C[@]}" install --cuda-home /usr/local/cuda --archive "$A" --sha256 "$SHA" --no-validate \
  --dry-run --force --json > "$T/dryf.json" 2> "$T/err" || { cat "$T/err"; fail "dry run --force"; }
json_assert "$T/dryf.json" 'sum(w.startswith("--force: would replace /usr/local/cuda-13.0/") for w in d["warnings"]) == 5'
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "a dry run changed the tree"
no_leftovers "$TREE"

# ---- CUDA-tree install with the right --sha256 (and --force for the foreign cuDNN) ----
"${C[@]}" install --cuda-home /usr/local/cuda --archive "$A" --sha256 "$SHA" --no-validate \
  --force --json > "$T/inst.json" 2> "$T/err" || { cat "$T/err"; fail "install into the tree"; }
json_assert "$T/inst.json" 'sum("no cudnnctl receipt owns" in w for w in d["warnings"]) == 5'
json_assert "$T/inst.json" 'len(d["files_replaced"]) == 5' 
json_assert "$T/inst.json" 'd["result"] == "installed"'
json_assert "$T/inst.json" 'd["cudnn_version"] == "9.19.0.56" and d["cuda_variant"] == "13"'
json_assert "$T/inst.json" 'd["platform"] == "linux-x86_64"'
json_assert "$T/inst.json" 'd["target"]["mode"] == "cuda-tree" and d["target"]["path"] == "/usr/local/cuda-13.0"'
json_assert "$T/inst.json" "d['archive']['sha256'] == '$SHA' and d['archive']['verified']"
json_assert "$T/inst.json" 'd["archive"]["relative_path"].endswith("_cuda13-archive.tar.xz")'
json_assert "$T/inst.json" 'isinstance(d["steps"], list) and len(d["steps"]) >= 4'
json_assert "$T/inst.json" 'd["insecure"] is False and d["ldconfig"].startswith("skipped")'
grep -q "overrides the catalog" "$T/err" || fail "no warning that --sha256 overrides the catalog"
for s in libcudnn libcudnn_graph libcudnn_cnn; do
  [ -f "$TREE/lib/$s.so.9.19.0" ] && [ ! -L "$TREE/lib/$s.so.9.19.0" ] || fail "$s.so.9.19.0 not a file"
  [ "$(readlink "$TREE/lib/$s.so.9")" = "$s.so.9.19.0" ] || fail "$s.so.9 link"
  [ "$(readlink "$TREE/lib/$s.so")" = "$s.so.9" ] || fail "$s.so link"
  cmp -s "$TREE/lib/$s.so.9.19.0" "$S/build-9.19.0.56/cudnn-linux-x86_64-9.19.0.56_cuda13-archive/lib/$s.so.9.19.0" \
    || fail "$s bytes differ from the archive"
done
for h in "$S"/build-9.19.0.56/*/include/*.h; do
  cmp -s "$h" "$TREE/include/$(basename "$h")" || fail "header $(basename "$h")"
done
cmp -s "$TREE/share/doc/cudnn/LICENSE" "$S"/build-9.19.0.56/*/LICENSE || fail "LICENSE"
[ ! -e "$TREE/lib/libcudnn_adv.so.9" ] && [ ! -L "$TREE/lib/libcudnn_adv.so" ] \
  || fail "the stale libcudnn_adv of the old cuDNN 9 is still there"
[ -f "$TREE/lib/libcudart.so.13" ] && [ -f "$TREE/include/cuda.h" ] || fail "toolkit files touched"
no_leftovers "$TREE"
R="$T/root/var/lib/cudnnctl/receipts/000001.json"
[ -f "$R" ] || fail "no receipt at $R"
json_assert "$R" 'd["archive"]["sha256"] == "'"$SHA"'" and d["target"]["mode"] == "cuda-tree"'
# 3 libs, 3 headers, LICENSE + the build metadata (cudnn.pc, 2 sub-library .pc, the CMake
# package's 2 files: docs/build.md)
json_assert "$R" 'len(d["files"]) == 3 + 3 + 1 + 5 and len(d["links"]) == 6'
json_assert "$R" '"/usr/local/cuda-13.0/lib/pkgconfig/cudnn.pc" in [f["path"] for f in d["files"]]'
json_assert "$R" 'sorted(r["reason"] for r in d["replaced"]) == ["overwritten"]*3 + ["stale"]*2'
python3 - "$R" "$T/root" <<'PY' || fail "receipt hashes do not match the files"
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
for f in d["files"]:
    h = hashlib.sha256(open(sys.argv[2] + f["path"], "rb").read()).hexdigest()
    assert h == f["sha256"], f["path"]
PY
snap "$TREE" > "$T/installed"

# ---- the same again: unchanged; list ----
"${C[@]}" install --cuda-home /usr/local/cuda-13.0 --archive "$A" --sha256 "$SHA" --no-validate \
  --json > "$T/again.json" 2>/dev/null
json_assert "$T/again.json" 'd["result"] == "unchanged"'
snap "$TREE" > "$T/now"; same_snap "$T/installed" "$T/now" "an unchanged install changed the tree"
"${C[@]}" list --json > "$T/list.json"
json_assert "$T/list.json" 'len(d["installs"]) == 1 and d["installs"][0]["active"] and d["installs"][0]["cudnn_version"] == "9.19.0.56"'
"${C[@]}" list | grep -q "9.19.0.56" || fail "list (human)"

# ---- uninstall: the tree byte for byte as before, the foreign cuDNN back ----
"${C[@]}" uninstall --cuda-home /usr/local/cuda --json > "$T/un.json"
json_assert "$T/un.json" 'd["removed"] == ["000001"] and len(d["files_restored"]) == 5 and d["files_kept"] == []'
snap "$TREE" > "$T/after"
same_snap "$T/before" "$T/after" "uninstall did not restore the tree byte for byte"
[ -z "$(ls "$T/root/var/lib/cudnnctl/receipts")" ] || fail "receipt left after uninstall"
[ ! -e "$T/root/var/lib/cudnnctl/backups/000001" ] || fail "backups left after uninstall"

# ---- prefix install; uninstall removes the prefix we created ----
mkdir -p "$T/root/opt"
snap "$T/root/opt" > "$T/opt-before"
"${C[@]}" install --prefix /opt/cudnn --archive "$A" --sha256 "$SHA" --no-validate --json \
  > "$T/p.json" 2>/dev/null
json_assert "$T/p.json" 'd["result"] == "installed" and d["target"]["mode"] == "prefix"'
json_assert "$T/p.json" 'd["target"]["install_dir"] == "/opt/cudnn/cudnn-9.19.0.56-cuda13"'
P="$T/root/opt/cudnn"
[ "$(readlink "$P/current")" = "cudnn-9.19.0.56-cuda13" ] || fail "current link"
V="$P/cudnn-9.19.0.56-cuda13"
[ -f "$V/LICENSE" ] && [ -f "$V/include/cudnn_version.h" ] || fail "prefix layout"
[ "$(readlink "$V/lib/libcudnn_cnn.so.9")" = "libcudnn_cnn.so.9.19.0" ] || fail "prefix links"
no_leftovers "$P"
"${C[@]}" rollback --prefix /opt/cudnn > /dev/null
snap "$T/root/opt" > "$T/opt-after"
same_snap "$T/opt-before" "$T/opt-after" "rollback of the prefix install"

# ---- one flipped byte: exit 3, the target byte-identical, nothing staged left ----
mkdir -p "$S/flip"
cp "$A" "$S/flip/$(basename "$A")"
flip_byte "$S/flip/$(basename "$A")"
set +e
"${C[@]}" install --cuda-home /usr/local/cuda --archive "$S/flip/$(basename "$A")" --sha256 "$SHA" \
  --no-validate --json > "$T/flip.json" 2> "$T/err"
rc=$?
set -e
[ $rc -eq 3 ] || { cat "$T/err"; fail "a flipped byte: exit $rc, want 3"; }
json_assert "$T/flip.json" 'd["result"] == "failed" and d["error"]["exit_code"] == 3'
grep -qi "sha-256\|sha256" "$T/err" || fail "the mismatch message names no digest"
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "a flipped byte changed the tree"
no_leftovers "$TREE"
[ ! -e "$T/root/var/lib/cudnnctl/journal.json" ] || fail "journal left after a verify failure"

# ---- an archive the catalog does not know: needs --sha256 or --insecure-skip-verify ----
mkdir -p "$S/other"
U=$(make_archive "$S/other" 9.99.1.7 "libcudnn libcudnn_graph")
set +e
"${C[@]}" install --prefix /opt/u --archive "$U" --no-validate 2> "$T/err"; rc=$?
set -e
[ $rc -eq 3 ] || fail "an unmatched archive without a digest: exit $rc, want 3"
grep -q -- "--sha256" "$T/err" && grep -q -- "--insecure-skip-verify" "$T/err" || fail "fix not named"
"${C[@]}" install --prefix /opt/u --archive "$U" --insecure-skip-verify --no-validate --json \
  > "$T/ins.json" 2> "$T/err"
json_assert "$T/ins.json" 'd["insecure"] is True and d["archive"]["verified"] is False and d["result"] == "installed"'
json_assert "$T/ins.json" 'd["cudnn_version"] == "9.99.1.7" and any("INSECURE" in w for w in d["warnings"])'
grep -q "INSECURE" "$T/err" || fail "--insecure-skip-verify was not said loudly on stderr"
"${C[@]}" list --json > "$T/list.json"
json_assert "$T/list.json" 'any(i["cudnn_version"] == "9.99.1.7" and not i["verified"] for i in d["installs"])'
echo "ok: archive installs (tree + prefix), receipts, uninstall byte-exact, exit-3 cases"
