#!/usr/bin/env bash
# test_install_tree.sh: what `cmake --install` puts in a prefix, used as a consumer would use it.
#  - the tree: bin/cudnnctl, lib/libcudnnctl.so.0.1.0 + .so.0 + .so, every public header and
#    errors.def, lib/pkgconfig/cudnnctl.pc (prefix = the install prefix), lib/cmake/cudnnctl/,
#    share/doc/cudnnctl/{LICENSE,README.md,copyright,docs/}
#  - libcudnnctl.so.0: SONAME libcudnnctl.so.0, and its dynamic symbols are exactly the functions
#    the installed headers declare CUDNNCTL_API (internals hidden; the committed list and the doc
#    comments: test_library_symbols.sh); no cudnnctl_test.h
#  - detect does not take libcudnnctl.so.0 for a cuDNN copy
#  - the installed cudnnctl.h compiles on its own (C11 -pedantic -Werror, and as C++)
#  - tests/packaging/consumer/demo.c built through pkg-config and through find_package(cudnnctl)
#    links the installed .so (not the build tree's) and runs
set -euo pipefail
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${BUILD_DIR:?BUILD_DIR must be the build tree}"
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-insttree-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$T/prefix
cmake --install "$BUILD_DIR" --prefix "$P" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
LIBDIR=$(cd "$P" && dirname "$(find . -name 'libcudnnctl.so.0' | head -n1)")
LIBDIR=${LIBDIR#./}
[ -n "$LIBDIR" ] || fail "no libcudnnctl.so.0 installed"

# ---- the tree ------------------------------------------------------------------------------------
for f in bin/cudnnctl "$LIBDIR/libcudnnctl.so.0.1.0" "$LIBDIR/libcudnnctl.so.0" "$LIBDIR/libcudnnctl.so" \
         "$LIBDIR/pkgconfig/cudnnctl.pc" "$LIBDIR/cmake/cudnnctl/cudnnctlConfig.cmake" \
         "$LIBDIR/cmake/cudnnctl/cudnnctlConfigVersion.cmake" "$LIBDIR/cmake/cudnnctl/cudnnctlTargets.cmake" \
         include/cudnnctl/errors.def share/doc/cudnnctl/LICENSE share/doc/cudnnctl/copyright \
         share/doc/cudnnctl/README.md share/doc/cudnnctl/docs/install.md; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
for h in "$SOURCE_DIR"/include/cudnnctl/*.h; do
    [ "$(basename "$h")" != cudnnctl_test.h ] || continue # the test hooks: not installed (below)
    cmp -s "$h" "$P/include/cudnnctl/$(basename "$h")" || fail "header $(basename "$h") not installed as is"
done
[ ! -e "$P/include/cudnnctl/cudnnctl_test.h" ] || fail "the test hooks' header cudnnctl_test.h is installed"
[ "$(readlink "$P/$LIBDIR/libcudnnctl.so.0")" = libcudnnctl.so.0.1.0 ] || fail "libcudnnctl.so.0 does not point at .so.0.1.0"
"$P/bin/cudnnctl" --print-version | grep '^cudnnctl 0\.1\.0' >/dev/null || fail "installed cudnnctl --print-version"
# cudnnctl's own libcudnnctl.so.0 is no cuDNN copy: with the prefix as the root, its lib/ is the
# loader's /lib, and detect must list nothing there (it listed "cuDNN 0.1.0" once)
"$P/bin/cudnnctl" --root "$P" --json detect >"$T/detect.json" || fail "detect --root PREFIX"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cudnn"]; sys.exit("cuDNN copies: %r" % c if c else 0)' "$T/detect.json" ||
    fail "detect takes libcudnnctl.so for a cuDNN copy"

# ---- SONAME and exported symbols ----------------------------------------------------------------------
SO=$P/$LIBDIR/libcudnnctl.so.0
readelf -d "$SO" | grep 'Library soname: \[libcudnnctl.so.0\]' >/dev/null || fail "SONAME is not libcudnnctl.so.0"
nm -D --defined-only "$SO" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort >"$T/exported"
python3 - "$P"/include/cudnnctl/*.h >"$T/declared" <<'PY'
import re, sys
names = set()
for p in sys.argv[1:]:
    text = open(p).read()
    for m in re.finditer(r'^CUDNNCTL_API\s+([^;(]*?)\b(\w+)\s*\(', text, re.M):
        names.add(m.group(2))
print("\n".join(sorted(names)))
PY
[ "$(wc -l <"$T/declared")" -ge 50 ] || fail "found only $(wc -l <"$T/declared") CUDNNCTL_API declarations"
if ! diff -u "$T/declared" "$T/exported" >"$T/sym.diff"; then
    cat "$T/sym.diff" >&2
    fail "libcudnnctl.so exports other symbols than the CUDNNCTL_API functions (+ exported, not declared; - declared, not exported)"
fi

# ---- the installed header on its own ------------------------------------------------------------------
echo '#include <cudnnctl/cudnnctl.h>' >"$T/h.c"
cc -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$P/include" "$T/h.c" ||
    fail "the installed cudnnctl.h does not compile on its own (C11)"
if command -v c++ >/dev/null; then
    cp "$T/h.c" "$T/h.cpp"
    c++ -Wall -Wextra -Werror -fsyntax-only -I"$P/include" "$T/h.cpp" || fail "the installed cudnnctl.h does not compile as C++"
fi

# ---- a consumer through pkg-config ---------------------------------------------------------------
DEMO=$SOURCE_DIR/tests/packaging/consumer
export PKG_CONFIG_PATH=$P/$LIBDIR/pkgconfig
[ "$(pkg-config --modversion cudnnctl)" = 0.1.0 ] || fail "pkg-config --modversion cudnnctl"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$T/demo-pc" "$DEMO/demo.c" $(pkg-config --cflags --libs cudnnctl) ||
    fail "demo.c does not build through pkg-config"
LD_LIBRARY_PATH=$P/$LIBDIR ldd "$T/demo-pc" | grep "libcudnnctl.so.0 => $P/$LIBDIR/libcudnnctl.so.0" >/dev/null ||
    fail "demo-pc does not load the installed libcudnnctl.so.0"
out=$(LD_LIBRARY_PATH=$P/$LIBDIR "$T/demo-pc") || fail "demo-pc exited $?"
grep -Eq '^libcudnnctl 0\.1\.0: [1-9][0-9]* archives from [1-9][0-9]* manifests' <<<"$out" || fail "demo-pc printed: $out"

# ---- a consumer through find_package ----------------------------------------------------------------
cmake -S "$DEMO" -B "$T/demo-cmake" -DCMAKE_PREFIX_PATH="$P" >"$T/demo-cmake.log" 2>&1 &&
    cmake --build "$T/demo-cmake" >>"$T/demo-cmake.log" 2>&1 || { cat "$T/demo-cmake.log"; fail "find_package(cudnnctl) consumer"; }
grep -q "$P/$LIBDIR/libcudnnctl.so" "$T/demo-cmake/CMakeFiles/demo.dir/link.txt" ||
    fail "the find_package consumer did not link the installed library: $(cat "$T/demo-cmake/CMakeFiles/demo.dir/link.txt")"
out=$("$T/demo-cmake/demo") || fail "the find_package demo exited $?"   # RUNPATH from CMake
grep -q '^libcudnnctl 0\.1\.0: ' <<<"$out" || fail "find_package demo printed: $out"
echo "PASS: install tree, SONAME, $(wc -l <"$T/exported") exported symbols = CUDNNCTL_API, header alone, pkg-config and find_package consumers"
