#!/usr/bin/env bash
# test_mirror_offline.sh: `mirror` against a local HTTP server (tests/tools/httpd.py) serving a
# fake NVIDIA redist tree: small NVIDIA-layout .tar.xz archives built here (ELF test doubles),
# a manifest written here with their real SHA-256 and size. Checks: the selection (--cudnn,
# --cuda, --platform, --all-platforms), the manifest copied byte for byte, archives byte-exact at
# DIR/<relative_path>, a second run downloads nothing, a corrupted upstream file is refused
# (exit 3, nothing left behind), the embedded manifests are mirrored as they are, and the
# mirror then serves `plan` and `install` with the server gone.
set -euo pipefail
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${CUDNNCTL:?CUDNNCTL must point at the cudnnctl binary}"
HTTPD="$SOURCE_DIR/tests/tools/httpd.py"
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-mirror-XXXXXX")
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in python3 cc tar xz cmp sha256sum; do
    command -v $tool >/dev/null || fail "$tool missing (scripts/bootstrap)"
done
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# ---- archives in NVIDIA's layout, from ELF test doubles ---------------------------------------------
printf 'int cudnnctl_test_double(void) { return 42; }\n' > "$T/stub.c"
VER=9.99.0.1
archive() { # PLATFORM CUDA → www/cudnn/PLATFORM/NAME.tar.xz
    local plat=$1 cu=$2 name="cudnn-$1-$VER"_cuda"$2-archive"
    local d="$T/build/$name"
    mkdir -p "$d/lib" "$d/include" "$T/www/cudnn/$plat"
    for l in libcudnn libcudnn_graph libcudnn_ops; do
        cc -shared -fPIC -Wl,-soname,$l.so.9 -o "$d/lib/$l.so.9.99.0" "$T/stub.c" -DV=$cu
        ln -s $l.so.9.99.0 "$d/lib/$l.so.9"
        ln -s $l.so.9 "$d/lib/$l.so"
    done
    printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 99\n#define CUDNN_PATCHLEVEL 0\n/* %s %s */\n' "$plat" "$cu" > "$d/include/cudnn_version.h"
    echo "test double of the cuDNN license ($plat, CUDA $cu)" > "$d/LICENSE"
    tar -C "$T/build" -cJf "$T/www/cudnn/$plat/$name.tar.xz" "$name"
}
archive linux-x86_64 13
archive linux-x86_64 12
archive linux-sbsa 13
mkdir -p "$T/m"
M=$T/m/redistrib_9.99.0.json
"$PY" - "$T/www" "$M" "$VER" <<'PY'
import hashlib, json, os, sys
www, out, ver = sys.argv[1:4]
m = {"release_date": "2099-01-01", "release_label": "9.99.0", "release_product": "cudnn",
     "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
               "license_path": "cudnn/LICENSE.txt", "version": ver, "cuda_variant": ["12", "13"]}}
for plat in ("linux-x86_64", "linux-sbsa"):
    for cu in ("12", "13"):
        rel = "cudnn/%s/cudnn-%s-%s_cuda%s-archive.tar.xz" % (plat, plat, ver, cu)
        p = os.path.join(www, rel)
        if not os.path.exists(p):
            continue
        b = open(p, "rb").read()
        m["cudnn"].setdefault(plat, {})["cuda" + cu] = {
            "relative_path": rel, "sha256": hashlib.sha256(b).hexdigest(),
            "md5": hashlib.md5(b).hexdigest(), "size": str(len(b))}
open(out, "w").write(json.dumps(m, indent=4) + "\n")
PY

# ---- the server ------------------------------------------------------------------------------------
"$PY" "$HTTPD" --root "$T/www" --port-file "$T/port" --log "$T/http.log" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
[ -s "$T/port" ] || fail "httpd.py did not start"
U="http://127.0.0.1:$(cat "$T/port")/"
gets() { grep -c '"method": "GET"' "$T/http.log" || true; }

X86=cudnn/linux-x86_64/cudnn-linux-x86_64-${VER}_cuda13-archive.tar.xz
X86_12=cudnn/linux-x86_64/cudnn-linux-x86_64-${VER}_cuda12-archive.tar.xz
SBSA=cudnn/linux-sbsa/cudnn-linux-sbsa-${VER}_cuda13-archive.tar.xz
D=$T/mirror
run() { # OUT WANT_RC args...
    local out=$1 want=$2 rc=0
    shift 2
    "$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress "$@" >"$out" 2>"$out.err" || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$out" "$out.err" >&2; fail "cudnnctl $* exited $rc (expected $want)"; }
}
jcheck() { # JSON EXPR WHAT
    "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" ||
        { cat "$1" >&2; fail "$3"; }
}

