# detect_common.sh: helpers shared by the detect integration tests (sourced; not a test itself).
# Builds fake system trees under a temporary root: CUDA toolkits, cuDNN copies made of real ELF
# test doubles (cc -shared with the right SONAME), headers, driver files; runs the real binary
# with a clean environment and checks JSON fields with python3.

: "${CUDNNCTL:?CUDNNCTL must point at the cudnnctl binary}"
command -v cc >/dev/null || { echo "FAIL: no C compiler (cc) to build ELF test doubles" >&2; exit 1; }
command -v python3 >/dev/null || [ -x /usr/bin/python3 ] ||
    { echo "FAIL: python3 is needed to read the JSON" >&2; exit 1; }

R=$(mktemp -d "${TMPDIR:-/tmp}/cc-detect-XXXXXX")
DOUBLES="$R/.doubles"   # ELF test doubles, one per SONAME, linked once and copied
trap 'rm -rf "$R"' EXIT
mkdir -p "$DOUBLES"
printf 'int cudnnctl_test_double(void) { return 42; }\n' > "$DOUBLES/stub.c"
cc -c -fPIC -o "$DOUBLES/stub.o" "$DOUBLES/stub.c"

fail() { echo "FAIL: $*" >&2; exit 1; }

# elf_double OUT SONAME: a real ELF shared object (a test double) with that SONAME.
elf_double() {
    local out=$1 soname=$2
    if [ ! -f "$DOUBLES/$soname" ]; then
        cc -shared -Wl,-soname,"$soname" -o "$DOUBLES/$soname" "$DOUBLES/stub.o"
    fi
    mkdir -p "$(dirname "$out")"
    cp "$DOUBLES/$soname" "$out"
}

CUDNN9_LIBS="libcudnn libcudnn_graph libcudnn_ops libcudnn_cnn libcudnn_adv
libcudnn_engines_precompiled libcudnn_engines_runtime_compiled libcudnn_heuristic"
CUDNN8_LIBS="libcudnn libcudnn_ops_infer libcudnn_ops_train libcudnn_cnn_infer libcudnn_cnn_train
libcudnn_adv_infer libcudnn_adv_train"

# cudnn_libs DIR VERSION STYLE: STYLE "deb"/"tar" = real .so.X.Y.Z files with .so.X and .so links;
# "wheel" = only real .so.X files (as in nvidia-cudnn-cu13).
cudnn_libs() {
    local dir=$1 ver=$2 style=$3 major=${2%%.*} libs
    if [ "$major" -ge 9 ]; then libs=$CUDNN9_LIBS; else libs=$CUDNN8_LIBS; fi
    mkdir -p "$R$dir"
    for l in $libs; do
        if [ "$style" = wheel ]; then
            elf_double "$R$dir/$l.so.$major" "$l.so.$major"
        else
            elf_double "$R$dir/$l.so.$ver" "$l.so.$major"
            ln -sfn "$l.so.$ver" "$R$dir/$l.so.$major"
            ln -sfn "$l.so.$major" "$R$dir/$l.so"
        fi
    done
}

# cudnn_header DIR VERSION [FILE]: cudnn_version.h (9.x or 8.x layout) in DIR.
cudnn_header() {
    local dir=$1 ver=$2 file=${3:-cudnn_version.h} ma mi pa enc
    IFS=. read -r ma mi pa <<<"$ver"
    if [ "$ma" -ge 9 ]; then enc='(CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)'
    else enc='(CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)'; fi
    mkdir -p "$R$dir"
    cat > "$R$dir/$file" <<EOF
/* test double of cudnn_version.h */
#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_
#define CUDNN_MAJOR $ma
#define CUDNN_MINOR $mi
#define CUDNN_PATCHLEVEL $pa
#define CUDNN_VERSION $enc
#endif
EOF
}

# cuda_headers INCDIR MAJOR MINOR: cuda.h and cuda_runtime_api.h with the version macros.
cuda_headers() {
    local inc=$1 enc=$(($2 * 1000 + $3 * 10))
    mkdir -p "$R$inc"
    printf '/* test double */\n#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__\n#define CUDA_VERSION %s\n#endif\n' "$enc" > "$R$inc/cuda.h"
    printf '/* test double */\n#define CUDART_VERSION  %s\n' "$enc" > "$R$inc/cuda_runtime_api.h"
}

# fake_nvcc TREE M.m.p: bin/nvcc printing what the real one prints (a shell script double).
fake_nvcc() {
    local tree=$1 ver=$2 mm=${2%.*}
    mkdir -p "$R$tree/bin"
    cat > "$R$tree/bin/nvcc" <<EOF
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Copyright (c) 2005-2025 NVIDIA Corporation"
echo "Cuda compilation tools, release $mm, V$ver"
echo "Build cuda_$mm.r$mm/compiler.36424714_0"
EOF
    chmod 755 "$R$tree/bin/nvcc"
}

