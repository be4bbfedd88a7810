#!/usr/bin/env bash
# test_install_reinstall.sh: receipts across reinstalls (issue 12 item 4), in both modes. After a
# plain install, a forced reinstall (install --force twice) and repeated installs (same version,
# another version, forced again), 'rollback' goes back exactly one install each time — the
# target's snapshot (every path, type, link target, mode, SHA-256) equals the one taken before
# that install — 'list' shows exactly one active install per target, and every doctor fix that
# names a cudnnctl command is run and must succeed.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
C=("$CUDNNCTL" --root "$R" --cache-dir "$T/cache" --no-progress)
mkdir -p "$R/srv" "$R/opt"
A=$(make_archive "$R/srv" 9.19.0.56 "libcudnn libcudnn_graph" tiny)
B=$(make_archive "$R/srv" 9.18.1.3 "libcudnn libcudnn_graph" tiny)
SA=$(sha256sum "$A" | cut -c1-64)
SB=$(sha256sum "$B" | cut -c1-64)
make_tree "$R" clean

one_active() { # every target in list --json has exactly one active install (when it has any)
  "${C[@]}" list --json > "$T/list.json" || fail "list"
  python3 - "$T/list.json" <<'PY' || { cat "$T/list.json" >&2; fail "list: not one active install per target"; }
import json, sys, collections
d = json.load(open(sys.argv[1]))
n = collections.Counter(); seen = set()
for i in d["installs"]:
    seen.add(i["target"]); n[i["target"]] += bool(i["active"])
sys.exit(0 if all(n[t] == 1 for t in seen) else 1)
PY
}

doctor_fixes() { # run every `cudnnctl ...` command a doctor fix names (offline: install dry-run)
  "${C[@]}" doctor --json > "$T/doc.json" || true
  python3 - "$T/doc.json" > "$T/fixes" <<'PY'
import json, re, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    for c in re.findall(r"`(cudnnctl [^`]*)`", f.get("fix") or ""):
        print(c)
PY
  local cmd
  while read -r cmd; do
    read -ra w <<< "${cmd#cudnnctl }"
    [ "${w[0]}" = install ] && w+=(--dry-run --no-validate)
    "${C[@]}" "${w[@]}" > "$T/fix.out" 2>&1 || { cat "$T/fix.out" "$T/doc.json" >&2; "${C[@]}" list >&2; fail "doctor's fix '$cmd' failed"; }
    FIXES_RUN=$((FIXES_RUN + 1))
  done < "$T/fixes"
}
FIXES_RUN=0

# run MODE SNAPDIR TARGET-ARGS...
run() {
  local mode=$1 dir=$2; shift 2
  local tgt=("$@") n=0
  inst() { # inst ARCHIVE SHA [--force]: install, push the snapshot from before it
    snap "$dir" > "$T/$mode.s$n"; n=$((n + 1))
    "${C[@]}" install "${tgt[@]}" --archive "$1" --sha256 "$2" --no-validate --no-ldconfig ${3:-} \
      --json > "$T/i.json" 2> "$T/err" || { cat "$T/err"; fail "$mode: install ${3:-}"; }
    one_active; doctor_fixes
  }
  back() { # rollback, compare with the snapshot from before the install it undoes
    n=$((n - 1))
    "${C[@]}" rollback "${tgt[@]}" --no-ldconfig > "$T/rb" 2>&1 || { cat "$T/rb"; fail "$mode: rollback"; }
    snap "$dir" > "$T/now"
    same_snap "$T/$mode.s$n" "$T/now" "$mode: rollback $1 is not the state before that install"
    one_active; doctor_fixes; no_leftovers "$dir"
  }
  # plain
  inst "$A" "$SA"; back plain
  # forced: install, install --force, install --force
  inst "$A" "$SA"; inst "$A" "$SA" --force; inst "$A" "$SA" --force
  [ "$(python3 -c 'import json,sys; print(sum(i["active"] for i in json.load(open(sys.argv[1]))["installs"]))' "$T/list.json")" = 1 ] \
    || fail "$mode: forced twice: more than one active receipt"
  back forced-2; back forced-1; back forced-0
  # repeated: A, A again (unchanged: no receipt), B, B forced, A
  inst "$A" "$SA"
  "${C[@]}" install "${tgt[@]}" --archive "$A" --sha256 "$SA" --no-validate --no-ldconfig --json \
    > "$T/u.json" 2>/dev/null || fail "$mode: repeated install"
  json_assert "$T/u.json" 'd["result"] == "unchanged"'
  inst "$B" "$SB"; inst "$B" "$SB" --force
  # in a tree A goes in again over B; in a prefix A's dir is still there, so that install is a
  # switch of PREFIX/current (no receipt, nothing for rollback to undo)
  if [ "$mode" = tree ]; then inst "$A" "$SA"; back rep-3; fi
  back rep-2; back rep-1; back rep-0
  "${C[@]}" list --json > "$T/list.json"
  json_assert "$T/list.json" 'len(d["installs"]) == 0'
  # uninstall of a reinstall removes the version, not only the last copy of it
  snap "$dir" > "$T/$mode.u0"
  inst "$A" "$SA"; inst "$A" "$SA" --force
  "${C[@]}" uninstall "${tgt[@]}" --no-ldconfig > "$T/un" 2>&1 || { cat "$T/un"; fail "$mode: uninstall"; }
  snap "$dir" > "$T/now"
  same_snap "$T/$mode.u0" "$T/now" "$mode: uninstall after a forced reinstall left files"
  "${C[@]}" list --json > "$T/list.json"
  json_assert "$T/list.json" 'len(d["installs"]) == 0'
  # a damaged reinstall: doctor names a reinstall and an uninstall; both must work as written
  inst "$A" "$SA"; inst "$A" "$SA" --force
  local lib; lib=$(find "$dir" -name 'libcudnn_graph.so.9.19.0' | head -1)
  rm -f "$lib"
  local before=$FIXES_RUN
  doctor_fixes
  [ "$FIXES_RUN" -ge $((before + 2)) ] || { cat "$T/doc.json"; fail "$mode: doctor named no fix for a damaged install"; }
  snap "$dir" > "$T/now"
  same_snap "$T/$mode.u0" "$T/now" "$mode: doctor's uninstall of a damaged reinstall left files"
  n=0
}

run prefix "$R/opt" --prefix /opt/cudnn
run tree "$R/usr/local/cuda-13.0" --cuda-home /usr/local/cuda-13.0
echo "ok: rollback after plain, forced and repeated installs in both modes; $FIXES_RUN doctor fixes run"
