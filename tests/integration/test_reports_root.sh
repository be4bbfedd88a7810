#!/usr/bin/env bash
# Real user reports of cuDNN load / version failures (issue 20, item 4), each rebuilt as a machine
# under --root from real NVIDIA bytes — the machine's cuDNN 9.19 (/usr/local/cuda-13.0), NVIDIA's
# nvidia-cudnn-cu11 8.9.6.50, nvidia-cudnn-cu12 9.1.0.70 (Linux and win_amd64), nvidia-cudnn-cu13
# 9.19.0.56 aarch64 and 9.20.0.48 / 9.27.0.42 wheels, all cached outside the clone — and what no
# NVIDIA file can be (a driver's libcuda, a 32-bit ELF, a Windows zlib) as ELF/PE doubles named
# DOUBLE. Each case cites its report, asserts that doctor names the cause, then RUNS the command
# doctor printed (findings[].command) and asserts the finding is gone. Where the fix needs a
# person (a reboot, a driver upgrade on the host, how a container is started) there is no command:
# the case applies what the fix says and checks doctor is satisfied. The python-side reports are
# tests/integration/test_reports_python.sh. Exit 77 when the real bytes are not at hand.
set -euo pipefail
. "$(dirname "$0")/detect_common.sh"
TOP=$R
trap 'chmod -R u+rwX "$TOP" 2>/dev/null; rm -rf "$TOP"' EXIT
chmod 755 "$TOP"
SRC=/usr/local/cuda-13.0
[ -e "$SRC/lib64/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC: skipped"; exit 77; }
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "no mingw-w64 for PE doubles: skipped"; exit 77; }
. "$(dirname "$0")/doctor_fix_lib.sh"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
WH=$CACHE/wheels
wheel() { # wheel GLOB SPEC PYVER PLATFORM: the cached wheel, else pip download
    local f; f=$(ls "$WH"/$1 2>/dev/null | head -1 || true)
    if [ -z "$f" ]; then
        mkdir -p "$WH"
        timeout 1200 python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$3" \
            --platform "$4" -d "$WH" "$2" >/dev/null 2>&1 || true
        f=$(ls "$WH"/$1 2>/dev/null | head -1 || true)
    fi
    [ -n "$f" ] && echo "$f"
}
unpack() { # unpack WHEEL MEMBER-REGEX: into $CACHE/x-<wheel>, once; prints that dir
    local d=$CACHE/x-$(basename "$1" .whl)
    python3 - "$1" "$d" "$2" <<'PY'
import os, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if re.search(sys.argv[3], n) and not os.path.exists(os.path.join(sys.argv[2], n)):
        z.extract(n, sys.argv[2])
PY
    echo "$d"
}
W8=$(wheel 'nvidia_cudnn_cu11-8.9.6.50-*manylinux*.whl' nvidia-cudnn-cu11==8.9.6.50 3.10 manylinux1_x86_64) || exit 77
W12=$(wheel 'nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl' nvidia-cudnn-cu12==9.1.0.70 3.10 manylinux2014_x86_64) || exit 77
WWIN=$(wheel 'nvidia_cudnn_cu12-9.1.0.70-*win_amd64.whl' nvidia-cudnn-cu12==9.1.0.70 3.10 win_amd64) || exit 77
WARM=$(wheel 'nvidia_cudnn_cu13-9.19.0.56-*aarch64.whl' nvidia-cudnn-cu13==9.19.0.56 3.12 manylinux_2_27_aarch64) || exit 77
X8=$(unpack "$W8" 'lib/libcudnn.*\.so\.8$|include/cudnn_version\.h$')/nvidia/cudnn
X12=$(unpack "$W12" 'lib/libcudnn.*\.so\.9$|include/cudnn_version\.h$')/nvidia/cudnn
XWIN=$(unpack "$WWIN" 'bin/cudnn.*\.dll$|include/cudnn_version\.h$')/nvidia/cudnn
XARM=$(unpack "$WARM" 'lib/libcudnn.*\.so\.9$')/nvidia/cudnn
REPORTS=()
report() { REPORTS+=("$1"); echo "== $1"; }
cudnn8_copy() { # cudnn8_copy DIR: the real 8.9.6 files (wheel names .so.8) in DIR under $R
    mkdir -p "$R$1"; for f in "$X8"/lib/libcudnn*.so.8; do ln -f "$f" "$R$1/"; done
}
libcuda_double() { # libcuda_double DIR VERSION: the driver's libcuda.so.VERSION + libcuda.so.1
    elf_double "$R$1/libcuda.so.$2" libcuda.so.1    # (VERSION 1: WSL's lone libcuda.so.1)
    [ "$2" = 1 ] || ln -sfn "libcuda.so.$2" "$R$1/libcuda.so.1"
}
register() { # register DIR...: ld.so.conf.d entries and the cache, as ldconfig writes it
    mkdir -p "$R/etc/ld.so.conf.d"
    grep -q include "$R/etc/ld.so.conf" 2>/dev/null || echo 'include /etc/ld.so.conf.d/*.conf' >>"$R/etc/ld.so.conf"
    for d in "$@"; do echo "$d" >"$R/etc/ld.so.conf.d/$(echo "$d" | tr / _).conf"; done
    ldconfig -X -r "$R" 2>/dev/null || true
}
SP=/opt/venv/lib/python3.10/site-packages

