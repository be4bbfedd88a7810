#!/usr/bin/env bash
# test_rootsafe_env_probe.sh (issue 18 items 3 and 6): root never loads, nor runs at login, what an
# unprivileged user could have written. The effective-load check dlopens libcudnn.so.<M> by name in
# a child (the current environment and a new login shell); as root it dlopened a user's library
# at once, and the login shell ran with the caller's HOME (sudo -E), sourcing their .bash_profile
# as root. Played for real with an unprivileged user and a library double whose constructor writes
# a marker file (so "was it mapped, and by whom" is a file on disk):
#  1. control: as the user, the probe maps the double (the marker says euid=U);
#  2. root with the user's dir on LD_LIBRARY_PATH: the probe reports the loader model's answer
#     (that file) and loads nothing; install's effective check says so (--json: modelled);
#  3. root with the user's dir in the loader cache (a copy of /etc, ldconfig run in a namespace):
#     the same;
#  4. root validating the user's prefix: exit 9 with `runuser -u U -- cudnnctl validate ...`; the
#     validation child asked directly does not load it either (cc_pf_dlopen's guard); the fix,
#     run as printed, validates as the user (their marker, not root's);
#  5. sudo -E: HOME is the user's, with a .bash_profile that writes a marker: the login probe runs
#     with root's passwd home instead (it runs: the login scope maps a file), no marker;
#  6. root's own start-up files not root's (a /root/.bash_profile of the user, bound over /root;
#     an /etc/profile.d entry of the user in a copy of /etc): the login probe is not run and says
#     why; no marker. Put right (owned by root), it runs.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
. "$SOURCE_DIR/tests/integration/rootsafe_lib.sh"
rs_init
command -v bash >/dev/null || exit 77
T=$RS_T
unset LD_LIBRARY_PATH CUDNNCTL_ENV CUDA_HOME CUDA_PATH XDG_CONFIG_HOME
export HOME=/root USER=root
A=$(make_archive "$T" 9.19.0.99 "libcudnn" tiny)
chmod -R a+rX "$T/build-9.19.0.99" "$A"
make_user U
M=$T/marks
mkdir -m 1777 "$M"
rs_marker_lib "$T/double.so" libcudnn.so.9 "$M/mapped"
chmod 0644 "$T/double.so"
as_user "$U" mkdir -p "$U_HOME/lib"
as_user "$U" cp "$T/double.so" "$U_HOME/lib/libcudnn.so.9"
RC=("$CUDNNCTL" --state-dir "$T/rstate" --cache-dir "$T/rcache")
INST=(install --archive "$A" --insecure-skip-verify --no-validate --no-ldconfig)
probe_line() { sed -n "s/^cudnnctl-$1: libcudnn.so.9 //p" "$2"; }

# 1. control: the user's own probe maps their double
as_user "$U" env LD_LIBRARY_PATH="$U_HOME/lib" "$CUDNNCTL" __load-probe libcudnn.so.9 >"$T/p" ||
    fail "the user's probe"
[ "$(probe_line load "$T/p")" = "$U_HOME/lib/libcudnn.so.9" ] || fail "control: the user's probe maps $(cat "$T/p")"
grep -qx "euid=$U_UID pid=[0-9]*" "$M/mapped" || fail "control: the double did not record the user: $(cat "$M/mapped")"
rm -f "$M/mapped"
echo "1. control: as $U the probe maps the double (marker: $U_UID)"

# 2. root, the user's dir on LD_LIBRARY_PATH
LD_LIBRARY_PATH="$U_HOME/lib" "$CUDNNCTL" __load-probe libcudnn.so.9 >"$T/p" || fail "root's probe"
[ "$(probe_line model "$T/p")" = "$U_HOME/lib/libcudnn.so.9" ] || fail "root's probe: no model answer: $(cat "$T/p")"
probe_line load "$T/p" | grep -q "^- not loaded: .*$U_HOME" || fail "root's probe must say why it did not load: $(cat "$T/p")"
rs_expect_absent "$M/mapped" "root's probe mapped the user's library"
LD_LIBRARY_PATH="$U_HOME/lib" "${RC[@]}" "${INST[@]}" --prefix "$T/rp" --json >"$T/j" 2>"$T/e" ||
    fail "root's install with the user's dir on LD_LIBRARY_PATH: $(cat "$T/e")"
