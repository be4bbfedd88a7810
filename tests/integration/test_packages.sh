#!/usr/bin/env bash
# test_packages.sh: the packages CPack makes, and the .deb installed into a clean Debian 12 root.
#  1. cpack -G DEB;RPM;TGZ from this build. Each package carries exactly what `cmake --install
#     --prefix /usr` installs (so man pages and completions too, once the tree installs them),
#     except what docs/packaging.md lists per format (packaging/cpack_tree.cmake): the DEB adds
#     share/doc/cudnnctl/changelog.gz, the RPM has the zsh completion in Fedora's site-functions;
#     `dpkg -c` / `rpm -qpl` list binary, library, headers, pkg-config, CMake config, docs, LICENSE;
#     no package holds cudnnctl_test.h or an uncompressed man page.
#     The .deb's Depends (dpkg-shlibdeps) and the RPM's Requires name libarchive, libcurl,
#     OpenSSL's libcrypto and cJSON. lintian on the .deb: no error, and every warning is one
#     docs/packaging.md explains; its control area has the ldconfig trigger and no maintainer
#     script; its Maintainer is CUDNNCTL_MAINTAINER; `rpm -qip` shows the package's own
#     description (not CPack's placeholder) and the maintainer as Packager.
#  2. A clean bookworm root (tests/tools/debroot.sh: mmdebstrap, cached outside the clone); in it
#     (chroot): `dpkg -i` the .deb without forcing; every library the binary and libcudnnctl.so.0
#     load belongs to a package the .deb depends on; `cudnnctl --version` (or --print-version);
#     `man -w cudnnctl`; bash completion; `cudnnctl detect`; demo.c built through pkg-config and
#     through find_package(cudnnctl) and run with no LD_LIBRARY_PATH (the ldconfig trigger ran);
#     `dpkg --purge` removes every file and the loader forgets libcudnnctl.so.0.
# Needs root (chroot) and mmdebstrap + rpm (scripts/bootstrap); exit 77 when not root.
set -euo pipefail
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${BUILD_DIR:?BUILD_DIR must be the build tree}"
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "NOTE: $*" >&2; }
[ "$(id -u)" -eq 0 ] || { echo "test_packages: not root: chroot needs root (skipped)" >&2; exit 77; }
command -v rpmbuild >/dev/null || fail "rpmbuild is missing: run scripts/bootstrap (apt-get install rpm)"
command -v lintian >/dev/null || fail "lintian is missing: run scripts/bootstrap (apt-get install lintian)"
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-packages-XXXXXX")
trap 'rm -rf "$T"' EXIT
VER=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$BUILD_DIR/CPackConfig.cmake")
[ -n "$VER" ] || fail "no CPACK_PACKAGE_VERSION in $BUILD_DIR/CPackConfig.cmake"

# ---- 1. the packages --------------------------------------------------------------------------------
t0=$(date +%s)
cpack --config "$BUILD_DIR/CPackConfig.cmake" -G "DEB;RPM;TGZ" -B "$T/dist" >"$T/cpack.log" 2>&1 ||
    { tail -n 40 "$T/cpack.log"; fail "cpack"; }
DEB=$T/dist/cudnnctl_${VER}_amd64.deb
RPM=$T/dist/cudnnctl-${VER}-1.x86_64.rpm
TGZ=$T/dist/cudnnctl-${VER}-Linux.tar.gz
for f in "$DEB" "$RPM" "$TGZ"; do [ -s "$f" ] || fail "cpack made no $(basename "$f") ($(ls "$T/dist"))"; done
echo "cpack: $(( $(date +%s) - t0 )) s" >&2

