# install_lib.sh: helpers the install-area shell tests source (not a test itself).
# Archives are built at test time in NVIDIA's 9.x layout from the machine's real cuDNN 9.19 files
# (the small ones) or, where the machine has none, from ELF test doubles with the right SONAMEs.

REAL=${CUDNN_REAL_DIR:-/usr/local/cuda-13.0}

fail() { echo "FAIL: $*" >&2; exit 1; }

have_real() { [ -f "$REAL/lib/libcudnn.so.9" ] && [ -f "$REAL/include/cudnn_version.h" ]; }

# elf_double OUT SONAME: a real shared object (test double, not NVIDIA's code).
elf_double() {
  local src; src=$(mktemp --suffix=.c)
  printf 'int cudnnctl_test_double(void) { return 1; }\nconst char *t = "%s";\n' "$2" > "$src"
  cc -shared -fPIC -Wl,-soname,"$2" -o "$1" "$src" || fail "cc could not build a test double"
  rm -f "$src"
}

# make_archive OUTDIR VER4 "sub1 sub2 ..." [tiny] → prints the archive path.
# NVIDIA 9.x layout: cudnn-linux-x86_64-<ver4>_cuda13-archive/{LICENSE,include/,lib/} with
# lib/libX.so.<ver3> real files and the .so.9 / .so links.
make_archive() {
  local out=$1 ver4=$2 subs=$3 tiny=${4:-}
  local ver3=${ver4%.*} name="cudnn-linux-x86_64-${ver4}_cuda13-archive"
  local d="$out/build-$ver4/$name"
  mkdir -p "$d/include" "$d/lib"
  if have_real; then
    cp "$REAL/include/cudnn_version.h" "$REAL/include/cudnn.h" "$d/include/"
    [ -n "$tiny" ] || cp "$REAL/include/cudnn_graph.h" "$d/include/"
  else
    echo "install_lib.sh: no real cuDNN under $REAL: using ELF test doubles" >&2
    printf '#define CUDNN_MAJOR 9\n' > "$d/include/cudnn_version.h"
    printf '/* cudnn.h test double */\n' > "$d/include/cudnn.h"
  fi
  echo "/* $ver4 */" >> "$d/include/cudnn_version.h"
  printf 'NVIDIA cuDNN license (test copy for %s)\n' "$ver4" > "$d/LICENSE"
  local s
  for s in $subs; do
    if have_real && [ -f "$REAL/lib/$s.so.9" ] && [ "$ver3" = 9.19.0 ]; then
      cp "$REAL/lib/$s.so.9" "$d/lib/$s.so.$ver3"
    else
      elf_double "$d/lib/$s.so.$ver3" "$s.so.9"
    fi
    ln -s "$s.so.$ver3" "$d/lib/$s.so.9"
    ln -s "$s.so.9" "$d/lib/$s.so"
  done
  tar -C "$out/build-$ver4" -cf - "$name" | xz -T1 -1 > "$out/$name.tar.xz" || fail "xz"
  echo "$out/$name.tar.xz"
}

# make_tree ROOT [clean]: a fake CUDA 13.0 toolkit under ROOT/usr/local/cuda-13.0 that already
# holds a foreign wheel-style cuDNN (libcudnn.so.9 and libcudnn_adv.so.9 regular files, .so
# links, an old cudnn.h), like the machines this project runs on — replacing those needs --force
# (files no receipt owns); with "clean", the toolkit alone.
make_tree() {
  local t="$1/usr/local/cuda-13.0"
  mkdir -p "$t/include" "$t/lib" "$t/bin"
  ln -s lib "$t/lib64"
  ln -s /usr/local/cuda-13.0 "$1/usr/local/cuda"
  printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.88"}}\n' > "$t/version.json"
  printf '/* the toolkit header */\n' > "$t/include/cuda.h"
  elf_double "$t/lib/libcudart.so.13" libcudart.so.13
  ln -s libcudart.so.13 "$t/lib/libcudart.so"
  [ "${2:-}" = clean ] && return 0
  printf '/* an older cuDNN header that was here before */\n' > "$t/include/cudnn.h"
  elf_double "$t/lib/libcudnn.so.9" libcudnn.so.9
  elf_double "$t/lib/libcudnn_adv.so.9" libcudnn_adv.so.9
  ln -s libcudnn.so.9 "$t/lib/libcudnn.so"
  ln -s libcudnn_adv.so.9 "$t/lib/libcudnn_adv.so"
}

