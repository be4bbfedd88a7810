#!/usr/bin/env bash
# validate against the machine's real CUDA 13.0 tree (cuDNN 9.19 wheel files, no driver, no GPU):
# versions and sub-libraries are read for real through dlopen in the child; handle creation fails
# cleanly; exit 7 with status "no-gpu"; every mapped libcudnn* comes from the tree.
set -euo pipefail
CUDA=/usr/local/cuda-13.0
[ -f "$CUDA/lib/libcudnn.so.9" ] || { echo "FAIL: $CUDA/lib/libcudnn.so.9 missing: this test needs the CUDA 13.0 tree with cuDNN 9.19"; exit 1; }
if ldconfig -p | grep 'libcuda\.so\.1 ' >/dev/null; then
    echo "FAIL: this machine has an NVIDIA driver (libcuda.so.1): the no-GPU expectations below do not apply"; exit 1
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

set +e
"$CUDNNCTL" validate "$CUDA" --json >"$tmp/out.json" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 7 ] || { echo "FAIL: exit $rc, want 7"; cat "$tmp/err" "$tmp/out.json"; exit 1; }
python3 - "$tmp/out.json" "$CUDA" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1])); cuda = sys.argv[2]
def fail(m): print("FAIL:", m); print(json.dumps(r, indent=1)); sys.exit(1)
if r["status"] != "no-gpu": fail("status %r" % r["status"])
if r["cudnn_version"] != "9.19.0" or r["cudnn_version_raw"] != 91900: fail("cudnn version")
if r["header_version"] != "9.19.0": fail("header version")
if r["cudnn_cudart_version"].split(".")[0] != "13" or r["cudart_version"] != "13.0": fail("cudart versions")
if r["max_device_version"] != 1210: fail("max device version")
if r["driver_version"] is not None or r["gpu"] is not None: fail("driver/gpu should be unknown")
if r["child_ld_library_path"] is not None: fail("child saw LD_LIBRARY_PATH")
c = {k["name"]: k for k in r["checks"]}
for n in ["load_cudnn", "cudnn_version", "sublib_graph", "sublib_ops", "sublib_cnn", "sublib_adv",
          "load_cudart", "cudart_major", "cublas", "nvrtc", "loaded_from", "header_version"]:
    if n not in c or not c[n]["ok"] or c[n]["skipped"]: fail("check %s not ok: %r" % (n, c.get(n)))
    if not isinstance(c[n]["seconds"], (int, float)): fail("no time on " + n)
if not (c["driver"]["skipped"] and "libcuda.so.1" in c["driver"]["error"]): fail("driver check")
h = c["handle"]
if not h["skipped"] or h["ok"] or "cudnnCreate returned CUDNN_STATUS_" not in h["error"]: fail("handle: %r" % h)
for n in ["conv_fp32_a", "conv_fp32_b", "conv_fp32_c", "conv_fp16_tensor_op", "relu", "maxpool"]:
    if not c[n]["skipped"] or c[n]["ok"]: fail("compute check %s should be skipped" % n)
lf = r["loaded_from"]
names = sorted(os.path.basename(p) for p in lf)
for want in ["libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_adv.so.9"]:
    if want not in names: fail("%s not mapped" % want)
for p in lf:
    if not p.startswith(cuda + "/"): fail("mapped from outside the tree: " + p)
for m in r["loaded"]:
    if os.path.realpath(m["path"]) != m["realpath"]: fail("realpath wrong: %r" % m)
v = [os.path.basename(m["path"]) for m in r["vendor_libs"]]
for want in ["libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13", "libnvrtc.so.13"]:
    if want not in v: fail("vendor lib %s not reported" % want)
PY
grep -q "no GPU / driver" "$tmp/err" || { echo "FAIL: no warning on stderr"; cat "$tmp/err"; exit 1; }

# human output: a table of checks, exit 7 again
set +e
"$CUDNNCTL" validate "$CUDA/lib" >"$tmp/human" 2>&1
rc=$?
set -e
[ "$rc" -eq 7 ] || { echo "FAIL: human run exit $rc"; cat "$tmp/human"; exit 1; }
grep -Eq '^sublib_ops +ok ' "$tmp/human" || { echo "FAIL: table lacks sublib_ops ok"; cat "$tmp/human"; exit 1; }
grep -Eq '^conv_fp32_a +skip ' "$tmp/human" || { echo "FAIL: table lacks skipped conv"; cat "$tmp/human"; exit 1; }
grep -q "result: no-gpu" "$tmp/human" || { echo "FAIL: no result line"; cat "$tmp/human"; exit 1; }

# a dir without cuDNN is refused with a fix, not validated
set +e
"$CUDNNCTL" validate "$tmp" >"$tmp/o" 2>"$tmp/e"
rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "no libcudnn.so.<M> under" "$tmp/e" || { echo "FAIL: empty dir: exit $rc"; cat "$tmp/e"; exit 1; }
echo "ok: validate $CUDA → no-gpu, cuDNN 9.19.0 checked through dlopen"