# cudart LIBDIR REALNAME SONAME: libcudart real file + links.
cudart() {
    local dir=$1 real=$2 soname=$3
    elf_double "$R$dir/$real" "$soname"
    [ "$real" = "$soname" ] || ln -sfn "$real" "$R$dir/$soname"
    ln -sfn "$soname" "$R$dir/libcudart.so"
}

# version_json TREE VERSION
version_json() {
    mkdir -p "$R$1"
    printf '{\n  "cuda" : { "name" : "CUDA SDK", "version" : "%s" },\n  "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "%s" }\n}\n' "$2" "$2" > "$R$1/version.json"
}

# driver_proc VERSION: /proc/driver/nvidia/version as the open kernel module writes it.
driver_proc() {
    mkdir -p "$R/proc/driver/nvidia"
    printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Oct  9 2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n' "$1" > "$R/proc/driver/nvidia/version"
}

# detect_json OUT [VAR=VALUE...]: run `cudnnctl --root $R detect --json` with only the given
# environment (plus PATH=/usr/bin:/bin and HOME=/root unless given); exit code must be 0.
detect_json() {
    verify # checks queued on an earlier output, before it is overwritten
    CHECK_JSON=""
    local out=$1
    shift
    local rc=0
    env -i PATH=/usr/bin:/bin HOME=/root "$@" "$CUDNNCTL" --root "$R" detect --json \
        >"$out" 2>"$out.err" || rc=$?
    [ "$rc" -eq 0 ] || { cat "$out.err" >&2; fail "detect --json exited $rc (expected 0)"; }
    "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" ||
        { cat "$out" >&2; fail "detect --json printed no valid JSON"; }
}

# detect_json_host OUT [VAR=VALUE...]: the same without --root (the machine itself, toolkits given
# by host paths under $R through CUDA_HOME / PATH): programs are run only outside --root.
detect_json_host() {
    verify
    CHECK_JSON=""
    local out=$1
    shift
    local rc=0
    env -i PATH=/usr/bin:/bin HOME="$R/.home" "$@" "$CUDNNCTL" detect --json >"$out" 2>"$out.err" ||
        rc=$?
    [ "$rc" -eq 0 ] || { cat "$out.err" >&2; fail "detect --json exited $rc (expected 0)"; }
}

# The system python starts fast; a pyenv shim on PATH costs ~0.4 s per call.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# check JSON 'python expression over d' 'what it means': queued; verify runs the queue in one
# python process (helpers: tk(path), cu(path[, major]), has_problem(obj, text), has_note(text)).
CHECK_EXPRS=()
CHECK_WHATS=()
CHECK_JSON=""
check() {
    if [ -n "$CHECK_JSON" ] && [ "$CHECK_JSON" != "$1" ]; then verify; fi
    CHECK_JSON=$1
    CHECK_EXPRS+=("$2")
    CHECK_WHATS+=("$3")
}
verify() {
    [ ${#CHECK_EXPRS[@]} -gt 0 ] || return 0
    local list="$R/.checks" i
    : > "$list"
    for i in "${!CHECK_EXPRS[@]}"; do
        printf '%s\0%s\0' "${CHECK_EXPRS[$i]}" "${CHECK_WHATS[$i]}" >> "$list"
    done
    CHECK_EXPRS=()
    CHECK_WHATS=()
    "$PY" - "$CHECK_JSON" "$list" <<'PY' || { echo "--- detect output:" >&2; cat "$CHECK_JSON" >&2; fail "see the failed checks above"; }
import json, sys
d = json.load(open(sys.argv[1]))
items = open(sys.argv[2], encoding="utf-8").read().split("\0")[:-1]
def tk(path):
    m = [t for t in d["toolkits"] if t["path"] == path]
    return m[0] if m else None
def cu(path, major=None):
    m = [c for c in d["cudnn"] if c["path"] == path and (major is None or c["major"] == major)]
    return m[0] if m else None
def has_problem(obj, text):
    return obj is not None and any(text in p for p in obj["problems"])
def has_note(text):
    return any(text in n for n in d["notes"])
bad = 0
for expr, what in zip(items[0::2], items[1::2]):
    try:
        ok = eval(expr)
    except Exception as e:
        ok = False
        what += " (%s: %s)" % (type(e).__name__, e)
    if not ok:
        bad += 1
        print("check failed: %s\n    %s" % (what, expr), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

expected_platform() {
    case "$(uname -m)" in
        x86_64) echo linux-x86_64 ;;
        aarch64) echo linux-sbsa ;; # fake roots carry no /etc/nv_tegra_release
        *) echo "linux-$(uname -m)" ;;
    esac
}
