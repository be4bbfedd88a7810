#!/usr/bin/env bash
# test_which_names.sh: `which NAME` finds a bare name the way people know it — a program on PATH
# (the first dir that has it, as `which` does), a Python interpreter on PATH read as --python,
# a soname through the loader (LD_LIBRARY_PATH, ld.so.cache, the default dirs, as `ldd` does)
# — and then reports on that file exactly as for its path; a name found nowhere says where it
# looked (program: exit 2; soname: exit 6, "not_found").
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/install_lib.sh"
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
mkdir -p "$T/bin1" "$T/bin2" "$T/lib"
elf_double "$T/lib/libccwhich.so.9" libccwhich.so.9
printf 'int main(void) { return 0; }\n' >"$T/m.c"
cc -o "$T/bin2/cc-which-tool" "$T/m.c" || fail "cc"
cp "$T/bin2/cc-which-tool" "$T/bin1/cc-which-tool-other"
PY3=$(command -v python3)
PY3=$(readlink -f "$PY3" 2>/dev/null || echo "$PY3")
[ -x "$PY3" ] && file -L "$PY3" 2>/dev/null | grep -q ELF || PY3=/usr/bin/python3
ln -s "$PY3" "$T/bin1/python3"
P=$T/bin1:$T/bin2:/usr/bin:/bin

# a program on PATH: the report of its path
env PATH="$P" "${C[@]}" which cc-which-tool >"$T/name.out" 2>&1 || { cat "$T/name.out" >&2; fail "which cc-which-tool"; }
env PATH="$P" "${C[@]}" which "$T/bin2/cc-which-tool" >"$T/path.out" 2>&1
cmp -s "$T/name.out" "$T/path.out" || { diff "$T/name.out" "$T/path.out" >&2; fail "which NAME is not the report of PATH's NAME"; }
grep -q "^$T/bin2/cc-which-tool$" "$T/name.out" || { cat "$T/name.out" >&2; fail "the report does not name $T/bin2/cc-which-tool"; }
# the first PATH dir wins
cp "$T/bin2/cc-which-tool" "$T/bin1/cc-which-tool"
env PATH="$P" "${C[@]}" which cc-which-tool 2>&1 | grep -q "^$T/bin1/cc-which-tool$" || fail "not the first PATH dir's program"
# python3: its frameworks, as --python
env PATH="$P" "${C[@]}" which python3 >"$T/py.out" 2>&1 || { cat "$T/py.out" >&2; fail "which python3"; }
grep -q "^python: $T/bin1/python3 (" "$T/py.out" || { cat "$T/py.out" >&2; fail "which python3 did not take PATH's python3 as --python"; }
env PATH="$P" "${C[@]}" which --python "$T/bin1/python3" >"$T/py2.out" 2>&1
cmp -s "$T/py.out" "$T/py2.out" || { diff "$T/py.out" "$T/py2.out" >&2; fail "which python3 differs from which --python PATH/python3"; }
# not on PATH
rc=0; env PATH="$P" "${C[@]}" which cc-no-such-tool >"$T/o" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "which cc-no-such-tool: no program of that name on PATH ($P)" "$T/o" || { cat "$T/o" >&2; fail "a name not on PATH: exit $rc"; }

# a soname: through the loader
env LD_LIBRARY_PATH="$T/lib" "${C[@]}" which libccwhich.so.9 >"$T/so.out" 2>&1 || { cat "$T/so.out" >&2; fail "which libccwhich.so.9"; }
grep -q "^libccwhich.so.9: the loader maps $T/lib/libccwhich.so.9 (ld_library_path: " "$T/so.out" || { cat "$T/so.out" >&2; fail "the soname was not found through LD_LIBRARY_PATH"; }
grep -q "^$T/lib/libccwhich.so.9$" "$T/so.out" || { cat "$T/so.out" >&2; fail "no report on the file the loader maps"; }
rc=0; env -u LD_LIBRARY_PATH "${C[@]}" which libccwhich.so.9 >"$T/o" 2>&1 || rc=$?
[ $rc = 6 ] && grep -q "not_found: libccwhich.so.9 is in no dir the loader searches" "$T/o" || { cat "$T/o" >&2; fail "an unknown soname: exit $rc"; }
# a soname the system has (ld.so.cache): libc
"${C[@]}" which libc.so.6 >"$T/o" 2>&1 || { cat "$T/o" >&2; fail "which libc.so.6"; }
grep -Eq "^libc.so.6: the loader maps /.*libc.so.6 \((ld.so.cache|default_dirs)" "$T/o" || { cat "$T/o" >&2; fail "libc.so.6 not found through the cache / default dirs"; }
echo "ok: which NAME through PATH and the loader"
