#!/usr/bin/env bash
# test_cli_man.sh: the man pages generated at build time from the command table: cudnnctl(1) and
# one per command, each rendering without a warning (groff -ww, man --warnings, mandoc -T lint
# when installed); each lists exactly the options the command's --help lists; `cmake --install`
# puts them in share/man/man1 (man -w finds them there) and the completions where each shell
# looks.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}" "${BUILD_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v groff >/dev/null && command -v man >/dev/null || { echo "groff/man missing"; exit 77; }
M=$BUILD_DIR/man
cmds=$("$CUDNNCTL" __complete "" | cut -f1)
[ -s "$M/cudnnctl.1" ] || fail "no $M/cudnnctl.1 (built by the cudnnctl_man target)"
for c in "" $cmds; do
    f=$M/cudnnctl${c:+-$c}.1
    [ -s "$f" ] || fail "no man page $f"
    w=$(LC_ALL=C.UTF-8 groff -ww -z -man "$f" 2>&1) && [ -z "$w" ] || fail "groff -ww $f: $w"
    w=$(MANWIDTH=100 man --warnings -l "$f" 2>&1 >"$T/page") && [ -z "$w" ] || fail "man --warnings -l $f: $w"
    grep -q "^NAME" "$T/page" || fail "$f renders no NAME section"
    if command -v mandoc >/dev/null; then
        w=$(mandoc -T lint -W warning "$f" 2>&1) || fail "mandoc -T lint $f: $w"
        [ -z "$w" ] || fail "mandoc -T lint $f: $w"
    fi
    [ -n "$c" ] || continue
    # the same options as the command's --help, in the same order
    "$CUDNNCTL" $c --help | grep -o '^  \(-., \)\?--[a-z0-9-]*' | grep -o -- '--[a-z0-9-]*' >"$T/help"
    # (the option labels: the line after each .TP in the roff source)
    awk 'p { print; p = 0 } /^\.TP$/ { p = 1 }' "$f" | sed 's/\\-/-/g; s/\\f[BRI]//g' |
        grep -o -- '^\(-., \)\?--[a-z0-9-]*' | grep -o -- '--[a-z0-9-]*' >"$T/man"
    diff -u "$T/help" "$T/man" >&2 || fail "cudnnctl-$c(1) and '$c --help' list different options"
    grep -q "cudnnctl $c" "$T/page" || fail "cudnnctl-$c(1) has no synopsis"
done
grep -q 'cudnnctl-install(1)' <(MANWIDTH=100 man -l "$M/cudnnctl.1" 2>/dev/null) || fail "cudnnctl(1) does not point at cudnnctl-install(1)"

# installed where man and the shells look
cmake --install "$BUILD_DIR" --prefix "$T/inst" >/dev/null || fail "cmake --install"
for f in share/man/man1/cudnnctl.1 share/man/man1/cudnnctl-install.1 \
    share/bash-completion/completions/cudnnctl share/zsh/vendor-completions/_cudnnctl \
    share/fish/vendor_completions.d/cudnnctl.fish bin/cudnnctl; do
    [ -s "$T/inst/$f" ] || fail "cmake --install did not put $f"
done
[ "$(MANPATH="$T/inst/share/man" man -w cudnnctl-install)" = "$T/inst/share/man/man1/cudnnctl-install.1" ] ||
    fail "man -w cudnnctl-install does not find the installed page"
echo "ok: $(ls "$M"/*.1 | wc -l) man pages render cleanly and are installed"