# --- cuDNN 8 dlopens the unversioned libcuda.so ---------------------------------------------------
# https://github.com/facebookresearch/nougat/issues/105 (WSL: "Could not load library
# libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file"; the user linked
# /usr/lib/wsl/lib/libcuda.so.1 into site-packages/nvidia/cudnn/lib)
report "facebookresearch/nougat#105: WSL, cuDNN 8 wheel, no libcuda.so"
healthy13 nougat
cudnn8_copy $SP/nvidia/cudnn/lib
mkdir -p "$R$SP/nvidia_cudnn_cu11-8.9.6.50.dist-info" "$R$SP/nvidia_cuda_runtime_cu11-11.8.89.dist-info"
libcuda_double /usr/lib/wsl/lib 1; register /usr/lib/wsl/lib
run_doctor "$R/d1.json" VIRTUAL_ENV=/opt/venv
expect "$R/d1.json" CUDNN8_NO_LIBCUDA_SO "$SP/nvidia/cudnn/lib dlopens the unversioned libcuda.so"
fix_and_recheck nougat CUDNN8_NO_LIBCUDA_SO VIRTUAL_ENV=/opt/venv
ok "nougat#105: CUDNN8_NO_LIBCUDA_SO; ln -s /usr/lib/wsl/lib/libcuda.so.1 into the wheel's lib fixes it"

# https://github.com/facebookresearch/seamless_communication/issues/167 (the same on WSL, a conda env)
report "facebookresearch/seamless_communication#167: WSL, conda env cuDNN 8"
healthy13 seamless
CP=/opt/conda/envs/seamless
cudnn8_copy $CP/lib; mkdir -p "$R$CP/conda-meta"
echo '{"name": "cudnn", "version": "8.9.6.50"}' >"$R$CP/conda-meta/cudnn-8.9.6.50-h0_0.json"
libcuda_double /usr/lib/wsl/lib 1
run_doctor "$R/d1.json" CONDA_PREFIX=$CP LD_LIBRARY_PATH=/usr/lib/wsl/lib
expect "$R/d1.json" CUDNN8_NO_LIBCUDA_SO "$CP/lib dlopens the unversioned libcuda.so" "only libcuda.so.1 exists"
fix_and_recheck seamless CUDNN8_NO_LIBCUDA_SO CONDA_PREFIX=$CP LD_LIBRARY_PATH=/usr/lib/wsl/lib
ok "seamless_communication#167: CUDNN8_NO_LIBCUDA_SO in a conda env; the private link fixes it"

# https://github.com/MotrixLab/SMPLer-X/issues/37 ("Error: libcuda.so: wrong ELF class: ELFCLASS32":
# the only libcuda.so the loader meets is a 32-bit one)
report "MotrixLab/SMPLer-X#37: libcuda.so wrong ELF class"
healthy13 smplerx
cudnn8_copy /opt/cudnn8/lib; register /opt/cudnn8/lib
libcuda_double /usr/lib/x86_64-linux-gnu 580.95.05
mkdir -p "$R/usr/lib/i386-linux-gnu"
echo 'int f(void){return 1;}' >"$R/.m32.c"
cc -m32 -shared -nostdlib -fPIC -Wl,-soname,libcuda.so -o "$R/usr/lib/i386-linux-gnu/libcuda.so" "$R/.m32.c"  # DOUBLE, 32-bit
run_doctor "$R/d1.json" LD_LIBRARY_PATH=/usr/lib/i386-linux-gnu
expect "$R/d1.json" CUDNN8_NO_LIBCUDA_SO "wrong ELF class" "/usr/lib/i386-linux-gnu/libcuda.so"
fix_and_recheck smplerx CUDNN8_NO_LIBCUDA_SO LD_LIBRARY_PATH=/usr/lib/i386-linux-gnu
ok "SMPLer-X#37: the 32-bit libcuda.so is passed over (wrong ELF class); the link to the 64-bit libcuda.so.1 fixes it"