# what `cmake --install` puts under /usr: the packages must carry exactly that
DESTDIR=$T/ref cmake --install "$BUILD_DIR" --prefix /usr >/dev/null
(cd "$T/ref" && find . \( -type f -o -type l \) | sed 's|^\./|/|' | sort) >"$T/ref.list"
dpkg-deb --fsys-tarfile "$DEB" | tar -t | grep -v '/$' | sed 's|^\./|/|' | sort >"$T/deb.list"
rpm -qpl "$RPM" 2>/dev/null | sort >"$T/rpm.all"
tar -tzf "$TGZ" | grep -v '/$' | sed "s|^cudnnctl-${VER}-Linux||" | sort >"$T/tgz.list"
# the per-format differences (packaging/cpack_tree.cmake)
{ cat "$T/ref.list"; echo /usr/share/doc/cudnnctl/changelog.gz; } | sort >"$T/ref.deb"
sed 's|^/usr/share/zsh/vendor-completions/_cudnnctl$|/usr/share/zsh/site-functions/_cudnnctl|' "$T/ref.list" | sort >"$T/ref.rpm"
diff -u "$T/ref.deb" "$T/deb.list" || fail "the .deb does not hold what cmake --install installs + changelog.gz (- missing, + extra)"
diff -u "$T/ref.list" "$T/tgz.list" || fail "the .tar.gz does not hold what cmake --install installs"
comm -23 "$T/ref.rpm" "$T/rpm.all" >"$T/rpm.missing"
[ ! -s "$T/rpm.missing" ] || fail "the RPM lacks: $(cat "$T/rpm.missing")"
! grep -q '/usr/share/zsh/vendor-completions' "$T/rpm.all" || fail "the RPM has Debian's zsh path: $(grep zsh "$T/rpm.all")"
for l in deb.list rpm.all tgz.list; do
    ! grep -E '/cudnnctl_test\.h$|/man1/[^/]*\.1$' "$T/$l" || fail "$l: a test header or an uncompressed man page (above)"
done
dpkg -c "$DEB" >"$T/dpkg-c"
for re in ' \./usr/bin/cudnnctl$' ' \./usr/lib/(x86_64-linux-gnu/)?libcudnnctl\.so\.0\.[0-9.]+$' \
          ' \./usr/lib/(x86_64-linux-gnu/)?libcudnnctl\.so\.0 -> ' ' \./usr/include/cudnnctl/cudnnctl\.h$' \
          ' \./usr/include/cudnnctl/errors\.def$' ' \./usr/lib/(x86_64-linux-gnu/)?pkgconfig/cudnnctl\.pc$' \
          ' \./usr/lib/(x86_64-linux-gnu/)?cmake/cudnnctl/cudnnctlConfig\.cmake$' \
          ' \./usr/share/doc/cudnnctl/(LICENSE|copyright)$' ' \./usr/share/doc/cudnnctl/docs/install\.md$'; do
    grep -Eq "$re" "$T/dpkg-c" || fail "dpkg -c does not list $re"
    grep -Eq "${re# \\.}" "$T/rpm.all" || [[ $re == *' -> '* ]] || fail "rpm -qpl does not list ${re# \\.}"
done
MAN=$(grep -E '^/usr/share/man/man1/cudnnctl\.1(\.gz)?$' "$T/ref.list" || true)
BASHCOMP=$(grep -E '^/usr/share/bash-completion/completions/cudnnctl$' "$T/ref.list" || true)
[ -n "$MAN" ] || note "this tree installs no man page yet (cli branch): man -w must find none"
[ -n "$BASHCOMP" ] || note "this tree installs no bash completion yet (cli branch): checked absent"
deps=$(dpkg-deb -f "$DEB" Depends)
for p in libc6 libarchive13 libcurl4 libssl3 libcjson1; do
    grep -Eq "(^|, )$p( |,|$)" <<<"$deps" || fail ".deb Depends lacks $p: $deps"
done
# ---- lintian, the control area, the descriptions ---------------------------------------------------
# lintian's exit status: 0 no error, 1 errors found, 2 it could not run
rc=0; lintian --tag-display-limit 0 "$DEB" >"$T/lintian" 2>"$T/lintian.err" || rc=$?
[ $rc -le 1 ] || { cat "$T/lintian.err"; fail "lintian did not run (exit $rc)"; }
! grep '^E: ' "$T/lintian" && [ $rc -eq 0 ] || fail "lintian reports errors on the .deb (above; exit $rc)"
# every warning is explained in docs/packaging.md's table ("| `tag` | ... |")
sed -n 's/^W: cudnnctl: \([a-z0-9-]*\).*/\1/p' "$T/lintian" | sort -u >"$T/warn.tags"
while read -r tag; do
    grep -q "^| \`$tag\` |" "$SOURCE_DIR/docs/packaging.md" ||
        fail "lintian warning $tag is neither fixed nor explained in docs/packaging.md: $(grep "$tag" "$T/lintian")"
