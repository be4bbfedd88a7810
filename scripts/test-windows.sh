#!/usr/bin/env bash
# test-windows.sh: cross-build cudnnctl.exe and its unit tests for Windows x86_64 with mingw-w64 and
# run them under wine through CTest. Needs Debian 12 (apt); runs as root in CI (else uses sudo).
#
# Steps: (1) apt: mingw-w64 gcc, wine, dpkg-dev, zip, python3, cmake; (2) deb-src entries for
# bookworm, bookworm-updates and bookworm-security when apt has none; (3) the static dependency
# prefix (zlib, liblzma, libarchive, libcurl/Schannel, OpenSSL libcrypto, cJSON, cmocka) built from
# Debian source packages into a cache OUTSIDE the clone, keyed on this script, the toolchain file, the
# compiler and the source package versions; (4) cmake with cmake/mingw-w64.cmake, build;
# (5) a throwaway wine prefix (WINEDEBUG=-all, no display) and ctest (CMAKE_CROSSCOMPILING_EMULATOR=wine).
#
# Environment: CUDNNCTL_WIN_DEPS   use/build the dependency prefix here instead of the keyed cache
#              CUDNNCTL_WIN_BUILD  build dir (default <clone>/build/win64)
#              CUDNNCTL_WIN_JOBS   make jobs (default 2)
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLCHAIN="$SRC/cmake/mingw-w64.cmake"
BUILD=${CUDNNCTL_WIN_BUILD:-$SRC/build/win64}
JOBS=${CUDNNCTL_WIN_JOBS:-2}
SRC_PKGS=(zlib xz-utils libarchive curl openssl cmocka cjson)
T0=$(date +%s)