# --- LD_LIBRARY_PATH swaps a bundled or newer cuDNN -----------------------------------------------
# https://github.com/bmaltais/kohya_ss/issues/1096 ("PyTorch was compiled against (8, 7, 0) but found
# runtime version (8, 2, 4)"; sudo kept LD_LIBRARY_PATH with an old cuDNN over torch's wheel)
report "bmaltais/kohya_ss#1096: an older cuDNN on LD_LIBRARY_PATH over the venv's wheel"
healthy13 kohya
mkdir -p "$R$SP/nvidia/cudnn/lib" "$R$SP/nvidia_cudnn_cu13-9.19.0.56.dist-info" "$R/opt/old/lib"
for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$R$SP/nvidia/cudnn/lib/"; done
for f in "$X12"/lib/*.so.9; do ln "$f" "$R/opt/old/lib/"; done
run_doctor "$R/d1.json" LD_LIBRARY_PATH=/opt/old/lib:/usr/local/cuda-13.0/lib64
expect "$R/d1.json" CUDNN_LD_LIBRARY_PATH_OVERRIDE "LD_LIBRARY_PATH lists /opt/old/lib (cuDNN 9.1.0)" "$SP/nvidia/cudnn/lib"
fix_and_recheck kohya CUDNN_LD_LIBRARY_PATH_OVERRIDE LD_LIBRARY_PATH=/opt/old/lib:/usr/local/cuda-13.0/lib64
ok "kohya_ss#1096: CUDNN_LD_LIBRARY_PATH_OVERRIDE; LD_LIBRARY_PATH without the old dir (the toolkit's kept) fixes it"

# https://github.com/pytorch/pytorch/issues/80637 (LD_LIBRARY_PATH=/public/apps/cudnn/v8.0.3...: an
# older cuDNN first, torch's bundled one newer) -- here without a framework: the newer toolkit copy
report "pytorch/pytorch#80637: an older cuDNN first on LD_LIBRARY_PATH, a newer one in the toolkit"
healthy13 pt80637
mkdir -p "$R/public/apps/cudnn/v9.1/lib"; for f in "$X12"/lib/*.so.9; do ln "$f" "$R/public/apps/cudnn/v9.1/lib/"; done
run_doctor "$R/d1.json" LD_LIBRARY_PATH=/public/apps/cudnn/v9.1/lib
expect "$R/d1.json" CUDNN_LD_LIBRARY_PATH_OVERRIDE "9.19.0 in /usr/local/cuda-13.0/lib64"
absent "$R/d1.json" CUDNN_SHADOWED CUDNN_LOADER_CONFLICT
fix_and_recheck pt80637 CUDNN_LD_LIBRARY_PATH_OVERRIDE LD_LIBRARY_PATH=/public/apps/cudnn/v9.1/lib
ok "pytorch#80637: one cause, one finding (no extra SHADOWED/CONFLICT); the export fixes it"

# --- the driver stack ------------------------------------------------------------------------------
# https://github.com/NVIDIA/nvidia-docker/issues/400 ("CUDA driver version is insufficient": "I was
# able to fix this issue by running the container with --gpus all")
report "NVIDIA/nvidia-docker#400: a container started without the NVIDIA runtime"
healthy13 docker400
rm -rf "$R/proc"; : >"$R/.dockerenv"
run_doctor "$R/d1.json"
expect "$R/d1.json" NO_DRIVER "docker container" "without NVIDIA's container runtime"
fix=$(finding "$R/d1.json" NO_DRIVER fix)
case $fix in *"--gpus all"*) ;; *) fail "docker400: the fix must be how the container starts: $fix" ;; esac
case $fix in *"install the NVIDIA driver"*) fail "docker400: never the driver inside the container: $fix" ;; esac
# what `--gpus all` gives the container: the devices, the host's libcuda, its /proc entry
mkdir -p "$R/dev"; : >"$R/dev/nvidiactl"; : >"$R/dev/nvidia0"
libcuda_double /usr/lib/x86_64-linux-gnu 580.95.05; driver_proc 580.95.05; register /usr/lib/x86_64-linux-gnu
run_doctor "$R/d2.json"; absent "$R/d2.json" NO_DRIVER DRIVER_LIBRARY_MISMATCH
ok "nvidia-docker#400: NO_DRIVER says 'docker run --gpus all' (not 'install the driver'); with the runtime's files it is gone"

# https://github.com/NVIDIA/nvidia-docker/issues/700 (driver 375.66 on the host, a newer CUDA in the image)
report "NVIDIA/nvidia-docker#700: the host's driver too old for the image's CUDA"
healthy13 docker700
: >"$R/.dockerenv"; driver_proc 535.104.05
run_doctor "$R/d1.json"
expect "$R/d1.json" DRIVER_TOO_OLD "older than CUDA 13 needs"
case $(finding "$R/d1.json" DRIVER_TOO_OLD fix) in *"of the host"*) ;; *) fail "docker700: the host's driver" ;; esac
[ -z "$(finding "$R/d1.json" DRIVER_TOO_OLD command)" ] || fail "docker700: a driver upgrade has no command"
driver_proc 580.95.05   # the host's driver upgraded, as the fix says
run_doctor "$R/d2.json"; absent "$R/d2.json" DRIVER_TOO_OLD
ok "nvidia-docker#700: DRIVER_TOO_OLD names the host's driver (never cuDNN); after the upgrade it is gone"

# https://github.com/oddmario/NVIDIA-Ubuntu-Driver-Guide/issues/4 (nvidia-driver-550 550.107.02 installed,
# /proc/driver/nvidia/version still 550.90.07: "Failed to initialize NVML: Driver/library version mismatch")
report "oddmario/NVIDIA-Ubuntu-Driver-Guide#4: libcuda 550.107.02 under a 550.90.07 kernel module"
healthy13 nvml4
libcuda_double /usr/lib/x86_64-linux-gnu 550.107.02; register /usr/lib/x86_64-linux-gnu; driver_proc 550.90.07
sed -i 's/CUDA 13/CUDA 12/' "$R/proc/driver/nvidia/version" 2>/dev/null || true
run_doctor "$R/d1.json"
expect "$R/d1.json" DRIVER_LIBRARY_MISMATCH "is 550.107.02 but the loaded kernel module is 550.90.07" "Driver/library version mismatch"
case $(finding "$R/d1.json" DRIVER_LIBRARY_MISMATCH fix) in *reboot*) ;; *) fail "nvml4: the fix is a reboot" ;; esac
driver_proc 550.107.02   # after the reboot the module is the installed release
run_doctor "$R/d2.json"; absent "$R/d2.json" DRIVER_LIBRARY_MISMATCH
ok "NVIDIA-Ubuntu-Driver-Guide#4: DRIVER_LIBRARY_MISMATCH, fix: reboot; then gone"

# https://github.com/lyulyul/shine-cluster/issues/30 (unattended-upgrade 460.56 -> 460.73.01 under a
# running module; the module's version read from /sys/module/nvidia/version)
report "lyulyul/shine-cluster#30: unattended upgrade under a running module (/sys/module)"
healthy13 nvml30
rm -rf "$R/proc"; libcuda_double /usr/lib/x86_64-linux-gnu 580.105.08; register /usr/lib/x86_64-linux-gnu
mkdir -p "$R/sys/module/nvidia"; echo 580.95.05 >"$R/sys/module/nvidia/version"
run_doctor "$R/d1.json"
expect "$R/d1.json" DRIVER_LIBRARY_MISMATCH "580.105.08" "/sys/module/nvidia/version"
echo 580.105.08 >"$R/sys/module/nvidia/version"
run_doctor "$R/d2.json"; absent "$R/d2.json" DRIVER_LIBRARY_MISMATCH
ok "shine-cluster#30: the module's version from /sys/module; the reboot clears it"

# --- the CUDA a copy was built for, the CPU it was built for ---------------------------------------
# https://github.com/terrapkg/packages/issues/11766 (a cuDNN package built against CUDA 12 on a system
# that provides only CUDA 13: "Invalid handle. Cannot load symbol cublasLtGetVersion")
report "terrapkg/packages#11766: a cu12 cuDNN on a CUDA-13-only machine"
healthy13 terra
mkdir -p "$R$SP/nvidia/cudnn/lib" "$R$SP/nvidia_cudnn_cu12-9.1.0.70.dist-info"
for f in "$X12"/lib/*.so.9; do ln "$f" "$R$SP/nvidia/cudnn/lib/"; done
run_doctor "$R/d1.json" VIRTUAL_ENV=/opt/venv
expect "$R/d1.json" CUDNN_CUDA_MAJOR_MISMATCH "built for CUDA 12" "cublasLtGetVersion"
args=$(finding "$R/d1.json" CUDNN_CUDA_MAJOR_MISMATCH fix | sed -n 's/.*`cudnnctl install \([^`]*\)`.*/\1/p')
[ -n "$args" ] && "$CUDNNCTL" --root "$R" plan $args --prefix /opt/p --driver-version 580.95.05 >/dev/null ||
    fail "terra: the install the fix names ('$args') must be one cudnnctl plans"
