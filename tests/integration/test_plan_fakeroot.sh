#!/usr/bin/env bash
# test_plan_fakeroot.sh: plan on fake system trees under --root, driven by detection (no
# selection flags but the platform): a CUDA 13.0 tree with driver 525.60.13 exits 5 naming the
# cuda13 floor; with driver 580.65.06 it plans a merge into that tree's lib64.
# Needs the real detection (toolkits from version.json/cuda.h, driver from
# /proc/driver/nvidia/version); with the placeholder detection it fails.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

make_root() { # dir driver-version
    local r=$1
    mkdir -p "$r/proc/driver/nvidia" "$r/usr/local/cuda-13.0/bin" "$r/usr/local/cuda-13.0/include" \
        "$r/usr/local/cuda-13.0/targets/x86_64-linux/lib" "$r/usr/local/cuda-13.0/targets/x86_64-linux/include"
    printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Wed Nov 30 06:39:21 UTC 2022\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n' \
        "$2" >"$r/proc/driver/nvidia/version"
    cat >"$r/usr/local/cuda-13.0/version.json" <<'JSON'
{
   "cuda" : { "name" : "CUDA SDK", "version" : "13.0.0" },
   "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "13.0.48" },
   "cuda_nvcc" : { "name" : "CUDA NVCC", "version" : "13.0.48" }
}
JSON
    printf '#define CUDA_VERSION 13000\n' >"$r/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda.h"
    ln -s targets/x86_64-linux/include/cuda.h "$r/usr/local/cuda-13.0/include/cuda.h"
    printf '#define CUDART_VERSION 13000\n' >"$r/usr/local/cuda-13.0/include/cuda_runtime_api.h"
    echo 'int cudart_double(void) { return 13000; }' >"$T/x.c"
    cc -shared -fPIC -Wl,-soname,libcudart.so.13 -o "$r/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.48" "$T/x.c"
    ln -s libcudart.so.13.0.48 "$r/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13"
    ln -s targets/x86_64-linux/lib "$r/usr/local/cuda-13.0/lib64"
    ln -s cuda-13.0 "$r/usr/local/cuda"
}

# driver below the floor of the only build the toolkit can use
make_root "$T/old" 525.60.13
set +e
"$CUDNNCTL" --root "$T/old" plan --platform linux-x86_64 >"$T/out" 2>"$T/err"
rc=$?
set -e
[ "$rc" = 5 ] || fail "old driver: exit $rc, want 5: $(cat "$T/err")"
grep -q "driver 525.60.13 is below 580.65.06, the floor of the cuda13 build" "$T/err" ||
    fail "old driver: reason missing: $(cat "$T/err")"
grep -q "update the driver" "$T/err" || fail "old driver: fix missing: $(cat "$T/err")"

# a driver at the floor: a merge into the detected tree
make_root "$T/new" 580.65.06
"$CUDNNCTL" --root "$T/new" --json plan --platform linux-x86_64 >"$T/p.json" 2>"$T/err" ||
    fail "new driver: exit $?: $(cat "$T/err")"
python3 - "$T/p.json" <<'PY' || fail "new driver: $(cat "$T/p.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cuda_variant"] == "13", d["cuda_variant"]
assert d["driver"]["version"] == "580.65.06", d["driver"]
assert d["target"]["mode"] == "cuda-tree", d["target"]
assert d["target"]["path"] in ("/usr/local/cuda-13.0", "/usr/local/cuda"), d["target"]["path"]
assert d["target"]["lib_dir"].endswith("/lib64"), d["target"]["lib_dir"]
assert d["cudnn_version"] == "9.27.0.42", d["cudnn_version"]
assert d["toolkit_version"].startswith("13.0"), d["toolkit_version"]
PY
echo "ok: plan on fake roots"
