#!/usr/bin/env bash
# test_detect_h200.sh: a fake root laid out like the H200 device image (deb-installed CUDA 13.0
# behind /etc/alternatives, no version.json, lib64 -> targets/x86_64-linux/lib; cuDNN 9.14 debs in
# /usr/lib/x86_64-linux-gnu with headers in /usr/include/x86_64-linux-gnu; the 9.19 wheel in the
# PyTorch virtualenv /opt/torch/.venv; driver 580.159.04 in /proc) must be read completely.
set -euo pipefail
. "$(dirname "$0")/detect_common.sh"

T=/usr/local/cuda-13.0
TL=$T/targets/x86_64-linux
# CUDA 13.0 from debs: cuda-cudart-13-0, cuda-nvcc-13-0, cuda-libraries-13-0 (no version.json)
mkdir -p "$R$TL/lib" "$R$TL/include" "$R/etc/alternatives"
cuda_headers "$TL/include" 13 0
ln -s targets/x86_64-linux/include "$R$T/include"
ln -s targets/x86_64-linux/lib "$R$T/lib64"
cudart "$TL/lib" libcudart.so.13.0.96 libcudart.so.13
fake_nvcc "$T" 13.0.88
ln -s /usr/local/cuda-13.0 "$R/etc/alternatives/cuda"
ln -s /usr/local/cuda-13.0 "$R/etc/alternatives/cuda-13"
ln -s /etc/alternatives/cuda "$R/usr/local/cuda"
ln -s /etc/alternatives/cuda-13 "$R/usr/local/cuda-13"
# the loader configuration of the image
mkdir -p "$R/etc/ld.so.conf.d"
echo 'include /etc/ld.so.conf.d/*.conf' > "$R/etc/ld.so.conf"
printf '/usr/local/cuda/targets/x86_64-linux/lib\n/usr/local/cuda-13/targets/x86_64-linux/lib\n' \
    > "$R/etc/ld.so.conf.d/988_cuda-13.conf"
printf '# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' \
    > "$R/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
ln -s usr/lib "$R/lib"
# cuDNN 9.14 debs: libcudnn9-cuda-13, libcudnn9-dev-cuda-13, libcudnn9-headers-cuda-13
cudnn_libs /usr/lib/x86_64-linux-gnu 9.14.0 deb
cudnn_header /usr/include/x86_64-linux-gnu 9.14.0 cudnn_version_v9.h
ln -s cudnn_version_v9.h "$R/usr/include/x86_64-linux-gnu/cudnn_version.h"
# the PyTorch virtualenv with the 9.19 wheel (nvidia-cudnn-cu13 9.19.0.56)
SP=/opt/torch/.venv/lib/python3.12/site-packages
mkdir -p "$R/opt/torch/.venv/bin" "$R$SP/nvidia_cudnn_cu13-9.19.0.56.dist-info"
printf 'home = /usr/bin\nversion = 3.12.3\n' > "$R/opt/torch/.venv/pyvenv.cfg"
cudnn_libs "$SP/nvidia/cudnn/lib" 9.19.0 wheel
cudnn_header "$SP/nvidia/cudnn/include" 9.19.0 cudnn_version.h
# the driver
driver_proc 580.159.04

ENVV=(PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
      CUDA_HOME=/usr/local/cuda CUDA_VERSION=13.0.2 LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib)
J=$R/out.json
detect_json "$J" "${ENVV[@]}"

