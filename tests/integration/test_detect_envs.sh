#!/usr/bin/env bash
# test_detect_envs.sh: cuDNN and CUDA outside the CUDA trees: conda envs (CONDA_PREFIX), pip
# wheels in a VIRTUAL_ENV, ~/.local and system site-packages (cuDNN 9 and 8 wheels, the CUDA 13
# nvidia/cu13 and 12.x nvidia/cuda_runtime toolkit wheels), cudnnctl prefixes under /opt/cudnn,
# LD_LIBRARY_PATH, dirs named in ld.so.conf.d, and cuDNN 8 + 9 side by side in one system dir.
set -euo pipefail
. "$(dirname "$0")/detect_common.sh"

# conda env with CUDA 12.2 runtime (headers under targets/) and cuDNN 8.9.7 (real file names)
CE=/opt/conda/envs/tf
mkdir -p "$R$CE/conda-meta"
cuda_headers $CE/targets/x86_64-linux/include 12 2
cudart $CE/lib libcudart.so.12.2.140 libcudart.so.12
cudnn_libs $CE/lib 8.9.7 tar
cudnn_header $CE/include 8.9.7
# a virtualenv with the cuDNN 9.19 wheel and the CUDA 13 runtime wheel (nvidia/cu13)
VE=/home/u/venv
SP=$VE/lib/python3.11/site-packages
mkdir -p "$R$SP/nvidia_cudnn_cu13-9.19.0.56.dist-info" "$R$SP/nvidia_cuda_runtime-13.0.96.dist-info"
cudnn_libs $SP/nvidia/cudnn/lib 9.19.0 wheel
cudnn_header $SP/nvidia/cudnn/include 9.19.0
cuda_headers $SP/nvidia/cu13/include 13 0
elf_double "$R$SP/nvidia/cu13/lib/libcudart.so.13" libcudart.so.13
# ~/.local with the cuDNN 8 wheel for CUDA 11 (headers missing: version from dist-info)
LP=/home/u/.local/lib/python3.10/site-packages
mkdir -p "$R$LP/nvidia_cudnn_cu11-8.9.6.50.dist-info" "$R$LP/nvidia_cuda_runtime_cu11-11.8.89.dist-info"
cudnn_libs $LP/nvidia/cudnn/lib 8.9.6 wheel
elf_double "$R$LP/nvidia/cuda_runtime/lib/libcudart.so.11.0" libcudart.so.11.0
# a wheel in the system dist-packages, found without any environment variable
DP=/usr/lib/python3/dist-packages
mkdir -p "$R$DP/nvidia_cudnn_cu12-9.1.0.70.dist-info"
cudnn_libs $DP/nvidia/cudnn/lib 9.1.0 wheel
# a cudnnctl prefix and its 'current' link
PX=/opt/cudnn/cudnn-9.13.0.50-cuda13
cudnn_libs $PX/lib 9.13.0 tar
cudnn_header $PX/include 9.13.0
ln -s cudnn-9.13.0.50-cuda13 "$R/opt/cudnn/current"
# LD_LIBRARY_PATH dir and an ld.so.conf.d dir
cudnn_libs /srv/cudnn/lib 9.2.1 tar
cudnn_libs /data/cudnn-old/lib64 9.0.0 tar
mkdir -p "$R/etc/ld.so.conf.d"
echo 'include /etc/ld.so.conf.d/*.conf' > "$R/etc/ld.so.conf"
echo '/data/cudnn-old/lib64' > "$R/etc/ld.so.conf.d/cudnn.conf"
echo '/nowhere/lib' > "$R/etc/ld.so.conf.d/cudnn.conf.dpkg-old" # not *.conf: ignored
# a dir the loader knows only from /etc/ld.so.cache (ld.so.conf edited afterwards, no ldconfig):
# as root the root's cache is built by the real ldconfig (-r chroots; -X: make no links), else
# written in glibc's format by python
cudnn_libs /cache-only/lib 9.3.0 tar
echo '/cache-only/lib' > "$R/etc/ld.so.conf.d/zz-cache-only.conf"
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
if [ "$(id -u)" = 0 ] && [ -x "$LDCONFIG" ]; then
    "$LDCONFIG" -X -r "$R" || fail "ldconfig -r could not build the test cache"
else
    "$PY" - "$R/etc/ld.so.cache" <<'PYC'
import struct, sys
ents = [("libcudnn.so.9", "/cache-only/lib/libcudnn.so.9"), ("libz.so.1", "/lib/libz.so.1")]
head, strs, off = b"", b"", 48 + 24 * len(ents)
for k, v in ents:
    ko = off + len(strs); strs += k.encode() + b"\0"
    vo = off + len(strs); strs += v.encode() + b"\0"
    head += struct.pack("=iIIIQ", 0x0303, ko, vo, 0, 0)
hdr = b"glibc-ld.so.cache1.1" + struct.pack("=IIB3xI12x", len(ents), len(strs), 2, 0)
open(sys.argv[1], "wb").write(hdr + head + strs)
PYC
fi
rm "$R/etc/ld.so.conf.d/zz-cache-only.conf"
[ -s "$R/etc/ld.so.cache" ] || fail "ldconfig -r wrote no $R/etc/ld.so.cache"
# cuDNN 8 and 9 debs side by side (libcudnn8 + libcudnn9-cuda-12), one header per major
S=/usr/lib/x86_64-linux-gnu
cudnn_libs $S 8.9.7 deb
cudnn_libs $S 9.8.0 deb
cudnn_header /usr/include/x86_64-linux-gnu 9.8.0
cudnn_header /usr/include 8.9.7

