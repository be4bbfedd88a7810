# cli_lib.sh: helpers of the test_cli_*.sh scripts (sourced): a fake system root with a CUDA
# 13.0 toolkit and a driver, and small cuDNN archives in NVIDIA's layout with their manifest.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

cli_make_root() { # DIR: CUDA 13.0 at /usr/local/cuda-13.0 (active), driver 580.65.06
    local r=$1
    mkdir -p "$r/proc/driver/nvidia" "$r/usr/local/cuda-13.0/bin" "$r/usr/local/cuda-13.0/include" \
        "$r/usr/local/cuda-13.0/targets/x86_64-linux/lib"
    printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Wed Nov 30 06:39:21 UTC 2025\n' \
        >"$r/proc/driver/nvidia/version"
    printf '{ "cuda" : { "name" : "CUDA SDK", "version" : "13.0.0" } }\n' >"$r/usr/local/cuda-13.0/version.json"
    printf '#define CUDA_VERSION 13000\n' >"$r/usr/local/cuda-13.0/include/cuda.h"
    ln -s targets/x86_64-linux/lib "$r/usr/local/cuda-13.0/lib64"
    ln -s cuda-13.0 "$r/usr/local/cuda"
}

cli_make_archive() { # WWW VERSION(4 parts) [MIB] → WWW/cudnn/linux-x86_64/<name>.tar.xz (CUDA 13)
    # MIB: that many MiB of random bytes in a static library (xz cannot shrink them)
    local www=$1 ver=$2 mib=${3:-0} tmp
    local name="cudnn-linux-x86_64-${ver}_cuda13-archive" so=${ver%.*}
    tmp=$(mktemp -d)
    mkdir -p "$tmp/$name/lib" "$tmp/$name/include" "$www/cudnn/linux-x86_64"
    printf 'int cudnnctl_test_double(void) { return 42; }\n' >"$tmp/stub.c"
    for l in libcudnn libcudnn_graph libcudnn_ops; do
        cc -shared -fPIC -Wl,-soname,$l.so.9 -o "$tmp/$name/lib/$l.so.$so" "$tmp/stub.c"
        ln -s "$l.so.$so" "$tmp/$name/lib/$l.so.9"
        ln -s $l.so.9 "$tmp/$name/lib/$l.so"
    done
    IFS=. read -r ma mi pa _ <<<"$ver"
    printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$ma" "$mi" "$pa" \
        >"$tmp/$name/include/cudnn_version.h"
    echo "test double of the cuDNN license" >"$tmp/$name/LICENSE"
    [ "$mib" = 0 ] || head -c $((mib << 20)) /dev/urandom >"$tmp/$name/lib/libcudnn_adv_static.a"
    XZ_OPT=-0 tar -C "$tmp" -cJf "$www/cudnn/linux-x86_64/$name.tar.xz" "$name"
    rm -rf "$tmp"
}

cli_make_manifest() { # WWW VERSION OUT.json: NVIDIA's redistrib JSON for that archive
    "$PY" - "$@" <<'PY'
import hashlib, json, sys
www, ver, out = sys.argv[1:4]
rel = "cudnn/linux-x86_64/cudnn-linux-x86_64-%s_cuda13-archive.tar.xz" % ver
b = open("%s/%s" % (www, rel), "rb").read()
m = {"release_date": "2099-01-01", "release_label": ver.rsplit(".", 1)[0], "release_product": "cudnn",
     "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
               "license_path": "cudnn/LICENSE.txt", "version": ver, "cuda_variant": ["13"],
               "linux-x86_64": {"cuda13": {"relative_path": rel,
                   "sha256": hashlib.sha256(b).hexdigest(), "md5": hashlib.md5(b).hexdigest(),
                   "size": str(len(b))}}}}
open(out, "w").write(json.dumps(m, indent=4) + "\n")
PY
}
