#!/usr/bin/env bash
# test_cli_paths.sh: one rule for every path option — a missing file or directory (or a file
# where a directory belongs, and back) is a usage error: exit 2, the message names the option
# and the value and says what to give, nothing is run. Under --root the paths the library
# reads under the root are looked up there. And `env --cuda-home DIR` (the contract) works: the
# same activation as `env DIR`, and evaluating it twice leaves the environment as once.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
expect() { # RC PATTERN args...: exit code RC, stderr+stdout matching PATTERN (grep -E)
    local want=$1 pat=$2 rc=0
    shift 2
    "${C[@]}" "$@" >"$T/out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] || { cat "$T/out" >&2; fail "cudnnctl $* exited $rc, expected $want"; }
    grep -Eq -- "$pat" "$T/out" || { cat "$T/out" >&2; fail "cudnnctl $*: no '$pat' in the output"; }
}
cli_make_root "$T/r"
N=$T/nonexistent
mkdir -p "$T/adir"
: >"$T/afile"

# ---- missing: exit 2 naming the option ----------------------------------------------------------
expect 2 "^cudnnctl: --cuda-home $N: no such directory \(give the root of a CUDA toolkit" plan --cuda-home "$N"
expect 2 "^cudnnctl: --cuda-home $N: no such directory" install --cuda-home "$N" --archive "$T/afile"
expect 2 "^cudnnctl: --manifest $N.json: no such file \(give a redistrib_X.Y.Z.json" plan --manifest "$N.json"
expect 2 "^cudnnctl: --manifest file://$N.json: no such file" available --manifest "file://$N.json"
expect 2 "^cudnnctl: --cacert $N.pem: no such file \(give a PEM file" install --cacert "$N.pem" --prefix "$T/px"
expect 2 "^cudnnctl: --cacert $N.pem: no such file" mirror --cacert "$N.pem" --to "$T/m"
expect 2 "^cudnnctl: validate $N: no such directory" validate "$N"
expect 2 "^cudnnctl: --python $N/python3: no such file \(give the interpreter" doctor --python "$N/python3"
expect 2 "^cudnnctl: --python $N/python3: no such file" which --python "$N/python3"
expect 2 "^cudnnctl: --python no-such-python-xyz: no such file" doctor --python no-such-python-xyz
expect 2 "^cudnnctl: --env-of $N.sh: no such file" which --env-of "$N.sh" libcudnn.so.9
expect 2 "^cudnnctl: --windows-env $N.env: no such file" doctor --windows-env "$N.env"
expect 2 "^cudnnctl: --mirror $N: no such directory \(give a directory made by 'cudnnctl mirror" plan --mirror "$N"
expect 2 "^cudnnctl: --root $N: no such directory" --root "$N" detect
expect 2 "^cudnnctl: compare $N.json: no such file" compare "$N.json" "$T/afile"
expect 2 "^cudnnctl: --cuda-home $N: no such directory" env --cuda-home "$N"
# the wrong kind
expect 2 "^cudnnctl: --manifest $T/adir is a directory, not a file" plan --manifest "$T/adir"
expect 2 "^cudnnctl: --cuda-home $T/afile is a file, not a directory" plan --cuda-home "$T/afile"
expect 2 "^cudnnctl: --cacert $T/adir is a directory, not a file" install --cacert "$T/adir" --prefix "$T/px"
grep -q "see cudnnctl install --help" "$T/out" || fail "no pointer to the command's help"
[ ! -e "$T/px" ] && [ ! -e "$T/state" ] || fail "a refused command created its prefix or state dir"
# under --root: /usr/local/cuda-13.0 is the root's, /opt/none is not there
expect 2 "^cudnnctl: --cuda-home /opt/none: no such directory" --root "$T/r" plan --cuda-home /opt/none
expect 0 "for CUDA 13 on linux-x86_64" --root "$T/r" plan --cuda-home /usr/local/cuda-13.0
# a name on PATH is a program, and URLs are not paths
PYDIR=$(dirname "$(command -v python3)")
PATH=$PYDIR:$PATH "${C[@]}" doctor --python python3 >"$T/out" 2>&1 || true
grep -q "no such file" "$T/out" && { cat "$T/out" >&2; fail "--python python3 (on PATH) refused"; }
expect 10 "" --root "$T/r" plan --manifest http://127.0.0.1:9/none.json

# ---- env --cuda-home DIR: the contract, idempotent -----------------------------------------------
"${C[@]}" --root "$T/r" env --shell bash --cuda-home /usr/local/cuda-13.0 >"$T/a1" 2>"$T/a1.err" ||
    { cat "$T/a1.err" >&2; fail "env --cuda-home DIR refused"; }
"${C[@]}" --root "$T/r" env --shell bash /usr/local/cuda-13.0 >"$T/a2" 2>/dev/null
cmp -s "$T/a1" "$T/a2" || { diff "$T/a1" "$T/a2" >&2; fail "env --cuda-home DIR differs from env DIR"; }
grep -q "CUDA_HOME='$T/r/usr/local/cuda-13.0'\|CUDA_HOME='/usr/local/cuda-13.0'" "$T/a1" || { cat "$T/a1" >&2; fail "env --cuda-home: no CUDA_HOME of that toolkit"; }
env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=/opt/x/lib bash --norc -c '
    eval "$(cat "$1")"; env | grep -E "^(PATH|LD_LIBRARY_PATH|CUDA_HOME|CUDA_PATH|CUDNNCTL_ENV)=" | sort >"$2.once"
    eval "$(cat "$1")"; env | grep -E "^(PATH|LD_LIBRARY_PATH|CUDA_HOME|CUDA_PATH|CUDNNCTL_ENV)=" | sort >"$2.twice"' _ "$T/a1" "$T/e"
grep -q "^PATH=.*cuda-13.0/bin" "$T/e.once" || { cat "$T/e.once" >&2; fail "env --cuda-home: the toolkit's bin is not on PATH"; }
cmp -s "$T/e.once" "$T/e.twice" || { diff "$T/e.once" "$T/e.twice" >&2; fail "env --cuda-home evaluated twice is not once"; }
expect 2 "env takes one target" --root "$T/r" env --cuda-home /usr/local/cuda-13.0 --cuda 13.0
echo "ok: every path option, env --cuda-home"