# ---- one platform, one CUDA major ---------------------------------------------------------------------
run "$T/a.json" 0 --json mirror --to "$D" --manifest "$M" --cudnn 9.99 --cuda 13 --platform linux-x86_64 --mirror "$U"
jcheck "$T/a.json" "[a['relative_path'] for a in d['archives']] == ['$X86'] and d['archives'][0]['result'] == 'downloaded'" "only the x86_64 CUDA 13 archive, downloaded"
jcheck "$T/a.json" "d['manifests'] == ['$D/redistrib_9.99.0.json'] and d['archives'][0]['path'] == '$D/$X86'" "manifest and archive paths"
cmp -s "$M" "$D/redistrib_9.99.0.json" || fail "the manifest is not copied byte for byte"
cmp -s "$T/www/$X86" "$D/$X86" || fail "the archive in the mirror differs from upstream"
[ ! -e "$D/$X86_12" ] && [ ! -e "$D/$SBSA" ] || fail "archives outside the selection were mirrored"
[ -z "$(find "$D" -name '.cudnnctl-mirror-*')" ] || fail "temporary files left in the mirror"
[ "$(gets)" -eq 1 ] || fail "expected 1 download, the server saw $(gets)"

# ---- again: everything is there (re-hashed locally), nothing is downloaded --------------------------------
run "$T/b.json" 0 --json mirror --to "$D" --manifest "$M" --cudnn 9.99 --cuda 13 --platform linux-x86_64 --mirror "$U"
jcheck "$T/b.json" "d['archives'][0]['result'] == 'present' and d['bytes_downloaded'] == 0" "second run: present"
[ "$(gets)" -eq 1 ] || fail "the second run downloaded again"

# ---- every platform and CUDA variant of the release; human output ------------------------------------------
run "$T/c.txt" 0 mirror --to "$D" --manifest "$M" --cudnn 9.99 --all-platforms --mirror "$U"
for f in "$X86" "$X86_12" "$SBSA"; do cmp -s "$T/www/$f" "$D/$f" || fail "$f not mirrored byte-exact"; done
grep -q "offline install: cudnnctl install --mirror $D --manifest $D/redistrib_9.99.0.json" "$T/c.txt" || fail "human output: $(cat "$T/c.txt")"
[ "$(grep -c ' present$' "$T/c.txt")" -eq 1 ] && [ "$(grep -c ' downloaded$' "$T/c.txt")" -eq 2 ] || fail "human table: $(cat "$T/c.txt")"
[ "$(gets)" -eq 3 ] || fail "expected 3 downloads in all, the server saw $(gets)"

# ---- a corrupted upstream archive (same size, other bytes) is refused, nothing stays ------------------------
D2=$T/mirror2
"$PY" - "$T/www/$SBSA" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0xFF
open(p, "wb").write(bytes(b))
PY
rm -rf "$T/cache"
run "$T/d.json" 3 --json mirror --to "$D2" --manifest "$M" --cudnn 9.99 --cuda 13 --platform linux-sbsa --mirror "$U"
jcheck "$T/d.json" "d['archives'][0]['result'] == 'failed'" "the corrupted archive is reported as failed"
grep -qi 'sha-256\|sha256' "$T/d.json.err" || fail "the error does not name the hash: $(cat "$T/d.json.err")"
[ ! -e "$D2/$SBSA" ] || fail "a corrupted archive was put into the mirror"
[ -z "$(find "$D2" -name '.cudnnctl-mirror-*')" ] || fail "a temporary file was left behind"

# ---- usage and selection errors --------------------------------------------------------------------------------
run "$T/e.txt" 2 mirror --cudnn 9.99
run "$T/e.txt" 2 mirror --to "$T/x" --manifest "$M"
run "$T/e.txt" 5 mirror --to "$T/x" --manifest "$M" --cudnn 9.99 --cuda 11 --platform linux-x86_64 --mirror "$U"
grep -q 'no archive for cuDNN 9.99' "$T/e.txt.err" || fail "no-match error: $(cat "$T/e.txt.err")"

# ---- an embedded manifest is written as embedded (here the upstream 404s: exit 10) ------------------------------
run "$T/f.json" 10 --json mirror --to "$T/emb" --cudnn 9.13.0 --cuda 13 --platform linux-x86_64 --mirror "${U}__fault/404/"
cmp -s "$SOURCE_DIR/data/manifests/cudnn/redistrib_9.13.0.json" "$T/emb/redistrib_9.13.0.json" ||
    fail "the embedded manifest is not mirrored byte for byte"