rm -rf "$R$SP/nvidia_cudnn_cu12-9.1.0.70.dist-info" "$R$SP/nvidia/cudnn/lib"/*   # as `pip install nvidia-cudnn-cu13` replaces it
mkdir -p "$R$SP/nvidia_cudnn_cu13-9.19.0.56.dist-info"; for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$R$SP/nvidia/cudnn/lib/"; done
run_doctor "$R/d2.json" VIRTUAL_ENV=/opt/venv; absent "$R/d2.json" CUDNN_CUDA_MAJOR_MISMATCH
ok "terrapkg#11766: CUDNN_CUDA_MAJOR_MISMATCH for CUDA 12 on 13 (its fix plans 9.x for CUDA 13); the cu13 build clears it"

# https://github.com/pytorch/pytorch/issues/9699 and https://github.com/davisking/dlib/issues/885
# (a cuDNN for another CPU: "libcudnn.so: error adding symbols: File in wrong format" on a Jetson):
# here NVIDIA's aarch64 nvidia-cudnn-cu13 9.19.0.56 wheel in an x86-64 venv
report "pytorch/pytorch#9699: a cuDNN built for another CPU"
healthy13 arch
python3 -m venv --without-pip "$R/opt/venv2" >/dev/null
AS=$("$R/opt/venv2/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); AS=${AS#"$R"}
mkdir -p "$R$AS/nvidia/cudnn/lib" "$R$AS/nvidia_cudnn_cu13-9.19.0.56.dist-info"
for f in "$XARM"/lib/*.so.9; do ln "$f" "$R$AS/nvidia/cudnn/lib/"; done
printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n' >"$R$AS/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA"
run_doctor "$R/d1.json" VIRTUAL_ENV=/opt/venv2
expect "$R/d1.json" CUDNN_BAD_LIBRARY "another architecture" "this machine is"
cmd=$(finding "$R/d1.json" CUDNN_BAD_LIBRARY command)
case $cmd in *"pip install --force-reinstall --no-deps 'nvidia-cudnn-cu13==9.19.0.56'"*) ;; *) fail "arch: the fix is this platform's wheel: $cmd" ;; esac
case $(finding "$R/d1.json" CUDNN_BAD_LIBRARY fix) in *"reinstall the copy"*) fail "arch: not 'reinstall the copy'" ;; esac
# what that pip command installs here: the same release's x86-64 files
rm -f "$R$AS/nvidia/cudnn/lib"/*; for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$R$AS/nvidia/cudnn/lib/"; done
run_doctor "$R/d2.json" VIRTUAL_ENV=/opt/venv2; absent "$R/d2.json" CUDNN_BAD_LIBRARY
ok "pytorch#9699 / dlib#885: an aarch64 cuDNN on x86-64 -> this platform's wheel through the venv's pip (not 'reinstall')"

# --- a framework's needs (--for) ------------------------------------------------------------------
# https://github.com/tensorflow/tensorflow/issues/45200 ("Could not load dynamic library 'libcudnn.so.8'":
# a TensorFlow of the cuDNN 8 era where only cuDNN 9 is installed)
report "tensorflow/tensorflow#45200: TensorFlow needs cuDNN 8, only 9 is here"
healthy13 tf45200
run_doctor "$R/d1.json" -- --for tensorflow==2.14.0
expect "$R/d1.json" CONSUMER_CUDNN_MAJOR_MISSING "needs cuDNN 8" "libcudnn.so.8: cannot open shared object file"
cmd=$(finding "$R/d1.json" CONSUMER_CUDNN_MAJOR_MISSING command)
PATH=$(dirname "$CUDNNCTL"):$PATH sh -c "$cmd --dry-run --driver-version 580.95.05" >"$R/dry.txt" 2>&1 ||
    { cat "$R/dry.txt" >&2; fail "tf45200: cudnnctl refuses its own fix '$cmd'"; }
P8=$(sed -n 's/.*\(\/opt\/cudnn\/cudnn-8[^ /]*\).*/\1/p' "$R/dry.txt" | head -1)
[ -n "$P8" ] || fail "tf45200: the dry run names no install dir"
cudnn8_copy "$P8/lib"   # what that install puts there: NVIDIA's 8.9 for CUDA 11 (the real 8.9.6 files)
run_doctor "$R/d2.json" -- --for tensorflow==2.14.0; absent "$R/d2.json" CONSUMER_CUDNN_MAJOR_MISSING
ok "tensorflow#45200: CONSUMER_CUDNN_MAJOR_MISSING; the install it names is planned; with 8.9.6 there it is gone"

