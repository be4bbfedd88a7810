# consumers_lib.sh: fetch and unpack real PyPI wheels into the cache outside the clone, lay them
# out in venvs (hard links), and read `which --python --json` answers. Sourced by
# test_which_consumers.sh and test_reports_python.sh (SRC: the machine's cuDNN 9.19).
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
C=$CACHE/consumers W=$CACHE/wheels
mkdir -p "$C" "$W"
fetch() { # fetch DIR GLOB SPEC PYVER PLATFORM...: a cached wheel, else pip download
    local dir=$1 glob=$2 spec=$3 pyv=$4; shift 4
    local w; w=$(ls "$dir"/$glob 2>/dev/null | head -1 || true)
    if [ -z "$w" ]; then
        local plats=(); for p in "$@"; do plats+=(--platform "$p"); done
        timeout 1200 python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$pyv" \
            "${plats[@]}" -d "$dir" "$spec" >&2 || true
        w=$(ls "$dir"/$glob 2>/dev/null | head -1 || true)
    fi
    echo "$w"
}
ML=(manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux2014_x86_64 manylinux1_x86_64)
# unpack WHEEL MEMBER...: the members, once, into $CACHE/x-<wheel>; prints that dir
unpack() {
    local whl=$1; shift
    local d=$CACHE/x-$(basename "$whl" .whl)
    python3 - "$whl" "$d" "$@" <<'PY'
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); out = sys.argv[2]
for n in z.namelist():
    if any(n == m or n.startswith(m) or n.endswith(m) for m in sys.argv[3:]):
        if not os.path.exists(os.path.join(out, n)):
            z.extract(n, out)
PY
    echo "$d"
}
link_tree() { # link_tree FROM TO: hard links (cp where that fails)
    (cd "$1" && find . -type f) | while read -r f; do
        mkdir -p "$2/$(dirname "$f")"; ln -f "$1/$f" "$2/$f" 2>/dev/null || cp "$1/$f" "$2/$f"
    done
}
cudnn_wheel() { # cudnn_wheel SITE: the machine's 9.19 in the nvidia-cudnn-cu13 wheel layout
    mkdir -p "$1/nvidia/cudnn/lib" "$1/nvidia/cudnn/include" "$1/nvidia_cudnn_cu13-9.19.0.56.dist-info"
    : >"$1/nvidia/__init__.py"; : >"$1/nvidia/cudnn/__init__.py"
    for f in "$SRC"/lib64/libcudnn*.so.9; do ln -f "$f" "$1/nvidia/cudnn/lib/" 2>/dev/null || cp "$f" "$1/nvidia/cudnn/lib/"; done
    cp "$SRC/include/cudnn_version.h" "$1/nvidia/cudnn/include/"
    printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n' >"$1/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA"
}
venv() { # venv DIR: a venv; prints its site dir
    python3 -m venv --without-pip "$1" >/dev/null
    "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'
}
which_json() { # which_json PY OUT [VAR=VALUE...]
    local py=$1 out=$2; shift 2
    set +e; env "$@" "$CUDNNCTL" which --python "$py" --json >"$out"; local rc=$?; set -e
    echo "$rc"
}
lib_of() { # lib_of JSON CONSUMER EXPR: EXPR over c (the consumer) and l (its libcudnn.so.M)
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cs = [c for c in r["consumers"] if c["name"] == sys.argv[2]]
if not cs:
    print("no-consumer"); sys.exit(0)
c = cs[0]; l = ([x for x in c["loads"] if x["soname"].startswith("libcudnn.so.")] or [{}])[0]
v = eval(sys.argv[3])
print(" ".join(map(str, v)) if isinstance(v, tuple) else v)
PY
}

