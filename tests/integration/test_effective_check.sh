#!/usr/bin/env bash
# The effective check, for real (no --root: the machine's own loader): install an archive built
# from the machine's real cuDNN 9.19 into a temp prefix; /etc/ld.so.cache already leads
# libcudnn.so.9 to /usr/local/cuda-13.0/lib, so `install` must warn that this other copy wins,
# say why (ld.so.cache) and print a fix; the test then RUNS that fix (eval of `cudnnctl env
# --prefix P`, which now puts the cuDNN dir in front of LD_LIBRARY_PATH) and a fresh process that
# dlopen()s libcudnn.so.9 by name must map the install. --json carries effective_load; validate
# has the effective_load check; --no-ld-library-path leaves LD_LIBRARY_PATH alone (and the install
# then does not win). The login-shell fix (env --persist --system) edits /etc and is run on the
# H200 (docs/which-h200.md), not here.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
have_real || { echo "no real cuDNN 9.19 under $REAL"; exit 77; }
command -v bash >/dev/null || exit 77
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config; mkdir -p "$HOME"
C=("$CUDNNCTL" --state-dir "$T/state" --cache-dir "$T/cache")
A=$(make_archive "$T" 9.19.0.99 "libcudnn libcudnn_graph")
P=$T/prefix
probe() { "$CUDNNCTL" __load-probe libcudnn.so.9 | sed -n 's/^cudnnctl-load: libcudnn.so.9 //p'; }
before=$(env -u LD_LIBRARY_PATH bash -c "$(declare -f probe); CUDNNCTL=$CUDNNCTL; probe")
echo "before: a fresh process maps $before"
[[ "$before" != "$P"* ]] || fail "control: the prefix cannot win before it exists"

env -u LD_LIBRARY_PATH "${C[@]}" install --prefix "$P" --archive "$A" --insecure-skip-verify \
    --no-validate --no-ldconfig >"$T/out" 2>"$T/err" || fail "install: $(cat "$T/err")"
