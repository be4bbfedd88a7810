#!/usr/bin/env bash
# test_cli_usage.sh: the command table drives help and usage errors. Per-command help (X --help,
# help X) differs from the global help and lists only that command's options; an option a
# command does not take, a missing value, extra arguments, unknown commands and options exit 2
# naming the problem (with "did you mean"); --version names the libraries linked and the
# catalog (--print-version still works); install --archive of a missing file or a directory says
# "no such file" (not "SHA-256 is unknown"); --cuda-home at a dir that is not a toolkit says so.
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

# ---- help ------------------------------------------------------------------------------------------
"${C[@]}" --help >"$T/global"
for c in detect available plan install uninstall rollback list use env validate doctor report compare mirror; do
    "${C[@]}" $c --help >"$T/h1" || fail "$c --help exited non-zero"
    "${C[@]}" help $c >"$T/h2" || fail "help $c exited non-zero"
    cmp -s "$T/h1" "$T/h2" || fail "'$c --help' and 'help $c' differ"
    ! cmp -s "$T/h1" "$T/global" || fail "'$c --help' is the global help"
    grep -q "^usage: cudnnctl $c " "$T/h1" || fail "$c --help: no usage line for $c"
done
grep -q -- '--archive FILE|URL' <("${C[@]}" install --help) || fail "install --help lacks --archive"
! grep -q -- '--archive' <("${C[@]}" detect --help) || fail "detect --help lists --archive"
grep -q -- '--shell SHELL' <("${C[@]}" env --help) || fail "env --help lacks --shell"
grep -Eq '^  10  network error' "$T/global" || fail "global help: no exit code table"
expect 2 "unknown command 'instal'; did you mean 'install'\?" help instal

# ---- usage errors --------------------------------------------------------------------------------
expect 2 "unknown command 'instal'; did you mean 'install'\?" instal --cudnn 9
expect 2 "unknown command 'detcet'; did you mean 'detect'\?" detcet
expect 2 "'detect' does not take --sha256 \(it is an option of: install\)" detect --sha256 zz --all extra args
expect 2 "'detect' takes no arguments \(got 'extra'\)" detect extra args
expect 2 "'use' takes at most 1 argument" use 13.0 12.4
expect 2 "'compare' needs A.json B.json" compare only-one.json
expect 2 "option '--cudnn' needs a value" plan --cudnn
expect 2 "option '--cudnn' needs a value" plan --cudnn --cuda 13
expect 2 "unknown option '--cdnn'; did you mean '--cudnn'\?" plan --cdnn 9
expect 2 "unknown option '--prefx'; did you mean '--prefix'\?" install --prefx /opt/x
expect 2 "unknown option '-z'" detect -z
expect 2 "'doctor' does not take --to" doctor --to /tmp/x

# ---- version ----------------------------------------------------------------------------------------
"${C[@]}" --version >"$T/v" || fail "--version exited non-zero"
for lib in libarchive libcurl OpenSSL cJSON catalog; do
    grep -q "^  $lib " "$T/v" || fail "--version does not name $lib: $(cat "$T/v")"
done
grep -Eq "^cudnnctl [0-9]+\.[0-9]+\.[0-9]+ \(git [^)]+\)" "$T/v" || fail "--version line 1: $(head -1 "$T/v")"
newest=$(ls "$SOURCE_DIR/data/manifests/cudnn/" | sort -V | tail -1)
grep -q "newest $newest" "$T/v" || fail "--version does not name the newest manifest $newest"
"${C[@]}" --version --json | "$PY" -c 'import json,sys; d=json.load(sys.stdin); assert d["libarchive"].startswith("libarchive 3") and d["cjson"] and d["catalog_manifests"] > 10, d' ||
    fail "--version --json"
[ "$("${C[@]}" --print-version)" = "cudnnctl $(sed -n 's/.*CUDNNCTL_VERSION_STRING "\(.*\)"/\1/p' "$SOURCE_DIR/include/cudnnctl/cudnnctl.h")" ] ||
    fail "--print-version changed"

# ---- --archive that is not there, --cuda-home that is not a toolkit -------------------------------------
expect 2 "--archive /nonexistent.tar.xz: no such file" install --archive /nonexistent.tar.xz --prefix "$T/px"
! grep -qi 'sha-256' "$T/out" || fail "a missing --archive still talks about the SHA-256"
mkdir -p "$T/adir.tar.xz"
expect 2 "is a directory, not an archive file" install --archive "$T/adir.tar.xz" --prefix "$T/px"
cli_make_root "$T/r"
mkdir -p "$T/r/opt/notcuda/lib"
expect 5 "--cuda-home /opt/notcuda is not a CUDA toolkit" --root "$T/r" plan --cuda-home /opt/notcuda
! grep -q 'pass --cuda M' "$T/out" || fail "--cuda-home at a non-toolkit still says 'pass --cuda M'"
expect 2 "--cuda-home /opt/none: no such directory" --root "$T/r" plan --cuda-home /opt/none
expect 0 "for CUDA 13 on linux-x86_64" --root "$T/r" plan --cuda-home /usr/local/cuda-13.0
echo "ok: help, usage errors, version, archive and cuda-home checks"
