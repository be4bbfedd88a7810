#!/usr/bin/env bash
# test_doctor_real.sh: doctor's failure modes, each built as a real broken environment under
# --root from real NVIDIA bytes: the machine's cuDNN 9.19 (/usr/local/cuda-13.0), NVIDIA's
# nvidia-cudnn-cu11 8.9.6.50 / nvidia-cudnn-cu12 9.1.0.70 wheels (Linux and win_amd64, cached
# outside the clone). Where no real file fits, a real ELF/PE double is built and named as one
# (DOUBLE in its name). Each case asserts the code and the message, then RUNS the command doctor
# printed for it (findings[].command) and asserts that doctor no longer reports it. Healthy
# layouts (tarball tree, wheel tree, deb machine, conda env) must give 0 findings.
# Exit 77 when the real bytes are neither here nor downloadable.
set -euo pipefail
. "$(dirname "$0")/detect_common.sh"
TOP=$R
trap 'chmod -R u+rwX "$TOP" 2>/dev/null; rm -rf "$TOP"' EXIT
chmod 755 "$TOP"

SRC=/usr/local/cuda-13.0
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
WHEELS=$CACHE/wheels
[ -e "$SRC/lib64/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC: skipped"; exit 77; }
mkdir -p "$WHEELS"
wheel() { # wheel FILE-GLOB PIP-SPEC [pip args]: the cached wheel, downloaded once
    local glob=$1 spec=$2
    shift 2
    local f
    f=$(ls "$WHEELS"/$glob 2>/dev/null | head -1 || true)
    if [ -z "$f" ]; then
        timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.10 \
            "$@" "$spec" -d "$WHEELS" >/dev/null 2>&1 || return 1
        f=$(ls "$WHEELS"/$glob 2>/dev/null | head -1 || true)
    fi
    [ -n "$f" ] && echo "$f"
}
W8=$(wheel 'nvidia_cudnn_cu11-8.9.6.50-*manylinux*.whl' nvidia-cudnn-cu11==8.9.6.50 \
    --platform manylinux2014_x86_64) || { echo "nvidia-cudnn-cu11 wheel unavailable: skipped"; exit 77; }
WWIN=$(wheel 'nvidia_cudnn_cu12-9.1.0.70-*win_amd64.whl' nvidia-cudnn-cu12==9.1.0.70 \
    --platform win_amd64) || { echo "nvidia-cudnn-cu12 win_amd64 wheel unavailable: skipped"; exit 77; }
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "no mingw-w64 for PE doubles: skipped"; exit 77; }

# unpacked once, outside the clone: only the members the cases use
unpack() { # unpack WHEEL DIR MEMBER-REGEX
    [ -e "$2/.done" ] && return 0
    mkdir -p "$2"
    python3 - "$1" "$2" "$3" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if re.search(sys.argv[3], n):
        z.extract(n, sys.argv[2])
PY
    touch "$2/.done"
}
X8=$CACHE/x-cu11-8.9.6.50
XWIN=$CACHE/x-win-cu12-9.1.0.70
unpack "$W8" "$X8" '(lib/libcudnn.*\.so\.8$|dist-info/METADATA$)'
unpack "$WWIN" "$XWIN" '(bin/cudnn64_9\.dll$|include/cudnn_version\.h$)'

. "$(dirname "$0")/doctor_fix_lib.sh"

# ---- healthy layouts: 0 findings ---------------------------------------------------------------
healthy13 h-tarball
run_doctor "$R/d.json"
[ -z "$(codes "$R/d.json")" ] || { cat "$R/d.json" >&2; fail "healthy tarball tree: $(codes "$R/d.json")"; }
ok "healthy: CUDA 13.0 tree + cuDNN 9.19 tarball layout -> 0 findings"

new_root h-wheel
SP=/opt/venv/lib/python3.10/site-packages
mkdir -p "$R$SP/nvidia/cudnn/lib" "$R$SP/nvidia_cudnn_cu13-9.19.0.56.dist-info" \
    "$R$SP/nvidia_cuda_runtime-13.0.96.dist-info" "$R$SP/nvidia/cu13/lib"
