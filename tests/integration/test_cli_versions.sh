#!/usr/bin/env bash
# test_cli_versions.sh: one version resolver. With cuDNN 9.98.0.1 and 9.98.1.2 both offered for
# CUDA 13 on linux-x86_64, "--cudnn 9.98" means release 9.98.0 in plan, install, mirror (which
# used to take 9.98.1.2, so the air-gap recipe pointed at a manifest the mirror lacked), available
# and uninstall --version; 9.98.x means the newest patch everywhere. plan/install --prefix
# without --cuda take the active toolkit's major (they failed "no CUDA toolkit found").
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"

cli_make_root "$T/r"
# (paths the tool reads are under --root: the manifests and the upstream dir live there)
for v in 9.98.0.1 9.98.1.2; do
    cli_make_archive "$T/r/www" $v
    cli_make_manifest "$T/r/www" $v "$T/r/m-$v.json"
done
MF=(--manifest /m-9.98.0.1.json --manifest /m-9.98.1.2.json)
C=("$CUDNNCTL" --root "$T/r" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

for spec in 9.98:9.98.0.1 9.98.x:9.98.1.2 9.98.1:9.98.1.2 9.98.0.1:9.98.0.1; do
    want=${spec#*:} spec=${spec%%:*}
    # plan, without --cuda and with --prefix: the active toolkit (13.0) decides
    "${C[@]}" --json plan "${MF[@]}" --cudnn "$spec" --prefix /opt/px >"$T/p.json" 2>"$T/p.err" ||
        { cat "$T/p.err" >&2; fail "plan --cudnn $spec --prefix (no --cuda)"; }
    [ "$(jget "$T/p.json" "d['cudnn_version']")" = "$want" ] || fail "plan --cudnn $spec: $(jget "$T/p.json" "d['cudnn_version']"), not $want"
    [ "$(jget "$T/p.json" "d['cuda_variant']")" = 13 ] || fail "plan --prefix: not the active toolkit's CUDA 13"
    # mirror (upstream: a local dir) copies the same release
    rm -rf "$T/r/mirror"
    "${C[@]}" --json mirror "${MF[@]}" --cudnn "$spec" --cuda 13 --platform linux-x86_64 --mirror /www \
        --to /mirror >"$T/m.json" 2>"$T/m.err" || { cat "$T/m.err" >&2; fail "mirror --cudnn $spec"; }
    got=$(jget "$T/m.json" "' '.join(a['relative_path'] for a in d['archives'])")
    [ "$got" = "cudnn/linux-x86_64/cudnn-linux-x86_64-${want}_cuda13-archive.tar.xz" ] ||
        fail "mirror --cudnn $spec took '$got', plan takes $want"
    # available says the same
    "${C[@]}" available "${MF[@]}" --cudnn "$spec" --cuda 13 --platform linux-x86_64 >/dev/null 2>"$T/a.err"
    grep -q -- "--cudnn $spec takes $want " "$T/a.err" || fail "available --cudnn $spec: $(cat "$T/a.err")"
done

# install both into one prefix, then uninstall --version 9.98 removes release 9.98.0, as plan means
for v in 9.98.0.1 9.98.1.2; do
    "${C[@]}" install "${MF[@]}" --cudnn $v --mirror /www --prefix /opt/px --no-validate --no-ldconfig \
        >/dev/null 2>"$T/i.err" || { cat "$T/i.err" >&2; fail "install $v"; }
done
[ -d "$T/r/opt/px/cudnn-9.98.0.1-cuda13" ] && [ -d "$T/r/opt/px/cudnn-9.98.1.2-cuda13" ] || fail "the two prefixes"
"${C[@]}" uninstall --prefix /opt/px --version 9.98 --no-ldconfig >"$T/u.out" 2>"$T/u.err" ||
    { cat "$T/u.err" >&2; fail "uninstall --version 9.98 (it matched two installs before)"; }
[ ! -e "$T/r/opt/px/cudnn-9.98.0.1-cuda13/lib/libcudnn.so.9" ] || fail "uninstall --version 9.98 left 9.98.0.1"
[ -e "$T/r/opt/px/cudnn-9.98.1.2-cuda13/lib/libcudnn.so.9" ] || fail "uninstall --version 9.98 removed 9.98.1.2"
echo "ok: 9.98 is 9.98.0.1 and 9.98.x is 9.98.1.2 in plan, mirror, available, uninstall"