J=$R/out.json
detect_json "$J" CONDA_PREFIX=/opt/conda/envs/tf VIRTUAL_ENV=$VE HOME=/home/u LD_LIBRARY_PATH=/srv/cudnn/lib:relative/ignored
# toolkits from conda and wheels
check "$J" "tk('$CE') is not None and tk('$CE')['origin'] == 'conda' and tk('$CE')['version'] == '12.2'" "conda CUDA 12.2 runtime"
check "$J" "tk('$CE')['lib_dir'] == '$CE/lib' and set(tk('$CE')['sources']) == set(['cuda.h','cuda_runtime_api.h','soname'])" "conda toolkit sources"
check "$J" "tk('$SP/nvidia/cu13') is not None and tk('$SP/nvidia/cu13')['origin'] == 'wheel' and tk('$SP/nvidia/cu13')['version'] == '13.0'" "the nvidia/cu13 wheel"
check "$J" "'dist-info' in tk('$SP/nvidia/cu13')['sources']" "the cu13 wheel's dist-info agrees"
check "$J" "tk('$LP/nvidia/cuda_runtime') is not None and tk('$LP/nvidia/cuda_runtime')['version'] == '11.8'" "the cu11 runtime wheel: 11.8 from dist-info, SONAME agrees"
check "$J" "set(tk('$LP/nvidia/cuda_runtime')['sources']) == set(['dist-info','soname'])" "cu11 wheel sources"
check "$J" "not any(t['active'] for t in d['toolkits'])" "no wheel or conda toolkit is active by itself"
# cuDNN copies, one per origin
check "$J" "cu('$CE/lib')['origin'] == 'conda' and cu('$CE/lib')['version'] == '8.9.7' and cu('$CE/lib')['header_version'] == '8.9.7'" "conda cuDNN 8.9.7"
check "$J" "len(cu('$CE/lib')['libs']) == 7 and cu('$CE/lib')['problems'] == []" "conda cuDNN 8 has its 7 libs, no problems"
check "$J" "cu('$SP/nvidia/cudnn/lib')['origin'] == 'wheel' and cu('$SP/nvidia/cudnn/lib')['version'] == '9.19.0'" "venv wheel 9.19.0"
check "$J" "cu('$LP/nvidia/cudnn/lib')['version'] == '8.9.6' and cu('$LP/nvidia/cudnn/lib')['version_source'] == 'dist-info'" "~/.local cuDNN 8 wheel: 8.9.6 from dist-info"
check "$J" "cu('$DP/nvidia/cudnn/lib')['version'] == '9.1.0' and cu('$DP/nvidia/cudnn/lib')['package_version'] == '9.1.0.70'" "system dist-packages wheel 9.1.0"
check "$J" "cu('$PX/lib')['origin'] == 'prefix' and cu('$PX/lib')['version'] == '9.13.0' and cu('$PX/lib')['include_dir'] == '$PX/include'" "cudnnctl prefix 9.13.0"
check "$J" "sum(1 for c in d['cudnn'] if c['version'] == '9.13.0') == 1" "the 'current' link adds no second copy"
check "$J" "cu('/srv/cudnn/lib')['origin'] == 'ld-path' and cu('/srv/cudnn/lib')['in_ld_library_path'] is True" "LD_LIBRARY_PATH copy"
check "$J" "cu('/data/cudnn-old/lib64')['origin'] == 'ld-path' and cu('/data/cudnn-old/lib64')['in_loader_path'] is True" "ld.so.conf.d copy"
check "$J" "cu('/data/cudnn-old/lib64')['in_ld_library_path'] is False" "ld.so.conf is not LD_LIBRARY_PATH"
check "$J" "cu('/nowhere/lib') is None" "a *.conf.dpkg-old file is not included"
check "$J" "cu('/cache-only/lib') is not None and cu('/cache-only/lib')['origin'] == 'ld-path' and cu('/cache-only/lib')['in_loader_path']" "a dir known only to ld.so.cache"
check "$J" "cu('$S', 8)['version'] == '8.9.7' and cu('$S', 9)['version'] == '9.8.0'" "cuDNN 8 and 9 in one dir are two copies"
check "$J" "cu('$S', 8)['problems'] == [] and cu('$S', 9)['problems'] == []" "two majors side by side are no mixed-version problem"
check "$J" "cu('$S', 9)['include_dir'] == '/usr/include/x86_64-linux-gnu' and cu('$S', 8)['include_dir'] == '/usr/include'" "each major gets its own header"
check "$J" "cu('$S', 9)['libs'][0] == 'libcudnn.so.9.8.0' and 'libcudnn_ops_infer.so.8.9.7' in cu('$S', 8)['libs']" "libs per major"
check "$J" "all(c['path'] != '/usr/include' for c in d['cudnn'])" "the header used by the 8.x copy is no header-only copy"
verify

# without the environment variables the venv, conda env and LD_LIBRARY_PATH copies are not seen,
# the system site-packages and prefixes still are
detect_json "$J"
check "$J" "cu('$SP/nvidia/cudnn/lib') is None and cu('/srv/cudnn/lib') is None" "env-only places are not scanned without their variables"
check "$J" "cu('$DP/nvidia/cudnn/lib') is not None and cu('$PX/lib') is not None" "system wheels and prefixes are always scanned"
check "$J" "cu('$CE/lib') is not None and cu('$CE/lib')['origin'] == 'conda'" "/opt/conda/envs/* is scanned as a conda install"
verify
echo "PASS: conda, wheels (venv, ~/.local, system), prefixes, LD_LIBRARY_PATH, ld.so.conf.d, cuDNN 8+9 side by side"
