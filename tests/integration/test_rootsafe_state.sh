#!/usr/bin/env bash
# test_rootsafe_state.sh: state, locks, ledger and cache as a local attacker would use them
# against cudnnctl run as root (issue 18 items 2 and 4; docs/security.md "Running as root").
# A real unprivileged user plants state dirs, forged receipts / journals / cleanup lists, links
# beside the target and in a shared cache; root then runs cudnnctl. Each case asserts that the
# victim files are byte-for-byte untouched, nothing was written where it must not be, and the
# error (exit 9) names the path, its owner and a fix. Legitimate use keeps working.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
. "$SOURCE_DIR/tests/integration/rootsafe_lib.sh"
rs_init
T=$RS_T
make_user EVE
R=$T/root
mkdir -p "$R/srv" "$T/victim/dir"
A=$(make_archive "$R/srv" 9.19.0.56 "libcudnn libcudnn_graph" tiny)
SHA=$(sha256sum "$A" | cut -c1-64)
make_tree "$R" clean
TREE=$R/usr/local/cuda-13.0
printf 'precious\n' > "$T/victim/file"
printf 'keep me\n' > "$T/victim/dir/a"
snap "$T/victim" > "$T/victim.snap"
victim_ok() { snap "$T/victim" > "$T/victim.now"; same_snap "$T/victim.snap" "$T/victim.now" "$1"; }
INST=(install --cuda-home /usr/local/cuda-13.0 --archive "$A" --sha256 "$SHA" --no-validate
      --no-ldconfig --no-progress)
c() { "$CUDNNCTL" --root "$R" "$@"; }
expect9() { # expect9 WHAT GREP CMD...: exit 9, the message matches GREP
  local what=$1 re=$2; shift 2
  set +e; "$@" > "$T/out" 2> "$T/err"; local rc=$?; set -e
  [ $rc -eq 9 ] || { cat "$T/err"; rs_fail "$what: exit $rc, want 9"; }
  grep -qiE "$re" "$T/err" || { cat "$T/err"; rs_fail "$what: the message does not say why ($re)"; }
  grep -q "fix:" "$T/err" || { cat "$T/err"; rs_fail "$what: no fix"; }
}

# ---- 1. a state dir another user owns: nothing in it is believed -----------------------------
S=$EVE_HOME/state
as_user "$EVE" mkdir -p "$S/receipts"
as_user "$EVE" sh -c "printf '{\"files\": [\"%s\"]}' '$T/victim/file' > '$S/cleanup.json'"
as_user "$EVE" ln -s "$T/victim/file" "$S/lock"
for cmd in "recover" "list" "uninstall --cuda-home /usr/local/cuda-13.0" "${INST[*]}"; do
  # shellcheck disable=SC2086
  expect9 "state dir of another user ($cmd)" "state dir.*owned by uid $EVE_UID" \
    c --state-dir "$S" --cache-dir "$T/cache" $cmd
done
grep -q "$S" "$T/err" || rs_fail "the message does not name the state dir"
victim_ok "a state dir of another user touched the victim"
[ ! -e "$TREE/lib/libcudnn.so.9" ] || rs_fail "installed with a state dir of another user"

# ---- 2. root's own state dir, but writable by others (0777): refused too ---------------------
S2=$T/state-open; mkdir -m 0777 "$S2"
expect9 "a world-writable state dir" "writable by others" c --state-dir "$S2" --cache-dir "$T/cache" "${INST[@]}"
# the printed fix works: after it the same command installs
fix=$(sed -n 's/.*fix: use a directory only root can write, or make it one: \(.*\); or choose.*/\1/p' "$T/err")
[ -n "$fix" ] || { cat "$T/err"; rs_fail "no runnable fix"; }
eval "$fix"
c --state-dir "$S2" --cache-dir "$T/cache" "${INST[@]}" > /dev/null 2>&1 || rs_fail "the fix ($fix) did not work"
c --state-dir "$S2" uninstall --cuda-home /usr/local/cuda-13.0 --no-ldconfig > /dev/null

