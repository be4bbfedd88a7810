#!/usr/bin/env bash
# test_effective_login_startup.sh: install's login-shell probe survives the start-up files people
# really have, and leaves them as it found them. Found in CI: the probe's SIGKILL (an install that
# failed, or a probe that timed out) stopped pyenv's `rehash` while it held its lock
# (~/.pyenv/shims/.pyenv-shim); every later login shell waited pyenv's 60 s on the stale lock,
# so every later install warned "a new login shell loads no libcudnn.so.9 (exit -1)".
# As an unprivileged user (W) whose ~/.bash_profile
#  - reads its stdin (with the soname pipe as stdin it waited for the install, then ate it),
#  - leaves a process behind that holds every fd the shell had (a daemon started at login: with
#    the report read to EOF the probe waited its whole 60 s),
#  - takes a lock that an EXIT trap releases, as pyenv rehash does:
#  1. install: the login scope maps the install, within seconds, the start-up's stdin was empty;
#  2. an install that fails while the start-up holds the lock: the lock is released (the probe is
#     stopped with SIGHUP first, its traps run), and the next install's login probe is fast;
#  3. install --no-login-check runs none of the start-up (no file it writes appears, no process
#     of it is left) and its effective_load holds this environment's entry alone.
#  4. the same from the user's configuration file (login-check = no; `config` says where from);
#     CUDNNCTL_LOGIN_CHECK=yes wins over the file (the start-up runs again); a value that is
#     neither yes nor no is warned about and the check runs, and the fix it prints works.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
. "$SOURCE_DIR/tests/integration/rootsafe_lib.sh"
rs_init
command -v bash >/dev/null || exit 77
T=$RS_T
unset LD_LIBRARY_PATH CUDNNCTL_ENV CUDA_HOME CUDA_PATH XDG_CONFIG_HOME
A=$(make_archive "$T" 9.19.0.99 "libcudnn" tiny)
chmod -R a+rX "$T/build-9.19.0.99" "$A"
make_user W
rs_on_exit "pkill -u '$W' >/dev/null 2>&1 || true"
cat >"$W_HOME/.bash_profile" <<'EOF'
cat >"$HOME/stdin.seen"
sleep 300 &
if [ -f "$HOME/slow" ]; then
    bash -c 'trap "rm -f \"\$HOME/lock\"" EXIT; touch "$HOME/lock" "$HOME/lock.taken"; sleep 60'
fi
EOF
chown "$W:$W" "$W_HOME/.bash_profile"
INST_WRAP=() # what runs "$CUDNNCTL" ARGS... as the user: env VAR=..., a shell running a fix first
inst() { # TAG [extra install args]
    local tag=$1
    shift
    as_user "$W" "${INST_WRAP[@]}" "$CUDNNCTL" --state-dir "$W_HOME/state" --cache-dir "$W_HOME/cache" install \
        --prefix "$W_HOME/p-$tag" --insecure-skip-verify --no-validate --no-ldconfig --json "$@" \
        >"$T/$tag.json" 2>"$T/$tag.err"
}

# 1. the install's login probe: mapped, fast, the start-up read /dev/null
t0=$(date +%s%N)
inst one --archive "$A" || fail "install: $(cat "$T/one.err")"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
! grep -q "exit -1" "$T/one.err" || fail "the login probe timed out: $(cat "$T/one.err")"
# the login scope ran and mapped a file (which one is the machine's: the install is not active)
json_assert "$T/one.json" '[(x["mapped"], x["error"], x["not_run"]) for x in d["effective_load"] if x["scope"] == "login"][0][0] and [x for x in d["effective_load"] if x["scope"] == "login"][0]["error"] is None'
[ -f "$W_HOME/stdin.seen" ] && [ ! -s "$W_HOME/stdin.seen" ] ||
    fail "the start-up's stdin was not empty: $(cat "$W_HOME/stdin.seen" 2>&1)"
[ "$ms" -lt 30000 ] || fail "the install took $ms ms (the probe waited for the background process?)"
echo "1. install as $W: the login scope maps $(json_get "$T/one.json" '[x for x in d["effective_load"] if x["scope"] == "login"][0]["mapped"]') ($ms ms; the start-up read nothing)"

# 2. a failing install while the start-up holds its lock: the archive comes from a mirror that
# drips it over ~3 s, against a wrong --sha256: the install fails after the download, by which
# time the start-up has long taken its lock (checked: the lock is older than the failure)
as_user "$W" touch "$W_HOME/slow"
mkdir -p "$T/www"
cp "$A" "$T/www/"
PIDS=()
rs_on_exit 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done'
start_httpd "$T/www"
size=$(stat -c %s "$A")
rate=$(( size / 3 + 1 ))
t0=$(date +%s%3N)
inst two --archive "$U/__fault/drip,arg=$rate/$(basename "$A")" \
    --sha256 "$(printf '0%.0s' $(seq 64))" && fail "an archive against a wrong --sha256 installed"