for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$R$SP/nvidia/cudnn/lib/"; done
cp "$SRC"/include/cudnn_version.h "$R$SP/nvidia/cudnn/lib/../" 2>/dev/null || true
elf_double "$R$SP/nvidia/cu13/lib/libcudart.so.13" libcudart.so.13   # DOUBLE of the runtime wheel
driver_proc 580.95.05
run_doctor "$R/d.json" VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:/usr/bin:/bin
[ -z "$(codes "$R/d.json")" ] || { cat "$R/d.json" >&2; fail "healthy wheel tree: $(codes "$R/d.json")"; }
ok "healthy: venv with nvidia-cudnn-cu13 9.19 wheel layout -> 0 findings"

new_root h-deb
cuda13_tree
rm -f "$R/usr/local/cuda-13.0/include/cudnn"*.h
D=/usr/lib/x86_64-linux-gnu
tarball_cudnn $D
mkdir -p "$R/usr/include/x86_64-linux-gnu" "$R/var/lib/dpkg/info"
cp "$SRC/include/cudnn_version.h" "$R/usr/include/x86_64-linux-gnu/cudnn_version_v9.h"
ln -s x86_64-linux-gnu/cudnn_version_v9.h "$R/usr/include/cudnn_version.h"
ls "$R$D" | sed "s|^|$D/|" > "$R/var/lib/dpkg/info/libcudnn9-cuda-13.list"
run_doctor "$R/d.json"
[ -z "$(codes "$R/d.json")" ] || { cat "$R/d.json" >&2; fail "healthy deb machine: $(codes "$R/d.json")"; }
ok "healthy: deb layout (libcudnn9-cuda-13 in /usr/lib/x86_64-linux-gnu) -> 0 findings"

new_root h-conda
CP=/opt/conda/envs/dl
tarball_cudnn $CP/lib
mkdir -p "$R$CP/conda-meta" "$R$CP/include"
cp "$SRC/include/cudnn_version.h" "$R$CP/include/"
echo '{"name": "cudnn", "version": "9.19.0.56"}' > "$R$CP/conda-meta/cudnn-9.19.0.56-h0_0.json"
cudart $CP/lib libcudart.so.13.0.96 libcudart.so.13
version_json $CP 13.0.2
cuda_headers $CP/include 13 0
driver_proc 580.95.05
run_doctor "$R/d.json" CONDA_PREFIX=$CP PATH=$CP/bin:/usr/bin:/bin
[ -z "$(codes "$R/d.json")" ] || { cat "$R/d.json" >&2; fail "healthy conda env: $(codes "$R/d.json")"; }
ok "healthy: conda env with cudnn 9.19 -> 0 findings"

# ---- failure modes -----------------------------------------------------------------------------
L=/usr/local/cuda-13.0/lib64

# 1. libcudnn.so.9 dangles (an upgrade removed 9.14.0 and left the link)
healthy13 dangling
ln -sfn libcudnn.so.9.14.0 "$R$L/libcudnn.so.9"
run_doctor "$R/d1.json"
expect "$R/d1.json" CUDNN_SONAME_LINK_DANGLING "$L/libcudnn.so.9 is a link to libcudnn.so.9.14.0" \
    "dangles"
absent "$R/d1.json" CUDNN_INCOMPLETE
fix_and_recheck dangling CUDNN_SONAME_LINK_DANGLING
ok "CUDNN_SONAME_LINK_DANGLING: says it dangles (not 'missing'); ln -sfn fixes it"

# 2. stale cuDNN 8 sub-libraries beside 9 (real 8.9.6 files)
healthy13 stale8
for f in "$X8"/nvidia/cudnn/lib/libcudnn_*_{infer,train}.so.8; do
    ln "$f" "$R$L/$(basename "$f").9.6" 2>/dev/null || cp "$f" "$R$L/$(basename "$f").9.6"
    ln -s "$(basename "$f").9.6" "$R$L/$(basename "$f")"
done
run_doctor "$R/d1.json"
expect "$R/d1.json" CUDNN8_STALE_SUBLIBS "cuDNN 8 sub-libraries without a libcudnn.so.8" \
    libcudnn_ops_infer.so.8
absent "$R/d1.json" CUDNN_INCOMPLETE CUDNN_SUBLIB_MISSING CUDNN_NOT_IN_LOADER_PATH
fix_and_recheck stale8 CUDNN8_STALE_SUBLIBS
[ ! -e "$R$L/libcudnn_ops_infer.so.8" ] && [ -e "$R$L/libcudnn_ops.so.9" ] || fail "stale8: rm hit the wrong files"
ok "CUDNN8_STALE_SUBLIBS: real 8.9.6 remnants beside 9.19 -> delete, not repair"