done <"$T/warn.tags"
dpkg-deb -e "$DEB" "$T/control"
[ "$(grep -v '^#' "$T/control/triggers")" = "activate-noawait ldconfig" ] || fail "the .deb's triggers: $(cat "$T/control/triggers" 2>&1)"
for f in postinst postrm preinst prerm; do [ ! -e "$T/control/$f" ] || fail "the .deb has a $f: $(cat "$T/control/$f")"; done
MAINT=$(sed -n 's/^CUDNNCTL_MAINTAINER:STRING=//p' "$BUILD_DIR/CMakeCache.txt")
[ -n "$MAINT" ] && [ "$(dpkg-deb -f "$DEB" Maintainer)" = "$MAINT" ] || fail "Maintainer: $(dpkg-deb -f "$DEB" Maintainer), CUDNNCTL_MAINTAINER: $MAINT"
dpkg-deb --fsys-tarfile "$DEB" | tar -xOf - ./usr/share/doc/cudnnctl/changelog.gz | zcat >"$T/changelog"
head -n1 "$T/changelog" | grep -q "^cudnnctl ($VER) " || fail "changelog.gz does not start with cudnnctl ($VER): $(head -n1 "$T/changelog")"
grep -q "^ -- $MAINT  " "$T/changelog" || fail "changelog.gz's trailer is not by $MAINT: $(grep '^ -- ' "$T/changelog")"
rpm -qip "$RPM" 2>/dev/null >"$T/rpm.info"
sed -n '/^Description :$/,$p' "$T/rpm.info" | tail -n +2 >"$T/rpm.desc"
dpkg-deb -f "$DEB" Description | tail -n +2 | sed 's/^ //' >"$T/deb.desc"
grep -q '^cudnnctl detects CUDA toolkits' "$T/rpm.desc" && ! grep -qi 'cpack' "$T/rpm.desc" ||
    fail "rpm -qip shows no real description: $(cat "$T/rpm.desc")"
diff -u "$T/deb.desc" "$T/rpm.desc" || fail "the RPM's and the DEB's descriptions differ"
grep -q "^Packager *: $MAINT$" "$T/rpm.info" || fail "rpm -qip Packager: $(grep Packager "$T/rpm.info")"

rpm -qpR "$RPM" 2>/dev/null >"$T/rpm.req"
for r in 'libarchive\.so\.13' 'libcurl\.so\.4' 'libcrypto\.so\.3' 'libcjson\.so\.1'; do
    grep -q "^$r" "$T/rpm.req" || fail "the RPM does not require $r: $(tr '\n' ' ' <"$T/rpm.req")"
done

