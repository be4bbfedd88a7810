#!/usr/bin/env bash
# test_doctor_conditions.sh: the real binary on fake machines under --root. A healthy machine
# gives no error or warning and exit 0; then each case copies it, plants one broken condition
# (dangling /usr/local/cuda, old driver, mixed sub-libraries, missing and wrong .so links,
# header mismatch, cuDNN on LD_LIBRARY_PATH, a cu12 wheel beside CUDA 13, cuDNN 8 without
# libcuda.so, disagreeing toolkit sources, several versions on the loader path) and checks the
# finding codes in the JSON and the exit code (1 when an error is found).
set -euo pipefail
. "$(dirname "$0")/doctor_common.sh"

healthy_machine
J=$TOP/out.json

# ---- the healthy machine ----------------------------------------------------------------------
new_case healthy
doctor_json "$J" 0
"$PY" - "$J" <<'PY' || fail "the healthy machine has findings"
import json, sys
d = json.load(open(sys.argv[1]))
if d["findings"] or d["errors"] or not d["ok"]:
    print(json.dumps(d["findings"], indent=1), file=sys.stderr)
    sys.exit(1)
PY
# human output of a healthy machine
out=$(env -i PATH=/usr/bin:/bin "$CUDNNCTL" --root "$R" doctor)
echo "$out" | grep -q "no problems found" || fail "human output of a healthy machine: $out"

# ---- /usr/local/cuda points at a removed toolkit ----------------------------------------------
new_case dangling
ln -sfn /usr/local/cuda-12.4 "$R/usr/local/cuda"
doctor_json "$J" 1
has_codes "$J" CUDA_LINK_DANGLING
check "$J" "[f for f in d['findings'] if f['code'] == 'CUDA_LINK_DANGLING'][0]['path'] == '/usr/local/cuda'" "the finding names /usr/local/cuda"
check "$J" "'cudnnctl use' in [f for f in d['findings'] if f['code'] == 'CUDA_LINK_DANGLING'][0]['fix']" "the fix names cudnnctl use"
verify

# ---- driver below the CUDA 13 floor; no driver at all -------------------------------------------
new_case olddriver
driver_proc 550.54.15
doctor_json "$J" 1
has_codes "$J" DRIVER_TOO_OLD
check "$J" "'580.65.06' in [f for f in d['findings'] if f['code'] == 'DRIVER_TOO_OLD'][0]['fix']" "the fix names the CUDA 13 floor"
verify
new_case nodriver
rm -rf "$R/proc"
doctor_json "$J" 0
has_codes "$J" NO_DRIVER
no_codes "$J" DRIVER_TOO_OLD

# ---- mixed sub-libraries, and a SONAME link left on the old file ---------------------------------
new_case mixed
elf_double "$R$TREE/lib64/libcudnn_ops.so.9.14.0" libcudnn_ops.so.9
ln -sfn libcudnn_ops.so.9.14.0 "$R$TREE/lib64/libcudnn_ops.so.9"
doctor_json "$J" 1
has_codes "$J" "CUDNN_MIXED_SUBLIBS CUDNN_SONAME_LINK_BROKEN"
check "$J" "any(f['code'] == 'CUDNN_MIXED_SUBLIBS' and 'libcudnn_ops.so.9.14.0' in f['message'] and f['severity'] == 'error' for f in d['findings'])" "the mixed finding names the stale file"
check "$J" "any(f['code'] == 'CUDNN_SONAME_LINK_BROKEN' and f['path'] == '$TREE/lib64/libcudnn_ops.so.9' for f in d['findings'])" "the broken link is libcudnn_ops.so.9"
verify
# human output: one block per finding, each with its fix, errors first
out=$(env -i PATH=/usr/bin:/bin "$CUDNNCTL" --root "$R" --color=never doctor) && fail "doctor exited 0 with errors"
echo "$out" | head -1 | grep -q '^error ' || fail "errors do not come first: $out"
echo "$out" | grep -q '^error   CUDNN_MIXED_SUBLIBS' || fail "no CUDNN_MIXED_SUBLIBS block: $out"
[ "$(echo "$out" | grep -c '^   fix: ')" -ge 2 ] || fail "blocks without fixes: $out"
echo "$out" | tail -1 | grep -q '2 errors' || fail "summary line: $(echo "$out" | tail -1)"

# ---- SONAME link missing; core library missing ---------------------------------------------------
new_case nolink
rm "$R$TREE/lib64/libcudnn_cnn.so.9"
doctor_json "$J" 1
has_codes "$J" CUDNN_SONAME_LINK_MISSING
check "$J" "[f for f in d['findings'] if f['code'] == 'CUDNN_SONAME_LINK_MISSING'][0]['path'] == '$TREE/lib64/libcudnn_cnn.so.9'" "names libcudnn_cnn.so.9"
verify
new_case incomplete
rm "$R$TREE/lib64/"libcudnn_graph.so*
doctor_json "$J" 1
has_codes "$J" CUDNN_INCOMPLETE
new_case devlink
rm "$R$TREE/lib64/libcudnn.so"
ln -sfn libcudnn_adv.so.8 "$R$TREE/lib64/libcudnn_adv.so" # dangling
doctor_json "$J" 0
has_codes "$J" "CUDNN_DEV_LINK_MISSING CUDNN_DEV_LINK_BROKEN"