# 3. a cuDNN built for CUDA 12 in a CUDA 13 tree, known only from its ELF: libcudnn_ops.so.9 is
# replaced by a DOUBLE whose DT_NEEDED is libcublasLt.so.12 (no metadata names the variant)
healthy13 cu12in13
mkdir -p "$R/.dbl"
cc -shared -Wl,-soname,libcublasLt.so.12 -o "$R/.dbl/libcublasLt.so.12" "$DOUBLES/stub.o"
rm -f "$R$L/libcudnn_ops.so.9.19.0"
cc -shared -Wl,-soname,libcudnn_ops.so.9 -Wl,--no-as-needed -o "$R$L/libcudnn_ops.so.9.19.0" \
    "$DOUBLES/stub.o" -L"$R/.dbl" -l:libcublasLt.so.12   # DOUBLE of a cu12 libcudnn_ops
run_doctor "$R/d1.json"
expect "$R/d1.json" CUDNN_CUDA_MAJOR_MISMATCH "built for CUDA 12" "DT_NEEDED libcublasLt.so.12"
args=$(finding "$R/d1.json" CUDNN_CUDA_MAJOR_MISMATCH fix | sed -n 's/.*`cudnnctl install \([^`]*\)`.*/\1/p')
[ -n "$args" ] || fail "cu12in13: no cudnnctl install in the fix"
# the install it names must be one the catalog satisfies: plan it for this tree
"$CUDNNCTL" --root "$R" plan $args --cuda-home /usr/local/cuda-13.0 --driver-version 580.95.05 \
    >/dev/null || fail "cu12in13: cudnnctl refuses its own fix 'install $args'"
ln -f "$SRC/lib64/libcudnn_ops.so.9" "$R$L/libcudnn_ops.so.9.19.0"  # what that install puts back
run_doctor "$R/d2.json"
absent "$R/d2.json" CUDNN_CUDA_MAJOR_MISMATCH
ok "CUDNN_CUDA_MAJOR_MISMATCH from ELF DT_NEEDED; fix 'install $args' is planned by cudnnctl"

# 4. the real cu12 9.1.0.70 wheel beside only CUDA 13: the fix must not be --cudnn 9.1 --cuda 13
W12=$(wheel 'nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl' nvidia-cudnn-cu12==9.1.0.70 \
    --platform manylinux2014_x86_64) || W12=
if [ -n "$W12" ]; then
    X12=$CACHE/x-cu12-9.1.0.70
    unpack "$W12" "$X12" '(lib/libcudnn.*\.so\.9$|include/cudnn_version\.h$|dist-info/METADATA$)'
    healthy13 refused
    mkdir -p "$R$SP/nvidia/cudnn/lib" "$R$SP/nvidia_cudnn_cu12-9.1.0.70.dist-info"
    for f in "$X12"/nvidia/cudnn/lib/*.so.9; do ln "$f" "$R$SP/nvidia/cudnn/lib/"; done
    run_doctor "$R/d1.json" VIRTUAL_ENV=/opt/venv
    expect "$R/d1.json" CUDNN_CUDA_MAJOR_MISMATCH "cuDNN 9.1.0 in $SP/nvidia/cudnn/lib is built for CUDA 12"
    fix=$(finding "$R/d1.json" CUDNN_CUDA_MAJOR_MISMATCH fix)
    case "$fix" in *"--cudnn 9.1 --cuda 13"*) fail "refused: suggests an install the catalog has not: $fix" ;; esac
    args=$(echo "$fix" | sed -n 's/.*`cudnnctl install \([^`]*\)`.*/\1/p')
    "$CUDNNCTL" --root "$R" plan $args --prefix /opt/p --driver-version 580.95.05 >/dev/null ||
        fail "refused: cudnnctl refuses its own fix 'install $args'"
    ok "fixes cudnnctl accepts: real cu12 9.1.0.70 wheel on CUDA 13 -> 'install $args' (not 9.1 --cuda 13)"
fi

# 5. nvcc on PATH from another toolkit than CUDA_HOME
healthy13 nvcc
version_json /usr/local/cuda-12.4 12.4.1
fake_nvcc /usr/local/cuda-12.4 12.4.131
cudart /usr/local/cuda-12.4/lib64 libcudart.so.12.4.127 libcudart.so.12
run_doctor "$R/d1.json" CUDA_HOME=/usr/local/cuda-13.0 PATH=/usr/local/cuda-12.4/bin:/usr/bin:/bin
expect "$R/d1.json" NVCC_NOT_CUDA_HOME "CUDA_HOME=/usr/local/cuda-13.0 is CUDA 13.0" \
    "first nvcc on PATH (/usr/local/cuda-12.4/bin/nvcc) is CUDA 12.4"
