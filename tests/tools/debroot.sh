#!/usr/bin/env bash
# debroot.sh DEST: a clean Debian 12 (bookworm) root in DEST, for the package tests (a .deb
# installed into it, the Ansible role run into three of them through the chroot connection).
#
# The root is made once by mmdebstrap (variant apt + BASE_PKGS below) and cached as a tarball
# OUTSIDE the clone, in ${XDG_CACHE_HOME:-~/.cache}/cudnnctl-test/debroot/, keyed on the package
# list, the mirrors and the ISO week: a week-old root is remade so it keeps up with
# bookworm's point releases, and no CI run pays for it twice in a week. Cold: 45-170 s on the shared
# 2-core CI machine (167 MiB tarball); warm: extracting it takes ~2 s.
# Exit 77 (the CTest skip code) when not root (chroot needs it) or when there is no cached root
# and mmdebstrap cannot make one (no mirror reachable); exit 1 when mmdebstrap is missing.
set -euo pipefail
DEST=${1:?usage: debroot.sh DEST}
# what the tests run inside: a compiler, pkg-config and cmake for the consumers, man-db and
# bash-completion for the man page and completion checks, python3(-apt) for Ansible's modules,
# libcjson1 (the one Depends of the .deb that cmake does not pull in already)
BASE_PKGS=gcc,libc6-dev,pkgconf,cmake,make,man-db,bash-completion,python3,python3-apt,ca-certificates,libcjson1,libinih1,libisal2
MIRROR=${CUDNNCTL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SEC_MIRROR=${CUDNNCTL_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
say() { echo "debroot: $*" >&2; }
[ "$(id -u)" -eq 0 ] || { say "not root: chroot and mmdebstrap --mode=root need root (skipped)"; exit 77; }
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/debroot
KEY=$(echo "mmdebstrap --variant=apt $BASE_PKGS $MIRROR $SEC_MIRROR $(date -u +%G-W%V)" | sha256sum | cut -c1-16)
TARBALL=$CACHE/bookworm-$KEY.tar.zst
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9  # one builder at a time; the others wait and then use its tarball
if [ ! -s "$TARBALL" ]; then
    command -v mmdebstrap >/dev/null || { say "mmdebstrap is missing: run scripts/bootstrap (apt-get install mmdebstrap)"; exit 1; }
    say "making a Debian 12 root with mmdebstrap (cached as $TARBALL)"
    t0=$(date +%s)
    if ! mmdebstrap --mode=root --variant=apt --include="$BASE_PKGS" bookworm "$TARBALL.partial.tar.zst" \
            "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" \
            "deb $SEC_MIRROR bookworm-security main" >"$CACHE/mmdebstrap.log" 2>&1; then
        tail -n 20 "$CACHE/mmdebstrap.log" >&2
        rm -f "$TARBALL.partial.tar.zst"
        say "mmdebstrap failed (no Debian mirror reachable?) and no cached root: skipped"
        exit 77
    fi
    mv "$TARBALL.partial.tar.zst" "$TARBALL"
    find "$CACHE" -maxdepth 1 -name 'bookworm-*.tar.zst' ! -name "$(basename "$TARBALL")" -delete
    say "made in $(( $(date +%s) - t0 )) s ($(du -h "$TARBALL" | cut -f1))"
fi
exec 9>&-  # the tarball is there: extract in parallel with other tests
mkdir -p "$DEST"
tar --zstd -xf "$TARBALL" -C "$DEST"
