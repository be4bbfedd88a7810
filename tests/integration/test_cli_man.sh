#!/usr/bin/env bash
# test_cli_man.sh: the man pages generated at build time from the command table: cudnnctl(1) and
# one per command, each rendering without a warning (groff -ww, man --warnings, mandoc -T lint
# when installed); each lists exactly the options the command's --help lists, has ENVIRONMENT and
# EXAMPLES sections (a command's examples: the two or three `cudnnctl help CMD` shows, the same
# lines), and no word is hyphenated at 60, 80 or 100 columns ("cud-nnctl-install(1)" was);
# `cmake --install` puts them, gzip -9n compressed, in share/man/man1 (man -w finds them there)
# and the completions where each shell looks.
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
    for sec in ENVIRONMENT EXAMPLES; do
        grep -qx "$sec" "$T/page" || fail "$f renders no $sec section"
    done
    for w in 60 80 100; do
        # every '-' of the source is \- (U+2212, never broken): a U+2010 at a line end is groff's
        # hyphenation
        if LC_ALL=C.UTF-8 MANWIDTH=$w man -l "$f" 2>/dev/null | grep -n $'\xe2\x80\x90$' >"$T/hy"; then
            fail "$f hyphenates at $w columns: $(head -n3 "$T/hy")"
        fi
    done
    # the examples as typed: the bold lines of EXAMPLES (roff: \fB...\fR after .nf)
    sed -n '/^\.SH EXAMPLES$/,/^\.SH /p' "$f" | sed -n 's/^\\fB\(.*\)\\fR$/\1/p' | sed 's/\\-/-/g; s/\\e/\\/g' >"$T/man-ex"
    n=$(wc -l <"$T/man-ex")
    [ "$n" -ge 2 ] || fail "$f shows $n examples"
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
    "$CUDNNCTL" help "$c" | sed -n '/^examples:$/,/^$/p' | sed -n 's/^  \([^ ].*\)$/\1/p' >"$T/help-ex"
    [ "$n" -le 3 ] || fail "cudnnctl-$c(1) shows $n examples (two or three)"
    diff -u "$T/help-ex" "$T/man-ex" >&2 || fail "'cudnnctl help $c' and cudnnctl-$c(1) show different examples"
    grep -q "cudnnctl $c" "$T/page" || fail "cudnnctl-$c(1) has no synopsis"
done
grep -q 'cudnnctl-install(1)' <(MANWIDTH=100 man -l "$M/cudnnctl.1" 2>/dev/null) || fail "cudnnctl(1) does not point at cudnnctl-install(1)"

# installed where man and the shells look
cmake --install "$BUILD_DIR" --prefix "$T/inst" >/dev/null || fail "cmake --install"
for f in share/man/man1/cudnnctl.1.gz share/man/man1/cudnnctl-install.1.gz \
    share/bash-completion/completions/cudnnctl share/zsh/vendor-completions/_cudnnctl \
    share/fish/vendor_completions.d/cudnnctl.fish bin/cudnnctl; do
    [ -s "$T/inst/$f" ] || fail "cmake --install did not put $f"
done
[ "$(MANPATH="$T/inst/share/man" man -w cudnnctl-install)" = "$T/inst/share/man/man1/cudnnctl-install.1.gz" ] ||
    fail "man -w cudnnctl-install does not find the installed page"
! ls "$T/inst/share/man/man1/"*.1 >/dev/null 2>&1 || fail "uncompressed man pages installed: $(ls "$T/inst/share/man/man1/"*.1)"
for gz in "$T/inst/share/man/man1/"*.1.gz; do
    zcat "$gz" | cmp -s - "$M/$(basename "$gz" .gz)" || fail "$gz is not build/man's page compressed"
    # gzip -9n: no file name (FLG 0), no time stamp (MTIME 0), best compression (XFL 2)
    hdr=$(od -An -tx1 -N10 "$gz" | tr -d ' \n')
    [ "${hdr:6:10}" = 0000000000 ] && [ "${hdr:16:2}" = 02 ] || fail "$gz is not gzip -9n (header $hdr)"
done
echo "ok: $(ls "$M"/*.1 | wc -l) man pages render cleanly and are installed"
