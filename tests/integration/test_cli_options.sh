#!/usr/bin/env bash
# test_cli_options.sh: options as the tools users know them behave.
#   - --wait takes its optional value as a separate word too ("--wait 5" = "--wait=5"): with the
#     state lock held by another process, --wait 1 gives up after a second (exit 8) with a fix
#     that fits (no "or pass --wait" to a run that passed it), and --wait 5 gets the lock once
#     the holder is gone; --wait x is a usage error naming the value;
#   - an ambiguous abbreviation (--cu) names the candidates, as getopt reports it;
#   - -V prints what --version prints (also after the command word, also with --json);
#   - -q hides progress and info, never the command's answer: detect's report is printed in
#     full, doctor's warning findings too (their summary line is info); -q -v is a usage error.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
command -v flock >/dev/null || { echo "flock missing" >&2; exit 77; }
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
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
ms() { date +%s%3N; }

# ---- --wait SECONDS ------------------------------------------------------------------------------
mkdir -p "$T/state"
flock -n "$T/state/lock" sleep 3 &
PIDS+=($!)
sleep 0.3
t0=$(ms)
expect 8 "another cudnnctl" recover --wait 1
t1=$(ms)
[ $((t1 - t0)) -ge 1000 ] || fail "--wait 1 gave up after $((t1 - t0)) ms"
grep -q "or pass --wait" "$T/out" && { cat "$T/out" >&2; fail "--wait 1 was given, the message still says 'or pass --wait'"; }
grep -q "after the 1 s" "$T/out" || { cat "$T/out" >&2; fail "the timeout does not say how long it waited"; }
"${C[@]}" recover --wait 5 >"$T/out" 2>&1 || { cat "$T/out" >&2; fail "--wait 5 did not get the lock once it was free"; }
t2=$(ms)
[ $((t2 - t0)) -ge 2000 ] || fail "--wait 5 returned after $((t2 - t0)) ms, before the holder let go"
# without --wait the fix names it
flock -n "$T/state/lock" sleep 2 &
PIDS+=($!)
sleep 0.3
expect 8 "or pass --wait" recover
wait
expect 2 "--wait takes no value .* or SECONDS \(1..86400\), not '0'" recover --wait=0
# a word that is not a number stays an argument ("uninstall --wait TARGET")
expect 1 "no install receipt for $T/nothing-here" uninstall --wait "$T/nothing-here"

# ---- ambiguous abbreviations, -V ---------------------------------------------------------------
expect 2 "option '--cu' is ambiguous; possibilities: '--cudnn' '--cuda' '--cuda-home'" plan --cu 9
expect 2 "option '--no' is ambiguous; possibilities: .*'--no-progress'.*'--no-validate'" --no detect
"${C[@]}" --version >"$T/v1"
"${C[@]}" -V >"$T/v2" || fail "-V exited non-zero"
cmp -s "$T/v1" "$T/v2" || fail "-V differs from --version: $(cat "$T/v2")"
"${C[@]}" detect -V >"$T/v3" || fail "detect -V exited non-zero"
cmp -s "$T/v1" "$T/v3" || fail "detect -V is not the version"
"${C[@]}" -V --json | "$PY" -c 'import json, sys; d = json.load(sys.stdin); assert d["version"] and d["libcurl"]' ||
    fail "-V --json is not the version as JSON"

# ---- -q: errors and warnings only, the answer stays ----------------------------------------------
cli_make_root "$T/r"
"${C[@]}" --root "$T/r" detect >"$T/d1" 2>/dev/null
"${C[@]}" --root "$T/r" -q detect >"$T/d2" 2>"$T/d2.err" || fail "detect -q failed"
[ -s "$T/d2" ] || fail "detect -q printed nothing (its report is its output)"
cmp -s "$T/d1" "$T/d2" || { diff "$T/d1" "$T/d2" >&2; fail "detect -q changed the report"; }
grep -q "^platform: linux-x86_64" "$T/d2" || fail "detect -q: no platform line"
# doctor's warnings are its answer, not the tool's chatter: a machine without a driver
rm -rf "$T/r/proc"
rc=0
"${C[@]}" --root "$T/r" doctor >"$T/doc1" 2>/dev/null || rc=$?
rcq=0
"${C[@]}" --root "$T/r" -q doctor >"$T/doc2" 2>/dev/null || rcq=$?
[ "$rc" = "$rcq" ] || fail "doctor -q exited $rcq, doctor $rc"
grep -Eq '^warning +NO_DRIVER' "$T/doc1" || { cat "$T/doc1" >&2; fail "a root without a driver gave doctor no NO_DRIVER warning to check -q with"; }
grep -E '^(error|warning|info) ' "$T/doc1" >"$T/f1"
grep -E '^(error|warning|info) ' "$T/doc2" >"$T/f2" || true
cmp -s "$T/f1" "$T/f2" || { diff "$T/f1" "$T/f2" >&2; fail "doctor -q hid findings"; }
grep -Eq '(no problems found|[0-9]+ errors?, [0-9]+ warnings?)' "$T/doc2" && fail "doctor -q printed its summary line (info)"
expect 2 "give either -q .* or -v" -q -v detect
echo "ok: --wait N, ambiguous abbreviations, -V, -q"
