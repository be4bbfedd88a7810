#!/usr/bin/env bash
# test_cli_table.sh: the command-line contract in docs/cli.md agrees with the code. Fails when
# an option of the getopt table (src/cli/opts.c) has no line in the option table
# (src/cli/optspec.c: no command takes it, no help, no man page, no completion), when a line there
# names a command that does not exist, or when docs/cli.md's generated tables differ from
# `cudnnctl __doc-tables` — so an option merged the old way (enum + getopt line + switch) without
# its one line in optspec.c and docs/cli.md fails loudly here.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
DOC=$SOURCE_DIR/docs/cli.md

"$CUDNNCTL" __cli-check || fail "__cli-check: the getopt table and optspec.c disagree, or an example or variable of examples.c is wrong (above)"

# every long option of opts.c's getopt table, read from the source itself (not through the
# binary), is in docs/cli.md and is taken by at least one command
sed -n '/^static const struct option longopts\[\]/,/^};/p' "$SOURCE_DIR/src/cli/opts.c" |
    grep -o '{"[a-z0-9-]*"' | tr -d '{"' >"$T/getopt"
[ "$(wc -l <"$T/getopt")" -ge 30 ] || fail "could not read the getopt table of src/cli/opts.c"
while read -r o; do
    grep -q -- "\`--$o[ \`]" "$DOC" || fail "--$o (src/cli/opts.c) is not in docs/cli.md"
    taken=0
    for c in $("$CUDNNCTL" __complete "" | cut -f1); do
        "$CUDNNCTL" __complete "$c" "--$o" | cut -f1 | grep -qx -- "--$o" && { taken=1; break; }
    done
    "$CUDNNCTL" __complete "--$o" | cut -f1 | grep -qx -- "--$o" && taken=1
    [ $taken = 1 ] || fail "--$o is in the getopt table but no command takes it (src/cli/optspec.c)"
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