# snap DIR: every entry (path, type, link target, mode) and every file's SHA-256 — but DIR's own
# ledger (DIR/.cudnnctl-owners: advisory state of the installs on DIR, checked on its own by
# test_install_concurrent.sh; a fault may keep it from being written while the install stands).
snap() {
  (cd "$1" && find . -path ./.cudnnctl-owners -prune -o -printf '%p %y %l %m\n' | LC_ALL=C sort &&
     find . -path ./.cudnnctl-owners -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# same_snap A B WHAT: compare two snapshot files, show the difference on failure.
same_snap() {
  if ! cmp -s "$1" "$2"; then
    diff "$1" "$2" | head -40 >&2
    fail "$3"
  fi
}

# jq-free JSON assertions: json_get FILE 'python expression over d'
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
json_assert() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" \
    || { cat "$1" >&2; fail "JSON check failed: $2"; }
}

# leftovers DIR: temp names or staging dirs a run must never leave (the target's ledger of its
# installs, TARGET/.cudnnctl-owners, is state, not a leftover: it goes with the last install).
no_leftovers() {
  local l; l=$(find "$1" \( \( -name '.cudnnctl-*' ! -name .cudnnctl-owners \) -o -name '.staging-*' \) -print)
  [ -z "$l" ] || fail "leftovers in $1: $l"
}

# write_manifest FILE VER REL SHA SIZE: a redistrib manifest in NVIDIA's shape naming one
# linux-x86_64 / cuda13 archive.
write_manifest() {
  cat > "$1" <<JSON
{"release_date": "2026-02-03", "release_label": "9.19.0", "release_product": "cudnn",
 "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn", "version": "$2",
   "linux-x86_64": {"cuda13": {"relative_path": "$3", "sha256": "$4", "size": "$5"}},
   "cuda_variant": ["13"]}}
JSON
}

# flip_byte FILE [DIVISOR]: XOR 0x01 into the byte at len/DIVISOR (default 2) of FILE, in place:
# the same size, one bit wrong (a download or archive that must fail its SHA-256).
flip_byte() {
  python3 - "$1" "${2:-2}" <<'PY'
import sys
p, d = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read()); b[len(b) // d] ^= 0x01; open(p, "wb").write(bytes(b))
PY
}

# start_httpd ROOT [httpd.py options...]: serve ROOT on 127.0.0.1 (tests/tools/httpd.py, port file
# $T/port); sets U to its base URL and adds its pid to PIDS (the caller's trap stops it).
start_httpd() {
  local root=$1; shift
  python3 "$SOURCE_DIR/tests/tools/httpd.py" --root "$root" --port-file "$T/port" --parent $$ "$@" &
  PIDS+=($!)
  for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
  [ -s "$T/port" ] || fail "httpd.py did not start"
  U="http://127.0.0.1:$(cat "$T/port")"
}

# build_archive OUTDIR NAME VER3 "sub1 sub2 ..." STATIC(0|1): OUTDIR/NAME.tar.xz in NVIDIA's 9.x
# layout under the top dir NAME (a full or a cudnn_jit archive, by the name given): LICENSE,
# include/ (cudnn_version.h, cudnn.h and the cudnn_v9.h link), per sub-library an ELF double
# libX.so.VER3 with the libX.so.9 and libX.so links, and with STATIC=1 libX_static.a (and the
# libX_static_v9.a link).
build_archive() {
  local out=$1 name=$2 ver3=$3 subs=$4 static=$5 d="$T/build/$2"
  mkdir -p "$d/include" "$d/lib"
  printf 'NVIDIA cuDNN license (test copy)\n' > "$d/LICENSE"
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' \
    $(echo "$ver3" | tr . ' ') > "$d/include/cudnn_version.h"
  printf '/* cudnn.h test double */\n' > "$d/include/cudnn.h"
  ln -s cudnn.h "$d/include/cudnn_v9.h"
  local s
  for s in $subs; do
    elf_double "$d/lib/$s.so.$ver3" "$s.so.9"
    ln -s "$s.so.$ver3" "$d/lib/$s.so.9"
    ln -s "$s.so.9" "$d/lib/$s.so"
    if [ "$static" = 1 ]; then
      printf '!<arch>\n' > "$d/lib/${s}_static.a"
      ln -s "${s}_static.a" "$d/lib/${s}_static_v9.a"
    fi
  done
  mkdir -p "$out"
  tar -C "$T/build" -cf - "$name" | xz -T1 -1 > "$out/$name.tar.xz" || fail "xz"
}