[ -z "$(find "$T/emb" -name '*.tar.xz*')" ] || fail "a failed download left files"

# ---- manifest trust: a manifest that gives NVIDIA's archive name another SHA-256 fails closed -------------
# (docs/security.md "Manifest trust"): the x86_64 test double served under the file name of
# NVIDIA's cuDNN 9.13.0.50 CUDA 13 archive, which the embedded catalog knows with another digest
NV=cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz
cp "$T/www/$X86" "$T/www/$NV"
MT=$T/m/redistrib_9.13.0.json
"$PY" - "$T/www/$NV" "$MT" "$NV" <<'PY'
import hashlib, json, sys
p, out, rel = sys.argv[1:4]
b = open(p, "rb").read()
m = {"release_date": "2099-01-01", "release_label": "9.13.0", "release_product": "cudnn",
     "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
               "license_path": "cudnn/LICENSE.txt", "version": "9.13.0.50", "cuda_variant": ["13"],
               "linux-x86_64": {"cuda13": {"relative_path": rel, "sha256": hashlib.sha256(b).hexdigest(),
                                           "md5": hashlib.md5(b).hexdigest(), "size": str(len(b))}}}}
open(out, "w").write(json.dumps(m, indent=4) + "\n")
PY
DT=$T/mirror-trust
run "$T/t.txt" 3 mirror --to "$DT" --manifest "$MT" --cudnn 9.13.0.50 --cuda 13 --platform linux-x86_64 --mirror "$U"
grep -q "NVIDIA's manifest redistrib_9.13.0.json (embedded) gives SHA-256 02f47d94" "$T/t.txt.err" &&
    grep -q "nothing was mirrored" "$T/t.txt.err" && grep -q -- "--allow-manifest-override" "$T/t.txt.err" ||
    fail "the conflict error does not name both sources and the way out: $(cat "$T/t.txt.err")"
[ ! -e "$DT" ] || fail "a refused mirror wrote $DT"
# the way out the error names, run as printed: mirrored knowingly, then installed knowingly
run "$T/t2.json" 0 --json mirror --to "$DT" --manifest "$MT" --cudnn 9.13.0.50 --cuda 13 --platform linux-x86_64 --mirror "$U" --allow-manifest-override
jcheck "$T/t2.json" "d['archives'][0]['result'] in ('downloaded', 'present')" "mirrored with --allow-manifest-override"
cmp -s "$T/www/$NV" "$DT/$NV" || fail "the overridden archive is not in the mirror byte-exact"
run "$T/t3.txt" 3 install --mirror "$DT" --manifest "$DT/redistrib_9.13.0.json" --cudnn 9.13.0.50 --cuda 13 --platform linux-x86_64 --prefix "$T/pt" --no-validate

# ---- offline: the server is gone; the mirror serves plan (and install) -----------------------------------------
kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null || true; PIDS=()
run "$T/p.json" 0 --json plan --mirror "$D" --manifest "$D/redistrib_9.99.0.json" --cudnn 9.99 --cuda 13 --platform linux-x86_64 --prefix "$T/px"
jcheck "$T/p.json" "d['archive']['relative_path'] == '$X86' and d['cudnn_version'] == '$VER'" "plan picks the mirrored archive"
grep -q "$D/$X86" "$T/p.json" || fail "plan does not read from the mirror dir: $(cat "$T/p.json")"
rm -rf "$T/cache"
run "$T/i.json" 0 --json install --mirror "$D" --manifest "$D/redistrib_9.99.0.json" --cudnn 9.99 --cuda 13 --platform linux-x86_64 --prefix "$T/px" --no-validate
jcheck "$T/i.json" "d['result'] == 'installed' and d['archive']['sha256'] and d['archive']['verified']" "offline install from the mirror"
cmp -s "$T/build/cudnn-linux-x86_64-${VER}_cuda13-archive/lib/libcudnn.so.9.99.0" "$T/px/cudnn-$VER-cuda13/lib/libcudnn.so.9.99.0" ||
    fail "the offline install did not place the mirrored libcudnn"
# the installs above went to the temp state dir, not this machine's (they once left a receipt
# in /var/lib/cudnnctl for every run, pointing into a removed temp dir)
[ -d "$T/state/receipts" ] || fail "the installs did not use the test's state dir"
echo "PASS: mirror (selection, byte-exact manifest and archives, idempotent, corrupt refused, embedded, offline plan and install, manifest trust)"
