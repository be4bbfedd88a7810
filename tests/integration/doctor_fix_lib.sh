# doctor_fix_lib.sh: run doctor on a fixture under --root, read its JSON, and RUN the command a
# finding printed, then doctor again in the same shell (so an `export` applies). Sourced after
# detect_common.sh (R, fail) and with SRC set by test_doctor_real.sh and the report tests (test_reports_*.sh).
PASSED=()
ok() { PASSED+=("$1"); echo "ok: $1"; }

# run_doctor OUT [VAR=VALUE...] [-- extra doctor args]: doctor --json under $R, clean env
run_doctor() {
    local out=$1
    shift
    local envs=() args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    args=("$@")
    env -i PATH=/usr/bin:/bin HOME=/root "${envs[@]}" "$CUDNNCTL" --root "$R" doctor --json \
        "${args[@]}" >"$out" 2>"$out.err" || true
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" ||
        { cat "$out" "$out.err" >&2; fail "doctor printed no JSON"; }
}
# finding JSON CODE FIELD: that field of the first finding with CODE ("" when none)
finding() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["code"] == sys.argv[2]:
        print(f[sys.argv[3]] or ""); break
PY
}
codes() { python3 -c 'import json,sys; print(" ".join(f["code"] for f in json.load(open(sys.argv[1]))["findings"]))' "$1"; }
expect() { # expect JSON CODE MESSAGE-SUBSTRING...
    local j=$1 code=$2
    shift 2
    local msg
    msg=$(finding "$j" "$code" message)
    [ -n "$msg" ] || { cat "$j" >&2; fail "$code not reported (got: $(codes "$j"))"; }
    for s in "$@"; do
        case "$msg" in *"$s"*) ;; *) fail "$code message lacks '$s': $msg" ;; esac
    done
    [ -n "$(finding "$j" "$code" fix)" ] || fail "$code has no fix"
}
absent() { # absent JSON CODE...
    local c
    for c in "${@:2}"; do
        case " $(codes "$1") " in *" $c "*) cat "$1" >&2; fail "$c still reported" ;; esac
    done
}
# fix_and_recheck CASE CODE [VAR=VALUE...] [-- doctor args]: run the printed command in a shell
# that then runs doctor again (so an `export` applies), and assert CODE is gone.
fix_and_recheck() {
    local case=$1 code=$2
    shift 2
    local cmd
    cmd=$(finding "$R/d1.json" "$code" command)
    [ -n "$cmd" ] || fail "$case: $code printed no command to run"
    echo "  $code: running: $cmd"
    local envs=() args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    args=("$@")
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "${envs[@]}" sh -c "$cmd"' && r=$1 && shift && exec "$0" --root "$r" doctor --json "$@"' \
        "$CUDNNCTL" "$R" "${args[@]}" >"$R/d2.json" 2>"$R/d2.err" || true
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$R/d2.json" ||
        { cat "$R/d2.json" "$R/d2.err" >&2; fail "$case: the fix '$cmd' failed"; }
    absent "$R/d2.json" "$code"
}


# ---- layouts built from the real files (SRC: the machine's CUDA 13.0 with cuDNN 9.19) ---------------------------------------------------------

# a CUDA 13.0 tree with the machine's cuDNN 9.19 in tarball layout (libX.so.9.19.0 + links),
# hard links to the real files (same bytes, no copy)
tarball_cudnn() { # tarball_cudnn DIR(root-relative)
    mkdir -p "$R$1"
    local f b
    for f in "$SRC"/lib64/libcudnn*.so.9; do
        b=$(basename "$f" .so.9)
        ln "$f" "$R$1/$b.so.9.19.0" 2>/dev/null || cp "$f" "$R$1/$b.so.9.19.0"
        ln -s "$b.so.9.19.0" "$R$1/$b.so.9"
        ln -s "$b.so.9" "$R$1/$b.so"
    done
}
cuda13_tree() { # the toolkit, registered with the loader, with a driver
    local T=/usr/local/cuda-13.0
    version_json $T 13.0.2
    cuda_headers $T/include 13 0
    fake_nvcc $T 13.0.88
    cudart $T/lib64 libcudart.so.13.0.96 libcudart.so.13
    mkdir -p "$R$T/include"
    cp "$SRC"/include/cudnn_version.h "$SRC"/include/cudnn.h "$R$T/include/" 2>/dev/null ||
        cudnn_header $T/include 9.19.0
    ln -sfn $T "$R/usr/local/cuda"
    driver_proc 580.95.05
    mkdir -p "$R/etc/ld.so.conf.d"
    echo 'include /etc/ld.so.conf.d/*.conf' > "$R/etc/ld.so.conf"
    echo "$T/lib64" > "$R/etc/ld.so.conf.d/cuda-13-0.conf"
}
new_root() { R=$TOP/$1; rm -rf "$R"; mkdir -p "$R"; chmod 755 "$R"; }
healthy13() { new_root "$1"; cuda13_tree; tarball_cudnn /usr/local/cuda-13.0/lib64; }

