# rootsafe_lib.sh: helpers for the tests that play a local attacker against cudnnctl run as root
# (issue 18, docs/security.md "Running as root"). Sourced, not a test itself.
#
#   rs_init                  root + the tools, or exit 77; RS_T: a temp dir others may traverse
#   rs_on_exit 'CMD'         run CMD when the test exits (the lib owns the EXIT trap: use this)
#   make_user VAR            a new unprivileged user, unique name; sets VAR (the name), VAR_UID,
#                            VAR_GID, VAR_HOME (a dir under RS_T it owns, 0755); deleted on exit
#   as_user NAME CMD...      run CMD as that user (setpriv: real+effective ids, no supplementary
#                            groups, no capabilities), HOME/USER/LOGNAME set to theirs
#   with_etc_copy CMD...     run CMD in a private mount namespace where /etc is a copy (RS_ETC,
#                            made on the first call; the machine's /etc is never written): what CMD
#                            writes to /etc/ld.so.conf.d, /etc/profile.d, /etc/ld.so.cache lands
#                            in "$RS_ETC"/...
#   rs_marker_lib OUT SONAME MARKER
#                            a shared object with that SONAME whose constructor appends
#                            "euid=N pid=N" to MARKER: it proves that it was mapped, and by whom
#   rs_expect_absent FILE WHAT   fail (with WHAT) when FILE exists
#   rs_fail MSG              FAIL: MSG on stderr, exit 1
#
# Every test that uses it must be able to run as root on a CI machine without changing it: users
# are created with useradd and removed with userdel in the exit trap; nothing outside RS_T (and,
# for the users, /etc/passwd, /etc/group, /etc/shadow, /etc/gshadow) is touched.

rs_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

RS_EXIT_CMDS=()
rs_run_exit() {
    local i
    for ((i = ${#RS_EXIT_CMDS[@]} - 1; i >= 0; i--)); do
        eval "${RS_EXIT_CMDS[$i]}" || true
    done
}
rs_on_exit() { RS_EXIT_CMDS+=("$1"); }

rs_init() {
    [ "$(id -u)" = 0 ] || {
        echo "rootsafe: these attacks need root (CI runs as root)"
        exit 77
    }
    local t
    for t in useradd userdel setpriv unshare mount cc; do
        command -v "$t" >/dev/null 2>&1 || {
            echo "rootsafe: $t is not installed"
            exit 77
        }
    done
    RS_T=$(mktemp -d /tmp/cudnnctl-rootsafe.XXXXXX)
    chmod 0755 "$RS_T" # the users made below must reach their dirs inside it
    trap rs_run_exit EXIT
    rs_on_exit 'rm -rf "$RS_T"'
}

rs_random_hex() { od -An -N"${1:-4}" -tx1 /dev/urandom | tr -d ' \n'; }

make_user() {
    local var=$1 name
    name="ccrs$(rs_random_hex 5)"
    # -M: no home made by useradd (ours is under RS_T); -U: a group of the same name
    useradd -M -U -d "$RS_T/home/$name" -s /bin/sh "$name" >/dev/null ||
        rs_fail "useradd $name"
    rs_on_exit "userdel '$name' >/dev/null 2>&1; groupdel '$name' >/dev/null 2>&1"
    local uid gid
    uid=$(id -u "$name") && gid=$(id -g "$name") || rs_fail "id $name"
    mkdir -p "$RS_T/home/$name"
    chown "$uid:$gid" "$RS_T/home/$name"
    chmod 0755 "$RS_T/home/$name"
    printf -v "$var" '%s' "$name"
    printf -v "${var}_UID" '%s' "$uid"
    printf -v "${var}_GID" '%s' "$gid"
    printf -v "${var}_HOME" '%s' "$RS_T/home/$name"
}

as_user() {
    local name=$1
    shift
    local uid gid home
    uid=$(id -u "$name") && gid=$(id -g "$name") || rs_fail "no user $name"
    home=$(getent passwd "$name" | cut -d: -f6)
    setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all \
        env HOME="$home" USER="$name" LOGNAME="$name" "$@"
}

with_etc_copy() {
    if [ -z "${RS_ETC:-}" ]; then
        RS_ETC=$RS_T/etc
        # everything root can read; sockets, fifos and the like are not needed by anything here
        cp -a /etc "$RS_ETC" 2>/dev/null || [ -d "$RS_ETC" ] || rs_fail "cannot copy /etc"
    fi
    RS_ETC=$RS_ETC unshare -m --propagation private -- \
        bash -c 'mount --bind "$RS_ETC" /etc || exit 125; exec "$@"' with_etc_copy "$@"
}

rs_marker_lib() {
    local out=$1 soname=$2 marker=$3 src
    src=$(mktemp --suffix=.c)
    cat >"$src" <<EOF
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int cudnnctl_rootsafe_double(void) { return 1; }
__attribute__((constructor)) static void mapped(void)
{
    char line[64];
    int fd = open("$marker", O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd < 0)
        return;
    snprintf(line, sizeof(line), "euid=%u pid=%ld\n", (unsigned)geteuid(), (long)getpid());
    if (write(fd, line, strlen(line)) < 0)
        line[0] = 0;
    close(fd);
}
EOF
    cc -shared -fPIC -Wl,-soname,"$soname" -o "$out" "$src" || rs_fail "cc: marker library"
    rm -f "$src"
}

rs_expect_absent() {
    if [ -e "$1" ]; then
        echo "--- $1:" >&2
        cat "$1" >&2 2>/dev/null
        rs_fail "$2"
    fi
}
