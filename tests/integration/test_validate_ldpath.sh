#!/usr/bin/env bash
# An inherited LD_LIBRARY_PATH pointing at another cuDNN copy must not reach the validation child.
# Control: the same load with LD_LIBRARY_PATH set (python ctypes, no scrub) DOES map the other
# copy, so the check below can fail.
set -euo pipefail
CUDA=/usr/local/cuda-13.0
[ -f "$CUDA/lib/libcudnn_graph.so.9" ] || { echo "FAIL: $CUDA/lib/libcudnn_graph.so.9 missing: this test needs the CUDA 13.0 tree with cuDNN 9.19"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
A=$tmp/a/lib; B=$tmp/other
mkdir -p "$A" "$B"
for f in "$CUDA"/lib/libcudnn*.so.9; do ln -s "$f" "$A/"; done
cp "$CUDA/lib/libcudnn_graph.so.9" "$B/"   # another copy (a real file, 4 MB)

# control: without scrubbing, the loader prefers LD_LIBRARY_PATH over libcudnn's RUNPATH $ORIGIN
LD_LIBRARY_PATH=$B python3 - "$A" "$B" <<'PY'
import ctypes, sys
a, b = sys.argv[1], sys.argv[2]
ctypes.CDLL(a + "/libcudnn.so.9").cudnnGraphVersionCheck()
maps = open("/proc/self/maps").read()
if b + "/libcudnn_graph.so.9" not in maps:
    print("FAIL: control did not pick up the other copy; the test below would prove nothing"); sys.exit(1)
PY

set +e
LD_LIBRARY_PATH=$B "$CUDNNCTL" validate "$A" --cuda-home "$CUDA" --json >"$tmp/out.json" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 7 ] || { echo "FAIL: exit $rc, want 7"; cat "$tmp/err" "$tmp/out.json"; exit 1; }
python3 - "$tmp/out.json" "$A" "$B" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1])); a, b = sys.argv[2], sys.argv[3]
def fail(m): print("FAIL:", m); print(json.dumps(r, indent=1)); sys.exit(1)
if r["child_ld_library_path"] is not None: fail("the child saw LD_LIBRARY_PATH=%r" % r["child_ld_library_path"])
if not any(os.path.basename(p) == "libcudnn_graph.so.9" for p in r["loaded_from"]): fail("graph not mapped")
for m in r["loaded"]:
    if os.path.dirname(m["path"]) != a or m["path"].startswith(b) or m["realpath"].startswith(b):
        fail("mapped outside the target: %r" % m)
c = {k["name"]: k for k in r["checks"]}
if not c["loaded_from"]["ok"]: fail("loaded_from failed")
PY
echo "ok: LD_LIBRARY_PATH=$B did not reach the child; everything mapped from $A"