# ---- 3. a trusted state dir with forged records: confined, never acted on --------------------
# (no --root here: the records name host paths, as an attacker's would)
S3=$T/state; ST=$T/cache; T3=$T/tree3
cp -a "$TREE" "$T3"
c3() { "$CUDNNCTL" --state-dir "$S3" --cache-dir "$ST" --no-progress "$@"; }
UN3=(uninstall --cuda-home "$T3" --no-ldconfig)
c3 install --cuda-home "$T3" --archive "$A" --sha256 "$SHA" --no-validate --no-ldconfig > /dev/null
rcpt=$(ls "$S3"/receipts/*.json)
cp "$rcpt" "$T/good-receipt"
# 3a. the receipt gains an entry outside its target, with the victim's real hash and size
python3 - "$rcpt" "$T/victim/file" <<'PY'
import hashlib, json, os, sys
r = json.load(open(sys.argv[1])); v = sys.argv[2]
e = dict(r["files"][0]); e["path"] = v; e["sha256"] = hashlib.sha256(open(v, "rb").read()).hexdigest()
e["size"] = os.path.getsize(v); r["files"].append(e)
json.dump(r, open(sys.argv[1], "w"))
PY
set +e; c3 "${UN3[@]}" > "$T/out" 2> "$T/err"; set -e
grep -q "not inside" "$T/err" || { cat "$T/err"; rs_fail "a receipt naming a path outside its target was not named"; }
victim_ok "uninstall with a receipt naming the victim"
[ -e "$T3/lib/libcudnn.so.9" ] || rs_fail "the forged receipt's install was undone anyway"
cp "$T/good-receipt" "$rcpt"
# 3b. a backup outside STATE/backups ("restore" an attacker's file by hard link)
python3 - "$rcpt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r.setdefault("replaced", []).append({"path": r["files"][0]["path"], "type": "file", "mode": "0644",
    "size": 1, "backup": "../victim/file", "reason": "overwritten"})
json.dump(r, open(sys.argv[1], "w"))
PY
set +e; c3 "${UN3[@]}" > "$T/out" 2> "$T/err"; set -e
grep -q "not inside" "$T/err" || { cat "$T/err"; rs_fail "a backup outside the state dir was not named"; }
victim_ok "uninstall with a backup outside the state dir"
cp "$T/good-receipt" "$rcpt"
# 3c. forged journals: settled they would delete or replace the victim
for j in '{"format":1,"id":"1-1-1-deadbeef","kind":"install","target":"'"$T3"'","phase":"committed","rm_after":["'"$T/victim/file"'"],"ops":[]}' \
         '{"format":1,"id":"1-1-1-deadbeef","kind":"install","phase":"committed","rm_after":["'"$T/victim/dir"'"],"ops":[]}' \
         '{"format":1,"id":"1-1-1-deadbeef","kind":"install","target":"/","phase":"commit","ops":[{"op":"place","type":"file","dst":"'"$T/victim/file"'","tmp":"'"$T/x"'"}]}' \
         '{"format":1,"id":"1-1-1-deadbeef","kind":"install","target":"'"$T3"'","phase":"commit","ops":[{"op":"place","type":"file","dst":"'"$T3/../victim/file"'","tmp":"'"$T3/x"'"}]}'; do
  printf '%s\n' "$j" > "$S3/journal.json"
  expect9 "a forged journal" "journal" c3 recover
  victim_ok "recover of a forged journal"
done
rm -f "$S3/journal.json"
# 3d. a cleanup list naming the victim (only cudnnctl's temp names and the state dir are deleted)
printf '{"files": ["%s", "%s"]}\n' "$T/victim/file" "$T/victim/dir" > "$S3/cleanup.json"
c3 recover > /dev/null 2> "$T/err" || true
victim_ok "recover with a forged cleanup list"
grep -q "not deleted" "$T/err" || { cat "$T/err"; rs_fail "the forged cleanup entry was not named"; }
# 3e. a lock that is a link: never opened through it
rm -f "$S3/lock"
ln -s "$T/victim/file" "$S3/lock"
expect9 "STATE/lock as a link" "symbolic link" c3 "${UN3[@]}"
victim_ok "a lock link truncated its target"
rm -f "$S3/lock"
c3 "${UN3[@]}" > /dev/null

# ---- 4. links planted beside the target in a shared (sticky) parent: nothing is written there --
SH=$T/shared; mkdir -m 1777 "$SH"
cp -a "$TREE" "$SH/cuda"
as_user "$EVE" ln -s "$T/victim/file" "$SH/.cuda.cudnnctl-lock"
as_user "$EVE" ln -s "$T/victim/dir/a" "$SH/.cuda.cudnnctl-owners"
ls -la "$SH" > "$T/shared.before"
"$CUDNNCTL" --state-dir "$T/state4" --cache-dir "$ST" install --cuda-home "$SH/cuda" --archive "$A" \
  --sha256 "$SHA" --no-validate --no-ldconfig --no-progress > /dev/null 2> "$T/err" || { cat "$T/err"; rs_fail "install into a tree in a sticky dir"; }
ls -la "$SH" > "$T/shared.after"
victim_ok "links beside the target"
diff <(awk '{print $NF}' "$T/shared.before") <(awk '{print $NF}' "$T/shared.after") \
  || rs_fail "the install wrote beside its target"
[ -s "$SH/cuda/.cudnnctl-owners" ] || rs_fail "the ledger is not inside the target"
"$CUDNNCTL" --state-dir "$T/state4" uninstall --cuda-home "$SH/cuda" --no-ldconfig > /dev/null
[ ! -e "$SH/cuda/.cudnnctl-owners" ] && [ ! -e "$SH/cuda/.cudnnctl-lock" ] || rs_fail "ledger or lock left"

# ---- 5. the target itself in a dir another user owns: refused before anything is written ------
as_user "$EVE" mkdir "$EVE_HOME/cuda"
cp -a "$TREE/." "$T/tmp-tree" && as_user "$EVE" cp -a "$T/tmp-tree/." "$EVE_HOME/cuda/" 2>/dev/null || true
expect9 "a CUDA tree in another user's home" "owned by uid $EVE_UID" \
  "$CUDNNCTL" --state-dir "$T/state5" --cache-dir "$ST" install --cuda-home "$EVE_HOME/cuda" \
  --archive "$A" --sha256 "$SHA" --no-validate --no-ldconfig --no-progress
[ ! -e "$EVE_HOME/cuda/lib/libcudnn.so.9" ] || rs_fail "root wrote into another user's tree"

# ---- 6. caches: another user's cache is refused; a planted quarantine link is not followed ----
as_user "$EVE" mkdir -p "$EVE_HOME/cache/blobs/sha256"
for sub in list verify clean; do
  expect9 "a cache dir of another user (cache $sub)" "download cache.*owned by uid $EVE_UID" \
    "$CUDNNCTL" --cache-dir "$EVE_HOME/cache" cache "$sub"
done
SC=$T/sticky-cache; mkdir -m 1777 "$SC"
as_user "$EVE" ln -s "$T/victim/dir" "$SC/quarantine"
"$CUDNNCTL" --cache-dir "$SC" cache clean > /dev/null 2> "$T/err" || true
victim_ok "cache clean through a planted quarantine link"
# a blob another user planted under the expected name is never used unverified
B=$T/cache-b; mkdir -p "$B/blobs/sha256"
printf 'not the archive' > "$B/blobs/sha256/$SHA"
c --state-dir "$T/state7" --cache-dir "$B" "${INST[@]}" > /dev/null 2> "$T/err" || true
! cmp -s "$TREE/lib/libcudnn.so.9" "$B/blobs/sha256/$SHA" || rs_fail "a planted blob was installed"

# ---- 7. --root stays in the root: links in the tree pointing out of it lead back inside ------
mkdir -p "$T/outside"
RR=$T/rroot; mkdir -p "$RR"
make_tree "$RR" clean
ln -s "$T/outside" "$RR/opt"                             # absolute: resolves to RR/<that path>
ln -s ../../../../../../../../../../../"$T/outside" "$RR/srv" # climbing: stops at the root
for p in /opt/cudnn /srv/cudnn; do
  "$CUDNNCTL" --root "$RR" --state-dir "$T/state8" --cache-dir "$ST" install --prefix "$p" \
    --archive "$A" --sha256 "$SHA" --no-validate --no-ldconfig --no-progress > /dev/null 2> "$T/err" || true
  [ -z "$(ls -A "$T/outside")" ] || rs_fail "--root $RR: install --prefix $p wrote outside the root: $(ls -A "$T/outside")"
done

# the root's /etc/profile.d and /etc/ld.so.conf.d as links out of it (absolute and climbing):
# env --persist --system writes inside the root or not at all (the landed main wrote both files
# into $T/outside)
mkdir -p "$RR/etc"
ln -s "$T/outside" "$RR/etc/profile.d"
ln -s ../../../../../../../../../../"$T/outside" "$RR/etc/ld.so.conf.d"
mkdir -p "$RR/srv2"; A7=$(make_archive "$RR/srv2" 9.19.0.56 "libcudnn libcudnn_graph" tiny)
"$CUDNNCTL" --root "$RR" --state-dir "$T/state8" --cache-dir "$ST" install --prefix /p7 \
  --archive "$A7" --sha256 "$(sha256sum "$A7" | cut -c1-64)" --no-validate --no-ldconfig --no-progress > /dev/null 2>&1 \
  || rs_fail "install --root into a plain prefix"
"$CUDNNCTL" --root "$RR" --state-dir "$T/state8" env --persist --system --prefix /p7 --no-ldconfig > /dev/null 2>&1 || true
[ -z "$(ls -A "$T/outside")" ] || rs_fail "--root: env --persist --system wrote outside the root: $(ls -A "$T/outside")"

# ---- the hostile-archive corpus writes nothing outside the target, the state dir and the cache --
HC=$T/hc; mkdir -p "$HC/parent"
python3 "$SOURCE_DIR/tests/fixtures/make_archive.py" hostile "$HC/corpus" --outside "$HC/parent/outside" > /dev/null
cp -a "$TREE" "$HC/parent/tree"
snap "$HC/parent" > "$HC/before"
n=0
for a in "$HC"/corpus/*/*; do
  case $a in *.json) continue ;; esac
  for tgt in "--cuda-home $HC/parent/tree" "--prefix $HC/parent/pfx"; do
    # shellcheck disable=SC2086
    "$CUDNNCTL" --state-dir "$HC/state" --cache-dir "$HC/cache" install $tgt --archive "$a" \
      --insecure-skip-verify --no-validate --no-ldconfig --no-progress > /dev/null 2>&1 || true
    n=$((n + 1))
  done
done
[ $n -gt 40 ] || rs_fail "the hostile corpus has only $n cases"
snap "$HC/parent" > "$HC/after"
same_snap "$HC/before" "$HC/after" "a hostile archive changed something beside or in the target ($n installs)"

# ---- legitimate use: a root-owned prefix whose path has spaces and quotes -------------------
P="$T/opt/cu dnn 'q' \"dq\""
"$CUDNNCTL" --state-dir "$T/state9" --cache-dir "$ST" install --prefix "$P" --archive "$A" \
  --sha256 "$SHA" --no-validate --no-ldconfig --no-progress > /dev/null 2> "$T/err" || { cat "$T/err"; rs_fail "a legitimate prefix"; }
[ -f "$P/current/lib/libcudnn.so.9.19.0" ] || rs_fail "the legitimate prefix install is not there"
"$CUDNNCTL" --state-dir "$T/state9" uninstall --prefix "$P" > /dev/null
[ ! -e "$P" ] || rs_fail "the legitimate prefix was not removed again"
victim_ok "the end"
echo "ok: state, locks, ledger, cache and --root held against a local user"
