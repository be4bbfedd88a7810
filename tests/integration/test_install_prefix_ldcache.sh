#!/usr/bin/env bash
# test_install_prefix_ldcache.sh: a prefix install (and its uninstall) as root, without --root,
# leaves the system's loader cache alone — plan says "ldconfig none: a prefix is not in the
# loader's path", and the run does what plan says. Run in a mount namespace over a copy of /etc
# (the machine's own /etc/ld.so.cache is never written): its ld.so.cache keeps bytes, inode and
# mtime through install and uninstall, the result's "ldconfig" says "none"; then a control — a
# real `ldconfig` in the same namespace — shows the check sees a rewrite when there is one.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
if [ -z "${CC_IN_NS:-}" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "needs root (ldconfig runs only as root)" >&2; exit 77; }
    LDC=$(command -v ldconfig || echo /sbin/ldconfig)
    [ -x "$LDC" ] && [ -f /etc/ld.so.cache ] || { echo "no ldconfig / ld.so.cache here" >&2; exit 77; }
    unshare -m true 2>/dev/null || { echo "unshare -m does not work here" >&2; exit 77; }
    exec env CC_IN_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d)
trap 'umount /etc 2>/dev/null || true; rm -rf "$T"' EXIT
cp -a /etc "$T/etc"
mount --bind "$T/etc" /etc # this namespace only: ldconfig's rename lands in the copy
export HOME=$T/home XDG_CONFIG_HOME=$T/cfg XDG_STATE_HOME=$T/st XDG_CACHE_HOME=$T/ca
mkdir -p "$HOME"
V=9.97.0.3
cli_make_archive "$T/www" $V
A=$T/www/cudnn/linux-x86_64/cudnn-linux-x86_64-${V}_cuda13-archive.tar.xz
SHA=$(sha256sum "$A" | cut -d' ' -f1)
stamp() { stat -c '%i %Y.%y %s' /etc/ld.so.cache; sha256sum </etc/ld.so.cache; }
stamp >"$T/before"
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state")

"${C[@]}" install --json --prefix "$T/px" --cuda 13 --archive "$A" --sha256 "$SHA" --no-validate \
    >"$T/inst.json" 2>"$T/err" || { cat "$T/err" >&2; fail "the prefix install failed"; }
[ -e "$T/px/current/lib/libcudnn.so.9" ] || fail "the prefix install put no libcudnn.so.9 in $T/px/current/lib"
"$PY" - "$T/inst.json" <<'PY' || fail "install --json: ldconfig is not 'none' for a prefix"
import json, sys
d = json.load(open(sys.argv[1]))
l = d.get("ldconfig") or (d.get("result") if isinstance(d.get("result"), dict) else {}).get("ldconfig")
print("ldconfig:", l)
sys.exit(0 if l and l.startswith("none") else 1)
PY
stamp >"$T/after-install"
cmp -s "$T/before" "$T/after-install" ||
    { diff "$T/before" "$T/after-install" >&2; fail "a prefix install rewrote /etc/ld.so.cache"; }

"${C[@]}" uninstall --prefix "$T/px" --all >"$T/un.out" 2>&1 || { cat "$T/un.out" >&2; fail "uninstall of the prefix"; }
stamp >"$T/after-uninstall"
cmp -s "$T/before" "$T/after-uninstall" ||
    { diff "$T/before" "$T/after-uninstall" >&2; fail "uninstalling a prefix rewrote /etc/ld.so.cache"; }

# control: the same check catches a real rewrite (ldconfig writes a new file and renames it)
sleep 1.1
ldconfig
stamp >"$T/after-ldconfig"
! cmp -s "$T/before" "$T/after-ldconfig" || fail "control: a real ldconfig run left no trace the check sees"
echo "ok: prefix install and uninstall leave /etc/ld.so.cache untouched (inode, mtime, bytes)"
