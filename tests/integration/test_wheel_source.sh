#!/usr/bin/env bash
# test_wheel_source.sh: the wheel source with NVIDIA's real nvidia-cudnn-cu13 9.19.0.56 wheel (cached
# outside the clone in ~/.cache/cudnnctl-test/wheels, else pip-downloaded), through pip download
# from a local package index (a simple-index dir served by python3 -m http.server):
#  - plan --source auto says archive (static is only there) or wheel (--components runtime,dev),
#    with the bytes of each; --source wheel with static is a usage error (exit 2)
#  - install --source wheel --index-url: installed from the wheel, source "wheel", url "pip:...",
#    the wheel kept in the cache; a second install into another prefix runs no pip (dead index)
#  - the tree equals an archive install of the same release (a tar.xz in NVIDIA's layout packed
#    from the wheel's own files): same paths, types, modes, link targets, bytes
#  - an index of PEP 691 JSON given with --index-url: read by cudnnctl, the wheel downloaded and
#    unpacked as it lands (no pip runs), the same tree as pip's route; a forged file there: exit 3
#  - the receipts' SHA-256 (taken from the pinned wheel's RECORD, not hashed again) are the
#    installed files' own, on both routes
#  - an index serving other bytes under the wheel's name: exit 3, nothing installed, no receipt;
#    the same for --archive of such a file
#  - uninstall removes exactly what was installed
set -euo pipefail
: "${CUDNNCTL:?}"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cudnnctl-test
WHEEL=nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl
T=$(mktemp -d /tmp/cudnnctl-wheel-test.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

w=$CACHE/wheels/$WHEEL
if [ ! -f "$w" ]; then
  mkdir -p "$CACHE/wheels"
  timeout 900 python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_27_x86_64 \
    -d "$CACHE/wheels.tmp.$$" nvidia-cudnn-cu13==9.19.0.56 >&2 &&
    mv "$CACHE/wheels.tmp.$$/$WHEEL" "$w" || true
  rm -rf "$CACHE/wheels.tmp.$$"
fi
[ -f "$w" ] || skip "$WHEEL: not cached and the package index is unreachable"
python3 -m pip --version >/dev/null 2>&1 || skip "no pip for python3"

serve() { # serve DIR: sets $port (in this shell, so that the trap stops the server)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  (cd "$1" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
  pids+=($!)
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
}
cc() { "$CUDNNCTL" --state-dir "$T/state" --cache-dir "$T/cache" "$@"; }
sel=(--cudnn 9.19.0.56 --cuda 13 --platform linux-x86_64)
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# ---- plan: which source and why, with the bytes of each
cc --json plan "${sel[@]}" --source auto --prefix "$T/p" >"$T/plan1.json"
[ "$(jget "$T/plan1.json" 'd["source"]')" = archive ] || fail "auto with static selected chose $(jget "$T/plan1.json" 'd["source"]')"
jget "$T/plan1.json" 'd["source_reason"]' | grep -q static || fail "auto's reason does not name static"
[ "$(jget "$T/plan1.json" 'd["wheel"]["sha256"]')" = "$(sha256sum "$w" | cut -c1-64)" ] ||
  fail "the plan's wheel SHA-256 is not the real wheel's"
cc --json plan "${sel[@]}" --source auto --components runtime,dev --prefix "$T/p" >"$T/plan2.json"
[ "$(jget "$T/plan2.json" 'd["source"]')" = wheel ] || fail "auto with runtime,dev did not choose the wheel"
jget "$T/plan2.json" 'd["source_reason"]' | grep -q "MiB" || fail "auto's reason gives no sizes"
set +e; cc plan "${sel[@]}" --source wheel --components static --prefix "$T/p" >/dev/null 2>&1; rc=$?; set -e
[ "$rc" = 2 ] || fail "--source wheel --components static: exit $rc, want 2"

# ---- a local index with the real wheel; install through pip download
mkdir -p "$T/idx/simple/nvidia-cudnn-cu13"
ln -s "$w" "$T/idx/simple/nvidia-cudnn-cu13/$WHEEL"
serve "$T/idx"
cc --json install "${sel[@]}" --source wheel --components runtime,dev \
  --index-url "http://127.0.0.1:$port/simple" --prefix "$T/pw" --no-validate >"$T/i1.json" ||
  fail "install --source wheel failed: $(head -c 600 "$T/i1.json")"
[ "$(jget "$T/i1.json" 'd["result"]')" = installed ] || fail "not installed"
[ "$(jget "$T/i1.json" 'd["source"]')" = wheel ] || fail "source is not wheel"
jget "$T/i1.json" 'd["archive"]["url"]' | grep -q '^pip:nvidia-cudnn-cu13==9.19.0.56@' || fail "url does not say pip"
[ -f "$T/cache/blobs/sha256/$(sha256sum "$w" | cut -c1-64)" ] || fail "the verified wheel was not kept in the cache"
d=$T/pw/cudnn-9.19.0.56-cuda13
[ "$(readlink "$d/lib/libcudnn.so.9")" = libcudnn.so.9.19.0 ] || fail "no libcudnn.so.9 -> libcudnn.so.9.19.0"
[ "$(readlink "$d/lib/libcudnn.so")" = libcudnn.so.9 ] || fail "no libcudnn.so -> libcudnn.so.9"
cmp -s "$d/lib/libcudnn_ops.so.9.19.0" <(unzip -p "$w" nvidia/cudnn/lib/libcudnn_ops.so.9) ||
  fail "libcudnn_ops.so.9.19.0 is not the wheel's libcudnn_ops.so.9"
[ ! -e "$d/nvidia" ] && ! ls "$d" | grep -q dist-info || fail "the wheel's Python metadata was installed"
# a second prefix: from the cache, no pip (the index given is dead)
cc --json install "${sel[@]}" --source wheel --components dev \
  --index-url "http://127.0.0.1:9/simple" --prefix "$T/pw2" --no-validate >"$T/i2.json" ||
  fail "a second install did not come from the cache: $(head -c 400 "$T/i2.json")"

# ---- the same release as NVIDIA's archive layout, packed from the wheel's own files
# (packed once, kept beside the cached wheel: xz of 470 MiB takes a while)
name=cudnn-linux-x86_64-9.19.0.56_cuda13-local-repack-archive
a=$CACHE/wheel-repack/$name.tar.xz
if [ ! -f "$a" ]; then
python3 - "$w" "$T/repack/$name" <<'PY'
import os, sys, zipfile
w, out = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(w)
for i in z.infolist():
    n = i.filename
    if n.startswith("nvidia/cudnn/include/") or n.startswith("nvidia/cudnn/lib/"):
        rel = n[len("nvidia/cudnn/"):]
        if rel.startswith("lib/") and rel.endswith(".so.9"):
            rel = rel[:-2] + ".9.19.0"
    elif n.endswith("licenses/License.txt"):
        rel = "LICENSE"
    else:
        continue
    p = os.path.join(out, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(z.read(i))
    os.chmod(p, 0o644)
    if rel.startswith("lib/") and rel.endswith(".so.9.19.0"):
        stem = os.path.basename(rel)[:-len(".9.19.0")]
        os.symlink(stem + ".9.19.0", os.path.join(out, "lib", stem + ".9"))
        os.symlink(stem + ".9", os.path.join(out, "lib", stem))
PY
mkdir -p "$CACHE/wheel-repack"
tar -C "$T/repack" -cf - "$name" | xz -0 -T2 >"$a.tmp.$$"
mv "$a.tmp.$$" "$a"
rm -rf "$T/repack"
fi
cc --json install "${sel[@]}" --archive "$a" --sha256 "$(sha256sum "$a" | cut -c1-64)" --components runtime,dev \
  --prefix "$T/pa" --no-validate >"$T/ia.json" || fail "the archive install failed: $(head -c 400 "$T/ia.json")"
tree() { # paths, types, modes, link targets, bytes; the prefix's own name masked
  (cd "$1" && find . -mindepth 1 \( -type f -o -type l \) -printf '%y %m %p %l\n' | sort |
    while read -r t m p l; do
      # the build metadata names the prefix and the receipt: masked
      if [ "$t" = f ]; then echo "$t $m $p $(sed -e "s#$2#PREFIX#g" -e 's/receipt [0-9a-z]*/receipt R/g' "$p" | sha256sum | cut -c1-16)"; else echo "$t $m $p $l"; fi
    done)
}
tree "$T/pa/cudnn-9.19.0.56-cuda13" "$T/pa" >"$T/tree-archive"
tree "$d" "$T/pw" >"$T/tree-wheel"
diff "$T/tree-archive" "$T/tree-wheel" >&2 || fail "the wheel install differs from the archive install (above)"
[ "$(wc -l <"$T/tree-wheel")" -ge 40 ] || fail "the compared tree is too small: $(wc -l <"$T/tree-wheel") entries"

# ---- an index of PEP 691 JSON (--index-url): cudnnctl reads the project page and downloads the
# wheel itself, unpacked as it lands (a new cache: one holding the wheel needs no index); no pip
# runs; the same tree as pip's route
idx691() { # idx691 DIR FILE: DIR/files.json lists FILE (its real SHA-256 and size) at ../../files/
  python3 - "$1" "$2" "$WHEEL" <<'PY'
import hashlib, json, os, sys
d, f, name = sys.argv[1:]
h = hashlib.sha256(open(f, "rb").read()).hexdigest()
os.makedirs(os.path.join(d, "files"), exist_ok=True)
os.symlink(os.path.abspath(f), os.path.join(d, "files", name))
json.dump({"nvidia-cudnn-cu13": [{"filename": name, "url": "../../files/" + name,
          "hashes": {"sha256": h}, "size": os.path.getsize(f)}]}, open(os.path.join(d, "files.json"), "w"))
PY
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  python3 "${SOURCE_DIR:?}/tests/tools/pep691_index.py" "$1" "$port" &
  pids+=($!)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/simple/x/" && break; sleep 0.05; done
}
printf '#!/bin/sh\ntouch "%s/pip-ran"; exit 1\n' "$T" >"$T/no-pip"; chmod 755 "$T/no-pip"
idx691 "$T/j" "$w"
"$CUDNNCTL" --state-dir "$T/state5" --cache-dir "$T/cache5" -vv --json install "${sel[@]}" \
  --source wheel --components runtime,dev --python "$T/no-pip" \
  --index-url "http://127.0.0.1:$port/simple/" --prefix "$T/pj" --no-validate >"$T/ij.json" 2>"$T/ij.err" ||
  fail "install from a PEP 691 index failed: $(tail -5 "$T/ij.err") $(head -c 400 "$T/ij.json")"
[ ! -e "$T/pip-ran" ] || fail "pip was run for an index of PEP 691"
[ "$(jget "$T/ij.json" 'd["source"]')" = wheel ] || fail "the PEP 691 install's source is not wheel"
[ "$(jget "$T/ij.json" 'd["archive"]["url"]')" = "http://127.0.0.1:$port/files/$WHEEL" ] ||
  fail "the PEP 691 install's url is not the page's: $(jget "$T/ij.json" 'd["archive"]["url"]')"
grep -q '(streamed)' "$T/ij.err" || fail "the wheel was not unpacked as it downloaded: $(grep extract "$T/ij.err")"
# its deflated entries went through ISA-L (zip_inflate.c): the tree below is still pip's, byte for byte
grep -q "extract: 23 of 27 entries inflated by ISA-L" "$T/ij.err" ||
  fail "the wheel's entries were not inflated by ISA-L: $(grep ISA-L "$T/ij.err")"
# the receipts' SHA-256 (from the wheel's RECORD: the wheel is the catalog's) are the files' own
receipt_hashes() { # receipt_hashes STATE: every file of every receipt hashes to what it says
  python3 - "$1" <<'PY'
import glob, hashlib, json, sys
n = 0
for r in glob.glob(sys.argv[1] + "/receipts/*.json"):
    for f in json.load(open(r))["files"]:
        h = hashlib.sha256(open(f["path"], "rb").read()).hexdigest()
        assert h == f["sha256"], "%s: receipt %s, file %s" % (f["path"], f["sha256"], h)
        n += 1
assert n >= 30, "only %d files in the receipts" % n
PY
}
receipt_hashes "$T/state5" || fail "a receipt's SHA-256 is not its file's (PEP 691 route)"
receipt_hashes "$T/state" || fail "a receipt's SHA-256 is not its file's (pip route)"
grep -q "extract: 23 files' SHA-256 from the wheel's RECORD (its digest the wheel catalog's), 0 hashed" "$T/ij.err" ||
  fail "the digests did not come from the wheel's RECORD: $(grep RECORD "$T/ij.err")"
tree "$T/pj/cudnn-9.19.0.56-cuda13" "$T/pj" >"$T/tree-691"
diff "$T/tree-wheel" "$T/tree-691" >&2 || fail "the PEP 691 install differs from pip's (above)"
[ -f "$T/cache5/blobs/sha256/$(sha256sum "$w" | cut -c1-64)" ] || fail "the wheel is not in the cache"
# the wheel with one byte changed in an entry's data (same size: unpacked as it lands until the
# digest says no) on a PEP 691 index: exit 3 naming the SHA-256, nothing installed, no receipt
cp "$w" "$T/forged.whl"
printf 'X' | dd of="$T/forged.whl" bs=1 seek=200000000 conv=notrunc status=none
idx691 "$T/j2" "$T/forged.whl"
set +e
"$CUDNNCTL" --state-dir "$T/state4" --cache-dir "$T/cache4" install "${sel[@]}" --source wheel --python "$T/no-pip" \
  --components runtime,dev --index-url "http://127.0.0.1:$port/simple/" --prefix "$T/pj2" --no-validate >"$T/j2.log" 2>&1
rc=$?
set -e
[ "$rc" = 3 ] || fail "a PEP 691 index serving other bytes: exit $rc, want 3: $(tail -5 "$T/j2.log")"
grep -q "SHA-256" "$T/j2.log" || fail "the refusal does not name the SHA-256: $(tail -3 "$T/j2.log")"
[ ! -e "$T/pj2/cudnn-9.19.0.56-cuda13" ] && [ -z "$(ls "$T/state4/receipts" 2>/dev/null || true)" ] ||
  fail "a forged wheel from a PEP 691 index installed something"
[ ! -e "$T/pip-ran" ] || fail "pip was run for an index of PEP 691"

# ---- other bytes under the wheel's name: refused, nothing installed
mkdir -p "$T/bad/simple/nvidia-cudnn-cu13"
python3 -c "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); z.writestr('nvidia/cudnn/lib/libcudnn.so.9','not nvidia'); z.writestr('x.dist-info/WHEEL','w'); z.close()" \
  "$T/bad/simple/nvidia-cudnn-cu13/$WHEEL"
serve "$T/bad"; bport=$port
set +e
"$CUDNNCTL" --state-dir "$T/state2" --cache-dir "$T/cache2" install "${sel[@]}" --source wheel \
  --components runtime,dev --index-url "http://127.0.0.1:$bport/simple" --prefix "$T/pbad" --no-validate >"$T/bad.log" 2>&1
rc=$?
set -e
[ "$rc" = 3 ] || fail "a wheel with other bytes: exit $rc, want 3: $(tail -5 "$T/bad.log")"
grep -q "SHA-256" "$T/bad.log" || fail "the refusal does not name the SHA-256"
[ -z "$(ls -A "$T/pbad" 2>/dev/null | grep -v '^\.cudnnctl' || true)" ] || fail "something was installed: $(ls -A "$T/pbad")"
[ -z "$(ls "$T/state2/receipts" 2>/dev/null || true)" ] || fail "a receipt was written"
set +e
"$CUDNNCTL" --state-dir "$T/state3" --cache-dir "$T/cache3" install --archive "$T/bad/simple/nvidia-cudnn-cu13/$WHEEL" \
  --prefix "$T/pbad2" --no-validate >"$T/bad2.log" 2>&1
rc=$?
set -e
[ "$rc" = 3 ] || fail "--archive of a wheel with other bytes: exit $rc, want 3: $(tail -3 "$T/bad2.log")"
[ ! -e "$T/pbad2/cudnn-9.19.0.56-cuda13" ] || fail "--archive of a bad wheel installed something"

# ---- uninstall: exactly what was installed
cc uninstall --prefix "$T/pw" --version 9.19.0.56 >/dev/null 2>&1 || fail "uninstall failed"
left=$(find "$T/pw" -mindepth 1 ! -name '.cudnnctl*' 2>/dev/null | grep -v '/\.cudnnctl' || true)
[ -z "$left" ] || fail "uninstall left: $left"
echo "test_wheel_source: ok"
