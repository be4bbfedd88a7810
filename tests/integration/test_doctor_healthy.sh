#!/usr/bin/env bash
# No false alarms (issue 20, item 5): a healthy machine of every layout cudnnctl knows gives doctor
# no warning and no error, from real NVIDIA bytes under --root (the machine's cuDNN 9.19; NVIDIA's
# win_amd64 9.1.0.70 wheel's cudnn64_9.dll; a driver's libcuda and Windows' DLLs are doubles named
# DOUBLE). The layouts test_doctor_real.sh already proves (a tarball CUDA tree, a venv's wheel, a
# deb machine, a conda env) are not repeated; these are the others:
#   - a cudnnctl prefix persisted system-wide (ld.so.conf.d entry + cache, env --persist --system)
#   - a cudnnctl prefix activated in the shell (LD_LIBRARY_PATH = its lib dir) over the distro's
#     older debs, and the same release in two places (a wheel and the tree: one release)
#   - a container started with NVIDIA's runtime (/.dockerenv, /dev/nvidia*, the host's libcuda)
#   - Windows: the zip layout beside the toolkit, and the installer layout (NVIDIA\CUDNN\v9.1\bin\12.4),
#     with PATH spelling C:\Windows\system32 in lower case as Windows does (the dir is System32)
set -euo pipefail
. "$(dirname "$0")/detect_common.sh"
TOP=$R
trap "rm -rf $TOP" EXIT
SRC=/usr/local/cuda-13.0
[ -e "$SRC/lib64/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC: skipped"; exit 77; }
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "no mingw-w64: skipped"; exit 77; }
. "$(dirname "$0")/doctor_fix_lib.sh"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
WWIN=$(ls "$CACHE"/wheels/nvidia_cudnn_cu12-9.1.0.70-*win_amd64.whl 2>/dev/null | head -1 || true)
if [ -z "$WWIN" ]; then
    mkdir -p "$CACHE/wheels"
    timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.10 \
        --platform win_amd64 -d "$CACHE/wheels" nvidia-cudnn-cu12==9.1.0.70 >/dev/null 2>&1 || true
    WWIN=$(ls "$CACHE"/wheels/nvidia_cudnn_cu12-9.1.0.70-*win_amd64.whl 2>/dev/null | head -1 || true)
fi
[ -n "$WWIN" ] || { echo "nvidia-cudnn-cu12 win_amd64 wheel unavailable: skipped"; exit 77; }
XWIN=$CACHE/x-$(basename "$WWIN" .whl)/nvidia/cudnn
python3 - "$WWIN" "$CACHE/x-$(basename "$WWIN" .whl)" <<'PY'
import os, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if re.search(r"bin/cudnn64_9\.dll$|include/cudnn_version\.h$", n) and not os.path.exists(os.path.join(sys.argv[2], n)):
        z.extract(n, sys.argv[2])
PY
clean() { # clean JSON LAYOUT: no warning and no error
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); bad = [(f["code"], f["message"][:120]) for f in d["findings"] if f["severity"] != "info"]
if bad:
    print("FAIL:", sys.argv[2], bad); sys.exit(1)
print("ok:", sys.argv[2], "->", d["errors"], "errors,", d["warnings"], "warnings,", d["info"], "info")' "$1" "$2" || fail "$2"
}
prefix_layout() { # prefix_layout P: cudnnctl's prefix (P/cudnn-9.19.0.56-cuda13/{lib,include}, P/current)
    local d=$1/cudnn-9.19.0.56-cuda13
    mkdir -p "$R$d/include"; tarball_cudnn "$d/lib"; cp "$SRC/include/cudnn_version.h" "$R$d/include/"
    ln -sfn cudnn-9.19.0.56-cuda13 "$R$1/current"
}

# a prefix persisted system-wide, beside the toolkit's own copy of the same release
healthy13 persisted; prefix_layout /opt/cudnn
echo /opt/cudnn/current/lib >"$R/etc/ld.so.conf.d/cudnnctl-cuda-13.0.conf"; ldconfig -X -r "$R" 2>/dev/null || true
run_doctor "$R/d.json"; clean "$R/d.json" "a cudnnctl prefix persisted (ld.so.conf.d + cache)"

# a prefix activated in this shell over the distribution's older debs (the H200's situation: a newer
# prefix over 9.14 debs): NVIDIA's nvidia-cudnn-cu13 9.20.0.48 files in the prefix, the machine's 9.19
# as the distribution's libcudnn9-cuda-13 in /usr/lib/x86_64-linux-gnu
healthy13 activated
X20=$CACHE/x-nvidia_cudnn_cu13-9.20.0.48-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib
if [ -e "$X20/libcudnn_graph.so.9" ]; then
    P=/opt/p1/cudnn-9.20.0.48-cuda13; mkdir -p "$R$P/lib"
    for f in "$X20"/libcudnn*.so.9; do b=$(basename "$f" .so.9); ln -f "$f" "$R$P/lib/$b.so.9.20.0"
        ln -sfn "$b.so.9.20.0" "$R$P/lib/$b.so.9"; ln -sfn "$b.so.9" "$R$P/lib/$b.so"; done
    ln -sfn cudnn-9.20.0.48-cuda13 "$R/opt/p1/current"
    D=/usr/lib/x86_64-linux-gnu; tarball_cudnn $D; mkdir -p "$R/var/lib/dpkg/info"
    ls "$R$D" | sed "s|^|$D/|" >"$R/var/lib/dpkg/info/libcudnn9-cuda-13.list"
    echo "$D" >"$R/etc/ld.so.conf.d/x86_64-linux-gnu.conf"; ldconfig -X -r "$R" 2>/dev/null || true
    run_doctor "$R/d.json" LD_LIBRARY_PATH=$P/lib
    clean "$R/d.json" "a cudnnctl prefix (9.20) activated over the distribution's older 9.19"
    python3 -c 'import json,sys; [print("   info:", f["code"], f["message"][:160]) for f in json.load(open(sys.argv[1]))["findings"]]' "$R/d.json"
