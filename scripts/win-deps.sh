#!/usr/bin/env bash
# win-deps.sh PREFIX: build the static x86_64-w64-mingw32 dependency prefix of the Windows build
# (zlib, liblzma, libarchive, libcurl with Schannel, OpenSSL libcrypto, cJSON, cmocka) from Debian
# source packages (apt-get source: needs deb-src entries) into PREFIX. Called by test-windows.sh,
# which caches PREFIX under a key that includes this file's SHA-256. Measured commands and pitfalls:
# docs/windows.md and the project's windows-build reference.
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLCHAIN="$SRC/cmake/mingw-w64.cmake"
JOBS=${CUDNNCTL_WIN_JOBS:-2}
SRC_PKGS=(zlib xz-utils libarchive curl openssl cmocka cjson)
T0=$(date +%s)
[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
P=$(mkdir -p "$1" && cd "$1" && pwd)

say() { printf 'win-deps: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
stamp() { say "[$(( $(date +%s) - T0 ))s] $*"; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cudnnctl-win-deps.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

log_run() { # name cmd...: run with output in a log; show its tail on failure
  local name=$1; shift
  if ! "$@" >>"$TMP/$name.log" 2>&1; then
    tail -n 40 "$TMP/$name.log" >&2
    die "$name: '$*' failed (log above)"
  fi
}

build_deps() {
  local W="$TMP/src"
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

build_deps
for f in libz.a liblzma.a libarchive.a libcurl.a libcrypto.a libcjson.a libcmocka-static.a; do
  [ -f "$P/lib/$f" ] || die "dependency build finished without lib/$f"
done
stamp "done: $P"

