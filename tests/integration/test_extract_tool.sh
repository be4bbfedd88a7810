#!/usr/bin/env bash
# test_extract_tool.sh: cc_extract as a process (bench/extract_tool.c over the built library):
# every era's archive staged under a hostile umask (077) still gives 0755 directories and
# world-readable files, the staged tree matches the generator's expectation byte for byte, and a
# hostile archive exits 4 leaving nothing behind.
set -euo pipefail
: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_extract_tool: $*" >&2; exit 1; }

tool="$tmp/extract_tool"
# the library's own compile flags (the asan preset builds it with -fsanitize=...: link the same)
# shellcheck disable=SC2046
cflags=$(sed -n 's/^CMAKE_C_FLAGS:STRING=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
# shellcheck disable=SC2086
cc -O1 $cflags -I"$SOURCE_DIR/include" $(for d in "$SOURCE_DIR"/src/lib/*/; do printf -- "-I%s " "$d"; done) -I"$SOURCE_DIR/platform" \
   "$SOURCE_DIR/bench/extract_tool.c" "$BUILD_DIR/libcudnnctl.a" \
   $(pkg-config --libs libarchive libcurl libcrypto libcjson libisal) -lpthread -ldl -o "$tool" \
   || fail "cannot build the extract tool"

python3 "$SOURCE_DIR/tests/fixtures/make_archive.py" eras "$tmp/eras"
python3 "$SOURCE_DIR/tests/fixtures/make_archive.py" hostile "$tmp/hostile" --outside "$tmp/outside"

check_tree() { # staging expect.json
  python3 - "$1" "$2" <<'EOF' || exit 1
import hashlib, json, os, stat, sys
root, exp = sys.argv[1], json.load(open(sys.argv[2]))
seen = set()
for d, dirs, files in os.walk(root):
    for n in dirs + files:
        p = os.path.join(d, n)
        rel = os.path.relpath(p, root)
        st = os.lstat(p)
        if stat.S_ISDIR(st.st_mode):
            if rel not in exp["dirs"]:
                sys.exit("unexpected dir " + rel)
            if stat.S_IMODE(st.st_mode) != 0o755:
                sys.exit("dir %s mode %o under umask 077" % (rel, stat.S_IMODE(st.st_mode)))
            continue
        e = exp["entries"].get(rel) or sys.exit("unexpected " + rel)
        seen.add(rel)
        if stat.S_ISLNK(st.st_mode):
            assert e["type"] == "link" and os.readlink(p) == e["target"], rel
        else:
            assert e["type"] == "file", rel
            if stat.S_IMODE(st.st_mode) != e["mode"]:
                sys.exit("%s mode %o, want %o" % (rel, stat.S_IMODE(st.st_mode), e["mode"]))
            if hashlib.sha256(open(p, "rb").read()).hexdigest() != e["sha256"]:
                sys.exit("%s: bytes differ" % rel)
missing = set(exp["entries"]) - seen
if missing:
    sys.exit("missing " + ", ".join(sorted(missing)))
EOF
}

umask 077
n=0
for a in "$tmp"/eras/*.tar.xz "$tmp"/eras/*.tgz "$tmp"/eras/*.zip; do
  for mode in "" --stream; do
    case "$a" in *.zip) [ -z "$mode" ] || continue ;; esac
    s="$tmp/s$n"; n=$((n + 1)); mkdir "$s"
    "$tool" $mode "$a" "$s" > "$tmp/out" 2>&1 || fail "$(basename "$a") $mode: $(cat "$tmp/out")"
    check_tree "$s" "$a.expect.json" || fail "$(basename "$a") $mode: staged tree differs"
  done
done
[ $n -ge 14 ] || fail "only $n extractions ran"
umask 022

# hostile: exit 4, the entry named on stderr, staging empty, nothing outside
for c in dotdot symlink-escape zip-unc; do
  a=$(ls "$tmp/hostile/$c"/*)
  mkdir -p "$tmp/box-$c/staging"
  set +e
  "$tool" "$a" "$tmp/box-$c/staging" > "$tmp/out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 4 ] || fail "$c: exit $rc, want 4 ($(cat "$tmp/out"))"
  grep -q UNSAFE_ARCHIVE "$tmp/out" || fail "$c: no UNSAFE_ARCHIVE in: $(cat "$tmp/out")"
  [ -z "$(ls -A "$tmp/box-$c/staging")" ] || fail "$c: staging not empty"
  [ "$(ls -A "$tmp/box-$c")" = staging ] || fail "$c: wrote beside staging: $(ls -A "$tmp/box-$c")"
done
[ ! -e "$tmp/outside" ] && [ ! -e "$tmp/x" ] || fail "a hostile entry escaped"
echo "test_extract_tool: ok ($n extractions)"
