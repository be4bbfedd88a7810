#!/usr/bin/env bash
# test_cli_write_error.sh: output that does not get out is an error (as in coreutils): with stdout
# on /dev/full (or closed) a command exits 1 and says "write error" on stderr, for a table, a
# JSON document, help and the version; the same commands into a file exit 0 with the output there.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
[ -w /dev/full ] || { echo "no /dev/full here" >&2; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
for args in "available" "available --json --platform all" "detect --json" "--help" "--version" "help install"; do
    rc=0
    "${C[@]}" $args >/dev/full 2>"$T/err" || rc=$?
    [ $rc = 1 ] || { cat "$T/err" >&2; fail "cudnnctl $args > /dev/full exited $rc, want 1"; }
    grep -q "^cudnnctl: error: write error on standard output" "$T/err" ||
        { cat "$T/err" >&2; fail "cudnnctl $args > /dev/full: no 'write error' message"; }
    "${C[@]}" $args >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "cudnnctl $args into a file failed"; }
    [ -s "$T/out" ] || fail "cudnnctl $args printed nothing into a file"
    ! grep -q "write error" "$T/err" || fail "cudnnctl $args into a file: a write error"
done
rc=0
"${C[@]}" available >&- 2>"$T/err" || rc=$?
[ $rc = 1 ] && grep -q "write error" "$T/err" || { cat "$T/err" >&2; fail "a closed stdout: exit $rc"; }
# a failing command keeps its own exit code
rc=0
"${C[@]}" plan --cuda-home "$T/none" >/dev/full 2>"$T/err" || rc=$?
[ $rc = 2 ] || { cat "$T/err" >&2; fail "a usage error with stdout on /dev/full exited $rc, want 2"; }
echo "ok: write errors on stdout fail the command"
