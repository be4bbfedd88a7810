#!/usr/bin/env bash
# test_install_freespace.sh: the free-space bomb limit through the real binary (docs/security.md
# "Bomb limits"): a prefix on a 64 MiB tmpfs, an archive of ~15 KB whose one entry declares
# 100 MiB (zeros: under the ratio cap, over the free space) → exit 4 naming the entry and the
# free space, nothing written on the tmpfs. Needs a tmpfs: mounted as root, else inside a user
# and mount namespace (unshare -rm); where neither works the test exits 77.
set -euo pipefail
if [ "$(id -u)" -ne 0 ] && [ -z "${CUDNNCTL_IN_USERNS:-}" ]; then
  if unshare -rm true 2>/dev/null; then
    exec env CUDNNCTL_IN_USERNS=1 unshare -rm bash "$0" "$@"
  fi
  echo "test_install_freespace: cannot mount a tmpfs (not root, no user namespaces): skipped" >&2
  exit 77
fi
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
cleanup() {
  mountpoint -q "$T/root/small" 2>/dev/null && umount "$T/root/small"
  rm -rf "$T"
}
trap cleanup EXIT
C=("$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache")
S="$T/root/srv"
mkdir -p "$S" "$T/root/small"
if ! mount -t tmpfs -o size=64m tmpfs "$T/root/small" 2>/dev/null; then
  echo "test_install_freespace: mount -t tmpfs failed here: skipped" >&2
  exit 77
fi
base=$(make_archive "$S" 9.19.0.56 "libcudnn libcudnn_graph" tiny)
top=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
t=cudnn-linux-x86_64-9.19.0.56_cuda13-space-archive
cp -a "$S/build-9.19.0.56/$top" "$S/$t"
head -c 100M /dev/zero > "$S/$t/include/cudnn_fat.h"
tar -C "$S" -cf - "$t" | xz -T1 -1 > "$S/$t.tar.xz"
rm -rf "$S/$t"
[ "$(stat -c %s "$S/$t.tar.xz")" -lt $((4 << 20)) ] || fail "the archive is not small"
set +e
"${C[@]}" install --prefix /small/p --archive "$S/$t.tar.xz" \
  --sha256 "$(sha256sum "$S/$t.tar.xz" | cut -d' ' -f1)" --no-validate > "$T/out" 2> "$T/err"
rc=$?
set -e
[ $rc -eq 4 ] || { cat "$T/err"; fail "an entry larger than the free space: exit $rc, want 4"; }
grep -q "archive too large for the free space: entry '$t/include/cudnn_fat.h' brings the declared unpacked size to 1[0-9][0-9].[0-9] MiB, but the staging filesystem had 6[0-9].[0-9] MiB free" "$T/err" \
  || { cat "$T/err"; fail "the free-space refusal does not name the entry and the space"; }
used=$(find "$T/root/small" -mindepth 1 -not -type d | wc -l)
[ "$used" -eq 0 ] || { find "$T/root/small" >&2; fail "the refusal left $used files on the tmpfs"; }
no_leftovers "$T/root/small"
# the same archive fits on the real disk (the refusal was the free space, not the archive)
"${C[@]}" install --prefix /opt/big --archive "$S/$t.tar.xz" \
  --sha256 "$(sha256sum "$S/$t.tar.xz" | cut -d' ' -f1)" --no-validate > /dev/null 2> "$T/err" \
  || { cat "$T/err"; fail "the archive did not install where there is room"; }
[ "$(stat -c %s "$T/root/opt/big/cudnn-9.19.0.56-cuda13/include/cudnn_fat.h")" -eq $((100 << 20)) ] \
  || fail "the big entry was not installed in full"
echo "ok: the free-space limit"