say() { printf 'test-windows: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
stamp() { say "[$(( $(date +%s) - T0 ))s] $*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and no sudo: cannot install packages"
  SUDO="sudo"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cudnnctl-win.XXXXXX")
WINE_STARTED=0
cleanup() {
  local rc=$?
  if [ "$WINE_STARTED" = 1 ]; then WINEPREFIX="$TMP/wineprefix" wineserver -k 2>/dev/null || true; fi
  rm -rf "$TMP"
  exit $rc
}
trap cleanup EXIT

# ---- 1. toolchain + wine ----------------------------------------------------------------------------
APT_PKGS=(gcc-mingw-w64-x86-64-win32 wine wine64 dpkg-dev zip python3 cmake make perl ca-certificates)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
APT_UPDATED=0
apt_update() { [ "$APT_UPDATED" = 1 ] || { $SUDO apt-get update -qq; APT_UPDATED=1; }; }
if [ ${#missing[@]} -gt 0 ]; then
  stamp "apt-get install ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# the wine tests fetch NVIDIA's Windows cuDNN wheel once with pip (a fresh Debian 12 has no pip)
if ! command -v pip >/dev/null && ! python3 -m pip --version >/dev/null 2>&1; then
  stamp "apt-get install python3-pip"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
fi
command -v x86_64-w64-mingw32-gcc >/dev/null || die "x86_64-w64-mingw32-gcc missing after apt"
command -v wine >/dev/null || die "wine missing after apt (Debian 12: package 'wine' provides the command)"

# ---- 2. deb-src entries -----------------------------------------------------------------------------
src_releases() { apt-get indextargets --format '$(RELEASE)' 'Identifier: Sources' 2>/dev/null | sort -u; }
ensure_deb_src() {
  local have want=(bookworm bookworm-updates bookworm-security) need=() r
  have=$(src_releases)
  for r in "${want[@]}"; do grep -qx "$r" <<<"$have" || need+=("$r"); done
  [ ${#need[@]} -eq 0 ] && return 0
  # Mirror URIs from the existing configuration (deb822 *.sources or one-line *.list), else deb.debian.org.
  local main_uri sec_uri
  main_uri=$(apt-get indextargets --format '$(SITE) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
             awk '$2=="bookworm"{print $1; exit}')
  sec_uri=$(apt-get indextargets --format '$(SITE) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
            awk '$2=="bookworm-security"{print $1; exit}')
  main_uri=${main_uri:-http://deb.debian.org/debian}
  sec_uri=${sec_uri:-http://deb.debian.org/debian-security}
  local main_suites="" sec_suites=""
  for r in "${need[@]}"; do
    case $r in *-security) sec_suites+=" $r" ;; *) main_suites+=" $r" ;; esac
  done
  local f
  if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1 || [ ! -e /etc/apt/sources.list ]; then
    f=/etc/apt/sources.list.d/cudnnctl-deb-src.sources
    {
      [ -n "$main_suites" ] && printf 'Types: deb-src\nURIs: %s\nSuites:%s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' "$main_uri" "$main_suites"
      [ -n "$sec_suites" ] && printf 'Types: deb-src\nURIs: %s\nSuites:%s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$sec_uri" "$sec_suites"
      true
    } | $SUDO tee "$f" >/dev/null
  else
    f=/etc/apt/sources.list.d/cudnnctl-deb-src.list
    {
      for r in $main_suites; do echo "deb-src $main_uri $r main"; done
      for r in $sec_suites; do echo "deb-src $sec_uri $r main"; done
    } | $SUDO tee "$f" >/dev/null
  fi
  stamp "added deb-src for${main_suites}${sec_suites} in $f"
  APT_UPDATED=0
  apt_update
  have=$(src_releases)
  grep -qx bookworm <<<"$have" || die "apt has no bookworm Sources index after adding $f"
}

# ---- 3. static dependency prefix --------------------------------------------------------------------
dsc_names() { apt-get source --print-uris "${SRC_PKGS[@]}" 2>/dev/null | awk '{print $2}' | grep '\.dsc$' | sort; }

if [ -n "${CUDNNCTL_WIN_DEPS:-}" ]; then
  DEPS=$CUDNNCTL_WIN_DEPS
else
  ensure_deb_src
  DSCS=$(dsc_names)
  [ "$(wc -l <<<"$DSCS")" -eq ${#SRC_PKGS[@]} ] || { apt_update; DSCS=$(dsc_names); }
  [ "$(wc -l <<<"$DSCS")" -eq ${#SRC_PKGS[@]} ] ||
    die "apt-get source --print-uris did not name one .dsc per package (${SRC_PKGS[*]}): $DSCS"
  KEY=$( { cat "$SRC/scripts/win-deps.sh" "$TOOLCHAIN"; x86_64-w64-mingw32-gcc --version; echo "$DSCS"; } | sha256sum | cut -c1-16)
  DEPS=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-win-deps/$KEY
fi

if [ ! -f "$DEPS/.done" ]; then ensure_deb_src; fi
if [ -f "$DEPS/.done" ]; then
  stamp "dependency prefix cached: $DEPS"
else
  stamp "building the dependency prefix into $DEPS (cold: about 6 minutes)"
  rm -rf "$DEPS.partial"
  bash "$SRC/scripts/win-deps.sh" "$DEPS.partial" || { apt_update; bash "$SRC/scripts/win-deps.sh" "$DEPS.partial"; }
  touch "$DEPS.partial/.done"
  rm -rf "$DEPS"
  mv "$DEPS.partial" "$DEPS"
  stamp "dependency prefix ready ($(du -sh "$DEPS" | cut -f1))"
fi

# ---- 4. cross-build cudnnctl.exe and the tests ------------------------------------------------------
if [ "$(cat "$BUILD/.cudnnctl-win-deps" 2>/dev/null)" != "$DEPS" ]; then
  rm -rf "$BUILD" # configured against another dependency prefix (or never): cached finds are stale
fi
stamp "configuring $BUILD"
cmake -S "$SRC" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCUDNNCTL_WIN_DEPS="$DEPS" \
  -DCMAKE_PREFIX_PATH="$DEPS" -DOPENSSL_ROOT_DIR="$DEPS" -DOPENSSL_USE_STATIC_LIBS=TRUE \
  -DCUDNNCTL_WERROR=ON >"$TMP/configure.log" 2>&1 || { cat "$TMP/configure.log" >&2; die "cmake configure failed"; }
echo "$DEPS" >"$BUILD/.cudnnctl-win-deps"
stamp "building"
cmake --build "$BUILD" -j"$JOBS" >"$TMP/build.log" 2>&1 || { grep -v '^\[' "$TMP/build.log" | tail -n 60 >&2; die "build failed"; }
[ -f "$BUILD/cudnnctl.exe" ] || die "no $BUILD/cudnnctl.exe after the build"
x86_64-w64-mingw32-objdump -p "$BUILD/cudnnctl.exe" | awk '/DLL Name/{print $3}' | sort -f >"$TMP/imports"
say "cudnnctl.exe: $(stat -c %s "$BUILD/cudnnctl.exe") bytes; imports: $(tr '\n' ' ' <"$TMP/imports")"
if grep -viE '^(advapi32|bcrypt|crypt32|kernel32|msvcrt|user32|ws2_32|psapi|shell32|ole32|gdi32|secur32|normaliz|iphlpapi|wldap32)\.dll$' \
     "$TMP/imports" >&2; then
  die "cudnnctl.exe imports a non-system DLL (above): the link is not fully static"
fi

# ---- 5. wine + ctest --------------------------------------------------------------------------------
export WINEPREFIX="$TMP/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
unset DISPLAY WAYLAND_DISPLAY
stamp "creating the wine prefix"
WINE_STARTED=1
# One persistent server for all tests. wineboot starts wine's service processes (services.exe, ...),
# which live as long as the server: start them here with /dev/null as stdio, or the first test would
# start them holding its output pipe open and ctest would wait for that pipe forever.
mkdir -p "$WINEPREFIX"
wineserver -p
wine wineboot --init </dev/null >/dev/null 2>&1 || die "wine wineboot --init failed"
stamp "running ctest under wine"
rc=0
(cd "$BUILD" && ctest --output-on-failure -j"$JOBS") || rc=$?
for z in "$BUILD"/dist/cudnnctl-*-windows-x86_64.zip; do  # made by tests/windows/test_windows_package.sh
  [ -f "$z" ] && stamp "Windows package: $z, manifests in $BUILD/dist/manifests"
done
stamp "done (ctest rc=$rc)"
exit $rc
