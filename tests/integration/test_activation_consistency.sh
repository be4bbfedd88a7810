#!/usr/bin/env bash
# Issue 20, acceptance "after install --prefix and exactly the activation it prints, doctor reports
# no error or warning; install, validate and doctor print the same fix for the same situation",
# on this machine's real loader (no --root), from real NVIDIA bytes:
#   - the prefix: an NVIDIA-layout archive that scripts/local-mirror packs from the machine's cuDNN
#     9.19 (/usr/local/cuda-13.0; full version 9.19.0.56 from the files), cached outside the clone;
#   - an older copy that programs get before the activation, as the H200's distribution 9.14 debs
#     did: NVIDIA's nvidia-cudnn-cu12 9.1.0.70 wheel files, on LD_LIBRARY_PATH;
#   - a venv whose frameworks bring their own cuDNN: PyPI's jax-cuda13-plugin with the 9.19 files
#     in the nvidia-cudnn-cu13 wheel layout (the H200's torch/jax venv, minus the GPU).
# Before: install warns that the 9.1.0 copy wins and prints a fix; validate's effective_load and
# doctor's CUDNN_PREFIX_NOT_ACTIVE print the very same command. The test runs it; then doctor and
# doctor --python report no error or warning beyond what the machine had before the install (no
# driver here), `which --python` says ok, and detect lists the prefix (its receipt knows it).
set -euo pipefail
SRC=/usr/local/cuda-13.0
[ -e "$SRC/lib64/libcudnn_graph.so.9" ] || { echo "no cuDNN 9.19 in $SRC"; exit 77; }
command -v python3 >/dev/null && command -v xz >/dev/null || { echo "no python3 / xz"; exit 77; }
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
M=$CACHE/mirror-local-9.19
if [ ! -e "$M/redistrib_9.19.0.json" ]; then
    # a private temp name (runs in parallel must not clear each other's), the fast xz preset
    mkdir -p "$CACHE" # a fresh machine has no cache yet (mktemp does not create parents)
    Mt=$(mktemp -d "$M.tmp.XXXXXX")
    python3 "$SOURCE_DIR/scripts/local-mirror" --lib-dir "$SRC/lib64" --include-dir "$SRC/include" \
        --cuda 13 --xz-preset -0 --xz-threads 2 --out "$Mt" >/dev/null || { rm -rf "$Mt"; echo "local-mirror failed"; exit 1; }
    [ -e "$M/redistrib_9.19.0.json" ] && rm -rf "$Mt" || { rm -rf "$M"; mv "$Mt" "$M"; }
fi
fetch() { # fetch DIR GLOB SPEC [pip args]
    local w; w=$(ls "$1"/$2 2>/dev/null | head -1 || true)
    if [ -z "$w" ]; then
        mkdir -p "$1"
        timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: -d "$1" "${@:4}" "$3" >&2 || true
        w=$(ls "$1"/$2 2>/dev/null | head -1 || true)
    fi
    echo "$w"
}
W12=$(fetch "$CACHE/wheels" 'nvidia_cudnn_cu12-9.1.0.70-*manylinux*.whl' nvidia-cudnn-cu12==9.1.0.70 \
    --python-version 3.10 --platform manylinux2014_x86_64)
JAX=$(fetch "$CACHE/consumers" 'jax_cuda13_plugin-0.10.2-*.whl' jax-cuda13-plugin==0.10.2 \
    --python-version 3.11 --platform manylinux_2_27_x86_64)
[ -n "$W12" ] && [ -n "$JAX" ] || { echo "wheels: not cached and PyPI unreachable"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config; mkdir -p "$HOME" "$T/bin"
printf '#!/bin/sh\nexec %s --state-dir %s --cache-dir %s "$@"\n' "$CUDNNCTL" "$T/state" "$T/cache" >"$T/bin/cudnnctl"
chmod +x "$T/bin/cudnnctl"
export PATH=$T/bin:$PATH
unzip_to() { python3 - "$@" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); pats = sys.argv[3:]
for n in z.namelist():
    if not pats or any(n.startswith(p) or n.endswith(p) for p in pats):
        z.extract(n, sys.argv[2])
PY
}
unzip_to "$W12" "$T/w12" nvidia/cudnn/lib/
OLD=$T/w12/nvidia/cudnn/lib
python3 -m venv --without-pip "$T/venv"
PY=$T/venv/bin/python
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
unzip_to "$JAX" "$SITE"
mkdir -p "$SITE/nvidia/cudnn/lib" "$SITE/nvidia/cudnn/include" "$SITE/nvidia_cudnn_cu13-9.19.0.56.dist-info"
for f in "$SRC"/lib64/libcudnn*.so.9; do ln "$f" "$SITE/nvidia/cudnn/lib/" 2>/dev/null || cp "$f" "$SITE/nvidia/cudnn/lib/"; done
cp "$SRC/include/cudnn_version.h" "$SITE/nvidia/cudnn/include/"
printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n' >"$SITE/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA"
P=$T/prefix
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
problems() { # problems JSON: "CODE" per error / warning finding
    python3 -c 'import json,sys; print(" ".join(sorted(f["code"] for f in json.load(open(sys.argv[1]))["findings"] if f["severity"] != "info")))' "$1"
}