rs_expect_absent "$M/mapped" "root's install (effective check) mapped the user's library"
grep -q "this environment would map $U_HOME/lib/libcudnn.so.9 for libcudnn.so.9, not the copy in $T/rp/.*the loader model's answer" "$T/e" ||
    fail "install must report the model's answer and say so: $(grep effective -i "$T/e" || cat "$T/e")"
json_assert "$T/j" '[x for x in d["effective_load"] if x["scope"] == "current"][0]["modelled"] is True'
echo "2. root + LD_LIBRARY_PATH=$U_HOME/lib: not loaded; the model's answer reported"

# 3. root, the user's dir in the loader cache (registered earlier by someone)
with_etc_copy true
printf '%s\n' "$U_HOME/lib" >"$RS_ETC/ld.so.conf.d/000-user.conf"
with_etc_copy ldconfig || fail "ldconfig in the namespace"
with_etc_copy env -i "$CUDNNCTL" __load-probe libcudnn.so.9 >"$T/p" || fail "root's probe (cache)"
[ "$(probe_line model "$T/p")" = "$U_HOME/lib/libcudnn.so.9" ] || fail "root's probe (cache): $(cat "$T/p")"
rs_expect_absent "$M/mapped" "root's probe mapped the user's library through ld.so.cache"
echo "3. root, the user's dir in ld.so.cache: not loaded"

# 4. validate, as root, a prefix the user installed (and then replaced the library in)
as_user "$U" "$CUDNNCTL" --state-dir "$U_HOME/state" --cache-dir "$U_HOME/cache" "${INST[@]}" \
    --prefix "$U_HOME/p" >/dev/null 2>"$T/e" || fail "the user's install: $(cat "$T/e")"
as_user "$U" cp "$T/double.so" "$U_HOME/p/cudnn-9.19.0.99-cuda13/lib/libcudnn.so.9.19.0"
set +e
"${RC[@]}" validate "$U_HOME/p/current/lib" >"$T/o" 2>"$T/e"
rc=$?
set -e
[ $rc = 9 ] || fail "root validating the user's prefix: exit $rc: $(cat "$T/e")"
rs_expect_absent "$M/mapped" "root's validate mapped the user's library"
# the validation child itself (the guard in cc_pf_dlopen: as root, a path that fails the trust
# rule is not loaded) refuses too, when asked directly
printf '{"lib_dir":"%s","cudnn_lib":"%s/libcudnn.so.9","major":9,"device":0,"toolkit_dirs":[]}' \
    "$U_HOME/p/cudnn-9.19.0.99-cuda13/lib" "$U_HOME/p/cudnn-9.19.0.99-cuda13/lib" |
    "$CUDNNCTL" __validate-child >"$T/vc" 2>&1 || true
grep -q '"name":"load_cudnn","ok":false.*not loaded as root' "$T/vc" || fail "the validation child loaded it: $(cat "$T/vc")"
rs_expect_absent "$M/mapped" "the validation child mapped the user's library as root"
fix=$(sed -n 's/.*; fix: validate it as its owner, who loads it without risk: //p' "$T/e")
[ "$fix" = "runuser -u $U -- cudnnctl validate $U_HOME/p/current/lib" ] || fail "unexpected fix '$fix': $(cat "$T/e")"
mkdir -p "$T/bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$CUDNNCTL" >"$T/bin/cudnnctl"
chmod 0755 "$T/bin/cudnnctl"
set +e
(cd "$U_HOME" && PATH="$T/bin:$PATH" bash -c "$fix") >"$T/o" 2>"$T/e2"
rc=$?
set -e
[ $rc != 9 ] || fail "the printed fix was refused again: $(cat "$T/e2")"
grep -qx "euid=$U_UID pid=[0-9]*" "$M/mapped" || fail "the fix did not validate as $U: $(cat "$M/mapped" 2>/dev/null)"
rm -f "$M/mapped"
echo "4. validate as root: exit 9 ($(sed 's/^cudnnctl: error: //' "$T/e" | head -c 160)...); the fix validates as $U (exit $rc)"

