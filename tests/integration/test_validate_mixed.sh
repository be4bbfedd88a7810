#!/usr/bin/env bash
# validate prefixes built from the real cuDNN 9.19 files (symlinked: the engine libraries are
# 60-250 MB) with one sub-library swapped or missing:
#  - complete prefix (NVIDIA-style prefix install with a 'current' link) → exit 7, no-gpu;
#  - libcudnn_ops.so.9 replaced by an ELF double with the same SONAME and symbols whose
#    cudnnOpsVersionCheck reports CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH → exit 6 naming it;
#  - libcudnn_ops.so.9 -> libcudnn_ops.so.9.1.0 (a double whose check passes): the loaded-from
#    check catches the file of another version → exit 6 naming it;
#  - libcudnn_ops.so.9 missing: the shim's dlopen by name falls back to the loader (ld.so.cache
#    may list the CUDA tree's copy) → exit 6 naming libcudnn_ops either way.
set -euo pipefail
CUDA=/usr/local/cuda-13.0
[ -f "$CUDA/lib/libcudnn_ops.so.9" ] || { echo "FAIL: $CUDA/lib/libcudnn_ops.so.9 missing: this test needs the CUDA 13.0 tree with cuDNN 9.19"; exit 1; }
command -v cc >/dev/null || { echo "FAIL: no C compiler for the test doubles"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

make_prefix() { # DIR: DIR/cudnn-9.19.0-cuda13/{lib,include} of symlinks + DIR/current
    local d=$1/cudnn-9.19.0-cuda13
    mkdir -p "$d/lib" "$d/include"
    for f in "$CUDA"/lib/libcudnn*.so.9; do ln -s "$f" "$d/lib/"; done
    ln -s "$CUDA/include/cudnn_version.h" "$d/include/"
    ln -s cudnn-9.19.0-cuda13 "$1/current"
}

# an ELF double of libcudnn_ops.so.9: every symbol the real one exports (so cnn/adv still bind),
# versioned like the real one, cudnnOpsVersionCheck returning $2
make_ops_double() { # OUT STATUS
    local src=$tmp/ops_double_$2.c
    {
        echo "/* test double of libcudnn_ops.so.9 */"
        nm -D --defined-only "$CUDA/lib/libcudnn_ops.so.9" | awk '$2=="T"{sub(/@.*/,"",$3); print $3}' |
            while read -r s; do
                if [ "$s" = cudnnOpsVersionCheck ]; then echo "int $s(void) { return $2; }"
                else echo "int $s(void) { return 2000; }"; fi
            done
        nm -D --defined-only "$CUDA/lib/libcudnn_ops.so.9" | awk '$2=="R"||$2=="D"||$2=="B"{sub(/@.*/,"",$3); print "const char " $3 "[64] = {0};"}'
    } >"$src"
    echo 'libcudnn_ops.so.9 { global: *; };' >"$tmp/ops.map"
    cc -shared -fPIC -o "$1" "$src" -Wl,-soname,libcudnn_ops.so.9 -Wl,--version-script="$tmp/ops.map"
}

run() { # NAME TARGET → $tmp/NAME.json, sets rc
    set +e
    "$CUDNNCTL" validate "$2" --cuda-home "$CUDA" --json >"$tmp/$1.json" 2>"$tmp/$1.err"
    rc=$?
    set -e
}

# 1. complete prefix → no-gpu, every library from the prefix
make_prefix "$tmp/good"
run good "$tmp/good"
[ "$rc" -eq 7 ] || { echo "FAIL: good prefix exit $rc"; cat "$tmp/good.err" "$tmp/good.json"; exit 1; }
python3 - "$tmp/good.json" "$tmp/good/current/lib" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1])); lib = sys.argv[2]
def fail(m): print("FAIL(good):", m); print(json.dumps(r, indent=1)); sys.exit(1)
if r["status"] != "no-gpu" or r["lib_dir"] != lib: fail("status/lib_dir")
c = {k["name"]: k for k in r["checks"]}
for n in ["sublib_graph", "sublib_ops", "sublib_cnn", "sublib_adv", "loaded_from", "header_version"]:
    if not c[n]["ok"]: fail(n)
if len(r["loaded_from"]) < 5: fail("too few mapped")
for p in r["loaded_from"]:
    if os.path.dirname(p) != lib: fail("mapped outside the prefix: " + p)
for m in r["loaded"]:   # symlinks: the realpath is the CUDA tree's file, reported too
    if not m["realpath"].startswith("/usr/local/cuda-13.0/"): fail("realpath %r" % m)
PY

