#!/usr/bin/env bash
# The validation child's GPU path, run where no GPU exists: CPU-backed test doubles of
# libcuda.so.1 / libcudart.so.13 / libcudnn.so.9 (tests/fixtures/validate_fake_vendor.c). The
# child is started directly (the parent would scrub the LD_LIBRARY_PATH that makes the loader
# find the fake driver): every compute check must pass with exact fp32 results; a double that
# returns one wrong element must fail the convolution checks with the error measured.
set -euo pipefail
command -v cc >/dev/null || { echo "FAIL: no C compiler for the test doubles"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=$SOURCE_DIR/tests/fixtures/validate_fake_vendor.c
mkdir -p "$tmp/drv" "$tmp/tk" "$tmp/dnn" "$tmp/bad"
cc -shared -fPIC -DFAKE_CUDA -Wl,-soname,libcuda.so.1 -o "$tmp/drv/libcuda.so.1" "$src"
cc -shared -fPIC -DFAKE_CUDART -Wl,-soname,libcudart.so.13 -o "$tmp/tk/libcudart.so.13" "$src"
for s in libcublasLt.so.13 libcublas.so.13 libnvrtc.so.13; do   # empty doubles: they only must load
    echo "int fake_$RANDOM;" | cc -shared -fPIC -x c -Wl,-soname,$s -o "$tmp/tk/$s" -
done
cc -shared -fPIC -DFAKE_CUDNN -Wl,-soname,libcudnn.so.9 -o "$tmp/dnn/libcudnn.so.9" "$src"
cc -shared -fPIC -DFAKE_CUDNN -DWRONG -Wl,-soname,libcudnn.so.9 -o "$tmp/bad/libcudnn.so.9" "$src"

child() { # DIR OUT
    printf '{"lib_dir":"%s","cudnn_lib":"%s/libcudnn.so.9","major":9,"device":0,"toolkit_dirs":["%s"]}' \
        "$1" "$1" "$tmp/tk" | LD_LIBRARY_PATH=$tmp/drv "$CUDNNCTL" __validate-child >"$2"
}
child "$tmp/dnn" "$tmp/good.txt"
child "$tmp/bad" "$tmp/bad.txt"
python3 - "$tmp/good.txt" "$tmp/bad.txt" <<'PY'
import json, sys
MARK = "@@cudnnctl-validate@@ "
def checks(path):
    out, facts, done = {}, {}, False
    for line in open(path):
        if MARK not in line: continue
        o = json.loads(line.split(MARK, 1)[1])
        if "check" in o: out[o["check"]["name"]] = o["check"]
        if "facts" in o: facts.update(o["facts"])
        if o.get("done"): done = True
    if not done: print("FAIL: report of", path, "not finished"); sys.exit(1)
    return out, facts
def fail(m, c): print("FAIL:", m); print(json.dumps(c, indent=1)); sys.exit(1)
c, f = checks(sys.argv[1])
if f.get("gpu_name") != "Fake GPU (CPU double)" or f.get("compute_capability") != 90: fail("device facts", f)
for n in ["driver", "load_cudnn", "cudnn_version", "load_cudart", "cudart_major", "cublas", "nvrtc", "device", "handle",
          "conv_fp32_a", "conv_fp32_b", "conv_fp32_c", "conv_fp16_tensor_op", "relu", "maxpool", "loaded_from"]:
    if n not in c or not c[n]["ok"]: fail("check %s" % n, c)
for n in ["conv_fp32_a", "conv_fp32_b", "conv_fp32_c", "relu", "maxpool"]:
    if c[n]["max_abs_err"] != 0 or c[n]["tolerance"] != 1e-4: fail("fp32 %s not exact" % n, c[n])
h = c["conv_fp16_tensor_op"]
if not (0 <= h["max_abs_err"] <= 0.125) or h["tolerance"] != 1e-2 or "algo 1" not in h["detail"]: fail("fp16", h)
b, _ = checks(sys.argv[2])
for n in ["conv_fp32_a", "conv_fp32_b", "conv_fp32_c", "conv_fp16_tensor_op"]:
    if b[n]["ok"] or abs(b[n]["max_abs_err"] - 0.5) > 0.01 or "differs from the CPU reference" not in b[n]["error"]: fail("wrong %s not caught" % n, b[n])
if not b["relu"]["ok"] or not b["maxpool"]["ok"]: fail("relu/maxpool", b)
PY
echo "ok: GPU path against CPU doubles: exact results pass, a wrong element fails"
