#!/usr/bin/env bash
# test_install_concurrent.sh: the target lock and the target's ledger (issue 12 item 5). 12
# install+uninstall pairs run at once on one CUDA tree, each with its own state dir: they
# serialise on the tree (--wait), an uninstall whose files a later install from another state
# dir overwrote is refused (exit 1, naming that install) instead of "restoring" them, and once
# the refused ones are run again the tree is exactly the original, with nothing left beside it.
# Without --wait a second run exits 8 naming the holder; --wait=1 gives up after a second.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/srv"
A=$(make_archive "$R/srv" 9.19.0.56 "libcudnn libcudnn_graph" tiny)
SHA=$(sha256sum "$A" | cut -c1-64)
make_tree "$R" clean
TREE=$R/usr/local/cuda-13.0
# the lock and the ledger live inside the tree, never beside it (issue 18)
LOCK=$TREE/.cudnnctl-lock
LEDGER=$TREE/.cudnnctl-owners
snap "$TREE" > "$T/before"
c() { local s=$1; shift; "$CUDNNCTL" --root "$R" --cache-dir "$T/cache$s" --state-dir "$T/state$s" --no-progress "$@"; }
INST=(install --cuda-home /usr/local/cuda-13.0 --archive "$A" --sha256 "$SHA" --no-validate --no-ldconfig)

# ---- a held target lock: exit 8 naming the holder; --wait=1 gives up; --wait gets it ----------
printf 'pid 4242 (cudnnctl install) since 2026-01-01T00:00:00Z\n' > "$LOCK"
flock -n "$LOCK" sleep 4 &
PIDS+=($!)
sleep 0.3
set +e
c 90 "${INST[@]}" 2> "$T/err"; rc=$?
set -e
[ $rc -eq 8 ] || { cat "$T/err"; fail "a locked tree: exit $rc, want 8"; }
grep -q "pid 4242 (cudnnctl install) since 2026-01-01T00:00:00Z" "$T/err" || { cat "$T/err"; fail "exit 8 does not name the holder"; }
grep -q -- "--wait" "$T/err" || fail "exit 8 does not name --wait"
t0=$(date +%s%N)
set +e
c 90 "${INST[@]}" --wait=1 2> "$T/err"; rc=$?
set -e
t1=$(date +%s%N)
[ $rc -eq 8 ] && [ $(( (t1 - t0) / 1000000 )) -ge 1000 ] || fail "--wait=1: exit $rc after $(( (t1 - t0) / 1000000 )) ms"
c 90 "${INST[@]}" --wait 2> "$T/err" || { cat "$T/err"; fail "--wait did not get the lock once it was free"; }
c 90 uninstall --cuda-home /usr/local/cuda-13.0 --no-ldconfig > /dev/null || fail "uninstall (90)"
[ ! -e "$LOCK" ] || rm -f "$LOCK" # the shell's lock file (cudnnctl removes its own)
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "tree after the lock round"

# ---- 12 pairs at once, 12 state dirs, one tree ------------------------------------------------
N=${CUDNNCTL_CONCURRENT_PAIRS:-12}
for i in $(seq 1 "$N"); do
  ( set +e
    c "$i" "${INST[@]}" --wait > "$T/i$i.out" 2>&1; echo $? > "$T/i$i.rc"
    c "$i" uninstall --cuda-home /usr/local/cuda-13.0 --no-ldconfig --wait > "$T/u$i.out" 2>&1
    echo $? > "$T/u$i.rc" ) &
  PIDS+=($!)
done
wait "${PIDS[@]:1}" 2>/dev/null || true
refused=0
for i in $(seq 1 "$N"); do
  [ "$(cat "$T/i$i.rc")" = 0 ] || { cat "$T/i$i.out"; fail "pair $i: install exit $(cat "$T/i$i.rc")"; }
  u=$(cat "$T/u$i.rc")
  if [ "$u" != 0 ]; then
    [ "$u" = 1 ] && grep -q "was overwritten by a later install" "$T/u$i.out" \
      || { cat "$T/u$i.out"; fail "pair $i: uninstall exit $u"; }
    refused=$((refused + 1))
  fi
done
# the refused ones, again, until every receipt is gone (each round frees at least one)
for round in $(seq 1 "$N"); do
  left=0
  for i in $(seq 1 "$N"); do
    ls "$T/state$i"/receipts/*.json > /dev/null 2>&1 || continue
    left=1
    c "$i" uninstall --cuda-home /usr/local/cuda-13.0 --no-ldconfig --wait > "$T/r.out" 2>&1 || true
  done
  [ $left = 1 ] || break
done
for i in $(seq 1 "$N"); do
  ! ls "$T/state$i"/receipts/*.json > /dev/null 2>&1 || fail "state $i still has a receipt"
done
snap "$TREE" > "$T/now"
same_snap "$T/before" "$T/now" "the tree after $N concurrent install+uninstall pairs is not the original"
no_leftovers "$TREE"
[ ! -e "$LOCK" ] && [ ! -e "$LEDGER" ] || fail "the lock or the ledger stayed in the tree"
[ -z "$(find "$R/usr/local" -maxdepth 1 -name '.cuda-13.0*')" ] || fail "something was written beside the tree"
[ -z "$(find "$R/usr/local" -maxdepth 1 -name '*.tmp-*')" ] || fail "temp files beside the tree"
echo "ok: $N concurrent pairs, $refused uninstall(s) refused and redone, tree as before"