cat "$T/err"
line=$(cat "$T/out" "$T/err" | grep "this environment maps") || fail "install did not say which copy wins"
[[ "$line" == *"$before"* && "$line" == *"ld.so.cache"* ]] || fail "the line must name $before and ld.so.cache: $line"
# the archive holds the machine's own 9.19 files (labelled 9.19.0.99): the copy that wins is the
# same release, read from the files, so it fits: information, not a warning (issue 20), and it
# still names the command that makes the install's own files win
case "$line" in
*"warning:"*) fail "the same release winning is no warning: $line" ;;
esac
[[ "$line" == *"the same release"* ]] || fail "the line must say it is the same release: $line"
fix=${line##*own files: }
echo "fix printed by install: $fix"
[[ "$fix" == "eval \"\$(cudnnctl env --prefix $P)\"" ]] || fail "unexpected fix: $fix"
cat "$T/out" "$T/err" | grep -q "a new login shell maps" ||
    fail "no login-shell line; the install said: $(grep -i "login" "$T/out" "$T/err" || cat "$T/out")"

# run the fix as printed (cudnnctl on PATH, state as above), then a fresh process
mkdir -p "$T/bin"; printf '#!/bin/sh\nexec %s --state-dir %s --cache-dir %s "$@"\n' "$CUDNNCTL" "$T/state" "$T/cache" >"$T/bin/cudnnctl"
chmod +x "$T/bin/cudnnctl"
after=$(env -u LD_LIBRARY_PATH PATH="$T/bin:$PATH" bash -c "$fix; $(declare -f probe); CUDNNCTL=$CUDNNCTL; probe")
echo "after the fix: a fresh process maps $after"
[[ "$after" == "$P/cudnn-9.19.0.99-cuda13/lib/libcudnn.so.9" ]] || fail "after the fix it maps $after"

# --no-ld-library-path: the old behaviour, and the install does not win
nold=$(env -u LD_LIBRARY_PATH PATH="$T/bin:$PATH" bash -c "eval \"\$(cudnnctl env --prefix $P --no-ld-library-path)\"; $(declare -f probe); CUDNNCTL=$CUDNNCTL; probe")
echo "with --no-ld-library-path: maps $nold"
[ "$nold" = "$before" ] || fail "--no-ld-library-path: $nold"

# which --env-of: the model for the activation file, without evaluating it in this shell
"${C[@]}" env --shell sh --prefix "$P" >"$T/act.sh"
# (exit 6 is right here: the test archive holds libcudnn and libcudnn_graph only, so the other
# sub-libraries come from another copy — which says so as "a mixed cuDNN")
set +e; env -u LD_LIBRARY_PATH "${C[@]}" which --env-of "$T/act.sh" --json >"$T/w.json"; rc=$?; set -e
[ "$rc" = 0 ] || [ "$rc" = 6 ] || fail "which --env-of exit $rc"
python3 - "$T/w.json" "$after" <<'PY' || fail "which --env-of answer"
import json, sys
r = json.load(open(sys.argv[1]))
l = [x for x in r["consumers"][0]["loads"] if x["soname"] == "libcudnn.so.9"][0]
assert l["path"] == sys.argv[2] and l["rule"] == "ld_library_path", l
print("which --env-of:", l["path"], l["rule"], "= what the fresh process mapped")
PY

# --json carries it; with the fix applied the check passes
env -u LD_LIBRARY_PATH "${C[@]}" install --prefix "$P" --archive "$A" --insecure-skip-verify \
    --no-validate --no-ldconfig --force --json >"$T/j" 2>/dev/null || true
python3 - "$T/j" "$before" <<'PY' || fail "install --json effective_load"
import json, sys
r = json.load(open(sys.argv[1])); e = r["effective_load"]
cur = [x for x in e if x["scope"] == "current"][0]
assert cur["matches"] is False and cur["mapped"] == sys.argv[2], cur
assert cur["model"]["rule"] == "ld.so.cache" and cur["fix"].startswith("eval"), cur
print("install --json effective_load:", cur["scope"], cur["mapped"], cur["model"]["rule"])
PY
v=$(env -u LD_LIBRARY_PATH PATH="$T/bin:$PATH" bash -c "$fix; cudnnctl validate $P/current/lib --json" 2>/dev/null || true)
python3 -c '
import json, sys
r = json.loads(sys.argv[1]); c = [c for c in r["checks"] if c["name"] == "effective_load"][0]
assert c["ok"], c
print("validate effective_load after the fix:", c["detail"])
assert c["detail"].endswith("/prefix/cudnn-9.19.0.99-cuda13/lib/libcudnn.so.9"), c' "$v" || fail "validate effective_load"
v=$(env -u LD_LIBRARY_PATH "${C[@]}" validate "$P/current/lib" --json 2>/dev/null || true)
# unwired: the copy that wins is the same release (the machine's 9.19), so the check passes and
# says so, with the very command install printed (one function decides both, issue 20)
python3 -c '
import json, sys
r = json.loads(sys.argv[1]); c = [c for c in r["checks"] if c["name"] == "effective_load"][0]
assert c["ok"] and "the same release" in c["detail"] and c["advisory"] is True, c
assert c["detail"].endswith("own files: " + sys.argv[2]), (c["detail"], sys.argv[2])
print("validate effective_load without it:", c["detail"][:100], "... same fix as install")' "$v" "$fix" ||
    fail "validate effective_load (unwired) must pass for the same release and print install's fix"
env -u LD_LIBRARY_PATH "${C[@]}" validate "$P/current/lib" > "$T/vt" 2>/dev/null || true # no GPU here
grep -E "^effective_load +ok " "$T/vt" || { cat "$T/vt"; fail "validate's table: the same release is ok"; }
# The check's children start before the install they check (cudnnctl_effective_start: a login
# shell's start-up overlaps the work) and load only when the soname comes on their stdin: what
# they map is what is there THEN. A child waiting on an empty dir on LD_LIBRARY_PATH, given the
# soname after a libcudnn.so.9 was put there, must map that file; one whose stdin ends unasked
# loads nothing.
D=$T/late; mkdir -p "$D"; mkfifo "$T/go"
LD_LIBRARY_PATH=$D "$CUDNNCTL" __load-probe - <"$T/go" >"$T/late.out" 2>&1 &
pid=$!
exec 7>"$T/go" # the child runs now, its stdin open
sleep 0.3
cp "$REAL/lib/libcudnn.so.9" "$D/"
echo libcudnn.so.9 >&7; exec 7>&-
wait $pid || fail "__load-probe - exited $?: $(cat "$T/late.out")"
grep -qx "cudnnctl-load: libcudnn.so.9 $D/libcudnn.so.9" "$T/late.out" ||
  fail "the late-asked probe must map the file put there after it started: $(cat "$T/late.out")"
: | "$CUDNNCTL" __load-probe - >"$T/eof.out" 2>&1 || fail "__load-probe - at EOF must exit 0"
[ ! -s "$T/eof.out" ] || fail "__load-probe - at EOF must load and print nothing: $(cat "$T/eof.out")"
echo "early-started probe: loads at the soname's arrival ($D/libcudnn.so.9), nothing at EOF"
echo "ok"