P=$(expected_platform)
check "$J" "d['platform'] == '$P'" "platform key should be $P"
check "$J" "len(d['toolkits']) == 1" "exactly one toolkit (the links and alternatives are no extra toolkits)"
check "$J" "tk('$T') is not None" "the toolkit is reported at its real path $T"
check "$J" "tk('$T')['version'] == '13.0' and tk('$T')['major'] == 13 and tk('$T')['minor'] == 0" "toolkit version 13.0"
check "$J" "tk('$T')['version_full'] == '13.0.2'" "CUDA_VERSION=13.0.2 of the image gives the patch level"
check "$J" "set(['cuda.h','cuda_runtime_api.h','soname','env']) == set(tk('$T')['sources'])" "both headers, the SONAME and CUDA_VERSION agree"
check "$J" "has_note('$T/bin/nvcc not run (it is under --root')" "nvcc under --root is not run, and the note says so"
check "$J" "'version.json' not in tk('$T')['sources'] and not tk('$T')['sources_disagree']" "no version.json in a deb install"
check "$J" "tk('$T')['active'] is True" "the alternatives-managed toolkit is active"
check "$J" "'CUDA_HOME=/usr/local/cuda -> /usr/local/cuda-13.0' in tk('$T')['active_reason']" "active because of CUDA_HOME"
check "$J" "'/usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0' in tk('$T')['active_reason']" "the alternatives chain is named"
check "$J" "tk('$T')['lib_dir'] == '$T/lib64'" "lib_dir is lib64"
check "$J" "set(['/usr/local/cuda','/usr/local/cuda-13']) <= set(tk('$T')['aliases'])" "/usr/local/cuda and /usr/local/cuda-13 are aliases"
check "$J" "d['driver'] is not None and d['driver']['version'] == '580.159.04'" "driver 580.159.04 from /proc"
check "$J" "d['driver']['cuda_version'] == 13000 and d['driver']['cuda_version_estimated'] is True" "driver 580.159.04 supports CUDA 13.0 (lower bound from the table)"
D=/usr/lib/x86_64-linux-gnu
check "$J" "cu('$D') is not None and cu('$D')['version'] == '9.14.0' and cu('$D')['origin'] == 'system'" "the deb copy 9.14.0 in $D"
check "$J" "cu('$D')['include_dir'] == '/usr/include/x86_64-linux-gnu' and cu('$D')['header_version'] == '9.14.0'" "the deb headers in /usr/include/x86_64-linux-gnu"
check "$J" "cu('$D')['version_source'] == 'file-name' and cu('$D')['problems'] == []" "deb copy: version from file names, no problems"
check "$J" "len(cu('$D')['libs']) == 8 and 'libcudnn_graph.so.9.14.0' in cu('$D')['libs']" "deb copy lists the 8 real library files"
check "$J" "cu('$D')['in_loader_path'] is True" "the deb copy is in the loader path"
W=$SP/nvidia/cudnn/lib
check "$J" "cu('$W') is not None and cu('$W')['version'] == '9.19.0' and cu('$W')['origin'] == 'wheel'" "the 9.19.0 wheel copy in the venv"
check "$J" "cu('$W')['package_version'] == '9.19.0.56' and cu('$W')['header_version'] == '9.19.0'" "wheel dist-info and headers read"
check "$J" "cu('$W')['problems'] == [] and cu('$W')['in_loader_path'] is False" "wheel copy: no problems, not in the loader path"
check "$J" "len(d['cudnn']) == 2" "exactly two cuDNN copies (deb and wheel)"
verify

# the human tables show the same
OUT=$(env -i "${ENVV[@]}" HOME=/root "$CUDNNCTL" --root "$R" detect)
grep -Eq '^  /usr/local/cuda-13\.0 +13\.0\.2 .*yes$' <<<"$OUT" || { echo "$OUT"; fail "human output lacks the active 13.0 toolkit row"; }
grep -Eq '^  580\.159\.04 +>= 13\.0 +/proc/driver/nvidia/version' <<<"$OUT" || { echo "$OUT"; fail "human output lacks the driver row"; }
grep -Eq "^  $D +9\.14\.0 +system" <<<"$OUT" || { echo "$OUT"; fail "human output lacks the deb copy"; }
grep -Eq "^  $W +9\.19\.0 +wheel" <<<"$OUT" || { echo "$OUT"; fail "human output lacks the wheel copy"; }

# without the driver: null, never a crash
rm -rf "$R/proc"
detect_json "$J" "${ENVV[@]}"
check "$J" "d['driver'] is None" "no /proc/driver/nvidia/version under --root: driver is null"
check "$J" "has_note('no NVIDIA driver found')" "a note says no driver was found"

# without CUDA_HOME the PATH nvcc decides, then the /usr/local/cuda link
detect_json "$J" PATH=/usr/local/cuda/bin:/usr/bin:/bin
check "$J" "tk('$T')['active'] and tk('$T')['active_reason'].startswith('first nvcc on PATH: /usr/local/cuda/bin/nvcc')" "active through the first nvcc on PATH"
detect_json "$J"
check "$J" "tk('$T')['active'] and tk('$T')['active_reason'] == '/usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0'" "active through the /usr/local/cuda link alone"
verify
echo "PASS: H200 device layout detected (toolkit 13.0 via alternatives, driver 580.159.04, cuDNN 9.14.0 deb + 9.19.0 wheel)"
