#!/usr/bin/env bash
# test_install_torture.sh: curl-style torture of the whole `cudnnctl install` through the real
# binary (one concept: the pipeline end to end -- reading the archive into the cache, extraction,
# staging, commit -- driven by the CLI's fault hooks, with the next run's "recovered" report;
# the commit transaction alone, install and uninstall in both modes, is
# tests/unit/test_commit_torture.c). For N = 1, 2, ... until an install runs clean:
# CUDNNCTL_FAULT_AT=N fails the N-th file operation.
#  - once: the failed run must leave the CUDA tree exactly as before or exactly as fully
#    installed (never in between), and the next run must end fully installed;
#  - sticky (CUDNNCTL_FAULT_STICKY=1: every operation from N on fails, as if the process died
#    there): the next run must find the journal, settle it (rolled back before the commit point,
#    finished after), say so in "recovered", and end fully installed.
# No temp names, staging dirs or journal may survive a settled run.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
base=/tmp
[ -w /dev/shm ] && base=/dev/shm   # hundreds of fsync'd installs: tmpfs keeps this fast
T=$(mktemp -d "$base/cudnnctl-torture-XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/root/srv"
A=$(make_archive "$T/root/srv" 9.19.0.56 "libcudnn" tiny)
SHA=$(sha256sum "$A" | cut -d' ' -f1)
make_tree "$T/root"
cp -a "$T/root" "$T/pristine"
TREE="$T/root/usr/local/cuda-13.0"
STATE="$T/root/var/lib/cudnnctl"
run() {
  "$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache" install --cuda-home /usr/local/cuda \
    --archive "$A" --sha256 "$SHA" --no-validate --json "$@"
}
reset() { rm -rf "$T/root" && cp -a "$T/pristine" "$T/root"; }

snap "$TREE" > "$T/before"
# make_tree's foreign cuDNN is replaced only with --force: every run that starts from the
# pristine tree passes it; one that finds the tree installed must not (it would reinstall)
CUDNNCTL_FAULT_REPORT=1 run --force > /dev/null 2> "$T/err" || { cat "$T/err"; fail "clean install"; }
total=$(sed -n 's/.*fault-injection: \([0-9]*\) file operations.*/\1/p' "$T/err")
[ -n "$total" ] && [ "$total" -gt 20 ] || { cat "$T/err"; fail "no operation count from the clean run"; }
snap "$TREE" > "$T/after"
cmp -s "$T/before" "$T/after" && fail "the clean install changed nothing"

check_settled() { # $1 = what
  snap "$TREE" > "$T/now"
  if ! cmp -s "$T/now" "$T/before" && ! cmp -s "$T/now" "$T/after"; then
    diff "$T/after" "$T/now" | head -20 >&2
    fail "$1: the tree is half-installed"
  fi
}

for mode in once sticky; do
  sticky=0; [ $mode = sticky ] && sticky=1
  seen_before=0 seen_after=0 n=1
  while :; do
    reset
    set +e
    CUDNNCTL_FAULT_AT=$n CUDNNCTL_FAULT_STICKY=$sticky CUDNNCTL_FAULT_REPORT=1 run --force \
      > "$T/out.json" 2> "$T/err"
    rc=$?
    set -e
    calls=$(sed -n 's/.*fault-injection: \([0-9]*\) file operations.*/\1/p' "$T/err")
    if [ "${calls:-0}" -lt "$n" ]; then
      [ $rc -eq 0 ] || { cat "$T/err"; fail "$mode: the fault was not reached but the run failed"; }
      break   # this N is past the last operation: the install ran clean
    fi
    journal=0; [ -e "$STATE/journal.json" ] && journal=1
    if [ $mode = once ]; then
      # the failed run itself must have settled (rolled back), unless it got past the commit
      # point and only its bookkeeping failed (then the journal says "committed")
      check_settled "fault once at $n (exit $rc)"
      if cmp -s "$T/now" "$T/before"; then seen_before=1; else seen_after=1; fi
      if [ $journal = 1 ]; then
        grep -Eq '"phase":[[:space:]]*"committed"' "$STATE/journal.json" || fail "once at $n: journal left before the commit point"
      fi
      if [ $rc -eq 0 ]; then cmp -s "$T/now" "$T/after" || fail "once at $n: exit 0 but not installed"; fi
    fi
    # the next run settles what is left and ends fully installed (--force when it will find the
    # pristine tree: no journal and the tree as before, or a journal it rolls back)
    force=
    if [ $journal = 1 ]; then
      grep -Eq '"phase":[[:space:]]*"committed"' "$STATE/journal.json" || force=--force
    else
      snap "$TREE" > "$T/now"; cmp -s "$T/now" "$T/before" && force=--force
    fi
    run $force > "$T/next.json" 2> "$T/err2" || { cat "$T/err" "$T/err2"; fail "$mode at $n: the next run failed"; }
    # (install --json prints one compact line: grep is enough, and cheap in a loop)
    if [ $journal = 1 ]; then
      if grep -q '"recovered":"finished"' "$T/next.json"; then
        seen_after=1
        grep -q '"result":"unchanged"' "$T/next.json" || fail "$mode at $n: finished, but reinstalled"
      elif grep -q '"recovered":"rolled-back"' "$T/next.json"; then
        seen_before=1
        grep -q '"result":"installed"' "$T/next.json" || fail "$mode at $n: rolled back, but not installed"
      else
        fail "$mode at $n: a journal was left but the next run reported no recovery"
      fi
    else
      grep -q '"recovered":null' "$T/next.json" || fail "$mode at $n: recovery reported without a journal"
    fi
    snap "$TREE" > "$T/now"
    cmp -s "$T/now" "$T/after" || { diff "$T/after" "$T/now" | head >&2; fail "$mode at $n: not fully installed after the next run"; }
    [ ! -e "$STATE/journal.json" ] || fail "$mode at $n: journal left after the next run"
    no_leftovers "$TREE"
    [ "$(ls "$STATE/receipts" | wc -l)" -eq 1 ] || fail "$mode at $n: receipts: $(ls "$STATE/receipts")"
    n=$((n + 1))
  done
  [ $seen_before = 1 ] && [ $seen_after = 1 ] || fail "$mode: the loop never hit both sides of the commit point"
  echo "$mode: $((n - 1)) fault points (of $total operations), every one settled"
done
echo "ok: install torture"
