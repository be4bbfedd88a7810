#!/usr/bin/env bash
# test_rootsafe_env_persist.sh (issue 18 item 3): root never registers, for every user, a dir that
# another user can write. A user who installed into their home was told `sudo cudnnctl env
# --persist --system --prefix /home/u/p`; once root ran it, the user's lib dir was in
# /etc/ld.so.conf.d and a libpam_misc.so.0 dropped there was loaded by `su` as root. As the
# attacker (a real unprivileged user) and as root, over a copy of /etc in a private mount
# namespace (the machine's /etc is never written):
#  1. the user's own install prints no `--persist --system` advice for their dir;
#  2. root's `env --persist --system --prefix /home/U/p` exits 9 naming the dir, its owner and
#     mode, writes nothing under /etc, and offers a root-owned prefix; that fix, run as printed
#     (with the test's archive for the download), installs, registers and the loader finds it;
#  3. a prefix under a world-writable non-sticky dir, a library writable by others, a library
#     owned by the user inside a root-owned dir: refused the same way;
#     doctor's "register it with the loader" fix is not offered for such a dir;
#  4. `use` that would rewrite an existing ld.so.conf.d entry to such a dir refuses before it
#     flips /usr/local/cuda;
#  5. legitimate use: a root-owned prefix whose path has spaces and quotes installs, activates
#     (eval in bash, dash, zsh, fish), persists per user and system-wide, ldconfig finds it.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
. "$SOURCE_DIR/tests/integration/rootsafe_lib.sh"
rs_init
T=$RS_T
unset LD_LIBRARY_PATH CUDNNCTL_ENV CUDA_HOME CUDA_PATH XDG_CONFIG_HOME
export HOME=$T/roothome
mkdir -p "$HOME"
A=$(make_archive "$T" 9.19.0.99 "libcudnn" tiny)
chmod -R a+rX "$T/build-9.19.0.99" "$A"
make_user U
RC=("$CUDNNCTL" --state-dir "$T/rstate" --cache-dir "$T/rcache")
INST=(install --archive "$A" --insecure-skip-verify --no-validate --no-ldconfig)
with_etc_copy true # RS_ETC: the copy of /etc every namespace below sees as /etc

