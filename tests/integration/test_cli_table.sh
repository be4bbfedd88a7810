#!/usr/bin/env bash
# test_cli_table.sh: the command-line contract in docs/cli.md agrees with the code. Fails when
# an option of the option table (src/cli/optspec.c, from which opts.c makes getopt's tables) is
# not in docs/cli.md or taken by no command, when its lines disagree on how it is stored, when a
# line names a command that does not exist, or when docs/cli.md's generated tables differ from
# `cudnnctl __doc-tables`.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
DOC=$SOURCE_DIR/docs/cli.md

"$CUDNNCTL" __cli-check || fail "__cli-check: the getopt table and optspec.c disagree, or an example or variable of examples.c is wrong (above)"

# every long option of optspec.c's table, read from the source itself (not through the binary),
# is in docs/cli.md and is taken by at least one command
sed -n '/^const cli_optspec cli_optspecs\[\]/,/^};/p' "$SOURCE_DIR/src/cli/optspec.c" |
    grep -o '^ *{"[a-z0-9-]*"' | tr -d ' {"' | awk '!seen[$0]++' >"$T/getopt"
[ "$(wc -l <"$T/getopt")" -ge 30 ] || fail "could not read the option table of src/cli/optspec.c"
while read -r o; do
    grep -q -- "\`--$o[ \`]" "$DOC" || fail "--$o (src/cli/optspec.c) is not in docs/cli.md"
    taken=0
    for c in $("$CUDNNCTL" __complete "" | cut -f1); do
        "$CUDNNCTL" __complete "$c" "--$o" | cut -f1 | grep -qx -- "--$o" && { taken=1; break; }
    done
    "$CUDNNCTL" __complete "--$o" | cut -f1 | grep -qx -- "--$o" && taken=1
    [ $taken = 1 ] || fail "--$o is in the option table but no command takes it (src/cli/optspec.c)"
done <"$T/getopt"

# the generated tables of docs/cli.md are exactly what the code says
sed -n '/^<!-- BEGIN cudnnctl __doc-tables/,/^<!-- END cudnnctl __doc-tables/p' "$DOC" |
    sed '1d;$d' >"$T/doc"
"$CUDNNCTL" __doc-tables >"$T/code"
diff -u "$T/doc" "$T/code" >&2 ||
    fail "docs/cli.md's tables differ from the code: regenerate them with 'cudnnctl __doc-tables'"

# the table's exit codes are the library's (errors.def groups): each group code is documented
for code in $(sed -n 's/^X([A-Z_]*, *\([0-9]*\),.*/\1/p' "$SOURCE_DIR/include/cudnnctl/errors.def" | sort -un); do
    grep -q "^| $code | " "$T/code" || fail "exit code $code (errors.def) is not in the table"
done
echo "ok: $(wc -l <"$T/getopt") options, docs/cli.md agrees with the code"