# 5. sudo -E: HOME (and USER) are the caller's
cat >"$T/profile" <<EOF
echo "\$(id -u) \$HOME" >>"$M/profile"
EOF
as_user "$U" cp "$T/profile" "$U_HOME/.bash_profile"
as_user "$U" env -i HOME="$U_HOME" bash -lic true >/dev/null 2>&1 || true
grep -q "^$U_UID " "$M/profile" || fail "control: the user's .bash_profile did not run for the user"
rm -f "$M/profile"
HOME=$U_HOME USER=$U "${RC[@]}" "${INST[@]}" --prefix "$T/rp2" --json >"$T/j" 2>"$T/e" ||
    fail "root's install with the caller's HOME: $(cat "$T/e")"
rs_expect_absent "$M/profile" "the login probe ran the caller's .bash_profile as root"
json_assert "$T/j" '[x for x in d["effective_load"] if x["scope"] == "login"][0]["mapped"]'
json_assert "$T/j" 'not [x for x in d["effective_load"] if x["scope"] == "login"][0]["not_run"]'
! grep -q "exit -1" "$T/e" || fail "the login probe timed out: $(cat "$T/e")"
echo "5. sudo -E HOME=$U_HOME: the login probe ran with root's passwd home, the caller's .bash_profile did not run"

# 6. root's own start-up files are not root's
mkdir -m 0755 "$T/roothome"
as_user "$U" cp "$T/profile" "$U_HOME/root.bash_profile"
cp -a "$U_HOME/root.bash_profile" "$T/roothome/.bash_profile" # keeps the user as owner
with_binds "$T/roothome:/root" "${RC[@]}" "${INST[@]}" --prefix "$T/rp3" --json >"$T/j" 2>"$T/e" ||
    fail "root's install with a /root/.bash_profile of the user: $(cat "$T/e")"
rs_expect_absent "$M/profile" "the login probe ran a /root/.bash_profile the user owns"
grep -q "a new login shell was not checked for libcudnn.so.9: not run as root: a login shell's start-up file: the file /root/.bash_profile is owned by uid $U_UID ($U)" "$T/e" ||
    fail "install must say why the login probe did not run: $(cat "$T/e")"
json_assert "$T/j" '[x for x in d["effective_load"] if x["scope"] == "login"][0]["not_run"] is True'
chown root:root "$T/roothome/.bash_profile"
with_binds "$T/roothome:/root" "${RC[@]}" "${INST[@]}" --prefix "$T/rp4" >/dev/null 2>"$T/e" ||
    fail "root's install with its own .bash_profile: $(cat "$T/e")"
grep -q "^0 /root$" "$M/profile" || fail "control: root's own .bash_profile did not run in the login probe"
rm -f "$M/profile"
with_etc_copy true
as_user "$U" cp "$T/profile" "$U_HOME/zz-user.sh"
cp -a "$U_HOME/zz-user.sh" "$RS_ETC/profile.d/zz-user.sh"
with_etc_copy "${RC[@]}" "${INST[@]}" --prefix "$T/rp5" >/dev/null 2>"$T/e" ||
    fail "root's install with an /etc/profile.d entry of the user: $(cat "$T/e")"
rs_expect_absent "$M/profile" "the login probe ran an /etc/profile.d entry the user owns"
grep -q "not run as root: .*/etc/profile.d/zz-user.sh is owned by uid $U_UID" "$T/e" ||
    fail "install must name /etc/profile.d/zz-user.sh: $(cat "$T/e")"
echo "6. root's start-up files owned by $U (/root/.bash_profile, /etc/profile.d): not run, said why; root's own: run"
echo "ok"
