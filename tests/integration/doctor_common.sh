# doctor_common.sh: helpers for the doctor / report / compare integration tests (sourced; not a
# test itself). Builds on detect_common.sh: a healthy fake machine (CUDA 13.0 toolkit with cuDNN
# 9.19.0 merged in, R580 driver, ld.so.conf naming the tree) that each case copies and breaks in
# one way, and doctor runs with a clean environment.
. "$(dirname "${BASH_SOURCE[0]}")/detect_common.sh"

TOP=$R
trap 'rm -rf "$TOP"' EXIT

TREE=/usr/local/cuda-13.0

# healthy_machine: the base every case starts from, built once in $TOP/base.
healthy_machine() {
    R=$TOP/base
    mkdir -p "$R"
    version_json $TREE 13.0.2
    cuda_headers $TREE/include 13 0
    fake_nvcc $TREE 13.0.88
    cudart $TREE/lib64 libcudart.so.13.0.96 libcudart.so.13
    cudnn_libs $TREE/lib64 9.19.0 tar
    cudnn_header $TREE/include 9.19.0
    ln -sfn $TREE "$R/usr/local/cuda"
    driver_proc 580.95.05
    mkdir -p "$R/etc/ld.so.conf.d"
    echo 'include /etc/ld.so.conf.d/*.conf' > "$R/etc/ld.so.conf"
    echo "$TREE/lib64" > "$R/etc/ld.so.conf.d/cuda.conf"
    R=$TOP
}

# new_case NAME: a fresh copy of the healthy machine; R points at it.
new_case() {
    R=$TOP/$1
    rm -rf "$R"
    cp -a "$TOP/base" "$R"
}

# doctor_json OUT WANT_RC [VAR=VALUE...]: `cudnnctl --root $R doctor --json` with only the given
# environment; the exit code must be WANT_RC and stdout one JSON document.
doctor_json() {
    verify
    CHECK_JSON=""
    local out=$1 want=$2
    shift 2
    local rc=0
    env -i PATH=/usr/bin:/bin HOME=/root "$@" "$CUDNNCTL" --root "$R" doctor --json \
        >"$out" 2>"$out.err" || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$out" "$out.err" >&2; fail "doctor --json exited $rc (expected $want)"; }
    "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" ||
        { cat "$out" >&2; fail "doctor --json printed no valid JSON"; }
}

# has_codes JSON 'CODE...': every code is among the findings (with message and fix).
has_codes() {
    "$PY" - "$1" "$2" <<'PY' || { cat "$1" >&2; fail "expected findings $2"; }
import json, sys
d = json.load(open(sys.argv[1]))
codes = [f["code"] for f in d["findings"]]
miss = [c for c in sys.argv[2].split() if c not in codes]
bad = [f["code"] for f in d["findings"] if not f["message"] or not f["fix"] or
       f["severity"] not in ("error", "warning", "info")]
if miss or bad:
    print("missing: %s; incomplete: %s; got: %s" % (miss, bad, codes), file=sys.stderr)
    sys.exit(1)
PY
}

# no_codes JSON 'CODE...': none of the codes is among the findings.
no_codes() {
    "$PY" - "$1" "$2" <<'PY' || { cat "$1" >&2; fail "unexpected findings among $2"; }
import json, sys
d = json.load(open(sys.argv[1]))
codes = [f["code"] for f in d["findings"]]
bad = [c for c in sys.argv[2].split() if c in codes]
if bad:
    print("unexpected: %s" % bad, file=sys.stderr)
    sys.exit(1)
PY
}
