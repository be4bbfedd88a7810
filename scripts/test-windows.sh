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
SELF="$SRC/scripts/test-windows.sh"
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
  KEY=$( { cat "$SELF" "$TOOLCHAIN"; x86_64-w64-mingw32-gcc --version; echo "$DSCS"; } | sha256sum | cut -c1-16)
  DEPS=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-win-deps/$KEY
fi

log_run() { # name cmd...: run with output in a log; show its tail on failure
  local name=$1; shift
  if ! "$@" >>"$TMP/$name.log" 2>&1; then
    tail -n 40 "$TMP/$name.log" >&2
    die "$name: '$*' failed (log above)"
  fi
}

build_deps() {
  local P=$1 W="$TMP/src"
  mkdir -p "$W" "$P"
  chmod 755 "$TMP" "$W" # apt-get source downloads as _apt when it can
  stamp "fetching Debian sources: ${SRC_PKGS[*]}"
  # One package at a time: a security mirror may list a version whose files are gone (404); then the
  # newest one of bookworm-updates or bookworm is taken (the cache key still names apt's pick).
  local p spec ok
  for p in "${SRC_PKGS[@]}"; do
    ok=0
    for spec in "$p" "$p/bookworm-updates" "$p/bookworm"; do
      if (cd "$W" && apt-get source --download-only "$spec" >>"$TMP/fetch.log" 2>&1); then ok=1; break; fi
      rm -f "$W/${p}_"*
      say "apt-get source $spec failed; trying an older suite"
    done
    [ $ok = 1 ] || { tail -n 20 "$TMP/fetch.log" >&2; die "cannot fetch the Debian source of $p"; }
  done
  for d in "$W"/*.dsc; do (cd "$W" && dpkg-source -x --no-check "$d" >/dev/null 2>&1) || die "dpkg-source -x $d"; done
  local TC=(-DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCUDNNCTL_WIN_DEPS="$P" -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_INSTALL_PREFIX="$P")
  local dir
  srcdir() { find "$W" -mindepth 1 -maxdepth 1 -type d -name "$1-*" | head -n1; }

  stamp "zlib"
  dir=$(srcdir zlib); (cd "$dir" && log_run zlib env CHOST=x86_64-w64-mingw32 CFLAGS=-O2 ./configure --static --prefix="$P" &&
    log_run zlib make -j"$JOBS" libz.a && log_run zlib make install)

  stamp "liblzma (xz-utils)"
  dir=$(srcdir xz-utils); (cd "$dir" && log_run xz ./configure --host=x86_64-w64-mingw32 --prefix="$P" --enable-static \
    --disable-shared --disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo --disable-lzma-links \
    --disable-scripts --disable-doc --disable-nls CFLAGS=-O2 &&
    log_run xz make -j"$JOBS" -C src/liblzma && log_run xz make -C src/liblzma install)

  stamp "libarchive"
  dir=$(srcdir libarchive)
  log_run libarchive cmake -S "$dir" -B "$dir/build-w64" "${TC[@]}" -DENABLE_OPENSSL=OFF -DENABLE_MBEDTLS=OFF \
    -DENABLE_NETTLE=OFF -DENABLE_CNG=OFF -DENABLE_LIBB2=OFF -DENABLE_LZ4=OFF -DENABLE_LZO=OFF -DENABLE_ZSTD=OFF \
    -DENABLE_BZip2=OFF -DENABLE_LIBXML2=OFF -DENABLE_EXPAT=OFF -DENABLE_PCREPOSIX=OFF -DENABLE_LIBGCC=OFF \
    -DPOSIX_REGEX_LIB=NONE -DENABLE_XATTR=OFF -DENABLE_ACL=OFF -DENABLE_ICONV=OFF -DENABLE_TAR=OFF \
    -DENABLE_CPIO=OFF -DENABLE_CAT=OFF -DENABLE_TEST=OFF -DENABLE_WERROR=OFF -DENABLE_LZMA=ON -DENABLE_ZLIB=ON \
    -DZLIB_LIBRARY="$P/lib/libz.a" -DZLIB_INCLUDE_DIR="$P/include" -DLIBLZMA_LIBRARY="$P/lib/liblzma.a" \
    -DLIBLZMA_INCLUDE_DIR="$P/include"
  log_run libarchive cmake --build "$dir/build-w64" -j"$JOBS" --target archive_static
  cp "$dir/build-w64/libarchive/libarchive_static.a" "$P/lib/libarchive.a"
  cp "$dir/libarchive/archive.h" "$dir/libarchive/archive_entry.h" "$P/include/"

  stamp "libcurl (Schannel, HTTP only)"
  dir=$(srcdir curl)
  log_run curl cmake -S "$dir" -B "$dir/build-w64" "${TC[@]}" -DBUILD_SHARED_LIBS=OFF -DBUILD_CURL_EXE=OFF \
    -DBUILD_TESTING=OFF -DENABLE_MANUAL=OFF -DHTTP_ONLY=ON -DCURL_USE_SCHANNEL=ON -DCURL_USE_OPENSSL=OFF \
    -DCURL_ZLIB=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DUSE_NGHTTP2=OFF -DUSE_LIBIDN2=OFF -DUSE_WIN32_IDN=OFF \
    -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON \
    -DENABLE_UNIX_SOCKETS=OFF -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none
  log_run curl cmake --build "$dir/build-w64" -j"$JOBS"
  log_run curl cmake --install "$dir/build-w64"

  stamp "OpenSSL libcrypto"
  dir=$(srcdir openssl)
  (cd "$dir" && log_run openssl ./Configure mingw64 no-shared no-tests no-module no-engine no-dso no-legacy \
    no-ui-console no-ssl3 no-dtls no-comp --cross-compile-prefix=x86_64-w64-mingw32- --prefix="$P" --libdir=lib \
    --openssldir=C:/ssl && log_run openssl make -j"$JOBS" build_libs && log_run openssl make install_dev)

  stamp "cJSON"
  dir=$(srcdir cjson)
  log_run cjson cmake -S "$dir" -B "$dir/build-w64" "${TC[@]}" -DBUILD_SHARED_LIBS=OFF -DENABLE_CJSON_TEST=OFF \
    -DENABLE_CJSON_UTILS=OFF -DENABLE_CUSTOM_COMPILER_FLAGS=OFF -DENABLE_TARGET_EXPORT=OFF \
    -DCMAKE_C_FLAGS=-DCJSON_HIDE_SYMBOLS
  log_run cjson cmake --build "$dir/build-w64" -j"$JOBS"
  log_run cjson cmake --install "$dir/build-w64"

  stamp "cmocka"
  dir=$(srcdir cmocka)
  log_run cmocka cmake -S "$dir" -B "$dir/build-w64" "${TC[@]}" -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF \
    -DUNIT_TESTING=OFF
  log_run cmocka cmake --build "$dir/build-w64" -j"$JOBS"
  log_run cmocka cmake --install "$dir/build-w64"

  ls "$W"/*.dsc | xargs -n1 basename >"$P/SOURCES"
}

if [ -f "$DEPS/.done" ]; then
  stamp "dependency prefix cached: $DEPS"
else
  stamp "building the dependency prefix into $DEPS (cold: about 6 minutes)"
  rm -rf "$DEPS.partial"
  build_deps "$DEPS.partial"
  for f in libz.a liblzma.a libarchive.a libcurl.a libcrypto.a libcjson.a libcmocka-static.a; do
    [ -f "$DEPS.partial/lib/$f" ] || die "dependency build finished without lib/$f"
  done
  touch "$DEPS.partial/.done"
  rm -rf "$DEPS"
  mv "$DEPS.partial" "$DEPS"
  stamp "dependency prefix ready ($(du -sh "$DEPS" | cut -f1))"
fi

# ---- 4. cross-build cudnnctl.exe and the tests ------------------------------------------------------
stamp "configuring $BUILD"
cmake -S "$SRC" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCUDNNCTL_WIN_DEPS="$DEPS" \
  -DCMAKE_PREFIX_PATH="$DEPS" -DOPENSSL_ROOT_DIR="$DEPS" -DOPENSSL_USE_STATIC_LIBS=TRUE \
  -DCUDNNCTL_WERROR=ON >"$TMP/configure.log" 2>&1 || { cat "$TMP/configure.log" >&2; die "cmake configure failed"; }
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
wine wineboot --init >/dev/null 2>&1 || die "wine wineboot --init failed"
wineserver -w
wineserver -p # one persistent server for all tests
stamp "running ctest under wine"
rc=0
(cd "$BUILD" && ctest --output-on-failure -j"$JOBS") || rc=$?
stamp "done (ctest rc=$rc)"
exit $rc
