# build_lib.sh: shared by the test_build_*.sh scripts (sourced, not a test itself): real cuDNN
# bytes for a prefix P of another release than the machine's own, a decoy on the compiler's
# default paths, and the test program.
#  - P: cuDNN 9.27 from NVIDIA's nvidia-cudnn-cu13 wheel (cached outside the clone in
#    ${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/wheels, else pip-downloaded), repacked once by
#    scripts/local-mirror into NVIDIA's archive layout with the libraries a build needs (libcudnn,
#    libcudnn_graph, libcudnn_engines_runtime_compiled, libcudnn_cnn), cached as build-mirror-9.27/.
#  - the decoy: the machine's cuDNN 9.19 from /usr/local/cuda-13.0 (headers and libcudnn.so*),
#    put on /usr/local/include and /usr/local/lib inside a private mount namespace only
#    (decoy_ns: unshare -m, a tmpfs over each; the machine's own dirs are never written).
# Exit 77 (skipped, with the reason) when something of that is not to be had here.
: "${CUDNNCTL:?CUDNNCTL must name the cudnnctl binary}"
: "${SOURCE_DIR:?SOURCE_DIR must name the source tree}"
skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
unset CUDA_HOME CUDA_PATH CUDNNCTL_ENV LD_LIBRARY_PATH CPATH LIBRARY_PATH PKG_CONFIG_PATH \
      CMAKE_PREFIX_PATH CUDNN_PATH CUDNN_HOME CUDNN_INCLUDE_DIR CUDNN_LIB_DIR CUDNN_ROOT_DIR \
      CUDNN_INCLUDE_PATH CUDNN_LIBRARY_PATH CUDNN_INSTALL_PATH LOCAL_CUDNN_PATH NVCC_PREPEND_FLAGS \
      C_INCLUDE_PATH CPLUS_INCLUDE_PATH CC CXX
TK=/usr/local/cuda-13.0
[ -f "$TK/include/cudnn.h" ] && [ -f "$TK/lib/libcudnn.so.9" ] && [ -f "$TK/include/cuda_runtime_api.h" ] ||
    skip "no CUDA 13.0 toolkit with cuDNN 9.19 in $TK (the decoy and cuda_runtime_api.h)"
for p in cc cmake pkg-config unshare mount python3 xz; do
    command -v $p >/dev/null || skip "$p is not installed (scripts/bootstrap)"
done
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here (needs root)"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
MIRROR=$CACHE/build-mirror-9.27
T=$(mktemp -d /tmp/cudnnctl-build-it.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin"
printf '#!/bin/sh\nexec "%s" --state-dir "%s/state" --cache-dir "%s/cache" "$@"\n' "$CUDNNCTL" "$T" "$T" \
    >"$T/bin/cudnnctl"
chmod +x "$T/bin/cudnnctl"
export PATH=$T/bin:/usr/local/cuda-13.0/bin:/usr/local/bin:/usr/bin:/bin

# the mirror of cuDNN 9.27 (built once: a minute or two of xz)
make_mirror() {
    [ -s "$MIRROR/mirror.json" ] && return 0
    local w
    w=$(ls "$CACHE"/wheels/nvidia_cudnn_cu13-9.27.0.42-*manylinux*x86_64.whl 2>/dev/null | head -1 || true)
    if [ -z "$w" ]; then
        mkdir -p "$CACHE/wheels"
        timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
            --platform manylinux_2_27_x86_64 -d "$CACHE/wheels" nvidia-cudnn-cu13==9.27.0.42 >&2 || true
        w=$(ls "$CACHE"/wheels/nvidia_cudnn_cu13-9.27.0.42-*manylinux*x86_64.whl 2>/dev/null | head -1 || true)
    fi
    [ -n "$w" ] || skip "nvidia-cudnn-cu13 9.27.0.42: not cached and PyPI unreachable"
    local x=$T/wheel
    python3 - "$w" "$x" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
keep = ("libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_engines_runtime_compiled.so.9", "libcudnn_cnn.so.9")
for n in z.namelist():
    if n.startswith("nvidia/cudnn/include/") or n.endswith(keep) or ".dist-info/" in n:
        z.extract(n, sys.argv[2])
PY
    rm -rf "$MIRROR.tmp"
    python3 "$SOURCE_DIR/scripts/local-mirror" --lib-dir "$x/nvidia/cudnn/lib" \
        --include-dir "$x/nvidia/cudnn/include" --cuda 13 --xz-preset -0 --xz-threads 2 \
        --out "$MIRROR.tmp" >"$T/mirror.json" || fail "local-mirror failed"
    sed "s#$MIRROR.tmp#$MIRROR#g" "$T/mirror.json" >"$MIRROR.tmp/mirror.json"
    rm -rf "$MIRROR" "$x"
    mv "$MIRROR.tmp" "$MIRROR"
}

# install_p DIR [install options]: cuDNN 9.27 into the prefix DIR (or a tree with --cuda-home)
install_p() {
    make_mirror
    local mf v
    mf=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest"])' "$MIRROR/mirror.json")
    v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cudnn_version"])' "$MIRROR/mirror.json")
    cudnnctl install --manifest "$mf" --mirror "$MIRROR" --cudnn "$v" --cuda 13 --no-validate \
        --no-ldconfig "$@" >"$T/install.log" 2>&1 || fail "install $*: $(cat "$T/install.log")"
}

# The test program: the header's version and the loaded library's.
cat >"$T/t.c" <<'C'
#include <stdio.h>
#include <cudnn.h>
int main(void)
{
    printf("header %d runtime %zu\n", (int)CUDNN_VERSION, cudnnGetVersion());
    return 0;
}
C

# decoy_ns SCRIPT: run bash SCRIPT in a private mount namespace whose /usr/local/include and
# /usr/local/lib hold the decoy cuDNN 9.19 (headers, libcudnn.so*) beside what was there (links).
decoy_ns() {
    unshare -m bash -c '
set -e
mount --make-rprivate /
T=$1; TK=$2
mkdir -p "$T/ns/inc" "$T/ns/lib"
mount --bind /usr/local/include "$T/ns/inc"
mount --bind /usr/local/lib "$T/ns/lib"
for d in include lib; do mount -t tmpfs tmpfs /usr/local/$d; done
for e in "$T"/ns/inc/* "$T"/ns/lib/*; do
    [ -e "$e" ] || continue
    case $e in */ns/inc/*) w=/usr/local/include ;; *) w=/usr/local/lib ;; esac
    case ${e##*/} in cudnn*|libcudnn*) ;; *) ln -s "$e" "$w/" ;; esac
done
cp -L "$TK"/include/cudnn*.h /usr/local/include/
cp -L "$TK"/lib/libcudnn.so.9 /usr/local/lib/
ln -s libcudnn.so.9 /usr/local/lib/libcudnn.so
shift 2
exec bash "$@"' decoy "$T" "$TK" "$@"
}