# what cudnnctl may have written under the copied /etc
etc_state() {
    (cd "$RS_ETC" && find ld.so.conf.d profile.d -name '*cudnnctl*' 2>/dev/null | sort &&
        cat ld.so.conf.d/* profile.d/* ld.so.cache 2>/dev/null | sha256sum)
}
# expect_refused WHAT FILE: exit 9 (in $rc), nothing under /etc changed, no --persist --system fix
expect_refused() {
    [ "$rc" = 9 ] || fail "$1: exit $rc, want 9: $(cat "$2")"
    [ "$(etc_state)" = "$ETC0" ] || fail "$1: something was written under /etc"
    grep -q "nothing was written" "$2" || fail "$1: the refusal must say nothing was written: $(cat "$2")"
    ! grep -qE -- "fix: .*env --persist --system --prefix $T/(home|ww)" "$2" ||
        fail "$1: the refusal recommends --persist --system for the refused dir: $(cat "$2")"
}
ETC0=$(etc_state)

# 1. the user installs into their home: no --persist --system advice for that dir
as_user "$U" "$CUDNNCTL" --state-dir "$U_HOME/state" --cache-dir "$U_HOME/cache" "${INST[@]}" \
    --prefix "$U_HOME/p" >"$T/u.out" 2>"$T/u.err" || fail "the user's install: $(cat "$T/u.err")"
cat "$T/u.out" >>"$T/u.err" # the summary (stdout) carries the effective lines
! grep -q -- "--persist --system --prefix $U_HOME/p" "$T/u.err" ||
    fail "the user's install recommends registering their own dir for every user: $(grep persist "$T/u.err")"
grep -q "a new login shell maps" "$T/u.err" || fail "no login-shell line to check: $(cat "$T/u.err")"
grep -qF "sudo cudnnctl install --prefix /opt/cudnnctl --cudnn 9.19.0.99 --cuda 13 && sudo cudnnctl env --persist --system --prefix /opt/cudnnctl" "$T/u.err" ||
    fail "the login-shell fix should be a root-owned prefix: $(grep 'login shell' "$T/u.err")"
echo "1. the user's install offers a root-owned prefix, not --persist --system of $U_HOME/p"

# 2. root is asked to register it anyway
set +e
with_etc_copy "${RC[@]}" env --persist --system --prefix "$U_HOME/p" >"$T/o" 2>"$T/e"
rc=$?
set -e
expect_refused "env --persist --system of the user's prefix" "$T/e"
grep -qE "would register $U_HOME/p/(current|cudnn-9.19.0.99-cuda13)/lib for every user" "$T/e" ||
    fail "the refusal must name the lib dir: $(cat "$T/e")"
grep -qF "$U_HOME is owned by uid $U_UID ($U) with mode 0755 (owned by another user)" "$T/e" ||
    fail "the refusal must name the untrusted dir, its owner and mode: $(cat "$T/e")"
fix=$(sed -n 's/.*fix: install into a root-owned prefix and wire that instead: //p' "$T/e")
[ "$fix" = "cudnnctl install --prefix /opt/cudnnctl --cudnn 9.19.0.99 --cuda 13 && cudnnctl env --persist --system --prefix /opt/cudnnctl" ] ||
    fail "unexpected fix: '$fix' in $(cat "$T/e")"
echo "2. refused: $(sed 's/^cudnnctl: error: //' "$T/e" | head -c 300)..."
# the fix as printed; /opt is a fresh root-owned dir in the namespace, the archive stands in for
# the download
mkdir -m 0755 "$T/opt"
export RS_BINDS="$T/opt:/opt"
cudnnctl() {
    if [ "$1" = install ]; then
        "${RC[@]}" "$@" --archive "$A" --insecure-skip-verify --no-validate
    else
        "${RC[@]}" "$@"
    fi
}
with_etc_copy bash -c "$(declare -p RC A); $(declare -f cudnnctl); $fix" >"$T/fix.out" 2>"$T/fix.err" ||
    fail "the printed fix failed: $(cat "$T/fix.err")"
conf=$(cat "$RS_ETC"/ld.so.conf.d/cudnnctl-*.conf | grep -v '^#')
[ "$(head -1 <<<"$conf")" = "/opt/cudnnctl/cudnn-9.19.0.99-cuda13/lib" ] || fail "after the fix ld.so.conf.d has: $conf"
[ -f "$RS_ETC/profile.d/cudnnctl.sh" ] || fail "after the fix: no /etc/profile.d/cudnnctl.sh"
got=$(with_etc_copy env -i "$CUDNNCTL" __load-probe libcudnn.so.9 | sed -n 's/^cudnnctl-load: libcudnn.so.9 //p')
[ "$got" = "/opt/cudnnctl/cudnn-9.19.0.99-cuda13/lib/libcudnn.so.9" ] || fail "after the fix a fresh process maps $got"
echo "   the printed fix works: a fresh process maps $got"
rm -rf "$T/opt"/* && cp -a /etc/ld.so.conf.d/. "$RS_ETC/ld.so.conf.d/" && rm -f "$RS_ETC"/ld.so.conf.d/cudnnctl-* "$RS_ETC/profile.d/cudnnctl.sh" "$RS_ETC/fish/conf.d/cudnnctl.fish"
cp -a /etc/ld.so.cache "$RS_ETC/ld.so.cache"
unset RS_BINDS
ETC0=$(etc_state)

# 3a. a prefix under a world-writable, non-sticky dir (the user renames it and puts their own in)
mkdir -m 0755 "$T/ww"
"${RC[@]}" "${INST[@]}" --prefix "$T/ww/p" >/dev/null 2>"$T/e" || fail "root's install into $T/ww/p: $(cat "$T/e")"
chmod 0777 "$T/ww"
set +e
with_etc_copy "${RC[@]}" env --persist --system --prefix "$T/ww/p" >"$T/o" 2>"$T/e"
rc=$?
set -e
expect_refused "a prefix under a world-writable dir" "$T/e"
grep -qF "$T/ww is owned by uid 0 (root) with mode 0777 (writable by others)" "$T/e" ||
    fail "the refusal must name $T/ww and its mode: $(cat "$T/e")"
set +e
"${RC[@]}" "${INST[@]}" --prefix "$T/ww/q" >/dev/null 2>"$T/e"
rc=$?
set -e
# (the safe-path layer's refusal; its exit code is the lock's today: 9 once the lock lives in the
# target or the state dir, the lead's part of issue 18)
[ $rc != 0 ] && [ ! -e "$T/ww/q" ] && grep -qF "$T/ww is owned by uid 0 (root) with mode 0777 (writable by others)" "$T/e" ||
    fail "root installing under a world-writable dir: exit $rc: $(cat "$T/e")"
echo "3a. under a world-writable dir: refused (persist and install)"

# 3b. a root-owned prefix whose library others can write, then one the user owns
"${RC[@]}" "${INST[@]}" --prefix "$T/rp" >/dev/null 2>"$T/e" || fail "root's install into $T/rp: $(cat "$T/e")"
lib=$T/rp/cudnn-9.19.0.99-cuda13/lib/libcudnn.so.9.19.0
[ -f "$lib" ] || fail "no $lib"
for how in "chmod o+w" "chown $U"; do
    $how "$lib"
    set +e
    with_etc_copy "${RC[@]}" env --persist --system --prefix "$T/rp" >"$T/o" 2>"$T/e"
    rc=$?
    set -e
    expect_refused "a library after $how" "$T/e"
    grep -qE "the file $T/rp/(current|cudnn-9.19.0.99-cuda13)/lib/libcudnn.so.9.19.0 is owned by" "$T/e" ||
        fail "$how: the refusal must name $lib: $(cat "$T/e")"
    chmod o-w "$lib"
    chown root "$lib"
done
with_etc_copy "${RC[@]}" env --persist --system --no-ldconfig --prefix "$T/rp" >/dev/null 2>"$T/e" ||
    fail "control: the same prefix, put right, is registered: $(cat "$T/e")"
grep -qx "$T/rp/cudnn-9.19.0.99-cuda13/lib" "$RS_ETC"/ld.so.conf.d/cudnnctl-*.conf || fail "control: not registered"
rm -f "$RS_ETC"/ld.so.conf.d/cudnnctl-* "$RS_ETC/profile.d/cudnnctl.sh" "$RS_ETC/fish/conf.d/cudnnctl.fish"
ETC0=$(etc_state)
echo "3b. a library writable by others / owned by the user: refused, naming it; put right: registered"

# 3c. doctor does not advise registering a dir another user can write either
mkdir -p "$U_HOME/cuda-12.4/lib64" "$U_HOME/cuda-12.4/bin"
printf '{"cuda":{"version":"12.4.1"}}\n' >"$U_HOME/cuda-12.4/version.json"
elf_double "$U_HOME/cuda-12.4/lib64/libcudart.so.12" libcudart.so.12
chown -R "$U:$U" "$U_HOME/cuda-12.4"
CUDA_HOME=$U_HOME/cuda-12.4 "${RC[@]}" doctor --json >"$T/d.json" 2>/dev/null || true
json_assert "$T/d.json" '[f for f in d["findings"] if f["code"] == "TOOLKIT_NOT_IN_LOADER_PATH" and "must not be registered" in f["fix"] and "ld.so.conf.d" not in f["fix"] and not f.get("command")]'
echo "3c. doctor: the user's toolkit dir is not offered for /etc/ld.so.conf.d"

# 4. use would rewrite an existing ld.so.conf.d entry to the user's dir: refused before any flip
R=$T/root
for v in 12.4 13.0; do
    mkdir -p "$R/usr/local/cuda-$v/bin" "$R/usr/local/cuda-$v/lib64"
    printf '{"cuda":{"version":"%s.1"}}\n' "$v" >"$R/usr/local/cuda-$v/version.json"
done
ln -s cuda-12.4 "$R/usr/local/cuda"
mkdir -p "$R/etc/ld.so.conf.d" "$R/home/$U/p/cudnn-9.19.0.99-cuda13/lib"
printf '/usr/local/cuda-12.4/lib64\n' >"$R/etc/ld.so.conf.d/cudnnctl-cuda-12.4.conf"
cp "$T/rp/cudnn-9.19.0.99-cuda13/lib/libcudnn.so.9.19.0" "$R/home/$U/p/cudnn-9.19.0.99-cuda13/lib/"
chown -R "$U:$U" "$R/home/$U"
set +e
"$CUDNNCTL" --root "$R" --state-dir "$T/ustate" use 13.0 --prefix "/home/$U/p" >"$T/o" 2>"$T/e"
rc=$?
set -e
[ $rc = 9 ] || fail "use 13.0 with the user's prefix: exit $rc: $(cat "$T/e")"
grep -qE "use would register /home/$U/p/(current|cudnn-9.19.0.99-cuda13)/lib" "$T/e" || fail "use: the refusal must name the dir: $(cat "$T/e")"
[ "$(readlink "$R/usr/local/cuda")" = cuda-12.4 ] || fail "use flipped /usr/local/cuda before refusing"
[ "$(cat "$R/etc/ld.so.conf.d/cudnnctl-cuda-12.4.conf")" = /usr/local/cuda-12.4/lib64 ] || fail "use rewrote ld.so.conf.d"
[ ! -e "$R/home/$U/p/current" ] || fail "use flipped the user's prefix"
echo "4. use: refused before flipping anything"

# 5. legitimate: a root-owned prefix whose path has spaces and quotes
LP="$T/legit dir/it's \"q\" p"
LIBD="$LP/cudnn-9.19.0.99-cuda13/lib"
"${RC[@]}" "${INST[@]}" --prefix "$LP" >/dev/null 2>"$T/e" || fail "install into '$LP': $(cat "$T/e")"
for sh in bash dash zsh fish; do
    command -v $sh >/dev/null || continue
    name=${sh/dash/sh}
    "${RC[@]}" env --shell $name --prefix "$LP" >"$T/act" 2>"$T/e" || fail "env --shell $name: $(cat "$T/e")"
    if [ $sh = fish ]; then
        got=$(env -u LD_LIBRARY_PATH fish -c "source '$T/act'; printf '%s' \$LD_LIBRARY_PATH[1]")
    else
        got=$(env -u LD_LIBRARY_PATH $sh -c 'eval "$(cat "$0")"; printf %s "${LD_LIBRARY_PATH%%:*}"' "$T/act")
    fi
    [ "$got" = "$LIBD" ] || fail "$sh: LD_LIBRARY_PATH starts with '$got', want '$LIBD'"
done
"${RC[@]}" env --persist --shell bash --prefix "$LP" >/dev/null 2>"$T/e" || fail "env --persist: $(cat "$T/e")"
got=$(bash -c '. "$0"; printf %s "$CUDNNCTL_ENV"' "$HOME/.config/cudnnctl/env.sh")
[[ "$got" == *":$LP/current" || "$got" == *":$LP/cudnn-9.19.0.99-cuda13" ]] || fail "env.sh sets CUDNNCTL_ENV=$got"
with_etc_copy "${RC[@]}" env --persist --system --prefix "$LP" >/dev/null 2>"$T/e" || fail "env --persist --system: $(cat "$T/e")"
grep -qxF "$LIBD" "$RS_ETC"/ld.so.conf.d/cudnnctl-*.conf || fail "ld.so.conf.d does not name '$LIBD'"
got=$(with_etc_copy env -i "$CUDNNCTL" __load-probe libcudnn.so.9 | sed -n 's/^cudnnctl-load: libcudnn.so.9 //p')
[ "$got" = "$LIBD/libcudnn.so.9" ] || fail "after --persist --system a fresh process maps '$got'"
got=$(with_etc_copy env -i bash -c '. /etc/profile.d/cudnnctl.sh; printf %s "$CUDNNCTL_ENV"')
[[ "$got" == *":$LP/current" || "$got" == *":$LP/cudnn-9.19.0.99-cuda13" ]] || fail "profile.d/cudnnctl.sh sets CUDNNCTL_ENV=$got"
echo "5. a root-owned prefix with spaces and quotes: installs, activates (bash dash zsh fish), persists, the loader maps it"
echo "ok"