fix_and_recheck nvcc NVCC_NOT_CUDA_HOME CUDA_HOME=/usr/local/cuda-13.0 PATH=/usr/local/cuda-12.4/bin:/usr/bin:/bin
ok "NVCC_NOT_CUDA_HOME: export PATH fixes it"

# 6. the toolkit (with its cuDNN) in no loader path
healthy13 noloader
rm "$R/etc/ld.so.conf.d/cuda-13-0.conf"
run_doctor "$R/d1.json"
expect "$R/d1.json" TOOLKIT_NOT_IN_LOADER_PATH "$L is in no loader path"
fix_and_recheck noloader TOOLKIT_NOT_IN_LOADER_PATH
absent "$R/d2.json" CUDNN_NOT_IN_LOADER_PATH
ok "TOOLKIT_NOT_IN_LOADER_PATH: ld.so.conf.d entry + ldconfig fixes it"

# 7. a cuDNN prefix in no loader path
healthy13 noloader2
rm -f "$R$L"/libcudnn*
tarball_cudnn /opt/cudnn/lib
run_doctor "$R/d1.json"
expect "$R/d1.json" CUDNN_NOT_IN_LOADER_PATH "cuDNN 9.19.0 in /opt/cudnn/lib is in no loader path"
fix_and_recheck noloader2 CUDNN_NOT_IN_LOADER_PATH
ok "CUDNN_NOT_IN_LOADER_PATH: ld.so.conf.d entry + ldconfig fixes it"

# 8. a library the user may not read: permission, not "not an ELF" (doctor runs as nobody)
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    healthy13 unreadable
    rm "$R$L/libcudnn.so.9.19.0"
    cp "$SRC/lib64/libcudnn.so.9" "$R$L/libcudnn.so.9.19.0"
    chmod 600 "$R$L/libcudnn.so.9.19.0"
    NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
    env -i PATH=/usr/bin:/bin HOME=/ $NOBODY "$CUDNNCTL" --root "$R" --state-dir /tmp doctor --json \
        >"$R/d1.json" 2>/dev/null || true
    expect "$R/d1.json" CUDNN_LIB_UNREADABLE "cannot be read by this user (permission denied" libcudnn.so.9.19.0
    absent "$R/d1.json" CUDNN_BAD_LIBRARY
    cmd=$(finding "$R/d1.json" CUDNN_LIB_UNREADABLE command)
    echo "  CUDNN_LIB_UNREADABLE: running (as root): $cmd"
    sh -c "$cmd"
    env -i PATH=/usr/bin:/bin HOME=/ $NOBODY "$CUDNNCTL" --root "$R" --state-dir /tmp doctor --json \
        >"$R/d2.json" 2>/dev/null || true
    absent "$R/d2.json" CUDNN_LIB_UNREADABLE
    ok "CUDNN_LIB_UNREADABLE: permission named (not 'not an ELF'); chmod a+r fixes it"
fi

# 9. LD_LIBRARY_PATH shadowing by another copy of the SAME release: no warning, no error (issue
# 20: releases are compared by content; this was a CUDNN_SHADOWED warning whose command took the
# dir out again). The shadowing of a newer release by an older one is case 20 below.
healthy13 shadow
tarball_cudnn /opt/other/lib
run_doctor "$R/d1.json" LD_LIBRARY_PATH=/opt/other/lib
absent "$R/d1.json" CUDNN_SHADOWED CUDNN_LOADER_CONFLICT CUDNN_LD_LIBRARY_PATH_OVERRIDE
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["errors"] + d["warnings"])' "$R/d1.json" ||
    { cat "$R/d1.json" >&2; fail "shadow: the same release on LD_LIBRARY_PATH is no warning"; }
ok "same release on LD_LIBRARY_PATH over the tree's: no warning or error (at most CUDNN_IN_LD_LIBRARY_PATH info)"

