#!/usr/bin/env bash
# test_update_wheels.sh: `cudnnctl update --index-url` refreshes the wheel catalog from a package
# index's PEP 691 JSON pages (tests/tools/pep691_index.py, serving NVIDIA's project names; it
# answers pip too):
#  - a manifest of a release newer than every embedded one (9.28.0.4) and its wheel on the index:
#    update stores the wheel (file name, SHA-256, size, absolute URL); a yanked file, a file
#    without a size, an sdist and a file of an unknown platform are passed over; the embedded
#    9.19 wheel listed with its real digest is "known"
#  - with the index stopped: plan --source wheel picks the stored wheel; install --source wheel
#    --index-url (the index up again) installs it from the URL the index's PEP 691 page gives,
#    with no pip (--python names one that would say so), its libraries in the prefix
#  - the same file name republished with another digest: exit 3 naming both digests, nothing
#    stored (wheels.json and index.json byte-identical); an embedded wheel's name with another
#    digest: exit 3, "embedded in cudnnctl"
#  - --index-url to a dead index: exit 10, nothing changed; without --index-url under --mirror
#    the index is not read
#  - a wheels.json another user could write is not believed: the stored wheel is not offered
set -euo pipefail
: "${CUDNNCTL:?}" "${SOURCE_DIR:?}"
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d /tmp/cudnnctl-upd-wheels.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
python3 -m pip --version >/dev/null 2>&1 || { echo "SKIP: no pip for python3" >&2; exit 77; }
ctl() { "$CUDNNCTL" --state-dir "$T/state" --cache-dir "$T/cache" --no-progress "$@"; }
ST=$T/state/catalog
V=9.28.0.4
W13=nvidia_cudnn_cu13-$V-py3-none-manylinux_2_27_x86_64.whl

# ---- the release's manifest (a local redist dir) and its wheel (ELF test doubles) ----
mkdir -p "$T/redist" "$T/files" "$T/wb/nvidia/cudnn/lib" "$T/wb/nvidia/cudnn/include"
python3 - "$T/redist/redistrib_9.28.0.json" "$V" <<'PY'
import json, sys
out, v = sys.argv[1:]
rel = "cudnn/linux-x86_64/cudnn-linux-x86_64-%s_cuda13-archive.tar.xz" % v
doc = {"release_date": "2026-11-20", "release_label": "9.28.0", "release_product": "cudnn",
       "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                 "license_path": "cudnn/LICENSE.txt", "version": v, "cuda_variant": ["13"],
                 "linux-x86_64": {"cuda13": {"relative_path": rel, "sha256": "ab" * 32,
                                             "md5": "cd" * 16, "size": "123456789"}}}}
open(out, "w").write(json.dumps(doc, indent=4))
PY
for s in libcudnn libcudnn_graph libcudnn_ops; do elf_double "$T/wb/nvidia/cudnn/lib/$s.so.9" "$s.so.9"; done
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 28\n#define CUDNN_PATCHLEVEL 0\n' >"$T/wb/nvidia/cudnn/include/cudnn_version.h"
printf '/* cudnn.h test double */\n' >"$T/wb/nvidia/cudnn/include/cudnn.h"
python3 - "$T/wb" "$T/files/$W13" "$V" <<'PY'
import base64, hashlib, os, sys, zipfile
src, out, v = sys.argv[1:]
di = "nvidia_cudnn_cu13-%s.dist-info" % v
z = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
rec = []
def add(name, data):
    z.writestr(name, data)
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    rec.append("%s,sha256=%s,%d" % (name, h, len(data)))
for root, _, files in os.walk(src):
    for f in sorted(files):
        p = os.path.join(root, f)
        add(os.path.relpath(p, src), open(p, "rb").read())
