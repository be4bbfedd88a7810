# envwire_lib.sh: shared by the test_envwire_*.sh scripts (sourced, not a test itself).
# A fake root with CUDA toolkits 11.8, 12.4, 13.0 (version.json, bin/nvcc, lib64/), nothing from
# the host's environment that could pick a toolkit (CUDA_HOME, nvcc on PATH).
: "${CUDNNCTL:?CUDNNCTL must name the cudnnctl binary}"
unset CUDA_HOME CUDA_PATH CUDNNCTL_ENV LD_LIBRARY_PATH XDG_CONFIG_HOME ZDOTDIR CONDA_PREFIX \
      VIRTUAL_ENV PYTHONPATH CUDA_VERSION
export PATH=/usr/local/bin:/usr/bin:/bin
T=$(mktemp -d /tmp/cudnnctl-envwire-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# mk_toolkit ROOT X.Y: a toolkit dir the detector recognises by its version.json
mk_toolkit() {
    local d="$1/usr/local/cuda-$2"
    mkdir -p "$d/bin" "$d/lib64" "$d/include"
    printf '{"cuda":{"name":"CUDA SDK","version":"%s.1"}}\n' "$2" >"$d/version.json"
}

mk_root() {
    mkdir -p "$1/usr/local" "$1/etc" "$1/home/u"
    for v in 11.8 12.4 13.0; do mk_toolkit "$1" "$v"; done
}

# run cudnnctl against root $R
C() { "$CUDNNCTL" --root "$R" "$@"; }

need() {
    command -v "$1" >/dev/null 2>&1 || fail "$1 is not installed (scripts/bootstrap installs it)"
}

json_get() { # json_get 'expression on d' < json
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(('"$1"'))'
}
