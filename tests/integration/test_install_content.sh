#!/usr/bin/env bash
# test_install_content.sh: what an archive's *content* may do, through the real binary
# (docs/security.md "Content policy", "Bomb limits"):
#  - into a CUDA tree only cuDNN's own files: an archive in NVIDIA's layout that also carries
#    bin/nvcc, include/cuda.h, lib64/libcudart.so.13 or a libcudnn link to a toolkit library is
#    refused (exit 4) naming the entry, the tree untouched; the same archive into a prefix keeps
#    its own tree;
#  - bombs refused before their bytes are written: a ~200-byte archive declaring a 100 GiB sparse
#    file, 10 GiB of zeros (xz, 2.5 MB), an archive over --max-unpacked, each exit 4 with its own
#    message and nothing written; an entry whose data ends early is a truncated bad archive
#    (exit 4). The free-space rule: test_install_freespace.sh.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
C=("$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache")
S="$T/root/srv"
mkdir -p "$S"

# expect_refused RC PATTERN WHAT -- cudnnctl args...: exit RC, stderr matching PATTERN
expect_refused() {
  local want=$1 pat=$2 what=$3 rc
  shift 4
  set +e
  "${C[@]}" "$@" > "$T/out" 2> "$T/err"
  rc=$?
  set -e
  [ $rc -eq "$want" ] || { cat "$T/err"; fail "$what: exit $rc, want $want"; }
  [ -z "${SHOW_ERR:-}" ] || { echo "== $what"; cat "$T/err"; }
  grep -Eq -- "$pat" "$T/err" || { cat "$T/err"; fail "$what: the message does not match /$pat/"; }
}

# variant NAME ACTION...: NVIDIA's 9.x layout (make_archive) with one change, repacked under its
# own (non-NVIDIA) name; prints the archive path
base=$(make_archive "$S" 9.19.0.56 "libcudnn libcudnn_graph" tiny)
top=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
vtop() { echo "cudnn-linux-x86_64-9.19.0.56_cuda13-$1-archive"; } # the top dir is the file stem
variant() {
  local name=$1 d="$S/v-$1" t
  t=$(vtop "$1")
  shift
  rm -rf "$d"; mkdir -p "$d"
  cp -a "$S/build-9.19.0.56/$top" "$d/$t"
  (cd "$d/$t" && eval "$*")
  tar -C "$d" -cf - "$t" | xz -T1 -1 > "$S/$t.tar.xz"
  echo "$S/$t.tar.xz"
}

make_tree "$T/root"
TREE="$T/root/usr/local/cuda-13.0"
snap "$TREE" > "$T/before"

# ---- content policy: one foreign entry each, refused into the tree, named, nothing written ----
declare -A extra=(
  [nvcc]='mkdir -p bin && printf "#!/bin/sh\necho evil nvcc\n" > bin/nvcc && chmod +x bin/nvcc'
  [cudah]='printf "/* not cuDNN */\n" > include/cuda.h'
  [cudart]='mkdir -p lib64 && printf "not cudart\n" > lib64/libcudart.so.13' # refused at its dir
  [link]='ln -s libcudart.so.13 lib/libcudnn_evil.so'
  [doc]='mkdir -p share/doc && printf "x\n" > share/doc/README'
)
declare -A entry=([nvcc]=bin/nvcc [cudah]=include/cuda.h [cudart]=lib64
                  [link]=lib/libcudnn_evil.so [doc]=share)
for k in nvcc cudah cudart link doc; do
  A=$(variant "$k" "${extra[$k]}")
  SHA=$(sha256sum "$A" | cut -d' ' -f1)
  expect_refused 4 "refused archive entry '$(vtop "$k")/${entry[$k]}.*CUDA tree.*--prefix" "tree + $k" -- \
    install --cuda-home /usr/local/cuda --archive "$A" --sha256 "$SHA" --no-validate --force
  grep -q "include/cudnn\*.h, lib/libcudnn\*" "$T/err" || { cat "$T/err"; fail "$k: the allowlist is not named"; }
  snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "$k: a refused archive changed the tree"
  no_leftovers "$TREE"
  [ ! -e "$T/root/var/lib/cudnnctl/journal.json" ] || fail "$k: journal left"
done
# the same archive into a prefix: the archive's own tree, bin/nvcc included
A=$(variant nvcc "${extra[nvcc]}")
"${C[@]}" install --prefix /opt/p --archive "$A" --sha256 "$(sha256sum "$A" | cut -d' ' -f1)" \
  --no-validate --json > "$T/p.json" 2> "$T/err" || { cat "$T/err"; fail "prefix install of a non-NVIDIA tree"; }
[ -x "$T/root/opt/p/cudnn-9.19.0.56-cuda13/bin/nvcc" ] || fail "prefix mode did not keep the archive's own tree"
# and NVIDIA's own layout goes into the tree (with --force for make_tree's foreign cuDNN)
"${C[@]}" install --cuda-home /usr/local/cuda --archive "$base" --sha256 "$(sha256sum "$base" | cut -d' ' -f1)" \
  --no-validate --force > /dev/null 2> "$T/err" || { cat "$T/err"; fail "NVIDIA's layout refused"; }