add(di + "/METADATA", b"Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: %s\n" % v.encode())
add(di + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-manylinux_2_27_x86_64\n")
z.writestr(di + "/RECORD", "\n".join(rec + [di + "/RECORD,,"]) + "\n")
z.close()
PY
SHA13=$(sha256sum "$T/files/$W13" | cut -c1-64)
SIZE13=$(stat -c %s "$T/files/$W13")
# the embedded 9.19 wheel's real file name and digest (the compiled-in catalog)
E_FILE=nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl
E_SHA=$(grep -o "\"$E_FILE\", \"[^\"]*\", \"[0-9a-f]\{64\}\"" "$SOURCE_DIR/src/lib/catalog/wheels_data.c" | grep -o '[0-9a-f]\{64\}')
E_SIZE=$(grep -o "\"$E_FILE\", \"[^\"]*\", \"[0-9a-f]\{64\}\", [0-9]*" "$SOURCE_DIR/src/lib/catalog/wheels_data.c" | sed 's/.*, //')
[ -n "$E_SHA" ] && [ -n "$E_SIZE" ] || fail "the embedded 9.19 wheel is not in wheels_data.c"

# files.json: what the index lists per project (rewritten between runs; read per request)
listing() { # listing SHA-OF-THE-9.28-WHEEL SHA-OF-THE-9.19-WHEEL
  python3 - "$T/files.json" "$1" "$SIZE13" "$E_FILE" "$2" "$E_SIZE" "$W13" <<'PY'
import json, sys
out, sha, size, efile, esha, esize, w13 = sys.argv[1:]
files = [
    {"filename": w13, "url": "../../files/" + w13, "hashes": {"sha256": sha}, "size": int(size)},
    {"filename": efile, "url": "https://files.example/" + efile, "hashes": {"sha256": esha}, "size": int(esize)},
    {"filename": "nvidia_cudnn_cu13-9.27.0.1-py3-none-manylinux_2_27_x86_64.whl", "url": "/x.whl",
     "hashes": {"sha256": "11" * 32}, "size": 10, "yanked": "broken"},
    {"filename": "nvidia_cudnn_cu13-9.27.0.2-py3-none-manylinux_2_27_x86_64.whl", "url": "/y.whl",
     "hashes": {"sha256": "22" * 32}},
    {"filename": "nvidia_cudnn_cu13-9.27.0.3.tar.gz", "url": "/z.tar.gz", "hashes": {"sha256": "33" * 32}, "size": 5},
    {"filename": "nvidia_cudnn_cu13-9.27.0.4-py3-none-macosx_11_0_arm64.whl", "url": "/m.whl",
     "hashes": {"sha256": "44" * 32}, "size": 5},
]
json.dump({"nvidia-cudnn-cu13": files}, open(out, "w"))
PY
}
listing "$SHA13" "$E_SHA"

start_index() { # sets $port; the server is stopped by stop_index or the trap
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  python3 "${SOURCE_DIR:?}/tests/tools/pep691_index.py" "$T" "$port" &
  ipid=$!
  pids+=($ipid)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/simple/x/" && break; sleep 0.05; done
  IDX="http://127.0.0.1:$port/simple/"
}
stop_index() { kill "$ipid" 2>/dev/null || true; wait "$ipid" 2>/dev/null || true; }

# ---- update: the manifest and the wheel stored ----
start_index
ctl update --mirror "$T/redist" --index-url "$IDX" --json >"$T/u1.json" || fail "update failed: $(head -c 600 "$T/u1.json")"
json_assert "$T/u1.json" 'd["wheels"]["added"] == 1 and d["wheels"]["refused"] == 0 and d["wheels"]["stored"] == 1'
json_assert "$T/u1.json" '{f["name"]: f["result"] for f in d["wheels"]["files"]} == {"'"$W13"'": "added", "'"$E_FILE"'": "known"}'
json_assert "$T/u1.json" '[f["pinned_from"] for f in d["wheels"]["files"] if f["result"] == "known"][0].startswith("embedded in cudnnctl")'
json_assert "$ST/wheels.json" 'len(d["wheels"]) == 1 and d["wheels"][0]["sha256"] == "'"$SHA13"'" and d["wheels"][0]["size"] == '"$SIZE13"
json_assert "$ST/wheels.json" 'd["wheels"][0]["url"] == "http://127.0.0.1:'"$port"'/files/'"$W13"'" and d["wheels"][0]["platform"] == "linux-x86_64" and d["wheels"][0]["cuda"] == "13" and d["wheels"][0]["jit"] is False'
ctl update --mirror "$T/redist" --index-url "$IDX" >"$T/u1.txt" 2>&1 || fail "a second update failed: $(cat "$T/u1.txt")"
grep -q "wheel files of cuDNN releases listed at $IDX: 0 new stored, 1 in the stored wheel catalog" "$T/u1.txt" ||
  fail "update's summary does not say what the index gave: $(cat "$T/u1.txt")"

# ---- the index stopped: plan picks the stored wheel ----
stop_index
ctl plan --cudnn 9.28 --cuda 13 --platform linux-x86_64 --source wheel --components runtime,dev \
  --prefix "$T/p" --json >"$T/plan.json" || fail "plan --source wheel of 9.28 failed: $(head -c 600 "$T/plan.json")"
json_assert "$T/plan.json" 'd["source"] == "wheel" and d["wheel"]["filename"] == "'"$W13"'" and d["wheel"]["sha256"] == "'"$SHA13"'"'

# ---- install --source wheel from the index (up again on the same port): its PEP 691 page names
# the file, cudnnctl downloads it itself (no pip: --python names none) ----
python3 "${SOURCE_DIR:?}/tests/tools/pep691_index.py" "$T" "$port" &
ipid=$!
pids+=($ipid)
for _ in $(seq 100); do curl -s -o /dev/null "$IDX" && break; sleep 0.05; done
printf '#!/bin/sh\ntouch "%s/pip-ran"; exit 1\n' "$T" >"$T/no-pip"; chmod 755 "$T/no-pip"
ctl install --cudnn 9.28 --cuda 13 --platform linux-x86_64 --source wheel --components runtime,dev \
  --index-url "$IDX" --python "$T/no-pip" --prefix "$T/p" --no-validate --json >"$T/i.json" 2>"$T/i.err" ||
  fail "install --source wheel of the stored wheel failed: $(cat "$T/i.err") $(head -c 600 "$T/i.json")"
json_assert "$T/i.json" 'd["result"] == "installed" and d["source"] == "wheel"'
[ ! -e "$T/pip-ran" ] || fail "pip was run for an index of PEP 691"
json_assert "$T/i.json" 'd["archive"]["url"] == "http://127.0.0.1:'"$port"'/files/'"$W13"'"'
cmp "$T/p/cudnn-$V-cuda13/lib/libcudnn_ops.so.9.28.0" "$T/wb/nvidia/cudnn/lib/libcudnn_ops.so.9" ||
  fail "the installed libcudnn_ops is not the wheel's"

# ---- the same file name with another digest: refused, nothing stored ----
cp "$ST/wheels.json" "$T/w.before"; cp "$ST/index.json" "$T/i.before"
listing "$(printf 'ee%.0s' $(seq 32))" "$E_SHA"
set +e; ctl update --mirror "$T/redist" --index-url "$IDX" >"$T/r.txt" 2>&1; rc=$?; set -e
[ "$rc" = 3 ] || fail "a republished wheel: exit $rc, want 3: $(cat "$T/r.txt")"
grep -q "$SHA13" "$T/r.txt" && grep -q "eeeeeeee" "$T/r.txt" || fail "the refusal does not name both digests: $(cat "$T/r.txt")"
cmp -s "$ST/wheels.json" "$T/w.before" && cmp -s "$ST/index.json" "$T/i.before" || fail "a refused update changed the catalog"
listing "$SHA13" "$(printf 'ff%.0s' $(seq 32))"
set +e; ctl update --mirror "$T/redist" --index-url "$IDX" >"$T/r2.txt" 2>&1; rc=$?; set -e
[ "$rc" = 3 ] || fail "an embedded wheel with another digest: exit $rc, want 3: $(cat "$T/r2.txt")"
grep -q "embedded in cudnnctl" "$T/r2.txt" || fail "the refusal does not say the pin is the embedded one: $(cat "$T/r2.txt")"
cmp -s "$ST/wheels.json" "$T/w.before" || fail "a refused update changed wheels.json"

# ---- a dead index: exit 10, nothing changed; --mirror alone: the index is not read ----
stop_index
set +e; ctl update --mirror "$T/redist" --index-url "http://127.0.0.1:9/simple/" >"$T/d.txt" 2>&1; rc=$?; set -e
[ "$rc" = 10 ] || fail "a dead --index-url: exit $rc, want 10: $(cat "$T/d.txt")"
grep -q -- "--index-url" "$T/d.txt" || fail "the failure does not name --index-url: $(cat "$T/d.txt")"
cmp -s "$ST/wheels.json" "$T/w.before" && cmp -s "$ST/index.json" "$T/i.before" || fail "a failed update changed the catalog"
ctl update --mirror "$T/redist" --json >"$T/m.json" || fail "update --mirror failed"
json_assert "$T/m.json" 'd["wheels"]["index"] is None and d["wheels"]["files"] == [] and d["wheels"]["stored"] == 1'

# ---- a wheels.json another user could write is not believed ----
chmod 0666 "$ST/wheels.json"
set +e; ctl plan --cudnn 9.28 --cuda 13 --platform linux-x86_64 --source wheel --components runtime,dev \
  --prefix "$T/p2" >"$T/u.txt" 2>&1; rc=$?; set -e
[ "$rc" != 0 ] || fail "a group/world-writable wheels.json was believed: $(cat "$T/u.txt")"
grep -q "stored wheel catalog is not used" "$T/u.txt" || fail "no warning about the untrusted wheel catalog: $(cat "$T/u.txt")"
echo "ok: test_update_wheels"