# ---- 2. a clean Debian 12 root ------------------------------------------------------------------------
R=$T/root
t0=$(date +%s)
rc=0; bash "$SOURCE_DIR/tests/tools/debroot.sh" "$R" || rc=$?
[ $rc -eq 0 ] || exit $rc
echo "debian root: $(( $(date +%s) - t0 )) s" >&2
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
cp "$DEB" "$R/tmp/"
mkdir -p "$R/tmp/consumer" && cp "$SOURCE_DIR"/tests/packaging/consumer/* "$R/tmp/consumer/"
in_root dpkg -i "/tmp/$(basename "$DEB")" >"$T/dpkg-i.log" 2>&1 || { cat "$T/dpkg-i.log"; fail "dpkg -i into the clean root"; }
# every library the binary and libcudnnctl.so.0 link directly (DT_NEEDED) comes from a package the
# .deb depends on (what they pull in themselves is their packages' business)
LIBSO=$(cd "$R" && ls usr/lib/libcudnnctl.so.0 usr/lib/*/libcudnnctl.so.0 2>/dev/null | head -n1 || true)
[ -n "$LIBSO" ] || fail "no libcudnnctl.so.0 under /usr/lib in the root"
for obj in /usr/bin/cudnnctl "/$LIBSO"; do
    in_root ldd "$obj" >"$T/ldd" || fail "ldd $obj in the root"
    ! grep -q 'not found' "$T/ldd" || fail "unresolved libraries of $obj in the root: $(grep 'not found' "$T/ldd")"
    for need in $(readelf -d "$R$obj" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        lib=$(awk -v n="$need" '$1 == n && $2 == "=>" {print $3}' "$T/ldd")
        [ -n "$lib" ] || lib=$(awk -v n="$need" 'index($1, "/" n) {print $1}' "$T/ldd")
        [ -n "$lib" ] || fail "$obj needs $need, which ldd does not resolve in the root"
        owner=$(in_root dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1) ||
            owner=$(in_root dpkg -S "$(in_root readlink -f "$lib")" 2>/dev/null | head -n1 | cut -d: -f1) || true
        [ -n "$owner" ] || fail "no package owns $lib ($need) in the root"
        grep -Eq "(^|, )$owner( |,|$)" <<<"$deps" || fail "$obj needs $need from $owner, which the .deb does not depend on ($deps)"
    done
done

out=$(in_root cudnnctl --version 2>&1) || out=$(in_root cudnnctl --print-version 2>&1) ||
    fail "neither cudnnctl --version nor --print-version works in the root: $out"
grep -q "^cudnnctl $VER" <<<"$out" || fail "version in the root: $out"

if [ -n "$MAN" ]; then
    [ "$(in_root man -w cudnnctl)" = "$MAN" ] || fail "man -w cudnnctl: $(in_root man -w cudnnctl 2>&1)"
    in_root sh -c 'MANWIDTH=80 man cudnnctl 2>/dev/null' | grep 'cudnnctl' >/dev/null || fail "man cudnnctl renders nothing"
else
    ! in_root man -w cudnnctl >/dev/null 2>&1 || fail "man -w finds a cudnnctl page the package does not hold"
fi
if [ -n "$BASHCOMP" ]; then
    comp=$(in_root bash -c '. /usr/share/bash-completion/bash_completion; . '"$BASHCOMP"'
        f=$(complete -p cudnnctl | sed -n "s/.*-F \([^ ]*\) .*/\1/p"); [ -n "$f" ] || exit 3
        COMP_WORDS=(cudnnctl det); COMP_CWORD=1; COMP_LINE="cudnnctl det"; COMP_POINT=${#COMP_LINE}
        "$f" cudnnctl det cudnnctl; printf "%s\n" "${COMPREPLY[@]}"') || fail "bash completion in the root"
    grep -qx detect <<<"$comp" || fail "bash completion of 'cudnnctl det' gave: $comp"
else
    [ ! -e "$R/usr/share/bash-completion/completions/cudnnctl" ] || fail "a completion the package does not list"
fi

in_root cudnnctl --json detect >"$T/detect.json" || fail "cudnnctl detect in the root exited $?"
python3 - "$T/detect.json" <<'PY' || fail "detect in the root"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["platform"] == "linux-x86_64", d["platform"]
assert d["cudnn"] == [], "cuDNN copies in a root without cuDNN: %r" % d["cudnn"]
assert d["toolkits"] == [], d["toolkits"]
PY
in_root cudnnctl detect | grep '^platform: linux-x86_64' >/dev/null || fail "cudnnctl detect (text) in the root"

# C consumers: pkg-config, then find_package; run with the loader's own search (ldconfig trigger)
in_root sh -c 'cc -std=c11 -Wall -Werror -o /tmp/demo-pc /tmp/consumer/demo.c $(pkg-config --cflags --libs cudnnctl)' ||
    fail "demo.c through pkg-config in the root"
in_root ldd /tmp/demo-pc | grep -E 'libcudnnctl\.so\.0 => (/usr)?/lib/(x86_64-linux-gnu/)?libcudnnctl\.so\.0' >/dev/null ||
    fail "demo-pc does not load /usr/lib/libcudnnctl.so.0: $(in_root ldd /tmp/demo-pc)"
out=$(in_root /tmp/demo-pc) || fail "demo-pc in the root exited $?"
grep -Eq "^libcudnnctl $VER: [1-9][0-9]* archives from [1-9][0-9]* manifests" <<<"$out" || fail "demo-pc printed: $out"
in_root sh -c 'cmake -S /tmp/consumer -B /tmp/consumer-build >/tmp/cm.log 2>&1 && cmake --build /tmp/consumer-build >>/tmp/cm.log 2>&1' ||
    { cat "$R/tmp/cm.log"; fail "find_package(cudnnctl) consumer in the root"; }
out=$(in_root /tmp/consumer-build/demo) || fail "the find_package demo exited $?"
grep -q "^libcudnnctl $VER: " <<<"$out" || fail "find_package demo printed: $out"

# purge: every file gone, the loader cache forgets the library
in_root dpkg --purge cudnnctl >/dev/null 2>&1 || fail "dpkg --purge cudnnctl"
while read -r f; do [ ! -e "$R$f" ] && [ ! -L "$R$f" ] || fail "dpkg --purge left $f"; done <"$T/deb.list"
! in_root ldconfig -p | grep libcudnnctl >/dev/null || fail "ld.so.cache still lists libcudnnctl after the purge"
echo "PASS: DEB/RPM/TGZ hold the install tree ($(wc -l <"$T/ref.list") files); in a clean Debian 12 root: dpkg -i, deps complete, version, man ($([ -n "$MAN" ] && echo found || echo none installed yet)), completion ($([ -n "$BASHCOMP" ] && echo bash || echo none installed yet)), detect, pkg-config and find_package consumers, purge"