[ -f "$TREE/lib/libcudnn.so.9.19.0" ] || fail "cuDNN not installed into the tree"
"${C[@]}" uninstall --cuda-home /usr/local/cuda > /dev/null 2>&1 || fail "uninstall"
snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "uninstall did not restore the tree"

# ---- bombs: refused on their headers, nothing written ----
P="$T/root/opt/bomb"
nothing_written() { # WHAT: no file, link or staging dir under the prefix, no journal
  [ -z "$(find "$P" -mindepth 1 -not -type d 2>/dev/null)" ] || { find "$P" | head >&2; fail "$1: files written"; }
  no_leftovers "$T/root/opt"
  [ ! -e "$T/root/var/lib/cudnnctl/journal.json" ] || fail "$1: journal left"
}
# 100 GiB sparse file in ~200 bytes
d="$S/v-sparse"; t=$(vtop sparse); A="$S/$t.tar.xz"
mkdir -p "$d/$t/lib"
truncate -s 100G "$d/$t/lib/libcudnn_big.so.9.19.0"
tar -C "$d" --sparse -cf - "$t" | xz -T1 -1 > "$A"
[ "$(stat -c %s "$A")" -lt 4096 ] || fail "the sparse archive is $(stat -c %s "$A") bytes"
rm -rf "$d"
expect_refused 4 "'$t/lib/libcudnn_big.so.9.19.0'.*sparse" "100 GiB sparse" -- \
  install --prefix /opt/bomb --archive "$A" --sha256 "$(sha256sum "$A" | cut -d' ' -f1)" --no-validate
nothing_written "sparse"

# 10 GiB of zeros, xz-compressed (built once, cached outside the clone: ~1.5 MB)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
Z="$cache/$(vtop zeros).tar.xz"
if [ ! -s "$Z" ]; then
  mkdir -p "$cache"
  python3 - "$Z.tmp" "$(vtop zeros)" <<'PY'
import subprocess, sys, tarfile
out, top = sys.argv[1], sys.argv[2]
xz = subprocess.Popen(["xz", "-T2", "-0"], stdin=subprocess.PIPE, stdout=open(out, "wb"))
class Zeros:
    def __init__(self, n): self.n = n
    def read(self, k):
        k = min(k, self.n); self.n -= k; return bytes(k)
with tarfile.open(fileobj=xz.stdin, mode="w|") as t:
    for name, size in ((top + "/lib/libcudnn_zeros.so.9.19.0", 10 << 30),):
        i = tarfile.TarInfo(name); i.size = size; i.mode = 0o644
        t.addfile(i, Zeros(size))
xz.stdin.close()
sys.exit(xz.wait())
PY
  mv "$Z.tmp" "$Z"
fi
[ "$(stat -c %s "$Z")" -lt $((8 << 20)) ] || fail "the zeros archive is not small"
cp "$Z" "$S/"; Z="$S/$(basename "$Z")" # paths are read under --root
expect_refused 4 "archive bomb refused: entry '$(vtop zeros)/lib/libcudnn_zeros.so.9.19.0'.*10.0 GiB.*cap of 256.0 MiB" \
  "10 GiB of zeros" -- install --prefix /opt/bomb --archive "$Z" --sha256 "$(sha256sum "$Z" | cut -d' ' -f1)" --no-validate
nothing_written "zeros"

# --max-unpacked lowers (or raises) the cap: a real 9.x archive over 1 MiB
expect_refused 4 "archive bomb refused: .*over the cap of 1.0 MiB given with --max-unpacked" "--max-unpacked 1M" -- \
  install --prefix /opt/bomb --archive "$base" --sha256 "$(sha256sum "$base" | cut -d' ' -f1)" \
  --no-validate --max-unpacked 1M
nothing_written "max-unpacked"
expect_refused 2 "--max-unpacked takes a size" "--max-unpacked junk" -- \
  install --prefix /opt/bomb --archive "$base" --max-unpacked 12Q

# an entry whose data ends early: a truncated bad archive, not a write error
A=$(variant trunc 'head -c 3000000 /dev/urandom > lib/libcudnn_graph.so.9.19.0')
rm "$A"
tar -C "$S/v-trunc" -cf "$T/trunc.tar" "$(vtop trunc)"
head -c 2000000 "$T/trunc.tar" | xz -T1 -1 > "$A"
expect_refused 4 "[Tt]runcated" "truncated entry" -- \
  install --prefix /opt/bomb --archive "$A" --sha256 "$(sha256sum "$A" | cut -d' ' -f1)" --no-validate
grep -qi "write:\|unknown error" "$T/err" && { cat "$T/err"; fail "a truncated entry reported as a write error"; }
nothing_written "truncated"

echo "ok: content policy and bombs (the free-space rule: test_install_freespace.sh)"