else
    echo "no nvidia-cudnn-cu13 9.20.0.48 files unpacked (test_reports_python.sh does it): layout not run"
fi

# one release in two places: the toolkit's copy and a venv's wheel (hard links of the same files)
healthy13 tworelease
SP=/opt/venv/lib/python3.10/site-packages
mkdir -p "$R$SP/nvidia/cudnn/lib" "$R$SP/nvidia_cudnn_cu13-9.19.0.56.dist-info" "$R$SP/nvidia_cuda_runtime-13.0.96.dist-info"
for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$R$SP/nvidia/cudnn/lib/"; done
run_doctor "$R/d.json" VIRTUAL_ENV=/opt/venv LD_LIBRARY_PATH=/usr/local/cuda-13.0/lib64
clean "$R/d.json" "one release in two places (the tree on LD_LIBRARY_PATH, the venv's wheel)"

# a container started with NVIDIA's runtime: the devices, the host's libcuda and module, NVIDIA_VISIBLE_DEVICES
healthy13 container
: >"$R/.dockerenv"; mkdir -p "$R/dev" "$R/usr/lib/x86_64-linux-gnu"; : >"$R/dev/nvidiactl"; : >"$R/dev/nvidia0"
elf_double "$R/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05" libcuda.so.1   # DOUBLE of the host's
ln -sfn libcuda.so.580.95.05 "$R/usr/lib/x86_64-linux-gnu/libcuda.so.1"
echo /usr/lib/x86_64-linux-gnu >"$R/etc/ld.so.conf.d/x86_64-linux-gnu.conf"; ldconfig -X -r "$R" 2>/dev/null || true
run_doctor "$R/d.json" NVIDIA_VISIBLE_DEVICES=all
clean "$R/d.json" "a container with NVIDIA's runtime (devices, the host's libcuda 580.95.05 = its module)"

# Windows trees
PEDIR=$TOP/.pe; mkdir -p "$PEDIR"
echo 'int __stdcall DllMain(void *h, unsigned r, void *p) { return 1; }' >"$PEDIR/dll.c"
x86_64-w64-mingw32-gcc -shared -o "$PEDIR/DOUBLE.dll" "$PEDIR/dll.c"
TKW="/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
win_base() { # win_base NAME: CUDA 13.0 (bin\x64 holds its DLLs), zlibwapi.dll in System32
    new_root "$1"; mkdir -p "$R$TKW/v13.0/bin/x64" "$R/Windows/System32"
    cp "$PEDIR/DOUBLE.dll" "$R$TKW/v13.0/bin/x64/cudart64_13.dll"
    cp "$PEDIR/DOUBLE.dll" "$R/Windows/System32/zlibwapi.dll"
}
win_env() { # win_env DLLDIR: PATH as `set` prints it (system32 in lower case), CUDA_PATH
    printf '%s\n' "PATH=C:\\Windows\\system32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\bin;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\bin\\x64;$1" \
        'CUDA_PATH=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0' \
        'CUDA_PATH_V13_0=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0' >"$R.env"
}
win_base win-zip
Z="/tools/cudnn-windows-x86_64-9.1.0.70_cuda12-archive"
mkdir -p "$R$Z/bin" "$R$Z/include"; ln "$XWIN/bin/cudnn64_9.dll" "$R$Z/bin/"; cp "$XWIN/include/cudnn_version.h" "$R$Z/include/"
win_env 'C:\tools\cudnn-windows-x86_64-9.1.0.70_cuda12-archive\bin'
run_doctor "$R/d.json" -- --platform windows-x86_64 --windows-env "$R.env"
clean "$R/d.json" "Windows: the zip layout on PATH (zlibwapi.dll in System32, PATH says system32)"
win_base win-installer
I="/Program Files/NVIDIA/CUDNN/v9.1"
mkdir -p "$R$I/bin/12.4" "$R$I/include/12.4"; ln "$XWIN/bin/cudnn64_9.dll" "$R$I/bin/12.4/"; cp "$XWIN/include/cudnn_version.h" "$R$I/include/12.4/"
win_env 'C:\Program Files\NVIDIA\CUDNN\v9.1\bin\12.4'
run_doctor "$R/d.json" -- --platform windows-x86_64 --windows-env "$R.env"
clean "$R/d.json" "Windows: the installer layout (NVIDIA\\CUDNN\\v9.1\\bin\\12.4) on PATH"
