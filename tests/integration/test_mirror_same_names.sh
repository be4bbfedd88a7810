#!/usr/bin/env bash
# test_mirror_same_names.sh: `mirror --manifest a/redistrib_9.99.0.json --manifest
# b/redistrib_9.99.0.json` — two manifests of one file name, each with its own build of cuDNN
# 9.99.0.1 for linux-x86_64 / CUDA 13. The mirror keeps both manifests (the first under its name,
# the other beside it under a name of its own, with a warning; neither overwrites the other), and
# fetches exactly the archive `plan`/`install` pick from the same manifests, not the other one;
# an install from the mirror then gets that archive.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
cli_make_root "$T/r"
U=$T/r/srv/up # the upstream both archives are fetched from
V=9.99.0.1
cli_make_archive "$U" $V
mkdir -p "$T/r/a" "$T/r/b"
cli_make_manifest "$U" $V "$T/r/a/redistrib_9.99.0.json"
# b: another build of the same release (a mirror's own repack), under another file name
REL=cudnn/linux-x86_64/cudnn-linux-x86_64-${V}_cuda13-archive.tar.xz
REPACK=cudnn/linux-x86_64/cudnn-linux-x86_64-${V}_cuda13-local-repack-archive.tar.xz
cli_make_archive "$T/tmpb" $V
mv "$T/tmpb/$REL" "$U/$REPACK"
"$PY" - "$U/$REPACK" "$T/r/b/redistrib_9.99.0.json" "$REPACK" "$V" <<'PY'
import hashlib, json, sys
p, out, rel, ver = sys.argv[1:5]
b = open(p, "rb").read()
json.dump({"release_date": "2099-01-02", "release_label": "9.99.0", "release_product": "cudnn",
           "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                     "version": ver, "cuda_variant": ["13"],
                     "linux-x86_64": {"cuda13": {"relative_path": rel,
                         "sha256": hashlib.sha256(b).hexdigest(), "size": str(len(b))}}}},
          open(out, "w"), indent=4)
PY
cmp -s "$T/r/a/redistrib_9.99.0.json" "$T/r/b/redistrib_9.99.0.json" && fail "the two manifests are the same"
M=(--manifest /a/redistrib_9.99.0.json --manifest /b/redistrib_9.99.0.json)
"${C[@]}" --root "$T/r" plan --json "${M[@]}" --cudnn $V --cuda 13 --platform linux-x86_64 --prefix /opt/p >"$T/plan.json" ||
    fail "plan"
PICK=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["archive"]["relative_path"])' "$T/plan.json")
case $PICK in "$REL") OTHER=$REPACK ;; "$REPACK") OTHER=$REL ;; *) fail "plan picked $PICK" ;; esac

"${C[@]}" --root "$T/r" mirror --json --to /srv/m "${M[@]}" --cudnn $V --cuda 13 --platform linux-x86_64 \
    --mirror /srv/up >"$T/mirror.json" 2>"$T/mirror.err" || { cat "$T/mirror.err" >&2; fail "mirror"; }
D=$T/r/srv/m
ls "$D"/redistrib_9.99.0*.json >"$T/names"
[ "$(wc -l <"$T/names")" = 2 ] || { cat "$T/names" >&2; fail "the mirror does not hold both manifests"; }
for m in a b; do
    found=0
    for f in "$D"/redistrib_9.99.0*.json; do cmp -s "$f" "$T/r/$m/redistrib_9.99.0.json" && found=1; done
    [ $found = 1 ] || fail "manifest $m/ is not in the mirror byte for byte (one was written over the other)"
done
cmp -s "$D/redistrib_9.99.0.json" "$T/r/a/redistrib_9.99.0.json" || fail "the first manifest did not keep its name"
grep -q "two manifests are named redistrib_9.99.0.json with different contents" "$T/mirror.err" ||
    { cat "$T/mirror.err" >&2; fail "no warning about the second manifest's name"; }
[ -f "$D/$PICK" ] || fail "the mirror lacks the archive install picks ($PICK)"
[ ! -e "$D/$OTHER" ] || fail "the mirror fetched $OTHER, which install does not pick"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=[a["relative_path"] for a in d["archives"]]; assert r == [sys.argv[2]], r' \
    "$T/mirror.json" "$PICK" || fail "mirror --json archives"
# an install from the mirror with its manifests takes that archive
mm=()
for f in "$D"/redistrib_9.99.0*.json; do mm+=(--manifest "${f#$T/r}"); done
"${C[@]}" --root "$T/r" install --json "${mm[@]}" --cudnn $V --cuda 13 --mirror /srv/m --prefix /opt/p \
    --no-validate --no-ldconfig >"$T/inst.json" 2>"$T/inst.err" || { cat "$T/inst.err" >&2; fail "install from the mirror"; }
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["archive"]["relative_path"] == sys.argv[2] and d["result"] == "installed", d["archive"]' \
    "$T/inst.json" "$PICK" || fail "the install from the mirror took another archive"
echo "ok: same-named manifests both mirrored, the archive install picks fetched"