failed_at=$(date +%s%3N)
grep -qi "sha-256\|sha256\|checksum" "$T/two.err" || fail "the install failed otherwise: $(cat "$T/two.err")"
for _ in $(seq 100); do [ -f "$W_HOME/lock" ] || break; sleep 0.05; done
[ ! -f "$W_HOME/lock" ] ||
    fail "the start-up's lock was left behind by the stopped probe (SIGKILL before its trap ran?)"
[ -f "$W_HOME/lock.taken" ] || fail "setup: the start-up never took its lock before the install failed"
taken=$(stat -c %.3Y "$W_HOME/lock.taken" | tr -d .)
[ $((taken + 500)) -le "$failed_at" ] ||
    fail "setup: the lock was taken $((taken - t0)) ms into an install that failed at $((failed_at - t0)) ms"
echo "   the start-up took its lock $((taken - t0)) ms in; the install failed at $((failed_at - t0)) ms"
echo "2. a failed install stopped the login probe; the start-up's EXIT trap released its lock"
rm -f "$W_HOME/slow"
t0=$(date +%s%N)
inst three --archive "$A" || fail "install after: $(cat "$T/three.err")"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
! grep -q "exit -1" "$T/three.err" || fail "the next login probe timed out: $(cat "$T/three.err")"
echo "   the next install: $ms ms, the login scope maps $(json_get "$T/three.json" '[x for x in d["effective_load"] if x["scope"] == "login"][0]["mapped"]')"

# 3. --no-login-check: the start-up files do not run (stdin.seen is what they write first)
rm -f "$W_HOME/stdin.seen"
pkill -u "$W" >/dev/null 2>&1 || true
for _ in $(seq 100); do pgrep -u "$W" >/dev/null || break; sleep 0.05; done
inst four --archive "$A" --no-login-check || fail "install --no-login-check: $(cat "$T/four.err")"
[ ! -e "$W_HOME/stdin.seen" ] || fail "--no-login-check: the login start-up ran"
! pgrep -u "$W" sleep >/dev/null || fail "--no-login-check: a process of the start-up is running"
json_assert "$T/four.json" '[x["scope"] for x in d["effective_load"]] == ["current"] and d["effective_load"][0]["mapped"]'
echo "3. --no-login-check: no start-up file ran; effective_load: this environment only"

# 4. login-check in the user's configuration file, the variable over it, a bad value
no_startup_ran() { # TAG: the start-up files did not run and the JSON holds 'current' alone
    [ ! -e "$W_HOME/stdin.seen" ] || fail "$1: the login start-up ran"
    json_assert "$T/$1.json" '[x["scope"] for x in d["effective_load"]] == ["current"]'
}
as_user "$W" mkdir -p "$W_HOME/.config/cudnnctl"
as_user "$W" sh -c 'printf "login-check = no\n" >"$HOME/.config/cudnnctl/config"'
rm -f "$W_HOME/stdin.seen"
inst five --archive "$A" || fail "install, login-check = no: $(cat "$T/five.err")"
no_startup_ran five
as_user "$W" "$CUDNNCTL" --json config >"$T/cfg.json"
json_assert "$T/cfg.json" 'd["values"]["login-check"]["value"] == "no" and d["values"]["login-check"]["origin"] == "user" and d["values"]["login-check"]["where"].endswith("/.config/cudnnctl/config")'
INST_WRAP=(env CUDNNCTL_LOGIN_CHECK=yes)
inst seven --archive "$A" || fail "install, CUDNNCTL_LOGIN_CHECK=yes: $(cat "$T/seven.err")"
INST_WRAP=()
[ -e "$W_HOME/stdin.seen" ] || fail "CUDNNCTL_LOGIN_CHECK=yes over the file: the login start-up did not run"
json_assert "$T/seven.json" '[x["scope"] for x in d["effective_load"]] == ["current", "login"]'
as_user "$W" sh -c 'printf "login-check = maybe\n" >"$HOME/.config/cudnnctl/config"'
rm -f "$W_HOME/stdin.seen"
inst eight --archive "$A" || fail "install, login-check = maybe: $(cat "$T/eight.err")"
grep -q "login-check = 'maybe' ($W_HOME/.config/cudnnctl/config) is neither yes nor no" "$T/eight.err" ||
    fail "a bad login-check value is not warned about: $(cat "$T/eight.err")"
json_assert "$T/eight.json" '[x["scope"] for x in d["effective_load"]] == ["current", "login"]'
fix=$(sed -n 's/.*for this shell alone: //p' "$T/eight.err")
[ "$fix" = "export CUDNNCTL_LOGIN_CHECK=no" ] || fail "the fix printed: '$fix'"
rm -f "$W_HOME/stdin.seen"
INST_WRAP=(bash -c "$fix && exec \"\$0\" \"\$@\"")
inst nine --archive "$A" || fail "install after the printed fix: $(cat "$T/nine.err")"
INST_WRAP=()
! grep -q "login-check" "$T/nine.err" || fail "the fix did not quiet the warning: $(cat "$T/nine.err")"
no_startup_ran nine
echo "4. login-check = no from the user's file, CUDNNCTL_LOGIN_CHECK=yes over it, a bad value warned about (its fix run)"
echo "ok"