# 2. one sub-library of "another version": cuDNN's own check reports the mismatch
make_prefix "$tmp/mis"
rm "$tmp/mis/cudnn-9.19.0-cuda13/lib/libcudnn_ops.so.9"
make_ops_double "$tmp/mis/cudnn-9.19.0-cuda13/lib/libcudnn_ops.so.9" 1002
run mis "$tmp/mis"
[ "$rc" -eq 6 ] || { echo "FAIL: mismatched sub-library exit $rc, want 6"; cat "$tmp/mis.err" "$tmp/mis.json"; exit 1; }
grep -q "failed: sublib_ops: .*libcudnn_ops.so.9" "$tmp/mis.err" ||
    { echo "FAIL: error does not name libcudnn_ops"; cat "$tmp/mis.err"; exit 1; }
python3 - "$tmp/mis.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); c = {k["name"]: k for k in r["checks"]}
def fail(m): print("FAIL(mismatch):", m); print(json.dumps(r, indent=1)); sys.exit(1)
if r["status"] != "failed": fail("status")
o = c["sublib_ops"]
if o["ok"] or "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH" not in o["error"] or "libcudnn_ops.so.9" not in o["error"]: fail("ops check %r" % o)
if not c["sublib_graph"]["ok"]: fail("graph should still pass")
# cnn and adv load (the double exports every symbol) but their checks call into ops: cuDNN
# reports the mismatch for them too; we point at ops as the one to fix
for n in ["sublib_cnn", "sublib_adv"]:
    if not c[n]["ok"] and "depends on libcudnn_ops.so.9" not in c[n]["error"]: fail(n + " not traced to ops")
first = [k for k in r["checks"] if not k["ok"] and not k["skipped"]][0]
if first["name"] != "sublib_ops": fail("first failure is %s" % first["name"])
PY

# 3. a file of another version behind the .so.9 name: only the loaded-from check can tell
make_prefix "$tmp/old"
L=$tmp/old/cudnn-9.19.0-cuda13/lib
rm "$L/libcudnn_ops.so.9"
make_ops_double "$L/libcudnn_ops.so.9.1.0" 0
ln -s libcudnn_ops.so.9.1.0 "$L/libcudnn_ops.so.9"
run old "$tmp/old"
[ "$rc" -eq 6 ] || { echo "FAIL: other-version file exit $rc, want 6"; cat "$tmp/old.err" "$tmp/old.json"; exit 1; }
python3 - "$tmp/old.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); c = {k["name"]: k for k in r["checks"]}
def fail(m): print("FAIL(old):", m); print(json.dumps(r, indent=1)); sys.exit(1)
if c["sublib_ops"]["ok"] is not True: fail("the double's own check passes")
lf = c["loaded_from"]
if lf["ok"] or "libcudnn_ops.so.9.1.0" not in lf["error"] or "9.1.0" not in lf["error"]: fail("loaded_from %r" % lf)
if not any(m["realpath"].endswith("libcudnn_ops.so.9.1.0") for m in r["loaded"]): fail("realpath not reported")
PY

# 4. a missing sub-library
make_prefix "$tmp/miss"
rm "$tmp/miss/cudnn-9.19.0-cuda13/lib/libcudnn_ops.so.9"
run miss "$tmp/miss"
[ "$rc" -eq 6 ] || { echo "FAIL: missing sub-library exit $rc, want 6"; cat "$tmp/miss.err" "$tmp/miss.json"; exit 1; }
grep -q "libcudnn_ops" "$tmp/miss.err" || { echo "FAIL: error does not name libcudnn_ops"; cat "$tmp/miss.err"; exit 1; }
python3 - "$tmp/miss.json" "$tmp/miss/current/lib" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1])); lib = sys.argv[2]; c = {k["name"]: k for k in r["checks"]}
def fail(m): print("FAIL(missing):", m); print(json.dumps(r, indent=1)); sys.exit(1)
ops = [p for p in r["loaded_from"] if os.path.basename(p).startswith("libcudnn_ops")]
if ops:   # the loader found another copy (ld.so.cache): the intruder is named
    if os.path.dirname(ops[0]) == lib: fail("ops cannot come from the prefix")
    if c["loaded_from"]["ok"] or ops[0] not in c["loaded_from"]["error"]: fail("intruder not named: %r" % c["loaded_from"])
else:     # nothing else on the machine: the sub-library check fails
    if c["sublib_ops"]["ok"] or "libcudnn_ops.so.9" not in c["sublib_ops"]["error"]: fail("ops check %r" % c["sublib_ops"])
print("missing sub-library →", "intruder " + ops[0] if ops else "load failure")
PY
echo "ok: mixed / missing sub-libraries fail with exit 6 and are named"