# 10. a framework that needs cuDNN 8 while only 9 is present (--for tensorflow==2.14.0)
healthy13 needs8
run_doctor "$R/d1.json" -- --for tensorflow==2.14.0
expect "$R/d1.json" CONSUMER_CUDNN_MAJOR_MISSING "tensorflow==2.14.0 needs cuDNN 8" "9.19.0 in $L"
cmd=$(finding "$R/d1.json" CONSUMER_CUDNN_MAJOR_MISSING command)
case "$cmd" in *" install --cudnn 8."*" --cuda 11 --prefix /opt/cudnn") ;; *) fail "needs8: fix '$cmd'" ;; esac
# the printed install, as cudnnctl runs it up to the download (no network here): --dry-run
PATH=$(dirname "$CUDNNCTL"):$PATH sh -c "$cmd --dry-run --driver-version 580.95.05" >"$R/dry.txt" 2>&1 ||
    { cat "$R/dry.txt" >&2; fail "needs8: cudnnctl refuses its own fix '$cmd'"; }
# what it installs: NVIDIA's cuDNN 8.9 for CUDA 11 (the real 8.9.6.50 files) in that prefix
P8=$(sed -n 's/.*\(\/opt\/cudnn\/cudnn-8[^ /]*\).*/\1/p' "$R/dry.txt" | head -1)
[ -n "$P8" ] || { cat "$R/dry.txt" >&2; fail "needs8: dry run names no install dir"; }
mkdir -p "$R$P8/lib"
for f in "$X8"/nvidia/cudnn/lib/*.so.8; do ln "$f" "$R$P8/lib/"; done
run_doctor "$R/d2.json" -- --for tensorflow==2.14.0
absent "$R/d2.json" CONSUMER_CUDNN_MAJOR_MISSING
ok "CONSUMER_CUDNN_MAJOR_MISSING: tensorflow 2.14 needs 8; '$cmd' accepted, real 8.9.6 there -> clean"

# 11-15. the link chain of the real 9.19 files: each broken one way, each fixed by its command
chain_case() { # chain_case NAME CODE PATH-IN-MESSAGE BREAK-COMMAND...
    local name=$1 code=$2 what=$3
    shift 3
    healthy13 "$name"
    (cd "$R$L" && "$@")
    run_doctor "$R/d1.json"
    expect "$R/d1.json" "$code" "$what"
    fix_and_recheck "$name" "$code"
    [ -z "$(codes "$R/d2.json")" ] || { cat "$R/d2.json" >&2; fail "$name: not clean after the fix"; }
    ok "$code: $* -> fixed by its command, then 0 findings"
}
chain_case soname-missing CUDNN_SONAME_LINK_MISSING "$L/libcudnn_graph.so.9 is missing" \
    rm libcudnn_graph.so.9
chain_case soname-broken CUDNN_SONAME_LINK_BROKEN "$L/libcudnn_cnn.so.9 -> libcudnn_adv.so.9.19.0, another file" \
    ln -sfn libcudnn_adv.so.9.19.0 libcudnn_cnn.so.9
chain_case soname-file CUDNN_SONAME_FILE_SHADOWS "$L/libcudnn_heuristic.so.9 is a separate file" \
    sh -c 'rm libcudnn_heuristic.so.9 && ln libcudnn_heuristic.so.9.19.0 libcudnn_heuristic.so.9'
chain_case dev-missing CUDNN_DEV_LINK_MISSING "$L/libcudnn.so is missing although cuDNN headers" \
    rm libcudnn.so
chain_case dev-broken CUDNN_DEV_LINK_BROKEN "$L/libcudnn_ops.so -> libcudnn_adv.so.9" \
    ln -sfn libcudnn_adv.so.9 libcudnn_ops.so

# 16. /usr/local/cuda dangles (a removed toolkit)
healthy13 cudalink
ln -sfn /usr/local/cuda-12.8 "$R/usr/local/cuda"
run_doctor "$R/d1.json"
expect "$R/d1.json" CUDA_LINK_DANGLING "/usr/local/cuda -> /usr/local/cuda-12.8, which does not exist"
fix_and_recheck cudalink CUDA_LINK_DANGLING
ok "CUDA_LINK_DANGLING: ln -sfn to the installed toolkit fixes it"

# 17. mixed sub-libraries: the real 9.1.0 libcudnn_ops (cu12 wheel) left beside 9.19
if [ -n "$W12" ]; then
    healthy13 mixed
    ln "$X12/nvidia/cudnn/lib/libcudnn_ops.so.9" "$R$L/libcudnn_ops.so.9.1.0"
    run_doctor "$R/d1.json"
    expect "$R/d1.json" CUDNN_MIXED_SUBLIBS "9.1.0: libcudnn_ops.so.9.1.0" "9.19.0:"
    fix_and_recheck mixed CUDNN_MIXED_SUBLIBS
    [ -z "$(codes "$R/d2.json")" ] || { cat "$R/d2.json" >&2; fail "mixed: not clean after the fix"; }
    ok "CUDNN_MIXED_SUBLIBS: real 9.1.0 ops beside 9.19; rm of the stale release fixes it"
fi

# 18-19. cuDNN 8's unversioned dlopens: the real 8.9.6 in a registered prefix; libcuda.so.1 and
# libnvrtc.so.13 are DOUBLES (no driver or nvrtc here)
healthy13 cudnn8
P8=/opt/cudnn8/lib
mkdir -p "$R$P8"
for f in "$X8"/nvidia/cudnn/lib/*.so.8; do ln "$f" "$R$P8/"; done
echo $P8 > "$R/etc/ld.so.conf.d/cudnn8.conf"
elf_double "$R/usr/lib/x86_64-linux-gnu/libcuda.so.1" libcuda.so.1          # DOUBLE
elf_double "$R$L/libnvrtc.so.13.0.88" libnvrtc.so.13                          # DOUBLE
ln -s libnvrtc.so.13.0.88 "$R$L/libnvrtc.so.13"
run_doctor "$R/d1.json"
expect "$R/d1.json" CUDNN8_NO_LIBCUDA_SO "dlopens the unversioned libcuda.so" "(only libcuda.so.1 exists)"
expect "$R/d1.json" CUDNN8_NO_LIBNVRTC_SO "dlopens the unversioned libnvrtc.so"
fix_and_recheck cudnn8 CUDNN8_NO_LIBCUDA_SO
cp "$R/d1.json" "$R/d0.json"
run_doctor "$R/d1.json"
fix_and_recheck cudnn8 CUDNN8_NO_LIBNVRTC_SO
ok "CUDNN8_NO_LIBCUDA_SO / CUDNN8_NO_LIBNVRTC_SO: real 8.9.6; private links fix them"

# 20-21. LD_LIBRARY_PATH: another 9 (the real 9.1.0 files) swapped in; one copy listed
if [ -n "$W12" ]; then
    healthy13 override
    mkdir -p "$R/opt/c91/lib" "$R/opt/c91/include"
    for f in "$X12"/nvidia/cudnn/lib/*.so.9; do ln "$f" "$R/opt/c91/lib/"; done
    cp "$X12/nvidia/cudnn/include/cudnn_version.h" "$R/opt/c91/include/"
    run_doctor "$R/d1.json" LD_LIBRARY_PATH=/opt/c91/lib
    expect "$R/d1.json" CUDNN_LD_LIBRARY_PATH_OVERRIDE "LD_LIBRARY_PATH lists /opt/c91/lib (cuDNN 9.1"
    # one cause, one finding: the shadowing and the loader's pick are this override (issue 20)
    absent "$R/d1.json" CUDNN_SHADOWED CUDNN_LOADER_CONFLICT
    fix_and_recheck override CUDNN_LD_LIBRARY_PATH_OVERRIDE LD_LIBRARY_PATH=/opt/c91/lib
    absent "$R/d2.json" CUDNN_SHADOWED
    ok "CUDNN_LD_LIBRARY_PATH_OVERRIDE: real 9.1 over 9.19; export LD_LIBRARY_PATH fixes it"
fi
# 21. the tree's own lib dir on LD_LIBRARY_PATH (what NVIDIA's install guide says to do): an info
# without a command (issue 20: this was a warning whose command undid that set-up)
healthy13 inllp
run_doctor "$R/d1.json" LD_LIBRARY_PATH=$L
expect "$R/d1.json" CUDNN_IN_LD_LIBRARY_PATH "LD_LIBRARY_PATH lists $L (cuDNN 9.19.0)"
[ "$(finding "$R/d1.json" CUDNN_IN_LD_LIBRARY_PATH severity)" = info ] || fail "inllp: want info"
[ -z "$(finding "$R/d1.json" CUDNN_IN_LD_LIBRARY_PATH command)" ] || fail "inllp: an info has no command"
ok "CUDNN_IN_LD_LIBRARY_PATH: info only, no command"

# 22. two cuDNN 9 releases where the loader looks (no command: which one stays is the user's call)
if [ -n "$W12" ]; then
    healthy13 conflict
    D=/usr/lib/x86_64-linux-gnu
    mkdir -p "$R$D"
    for f in "$X12"/nvidia/cudnn/lib/*.so.9; do
        b=$(basename "$f" .so.9); ln "$f" "$R$D/$b.so.9.1.0"; ln -s "$b.so.9.1.0" "$R$D/$b.so.9"
    done
    run_doctor "$R/d1.json"
    expect "$R/d1.json" CUDNN_LOADER_CONFLICT "several cuDNN 9 versions are visible to the dynamic loader"
    rm -f "$R$D"/libcudnn*   # the fix it names: uninstall one of them
    run_doctor "$R/d2.json"
    absent "$R/d2.json" CUDNN_LOADER_CONFLICT
    ok "CUDNN_LOADER_CONFLICT: real 9.1 in /usr/lib beside 9.19; removing one clears it"
fi

# 23-24. --for: a release that needs a newer 9 / a cuDNN for another CUDA (fix accepted by
# cudnnctl in a dry run; the archive is not downloadable here)
healthy13 tfcuda
run_doctor "$R/d1.json" -- --for tensorflow==2.18.0
expect "$R/d1.json" CONSUMER_CUDA_MISMATCH "tensorflow==2.18.0 is built for CUDA 12" "is built for CUDA 13"
cmd=$(finding "$R/d1.json" CONSUMER_CUDA_MISMATCH command)
PATH=$(dirname "$CUDNNCTL"):$PATH sh -c "$cmd --dry-run --driver-version 580.95.05" >/dev/null 2>&1 ||
    fail "tfcuda: cudnnctl refuses its own fix '$cmd'"
ok "CONSUMER_CUDA_MISMATCH: 9.19's RUNPATH says cu13, tensorflow 2.18 needs cu12; '$cmd' accepted"
if [ -n "$W12" ]; then
    new_root tfold
    cuda13_tree
    mkdir -p "$R/opt/c91/lib" "$R/opt/c91/include"
    for f in "$X12"/nvidia/cudnn/lib/*.so.9; do ln "$f" "$R/opt/c91/lib/"; done
    cp "$X12/nvidia/cudnn/include/cudnn_version.h" "$R/opt/c91/include/"
    echo /opt/c91/lib > "$R/etc/ld.so.conf.d/c91.conf"
    run_doctor "$R/d1.json" -- --for tensorflow==2.18.0
    expect "$R/d1.json" CONSUMER_CUDNN_TOO_OLD "tensorflow==2.18.0 needs cuDNN 9.3 or a newer minor" "is 9.1.0 in /opt/c91/lib"
    cmd=$(finding "$R/d1.json" CONSUMER_CUDNN_TOO_OLD command)
    PATH=$(dirname "$CUDNNCTL"):$PATH sh -c "$cmd --dry-run --driver-version 580.95.05" >/dev/null 2>&1 ||
        fail "tfold: cudnnctl refuses its own fix '$cmd'"
    ok "CONSUMER_CUDNN_TOO_OLD: real 9.1 for tensorflow 2.18 (needs 9.3); '$cmd' accepted"
fi

# 25. the driver is older than CUDA 13 needs (no command: a driver upgrade needs a person)
healthy13 olddriver
driver_proc 535.183.01
run_doctor "$R/d1.json"
expect "$R/d1.json" DRIVER_TOO_OLD "(535.183.01) is older than CUDA 13 needs (>= 580.65.06)"
driver_proc 580.95.05
run_doctor "$R/d2.json"
absent "$R/d2.json" DRIVER_TOO_OLD
ok "DRIVER_TOO_OLD: 535 for CUDA 13; a 580 driver clears it"

# ---- Windows trees, diagnosed from Linux -------------------------------------------------------
PEDIR=$TOP/.pe
mkdir -p "$PEDIR"
echo 'int __stdcall DllMain(void *h, unsigned r, void *p) { return 1; }' > "$PEDIR/dll.c"
x86_64-w64-mingw32-gcc -shared -o "$PEDIR/zlibwapi-DOUBLE.dll" "$PEDIR/dll.c"
x86_64-w64-mingw32-gcc -shared -o "$PEDIR/cudart64_13-DOUBLE.dll" "$PEDIR/dll.c"
TKW="/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
CDW="/Program Files/NVIDIA/CUDNN/v9.1"
win_tree() {
    new_root "$1"
    mkdir -p "$R$TKW/v13.0/bin/x64" "$R$CDW/bin/12.4" "$R$CDW/include/12.4"
    cp "$PEDIR/cudart64_13-DOUBLE.dll" "$R$TKW/v13.0/bin/x64/cudart64_13.dll"
    ln "$XWIN/nvidia/cudnn/bin/cudnn64_9.dll" "$R$CDW/bin/12.4/"
    cp "$XWIN/nvidia/cudnn/include/cudnn_version.h" "$R$CDW/include/12.4/"
    mkdir -p "$R/Program Files/NVIDIA Corporation/Nsight Systems 2023.4.1/host-windows-x64"
    cp "$PEDIR/zlibwapi-DOUBLE.dll" \
        "$R/Program Files/NVIDIA Corporation/Nsight Systems 2023.4.1/host-windows-x64/zlibwapi.dll"
    ENVF=$R.env
    printf '%s\n' 'PATH=C:\Windows\system32;C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin;C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin\x64;C:\Program Files\NVIDIA\CUDNN\v9.1\bin\12.4' \
        'CUDA_PATH=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0' > "$ENVF"
}
WIN=(-- --platform windows-x86_64 --windows-env)

win_tree w-zlib
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_ZLIBWAPI_MISSING 'cuDNN 9.1 in C:\Program Files\NVIDIA\CUDNN\v9.1\bin\12.4 needs zlibwapi.dll'
fix_and_recheck w-zlib WIN_ZLIBWAPI_MISSING "${WIN[@]}" "$ENVF"
[ -z "$(codes "$R/d2.json")" ] || { cat "$R/d2.json" >&2; fail "windows tree not clean after the fix"; }
ok "WIN_ZLIBWAPI_MISSING: real cudnn64_9.dll 9.1; copy the 64-bit zlibwapi.dll (DOUBLE) fixes it; then 0 findings"

win_tree w-x64
sed -i 's/;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0\\bin\\x64//' "$ENVF"
cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R$CDW/bin/12.4/zlibwapi.dll"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_CUDA_BIN_X64_NOT_ON_PATH 'CUDA 13.0 keeps its DLLs' 'bin\x64, which is not on PATH'
fix_and_recheck w-x64 WIN_CUDA_BIN_X64_NOT_ON_PATH "${WIN[@]}" "$ENVF"
ok "WIN_CUDA_BIN_X64_NOT_ON_PATH: the PATH edit fixes it"

win_tree w-cudapath
cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R$CDW/bin/12.4/zlibwapi.dll"
echo 'CUDA_PATH=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4' >> "$ENVF"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_CUDA_PATH_MISSING 'CUDA_PATH=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4, which does not exist'
fix_and_recheck w-cudapath WIN_CUDA_PATH_MISSING "${WIN[@]}" "$ENVF"
ok "WIN_CUDA_PATH_MISSING: CUDA_PATH pointed at the installed v13.0"

win_tree w-twosets
cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R$CDW/bin/12.4/zlibwapi.dll"
mkdir -p "$R/tools/cudnn/bin"
ln "$XWIN/nvidia/cudnn/bin/cudnn64_9.dll" "$R/tools/cudnn/bin/"
cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R/tools/cudnn/bin/zlibwapi.dll"
sed -i 's|^PATH=\(.*\)$|PATH=C:\\tools\\cudnn\\bin;\1|' "$ENVF"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_CUDNN_DLL_SETS_ON_PATH 'two cuDNN 9 DLL sets are on PATH: C:\tools\cudnn\bin (first'
fix_and_recheck w-twosets WIN_CUDNN_DLL_SETS_ON_PATH "${WIN[@]}" "$ENVF"
ok "WIN_CUDNN_DLL_SETS_ON_PATH: names the first; the PATH edit fixes it"

win_tree w-notpath
cp "$PEDIR/zlibwapi-DOUBLE.dll" "$R$CDW/bin/12.4/zlibwapi.dll"
sed -i 's/;C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\12.4//' "$ENVF"
run_doctor "$R/d1.json" "${WIN[@]}" "$ENVF"
expect "$R/d1.json" WIN_CUDNN_NOT_ON_PATH 'bin\12.4 are not on PATH'
fix_and_recheck w-notpath WIN_CUDNN_NOT_ON_PATH "${WIN[@]}" "$ENVF"
[ -z "$(codes "$R/d2.json")" ] || { cat "$R/d2.json" >&2; fail "w-notpath: not clean after the fix"; }
ok "WIN_CUDNN_NOT_ON_PATH: the PATH edit fixes it"

printf '%s\n' "${PASSED[@]}" > "$TOP/passed.txt"
echo "all ${#PASSED[@]} doctor cases passed"
