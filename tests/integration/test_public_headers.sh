#!/usr/bin/env bash
# test_public_headers.sh: every public header of include/cudnnctl/ either compiles on its own or
# stops first at an #error naming <cudnnctl/cudnnctl.h> (the sub-headers are parts of it; an
# "unknown type name" cascade instead would tell a user nothing). cudnnctl.h itself compiles
# alone, as C11 with -Wall -Wextra -Wpedantic -Werror, and as C++ where a C++ compiler exists.
set -euo pipefail
: "${SOURCE_DIR:?set by ctest}"
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "no C compiler"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-headers-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
inc=$SOURCE_DIR/include
alone=0 guarded=0
for h in "$inc"/cudnnctl/*.h; do
    name=$(basename "$h")
    printf '#include <cudnnctl/%s>\nint main(void) { return 0; }\n' "$name" >"$T/t.c"
    if "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$inc" "$T/t.c" 2>"$T/err"; then
        alone=$((alone + 1))
        continue
    fi
    [ "$name" != cudnnctl.h ] || { cat "$T/err" >&2; fail "cudnnctl.h does not compile alone"; }
    # the guard: the first diagnostic is the #error naming the umbrella header (a compiler goes
    # on after #error; what follows it is the cascade the guard explains)
    first=$(grep -m1 'error:' "$T/err" || true)
    case "$first" in
        *"#error \"include <cudnnctl/cudnnctl.h>, not <cudnnctl/$name>"*) ;;
        *) cat "$T/err" >&2
           fail "<cudnnctl/$name> neither compiles alone nor stops first at the #error naming <cudnnctl/cudnnctl.h> (first: $first)" ;;
    esac
    # and after the umbrella header it is fine (the guard does not fire inside it)
    printf '#include <cudnnctl/cudnnctl.h>\n#include <cudnnctl/%s>\nint main(void) { return 0; }\n' "$name" >"$T/u.c"
    "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$inc" "$T/u.c" \
        || fail "<cudnnctl/$name> after <cudnnctl/cudnnctl.h> does not compile"
    guarded=$((guarded + 1))
done
[ $((alone + guarded)) -ge 2 ] || fail "no headers found under $inc/cudnnctl"
if command -v c++ >/dev/null; then
    printf '#include <cudnnctl/cudnnctl.h>\nint main() { return 0; }\n' >"$T/t.cc"
    c++ -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$T/t.cc" || fail "cudnnctl.h does not compile as C++"
fi
echo "ok: $alone headers compile alone, $guarded stop with the #error naming <cudnnctl/cudnnctl.h>"
