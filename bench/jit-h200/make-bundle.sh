#!/usr/bin/env bash
# make-bundle.sh BUILD_DIR OUT_DIR: what bench/jit-h200/run.sh needs on the device machine (no
# network there): OUT_DIR/bin (the cudnnctl binary with its shared libraries, as
# bench/validate-h200/make-bundle.sh makes it) and OUT_DIR/mirror (NVIDIA's real JIT bytes: the
# nvidia-cudnn-jit-cu13 9.27.0.42 wheel from ~/.cache/cudnnctl-test/wheels, fetched with pip when
# missing, repacked by scripts/local-mirror --flavor jit with xz -9e to keep the bundle small;
# JIT_MIRROR=DIR reuses a repack made before). Then, for the device tool: carry OUT_DIR (under
# an ignored path such as .device/jit-bundle) and run `bash OUT_DIR/run.sh OUT_DIR`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=$1; O=$2
VER=9.27.0.42
CACHE=${CUDNNCTL_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test}
WHL="$CACHE/wheels/nvidia_cudnn_jit_cu13-$VER-py3-none-manylinux_2_27_x86_64.whl"
[ -f "$WHL" ] || python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_27_x86_64 "nvidia-cudnn-jit-cu13==$VER" -d "$CACHE/wheels"
mkdir -p "$O"
bash "$here/../validate-h200/make-bundle.sh" "$B" "$O" > /dev/null
# the device tool carries 64 MiB in all and the JIT archive alone is 51 MiB: libxml2 and ICU
# (33 MiB, reached only through libarchive) are taken from the device's Ubuntu 24.04 instead
# (its cmake pulls them in), the rest travels as bin.tar.xz
rm -f "$O"/bin/lib/libicu* "$O"/bin/lib/libxml2.so*
tar -C "$O" -cf - bin | xz -9 -T1 > "$O/bin.tar.xz"
rm -rf "$O/bin"
if [ -n "${JIT_MIRROR:-}" ]; then # a repack made before (the -9e run takes minutes)
  cp -r "$JIT_MIRROR" "$O/mirror"
  cp "$here/run.sh" "$O/"
  du -sh "$O" "$O"/bin.tar.xz "$O"/mirror
  exit 0
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
(cd "$T" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall("w")' "$WHL")
python3 "$here/../../scripts/local-mirror" --lib-dir "$T/w/nvidia/cudnn_jit/lib" \
  --include-dir "$T/w/nvidia/cudnn_jit/include" --version $VER --cuda 13 --flavor jit \
  --xz-preset=-9e --xz-threads 1 --out "$O/mirror"
cp "$here/run.sh" "$O/"
du -sh "$O" "$O"/bin.tar.xz "$O"/mirror
