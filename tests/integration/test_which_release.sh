#!/usr/bin/env bash
# Fit by content, not by directory (issue 20): a program whose libcudnn.so.9 comes from one dir
# (its DT_RPATH) and whose sub-libraries come from another (LD_LIBRARY_PATH, searched before
# libcudnn.so.9's own DT_RUNPATH). Built from real NVIDIA bytes: the machine's cuDNN 9.19
# (/usr/local/cuda-13.0) and the nvidia-cudnn-cu12 9.1.0.70 wheel (cached outside the clone).
# Each case runs the program itself (front_subs.c: cuDNN's own version checks, no GPU needed) and
# `cudnnctl which PROGRAM`: the model's verdict and exit code must agree with what cuDNN says,
# and every libcudnn* file the process mapped must be one the model says it maps.
#   1. the same release in both dirs (hard links of the same files): exit 0, one note;
#   2. a 9.1.0 libcudnn_graph.so.9 under the 9.19 front: mismatch, exit 6 (cuDNN reports 9.1.0
#      and its other sub-libraries fail to load);
#   3. a 9.1.0 libcudnn_ops.so.9 in the LD_LIBRARY_PATH dir: it does not load against the 9.19
#      graph ("undefined symbol ... version libcudnn_graph.so.9") and cuDNN tries its next name,
#      libcudnn_ops.so (on this machine the ld.so.cache leads to CUDA 13.0's 9.19 copy): the model
#      must name the file the process maps, and agree with cuDNN on success.
set -euo pipefail
SRC=/usr/local/cuda-13.0/lib64
[ -e "$SRC/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
W=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test/wheels
W12=$(ls "$W"/nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl 2>/dev/null | head -1 || true)
if [ -z "$W12" ]; then
    mkdir -p "$W"
    timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.10 \
        --platform manylinux2014_x86_64 -d "$W" nvidia-cudnn-cu12==9.1.0.70 >&2 || true
    W12=$(ls "$W"/nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl 2>/dev/null | head -1 || true)
fi
[ -n "$W12" ] || { echo "nvidia-cudnn-cu12 9.1.0.70: not cached and PyPI unreachable"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
python3 - "$W12" "$T/x12" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in ("nvidia/cudnn/lib/libcudnn_graph.so.9", "nvidia/cudnn/lib/libcudnn_ops.so.9"):
    z.extract(n, sys.argv[2])
PY
X12=$T/x12/nvidia/cudnn/lib
mkdir -p "$T/A" "$T/B"
for f in "$SRC"/libcudnn*.so.9; do ln "$f" "$T/A/" 2>/dev/null || cp "$f" "$T/A/"; done  # wheel layout
fill_b() { rm -f "$T"/B/*; for f in "$SRC"/libcudnn*.so.9; do ln "$f" "$T/B/" 2>/dev/null || cp "$f" "$T/B/"; done; }
cc -I"$SOURCE_DIR/tests/integration/loader" -o "$T/prog" "$SOURCE_DIR/tests/integration/loader/front_subs.c" \
    -L"$T/A" -l:libcudnn.so.9 -Wl,--disable-new-dtags,-rpath,"$T/A"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# run_case NAME: the program and the model with LD_LIBRARY_PATH=$T/B; sets real_rc, rc, verdict
run_case() {
    set +e
    LD_LIBRARY_PATH=$T/B "$T/prog" >"$T/real.txt" 2>&1; real_rc=$?
    LD_LIBRARY_PATH=$T/B "$CUDNNCTL" which --json "$T/prog" >"$T/w.json"; rc=$?
    set -e
    LD_LIBRARY_PATH=$T/B "$CUDNNCTL" which "$T/prog" 2>&1 | grep -E 'problem|note|verdict' | sed 's/^/    /' || true
    verdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["consumers"][0]["verdict"])' "$T/w.json")
    echo "$1: real: $(head -1 "$T/real.txt") (exit $real_rc); which: $verdict, exit $rc"
    # every libcudnn* the process mapped is one the model maps (links resolved on both sides)
    python3 - "$T/real.txt" "$T/w.json" <<'PY' || fail "$1: the process mapped a file the model does not name"
import json, os, sys
maps = {os.path.realpath(p) for p in json.load(open(sys.argv[2]))["consumers"][0]["maps"]}
real = [os.path.realpath(l.split(None, 1)[1].strip()) for l in open(sys.argv[1]) if l.startswith("mapped ")]
missing = [p for p in real if p not in maps]
print("    mapped by the process:", len(real), "files; not in the model:", missing or "none")
sys.exit(1 if missing or not real else 0)
PY
}

fill_b
run_case "1 same release in two dirs"
[ "$real_rc" = 0 ] || fail "1: cuDNN's own checks failed: $(cat "$T/real.txt")"
[ "$rc" = 0 ] && [ "$verdict" = ok ] || fail "1: same release from two dirs: want ok, exit 0 (got $verdict, $rc)"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["consumers"][0]; assert not c["problems"] and any("the same release 9.19.0.56" in n for n in c["notes"]), c' "$T/w.json" ||
    fail "1: want no problem and a same-release note"

fill_b; rm -f "$T/B/libcudnn_graph.so.9"; cp "$X12/libcudnn_graph.so.9" "$T/B/"
run_case "2 a 9.1.0 graph library under the 9.19 front"
grep -q '^version 90100 ' "$T/real.txt" && [ "$real_rc" != 0 ] || fail "2: the control: cuDNN should report 9.1.0 and fail its checks"
[ "$rc" = 6 ] && [ "$verdict" = mismatch ] || fail "2: a real mix: want mismatch, exit 6 (got $verdict, $rc)"

fill_b; rm -f "$T/B/libcudnn_ops.so.9"; cp "$X12/libcudnn_ops.so.9" "$T/B/"
run_case "3 a 9.1.0 ops library in the LD_LIBRARY_PATH dir"
grep -q "^mapped $T/B/libcudnn_ops" "$T/real.txt" && fail "3: the control: the process should pass over B's 9.1.0 ops"
{ [ "$real_rc" = 0 ] && [ "$rc" = 0 ]; } || { [ "$real_rc" != 0 ] && [ "$rc" = 6 ]; } ||
    fail "3: cuDNN says exit $real_rc, which says $verdict / $rc"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["consumers"][0]
assert not any(m.endswith("/B/libcudnn_ops.so.9") for m in c["maps"]), c["maps"]
' "$T/w.json" || fail "3: the model should pass over B's 9.1.0 libcudnn_ops.so.9"
[ "$fails" = 0 ]
