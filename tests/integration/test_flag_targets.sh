#!/usr/bin/env bash
# test_flag_targets.sh: one meaning per flag (issue 11, item 6).
#  - `validate --cuda-home DIR` without a TARGET validates the cuDNN in DIR, not the active
#    toolkit's (two trees of real cuDNN 9.19 files under --root; the one validated is the one
#    whose libraries the child mapped).
#  - `plan --platform P` for a P that is not this host's needs no local toolkit; without --cuda it
#    says that --cuda is needed; `install --platform P` without --prefix says --prefix is needed.
set -euo pipefail
: "${CUDNNCTL:?}"
SRC=/usr/local/cuda-13.0
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-flags-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

HOST=$("$CUDNNCTL" detect --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["platform"])')
OTHER=windows-x86_64
[ "$HOST" != "$OTHER" ] || OTHER=linux-sbsa

# ---- plan / install for another platform ------------------------------------------------------
"$CUDNNCTL" plan --platform $OTHER --cuda 12 --json >"$T/plan.json" 2>"$T/plan.err" ||
    { cat "$T/plan.err"; fail "plan --platform $OTHER --cuda 12 failed on a $HOST host"; }
python3 - "$T/plan.json" $OTHER <<'PY' || exit 1
import json, sys
p = json.load(open(sys.argv[1]))
def fail(m): print("FAIL:", m, p.get("target"), p.get("platform")); sys.exit(1)
if p["platform"] != sys.argv[2]: fail("platform")
if p["target"]["mode"] != "prefix": fail("target is not a prefix")
if "cuda" in p["target"]["path"] or p["toolkit_version"]: fail("the local toolkit became the target")
if ("/" + sys.argv[2] + "/") not in p["url"]: fail("archive")
if p["cuda_variant"] != "12": fail("cuda variant")
PY
echo "ok: plan --platform $OTHER --cuda 12 on $HOST plans the archive into a prefix"

rc=0
"$CUDNNCTL" plan --platform $OTHER >"$T/out" 2>"$T/err" || rc=$?
[ $rc -ne 0 ] || fail "plan --platform $OTHER without --cuda succeeded"
grep -q "planning for $OTHER, not this host" "$T/err" && grep -q -- "--cuda M" "$T/err" ||
    { cat "$T/err"; fail "the error does not say --cuda is needed for another platform"; }
echo "ok: plan --platform $OTHER without --cuda: $(cat "$T/err")"

rc=0
"$CUDNNCTL" install --platform $OTHER --cuda 12 --dry-run >"$T/out" 2>"$T/err" || rc=$?
[ $rc -eq 2 ] || { cat "$T/err"; fail "install --platform $OTHER without --prefix: exit $rc, not 2"; }
grep -q -- "needs --prefix DIR" "$T/err" || { cat "$T/err"; fail "the error does not name --prefix"; }
"$CUDNNCTL" install --platform $OTHER --cuda 12 --prefix "$T/px" --dry-run >"$T/out" 2>"$T/err" ||
    { cat "$T/err"; fail "install --platform $OTHER --prefix --dry-run failed"; }
grep -q "dry-run" "$T/out" || fail "no dry-run result"
echo "ok: install --platform $OTHER needs --prefix (and works with it, dry run)"

# ---- validate --cuda-home DIR without a TARGET -------------------------------------------------
[ -e "$SRC/lib64/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC: validate part skipped"; exit 77; }
R=$T/root
tree() { # tree DIR: a CUDA 13 tree with the machine's cuDNN 9.19 (hard links) and its cudart
    mkdir -p "$R$1/lib64" "$R$1/include"
    for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$R$1/lib64/" 2>/dev/null || cp "$f" "$R$1/lib64/"; done
    for f in "$SRC"/lib64/libcudart.so.13*; do cp -P "$f" "$R$1/lib64/"; done
    cp "$SRC"/include/cudnn_version.h "$R$1/include/"
    cp "$SRC/version.json" "$R$1/" 2>/dev/null || echo '{"cuda":{"version":"13.0.2"}}' > "$R$1/version.json"
}
tree /usr/local/cuda-13.0
tree /opt/cuda-b
ln -s /usr/local/cuda-13.0 "$R/usr/local/cuda"
rc=0
env -i PATH=/usr/bin:/bin HOME=/root "$CUDNNCTL" --root "$R" validate --cuda-home /opt/cuda-b --json \
    >"$T/v.json" 2>"$T/v.err" || rc=$?
python3 - "$T/v.json" "$R" <<'PY' || { cat "$T/v.err"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
def fail(m): print("FAIL:", m, json.dumps(r)[:600]); sys.exit(1)
if not (r.get("lib_dir") or "").startswith("/opt/cuda-b/"): fail("validated %r, not /opt/cuda-b" % r.get("lib_dir"))
for m in r.get("loaded", []):
    if "libcudnn" in m["path"] and "/opt/cuda-b/" not in m["realpath"]: fail("mapped %s" % m["realpath"])
PY
echo "ok: validate --cuda-home /opt/cuda-b (no TARGET) validates /opt/cuda-b's cuDNN (status $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$T/v.json"), exit $rc)"
rc=0
env -i PATH=/usr/bin:/bin HOME=/root "$CUDNNCTL" --root "$R" validate --cuda-home /opt/none \
    >"$T/out" 2>"$T/err" || rc=$?
[ $rc -eq 2 ] && grep -q -- "--cuda-home /opt/none: no such directory" "$T/err" ||
    { cat "$T/err"; fail "validate --cuda-home of a missing dir: exit $rc"; }
echo "ok: validate --cuda-home of a missing dir names it"
