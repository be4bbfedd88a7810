# cudnn_wheel.sh: sourced by tests/windows/test_*.sh. Sets VER and WHL: NVIDIA's nvidia-cudnn-cu12
# win_amd64 wheel (real Windows cuDNN DLLs, headers and import libs), fetched once with pip into a
# cache outside the clone (680 MB; $CUDNNCTL_TEST_CACHE, default ~/.cache/cudnnctl-test/wheels).
VER=9.1.0.70
CACHE=${CUDNNCTL_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test}
WHL="$CACHE/wheels/nvidia_cudnn_cu12-$VER-py3-none-win_amd64.whl"
if [ ! -f "$WHL" ]; then
  echo "downloading nvidia-cudnn-cu12==$VER win_amd64 (680 MB, once) into $CACHE/wheels" >&2
  mkdir -p "$CACHE/wheels"
  PIP=(pip); command -v pip >/dev/null || PIP=(python3 -m pip)
  "${PIP[@]}" download -q --no-deps --platform win_amd64 --only-binary=:all: "nvidia-cudnn-cu12==$VER" \
    -d "$CACHE/wheels" >&2 || { echo "FAIL: pip download of nvidia-cudnn-cu12==$VER failed"; exit 1; }
  [ -f "$WHL" ] || { echo "FAIL: $WHL missing after pip download"; exit 1; }
fi