# https://github.com/googlecolab/colabtools/issues/2626 ("Loaded runtime CuDNN library: 8.0.5 but source
# was compiled with: 8.1.0"): a release that needs a newer minor than the one installed
report "googlecolab/colabtools#2626: the installed minor is older than the framework's build"
new_root colab; cuda13_tree
mkdir -p "$R/usr/local/cuda-13.0/lib64"; for f in "$X12"/lib/*.so.9; do ln "$f" "$R/usr/local/cuda-13.0/lib64/"; done
cp "$X12/include/cudnn_version.h" "$R/usr/local/cuda-13.0/include/"
run_doctor "$R/d1.json" -- --for tensorflow==2.18.0
expect "$R/d1.json" CONSUMER_CUDNN_TOO_OLD "9.1.0" "Loaded runtime CuDNN library"
rm -f "$R/usr/local/cuda-13.0/lib64"/libcudnn*; tarball_cudnn /usr/local/cuda-13.0/lib64
cp "$SRC/include/cudnn_version.h" "$R/usr/local/cuda-13.0/include/"
run_doctor "$R/d2.json" -- --for tensorflow==2.18.0; absent "$R/d2.json" CONSUMER_CUDNN_TOO_OLD
ok "colabtools#2626: CONSUMER_CUDNN_TOO_OLD (9.1 for a 9.3 build); a newer 9 clears it"

# --- Windows trees ---------------------------------------------------------------------------------
PEDIR=$TOP/.pe; mkdir -p "$PEDIR"
echo 'int __stdcall DllMain(void *h, unsigned r, void *p) { return 1; }' >"$PEDIR/dll.c"
x86_64-w64-mingw32-gcc -shared -o "$PEDIR/zlibwapi-DOUBLE.dll" "$PEDIR/dll.c"
python3 - "$PEDIR/zlibwapi-DOUBLE.dll" "$PEDIR/zlibwapi32-DOUBLE.dll" <<'PY'
import struct, sys   # the same PE with its COFF machine set to i386 (0x14c): a 32-bit DLL DOUBLE
d = bytearray(open(sys.argv[1], "rb").read()); pe = struct.unpack_from("<I", d, 0x3c)[0]
struct.pack_into("<H", d, pe + 4, 0x14c); open(sys.argv[2], "wb").write(d)
PY
TKW="/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
win_machine() { # win_machine NAME CUDNN-DIR: CUDA 12.4 toolkit, the real cudnn64_9.dll 9.1 in DIR
    new_root "$1"
    mkdir -p "$R$TKW/v12.4/bin" "$R$2/bin" "$R$2/include" "$R/Windows/System32"
    ln "$XWIN/bin/cudnn64_9.dll" "$R$2/bin/"; cp "$XWIN/include/cudnn_version.h" "$R$2/include/"
    mkdir -p "$R/Program Files/NVIDIA Corporation/Nsight Systems 2023.4.1/host-windows-x64"
    cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R/Program Files/NVIDIA Corporation/Nsight Systems 2023.4.1/host-windows-x64/zlibwapi.dll"
    ENVF=$R.env
    local wd; wd=$(echo "C:$2/bin" | tr / '\\')
    printf '%s\n' "PATH=C:\\Windows\\system32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin;$wd" \
        'CUDA_PATH=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4' >"$ENVF"
}
WIN=(-- --platform windows-x86_64 --windows-env)
# https://github.com/AlexeyAB/darknet/issues/8551 ("Could not locate zlibwapi.dll. Please make sure it is
# in your library path!", cuDNN 8.4 on Windows): the zip layout next to the toolkit
report "AlexeyAB/darknet#8551: Windows, zlibwapi.dll missing (zip layout)"
win_machine darknet "/tools/cudnn-windows-x86_64-9.1.0.70_cuda12-archive"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_ZLIBWAPI_MISSING "needs zlibwapi.dll"
fix_and_recheck darknet WIN_ZLIBWAPI_MISSING "${WIN[@]}" "$ENVF"
ok "darknet#8551: WIN_ZLIBWAPI_MISSING; copying the 64-bit zlibwapi.dll (DOUBLE) beside the DLLs fixes it"

# https://github.com/lightvector/KataGo/issues/828 ("Could not load library zlibwapi.dll. Error code 193":
# a 32-bit zlibwapi.dll on PATH)
report "lightvector/KataGo#828: Windows, a 32-bit zlibwapi.dll (error 193)"
win_machine katago "/Program Files/NVIDIA/CUDNN/v9.1"
cp "$PEDIR/zlibwapi32-DOUBLE.dll" "$R/Windows/System32/zlibwapi.dll"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_ZLIBWAPI_MISSING "zlibwapi.dll"
fix_and_recheck katago WIN_ZLIBWAPI_MISSING "${WIN[@]}" "$ENVF"
ok "KataGo#828: the 32-bit zlibwapi.dll (found through PATH's lower-case system32) is named; the 64-bit copy fixes it"

# https://github.com/Softcatala/whisper-ctranslate2/issues/41 ("Could not load library
# cudnn_cnn_infer64_8.dll. Error code 126" with the dir on PATH: "It is because cudnn needed zlib")
report "Softcatala/whisper-ctranslate2#41: Windows installer layout on PATH, error 126 (zlib)"
win_machine ct2 "/Program Files/NVIDIA/CUDNN/v9.1"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_ZLIBWAPI_MISSING "needs zlibwapi.dll"
absent "$R/d1.json" WIN_CUDNN_NOT_ON_PATH
fix_and_recheck ct2 WIN_ZLIBWAPI_MISSING "${WIN[@]}" "$ENVF"
[ -z "$(codes "$R/d2.json")" ] || { cat "$R/d2.json" >&2; fail "ct2: not clean after the fix"; }
ok "whisper-ctranslate2#41: the DLLs are on PATH, the missing piece is zlib; after the fix 0 findings"

# https://github.com/microsoft/onnxruntime/issues/17510 ("Could not locate zlibwapi.dll, cuda11.8,
# cuDNN8.5.0.96 (Windows)"): the cuDNN DLLs copied into the toolkit's bin, as NVIDIA's guide says
report "microsoft/onnxruntime#17510: Windows, cuDNN DLLs copied into CUDA\\v12.4\\bin, no zlib"
win_machine ort17510 "/unused"
ln "$XWIN/bin/cudnn64_9.dll" "$R$TKW/v12.4/bin/"; mkdir -p "$R$TKW/v12.4/include"; cp "$XWIN/include/cudnn_version.h" "$R$TKW/v12.4/include/"
rm -rf "$R/unused"
printf '%s\n' 'PATH=C:\Windows\system32;C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin' \
    'CUDA_PATH=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4' >"$ENVF"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_ZLIBWAPI_MISSING "needs zlibwapi.dll"
fix_and_recheck ort17510 WIN_ZLIBWAPI_MISSING "${WIN[@]}" "$ENVF"
ok "onnxruntime#17510: the DLLs in the toolkit's bin; the zlibwapi.dll copy fixes it"

# https://github.com/Huanshere/VideoLingo/issues/265 ("cudnn_ops64_9.dll not recognised", the dir added
# to the environment but not the one the installer put the DLLs in: v9.x\bin\12.x)
report "Huanshere/VideoLingo#265: Windows installer layout, the DLL dir (bin\\12.4) not on PATH"
win_machine vl265 "/Program Files/NVIDIA/CUDNN/v9.1"
mkdir -p "$R/Program Files/NVIDIA/CUDNN/v9.1/bin/12.4" "$R/Program Files/NVIDIA/CUDNN/v9.1/include/12.4"
mv "$R/Program Files/NVIDIA/CUDNN/v9.1/bin/cudnn64_9.dll" "$R/Program Files/NVIDIA/CUDNN/v9.1/bin/12.4/"
mv "$R/Program Files/NVIDIA/CUDNN/v9.1/include/cudnn_version.h" "$R/Program Files/NVIDIA/CUDNN/v9.1/include/12.4/"
cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R/Program Files/NVIDIA/CUDNN/v9.1/bin/12.4/zlibwapi.dll"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_CUDNN_NOT_ON_PATH "12.4"
fix_and_recheck vl265 WIN_CUDNN_NOT_ON_PATH "${WIN[@]}" "$ENVF"
ok "VideoLingo#265: WIN_CUDNN_NOT_ON_PATH names bin\\12.4; the PATH edit fixes it"

# https://github.com/PaddlePaddle/FastDeploy/issues/362 (cudnn64_8.dll crashing "three cudnn DLLs loaded
# in the process": two cuDNN sets on PATH): two sets of one major, the first wins, sub-DLLs mix
report "PaddlePaddle/FastDeploy#362: Windows, two cuDNN DLL sets of one major on PATH"
win_machine fd362 "/Program Files/NVIDIA/CUDNN/v9.1"
cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R/Program Files/NVIDIA/CUDNN/v9.1/bin/zlibwapi.dll"
mkdir -p "$R/tools/cudnn/bin" "$R/tools/cudnn/include"; ln "$XWIN/bin/cudnn64_9.dll" "$R/tools/cudnn/bin/"
cp "$XWIN/include/cudnn_version.h" "$R/tools/cudnn/include/"; cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R/tools/cudnn/bin/zlibwapi.dll"
sed -i 's|^PATH=\(.*\)$|PATH=\1;C:\\tools\\cudnn\\bin|' "$ENVF"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_CUDNN_DLL_SETS_ON_PATH "cudnn64_9.dll"
fix_and_recheck fd362 WIN_CUDNN_DLL_SETS_ON_PATH "${WIN[@]}" "$ENVF"
ok "FastDeploy#362: WIN_CUDNN_DLL_SETS_ON_PATH; dropping the later set from PATH fixes it"

# https://github.com/chainguard-images/images/issues/2532 (a pytorch-cuda image: "Attempt to open cnn_infer
# failed: libcudnn_cnn_infer.so.8: cannot open shared object file"): an image whose cuDNN 8 package
# files are incomplete; doctor names the package's reinstall
report "chainguard-images/images#2532: a container image's cuDNN 8 without libcudnn_cnn_infer.so.8"
healthy13 cg2532
: >"$R/.dockerenv"; D=/usr/lib/x86_64-linux-gnu; cudnn8_copy $D; rm -f "$R$D/libcudnn_cnn_infer.so.8"
mkdir -p "$R/var/lib/dpkg/info"; ls "$X8/lib" | grep '\.so\.8$' | sed "s|^|$D/|" >"$R/var/lib/dpkg/info/libcudnn8-cuda-11:amd64.list"
run_doctor "$R/d1.json"
expect "$R/d1.json" CUDNN_SUBLIB_MISSING "lacks libcudnn_cnn_infer.so.8"
cmd=$(finding "$R/d1.json" CUDNN_SUBLIB_MISSING command)
[ "$cmd" = "apt-get install --reinstall -y libcudnn8-cuda-11" ] || fail "cg2532: the package's reinstall: '$cmd'"
ln -f "$X8/lib/libcudnn_cnn_infer.so.8" "$R$D/"   # what that reinstall puts back (the real 8.9.6 file)
run_doctor "$R/d2.json"; absent "$R/d2.json" CUDNN_SUBLIB_MISSING
ok "chainguard#2532: CUDNN_SUBLIB_MISSING names 'apt-get install --reinstall -y libcudnn8-cuda-11'; with the file back it is gone"

# https://github.com/jade-hpc-gpu/jade-hpc-gpu.github.io/issues/86 (an HPC cluster's cuDNN module, 7.0.5,
# older than the framework's 7.1.4): an environment module puts an old cuDNN on LD_LIBRARY_PATH over a
# conda env's newer one
report "jade-hpc-gpu#86: an HPC module's older cuDNN on LD_LIBRARY_PATH over a conda env's"
healthy13 hpc86
CP=/opt/conda/envs/tf; mkdir -p "$R$CP/lib" "$R$CP/conda-meta" "$R/apps/cudnn/9.1/lib"
for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$R$CP/lib/"; done
echo '{"name": "cudnn", "version": "9.19.0.56"}' >"$R$CP/conda-meta/cudnn-9.19.0.56-h0_0.json"
for f in "$X12"/lib/*.so.9; do ln "$f" "$R/apps/cudnn/9.1/lib/"; done
run_doctor "$R/d1.json" CONDA_PREFIX=$CP LD_LIBRARY_PATH=/apps/cudnn/9.1/lib:$CP/lib
expect "$R/d1.json" CUDNN_LD_LIBRARY_PATH_OVERRIDE "/apps/cudnn/9.1/lib (cuDNN 9.1.0)" "$CP/lib"
fix_and_recheck hpc86 CUDNN_LD_LIBRARY_PATH_OVERRIDE CONDA_PREFIX=$CP LD_LIBRARY_PATH=/apps/cudnn/9.1/lib:$CP/lib
ok "jade-hpc-gpu#86: the module's dir out of LD_LIBRARY_PATH (the env's kept) fixes it"

echo "${#REPORTS[@]} reports rebuilt, each fixed by what doctor printed"
