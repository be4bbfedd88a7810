#!/usr/bin/env bash
# test_library_symbols.sh: libcudnnctl.so.0 exports exactly the documented API.
#  1. `nm -D --defined-only` of the built library = packaging/libcudnnctl.symbols (the committed
#     ABI list, sorted, no duplicates): nothing internal leaks (-fvisibility=hidden), nothing
#     documented is missing.
#  2. The list = the CUDNNCTL_API declarations of the headers `cmake --install` installs, and each
#     block of declarations there carries a doc comment (the headers are the API's reference).
#  3. The test hooks of cudnnctl_test.h are neither exported nor installed, but still in the static
#     archive the CLI and the unit tests link (hiding them broke nothing).
#  4. docs/packaging.md states the number of exported functions this list has.
set -euo pipefail
: "${SOURCE_DIR:?set by ctest}" "${BUILD_DIR:?set by ctest}"
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-symbols-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
LIST=$SOURCE_DIR/packaging/libcudnnctl.symbols
SO=$BUILD_DIR/shlib/libcudnnctl.so.0
[ -e "$SO" ] || fail "no $SO (target cudnnctl_shared)"
command -v nm >/dev/null || { echo "nm missing (binutils)"; exit 77; }

# ---- 1. the library against the list ----------------------------------------------------------
nm -D --defined-only "$SO" | awk '{print $NF}' | sed 's/@.*//' | LC_ALL=C sort >"$T/exported"
grep -v '^#' "$LIST" | grep -v '^$' >"$T/listed"
LC_ALL=C sort -c -u "$T/listed" 2>"$T/sort.err" || fail "$LIST is not sorted or has a duplicate: $(cat "$T/sort.err")"
if ! diff -u "$T/listed" "$T/exported" >"$T/lib.diff"; then
    cat "$T/lib.diff" >&2
    fail "libcudnnctl.so.0 exports other symbols than $LIST (+ exported, not listed; - listed, not exported)"
fi

# ---- 2. the list against the installed headers ---------------------------------------------------
cmake --install "$BUILD_DIR" --prefix "$T/p" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
python3 - "$T/p"/include/cudnnctl/*.h >"$T/declared" 2>"$T/undoc" <<'PY' || { cat "$T/undoc" >&2; fail "undocumented declarations (above)"; }
import re, sys
names, bad = set(), []
for p in sys.argv[1:]:
    # a block: declarations between blank lines; its doc comment comes before the first of them
    for block in re.split(r"\n\s*\n", open(p).read()):
        decls = [m.group(1) for m in re.finditer(r"^CUDNNCTL_API\s+[^;(]*?\b(\w+)\s*\(", block, re.M)]
        if decls and "/**" not in block[:block.find("CUDNNCTL_API")]:
            bad.append("%s: %s has no doc comment" % (p.rsplit("/", 1)[1], ", ".join(decls)))
        names.update(decls)
print("\n".join(sorted(names)))
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
[ "$(wc -l <"$T/declared")" -ge 100 ] || fail "found only $(wc -l <"$T/declared") CUDNNCTL_API declarations"
LC_ALL=C sort -o "$T/declared" "$T/declared"
if ! diff -u "$T/declared" "$T/listed" >"$T/hdr.diff"; then
    cat "$T/hdr.diff" >&2
    fail "$LIST and the installed headers' CUDNNCTL_API declarations differ (+ listed, not declared; - declared, not listed)"
fi

# ---- 3. the test hooks ------------------------------------------------------------------------------
[ ! -e "$T/p/include/cudnnctl/cudnnctl_test.h" ] || fail "cudnnctl_test.h is installed"
nm --defined-only "$BUILD_DIR/libcudnnctl.a" >"$T/archive" 2>/dev/null || fail "nm $BUILD_DIR/libcudnnctl.a"
for f in cudnnctl_set_fault_injection cudnnctl_set_fault_sticky cudnnctl_sys_calls; do
    ! grep -qx "$f" "$T/exported" || fail "the test hook $f is exported"
    grep -q " T $f$" "$T/archive" ||
        fail "the test hook $f is not in the static archive the CLI links"
done

# ---- 4. the docs say how many -------------------------------------------------------------------------
n=$(wc -l <"$T/listed")
grep -q "exports $n functions" "$SOURCE_DIR/docs/packaging.md" ||
    fail "docs/packaging.md does not say 'exports $n functions' ($(grep -o 'exports [0-9]* functions' "$SOURCE_DIR/docs/packaging.md" || echo 'no count'))"
echo "PASS: libcudnnctl.so.0 exports the $n functions of $(basename "$LIST"), all declared and documented in the installed headers"