# ---- headers of another release -------------------------------------------------------------------
new_case header
cudnn_header $TREE/include 9.20.0
doctor_json "$J" 0
has_codes "$J" CUDNN_HEADER_MISMATCH
no_codes "$J" CUDNN_PROBLEM

# ---- a cuDNN dir on LD_LIBRARY_PATH: alone, then beside another version -----------------------------
new_case ldpath
cudnn_libs /srv/cudnn/lib 9.14.0 tar
doctor_json "$J" 1 LD_LIBRARY_PATH=/srv/cudnn/lib
has_codes "$J" CUDNN_LD_LIBRARY_PATH_OVERRIDE
check "$J" "any(f['code'] == 'CUDNN_LD_LIBRARY_PATH_OVERRIDE' and '$TREE/lib64' in f['message'] and f['path'] == '/srv/cudnn/lib' for f in d['findings'])" "the override names the copy it swaps"
verify
# the same version as the tree: on LD_LIBRARY_PATH but swapping nothing -> a warning only
new_case ldpath_same
cudnn_libs /srv/cudnn/lib 9.19.0 tar
doctor_json "$J" 0 LD_LIBRARY_PATH=/srv/cudnn/lib
has_codes "$J" CUDNN_IN_LD_LIBRARY_PATH
no_codes "$J" "CUDNN_LD_LIBRARY_PATH_OVERRIDE CUDNN_LOADER_CONFLICT"

# ---- several cuDNN 9 versions on the loader path -----------------------------------------------------
new_case loader
cudnn_libs /usr/lib/x86_64-linux-gnu 9.14.0 deb
doctor_json "$J" 0
has_codes "$J" CUDNN_LOADER_CONFLICT
check "$J" "any(f['code'] == 'CUDNN_LOADER_CONFLICT' and '9.14.0' in f['message'] and '9.19.0' in f['message'] for f in d['findings'])" "both versions named"
verify

# ---- a cu12 wheel with only CUDA 13 around; fine once its CUDA 12 wheels are beside it ------------
new_case wheel
DP=/usr/lib/python3/dist-packages
mkdir -p "$R$DP/nvidia_cudnn_cu12-9.1.0.70.dist-info"
cudnn_libs $DP/nvidia/cudnn/lib 9.1.0 wheel
doctor_json "$J" 1
has_codes "$J" CUDNN_CUDA_MAJOR_MISMATCH
check "$J" "any(f['code'] == 'CUDNN_CUDA_MAJOR_MISMATCH' and f['path'] == '$DP/nvidia/cudnn/lib' and 'libcublasLt.so.12' in f['message'] for f in d['findings'])" "the mismatch names the wheel and libcublasLt.so.12"
verify
no_codes "$J" "CUDNN_SONAME_LINK_MISSING CUDNN_DEV_LINK_MISSING"
mkdir -p "$R$DP/nvidia_cublas_cu12-12.4.5.8.dist-info" "$R$DP/nvidia_cuda_runtime_cu12-12.4.127.dist-info"
doctor_json "$J" 0
no_codes "$J" CUDNN_CUDA_MAJOR_MISMATCH

# ---- cuDNN 8 without the unversioned libcuda.so / libnvrtc.so it dlopens -----------------------------
new_case cudnn8
cudnn_libs /opt/cudnn8/lib 8.9.7 tar
elf_double "$R/usr/lib/x86_64-linux-gnu/libcuda.so.1" libcuda.so.1
elf_double "$R$TREE/lib64/libnvrtc.so.13" libnvrtc.so.13
doctor_json "$J" 1
has_codes "$J" "CUDNN8_NO_LIBCUDA_SO CUDNN8_NO_LIBNVRTC_SO"
check "$J" "any(f['code'] == 'CUDNN8_NO_LIBCUDA_SO' and '/usr/lib/x86_64-linux-gnu/libcuda.so.1' in f['fix'] for f in d['findings'])" "the fix links the libcuda.so.1 found"
verify
# the fixes, applied: findings gone
ln -s /usr/lib/x86_64-linux-gnu/libcuda.so.1 "$R/opt/cudnn8/lib/libcuda.so"
ln -s $TREE/lib64/libnvrtc.so.13 "$R/opt/cudnn8/lib/libnvrtc.so"
doctor_json "$J" 0
no_codes "$J" "CUDNN8_NO_LIBCUDA_SO CUDNN8_NO_LIBNVRTC_SO"

# ---- toolkit version sources that disagree -------------------------------------------------------------
new_case disagree
# a header of another release (nvcc would say so too, but nothing under --root is run)
printf '#define CUDA_VERSION 12080\n' > "$R$TREE/include/cuda.h"
doctor_json "$J" 0
has_codes "$J" TOOLKIT_VERSION_DISAGREE
check "$J" "any(f['code'] == 'TOOLKIT_VERSION_DISAGREE' and '12.8' in f['message'] and 'version.json' in f['message'] for f in d['findings'])" "readings listed"
verify

# ---- nothing at all --------------------------------------------------------------------------------------
R=$TOP/empty
mkdir -p "$R"
doctor_json "$J" 0
has_codes "$J" "NO_TOOLKIT NO_DRIVER NO_CUDNN"
R=$TOP
echo "PASS: doctor finds each planted condition (codes, paths, fixes, exit codes)"