# the machine as it is, before anything: what doctor says without our copies
env -u LD_LIBRARY_PATH cudnnctl doctor --json >"$T/d0.json" || true
base=$(problems "$T/d0.json")
echo "baseline (this machine, no LD_LIBRARY_PATH): ${base:-nothing}"

# S0: the older 9.1.0 is what programs get (LD_LIBRARY_PATH), as the H200's 9.14 was
export LD_LIBRARY_PATH=$OLD
cudnnctl install --manifest "$M/redistrib_9.19.0.json" --mirror "$M" --cudnn 9.19.0.56 --cuda 13 \
    --prefix "$P" --no-validate --no-ldconfig --no-progress >"$T/i.out" 2>"$T/i.err" ||
    { cat "$T/i.err"; fail "install"; }
line=$(grep "warning: this environment maps" "$T/i.err" || true)
echo "install: $line"
[[ "$line" == *"$OLD/libcudnn.so.9 (cuDNN 9.1.0"* ]] || fail "install must warn that the 9.1.0 copy wins"
F_INSTALL=${line##*; fix: }
[ "$F_INSTALL" = "eval \"\$(cudnnctl env --prefix $P)\"" ] || fail "install's fix: $F_INSTALL"

cudnnctl validate "$P" --json >"$T/v.json" 2>/dev/null || true
F_VALIDATE=$(python3 -c '
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "effective_load"][0]
assert not c["ok"], c
print(c["error"].rsplit("; fix: ", 1)[1])' "$T/v.json") || fail "validate: effective_load should fail"
echo "validate's fix: $F_VALIDATE"
[ "$F_VALIDATE" = "$F_INSTALL" ] || fail "validate prints another fix than install: '$F_VALIDATE'"

cudnnctl doctor --json >"$T/d1.json" || true
F_DOCTOR=$(python3 -c '
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["code"] == "CUDNN_PREFIX_NOT_ACTIVE"]
assert f, "no CUDNN_PREFIX_NOT_ACTIVE"
print(f[0]["command"])' "$T/d1.json") || fail "doctor: no CUDNN_PREFIX_NOT_ACTIVE for the prefix"
echo "doctor's fix:   $F_DOCTOR"
[ "$F_DOCTOR" = "$F_INSTALL" ] || fail "doctor prints another fix than install: '$F_DOCTOR'"

python3 -c '
import json, sys
d = json.load(sys.stdin)
assert any(c["path"].startswith(sys.argv[1]) and c["origin"] == "prefix" for c in d["cudnn"]), [c["path"] for c in d["cudnn"]]
' "$P" < <(cudnnctl detect --json 2>/dev/null) || fail "detect does not list the prefix its receipt knows"

# S1: exactly the activation install printed
eval "$F_INSTALL"
echo "activated: LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
cudnnctl doctor --json >"$T/d2.json" || true
after=$(problems "$T/d2.json")
echo "doctor after the activation: ${after:-nothing}"
[ "$after" = "$base" ] || { cat "$T/d2.json"; fail "doctor after the activation: '$after' (before the install: '$base')"; }
cudnnctl doctor --python "$PY" --json >"$T/d3.json" || true
afterpy=$(problems "$T/d3.json")
echo "doctor --python after the activation: ${afterpy:-nothing}"
[ "$afterpy" = "$base" ] || { cat "$T/d3.json"; fail "doctor --python after the activation: '$afterpy'"; }
set +e; cudnnctl which --python "$PY" --json >"$T/w.json"; rc=$?; set -e
python3 -c '
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["consumers"] if c["name"] == "jax_cuda13_plugin"][0]
print("which --python: jax_cuda13_plugin", c["verdict"], "|", (c["notes"] or ["no note"])[0][:110])
assert c["verdict"] == "ok" and not c["problems"], c
' "$T/w.json" || fail "which --python after the activation"
[ "$rc" = 0 ] || fail "which --python exit $rc"
cudnnctl validate "$P" --json >"$T/v2.json" 2>/dev/null || true
python3 -c '
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "effective_load"][0]
assert c["ok"], c' "$T/v2.json" || fail "validate after the activation: effective_load"
[ "$fails" = 0 ] && echo "ok: one fix in install, validate and doctor; after it nothing left to fix"
[ "$fails" = 0 ]
