#!/usr/bin/env bash
# test_update.sh: `cudnnctl update` against local servers in NVIDIA's layout:
#  - python's http.server (a real directory listing) serving compute/cudnn/redist/ with a few of
#    NVIDIA's manifests and a redistrib_9.28.0.json newer than every embedded one (its archives
#    built here): update stores the new one; with the server stopped, available lists 9.28,
#    plan picks it, install takes it from a mirror dir; update itself exits 10, nothing changed;
#  - the same label republished with another digest (other archives): exit 3 naming both
#    digests and where each came from, the catalog keeps the first; whitespace-only changes are
#    "same-archives" (the pin kept); --allow-manifest-override stores it and the receipt of an
#    install from it says so;
#  - the index.html `cudnnctl mirror` writes, served by a server that lists no directories
#    (tests/tools/httpd.py), and a local dir, as listings;
#  - a refused label stores nothing, not even the new labels beside it.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
PIDS=()
stop() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; PIDS=(); wait 2>/dev/null || true; }
trap 'stop; rm -rf "$T"' EXIT
C=("$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache" --no-progress)
W="$T/root/srv/www"
R="$W/compute/cudnn/redist"
mkdir -p "$R/cudnn/linux-x86_64" "$R/cudnn_jit/linux-x86_64"
cp "$SOURCE_DIR"/data/manifests/cudnn/redistrib_9.2[27].0.json "$R/"
V=9.28.0.4
build_archive "$R/cudnn/linux-x86_64" "cudnn-linux-x86_64-${V}_cuda13-archive" 9.28.0 \
  "libcudnn libcudnn_graph libcudnn_ops" 1
build_archive "$R/cudnn_jit/linux-x86_64" "cudnn_jit-linux-x86_64-${V}_cuda13-archive" 9.28.0 \
  "libcudnn libcudnn_graph libcudnn_engines_runtime_compiled" 0
# write_928 OUT [SUFFIX]: NVIDIA's shape with both components; SUFFIX names other archive files
write_928() {
  python3 - "$R" "$V" "$1" "${2:-}" <<'PY'
import hashlib, json, os, sys
r, v, out, suffix = sys.argv[1:]
def entry(comp):
    rel = "%s/linux-x86_64/%s-linux-x86_64-%s_cuda13%s-archive.tar.xz" % (comp, comp, v, suffix)
    b = open(os.path.join(r, rel), "rb").read()
    return {"relative_path": rel, "sha256": hashlib.sha256(b).hexdigest(),
            "md5": hashlib.md5(b).hexdigest(), "size": str(len(b))}
doc = {"release_date": "2026-11-20", "release_label": "9.28.0", "release_product": "cudnn",
       "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                 "license_path": "cudnn/LICENSE.txt", "version": v,
                 "linux-x86_64": {"cuda13": entry("cudnn")}, "cuda_variant": ["13"]},
       "cudnn_jit": {"name": "NVIDIA CUDA Deep Neural Network Graph JIT library", "license": "cudnn",
                     "version": v, "linux-x86_64": {"cuda13": entry("cudnn_jit")},
                     "cuda_variant": ["13"]}}
open(out, "w").write(json.dumps(doc, indent=4))
PY
}
write_928 "$R/redistrib_9.28.0.json"
SHA1=$(sha256sum "$R/redistrib_9.28.0.json" | cut -d' ' -f1)

# python's http.server: the directory listing it generates is the listing update reads
start_pyserver() {
  rm -f "$T/py.out"
  (cd "$W" && exec python3 -u -m http.server 0 --bind 127.0.0.1) > "$T/py.out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 200); do grep -q 'port [0-9]' "$T/py.out" 2>/dev/null && break; sleep 0.05; done
  PORT=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$T/py.out" | head -1)
  [ -n "$PORT" ] || fail "python -m http.server did not start: $(cat "$T/py.out")"
  U="http://127.0.0.1:$PORT/compute/cudnn/redist/"
}
start_pyserver
ST="$T/root/var/lib/cudnnctl/catalog"

# ---- update from the listing: the new label is stored with its digest ----
"${C[@]}" update --mirror "$U" --json > "$T/u1.json"
json_assert "$T/u1.json" 'd["added"] == 1 and d["refused"] == 0 and d["newest"] == "redistrib_9.28.0.json"'
json_assert "$T/u1.json" '{m["name"]: m["result"] for m in d["manifests"]} == {"redistrib_9.22.0.json": "known", "redistrib_9.27.0.json": "known", "redistrib_9.28.0.json": "added"}'
json_assert "$ST/index.json" '[m["name"] for m in d["manifests"]] == ["redistrib_9.28.0.json"] and d["manifests"][0]["sha256"] == "'"$SHA1"'"'
[ -f "$ST/manifests/$SHA1.json" ] || fail "the manifest's bytes are not stored under their SHA-256"
cmp "$ST/manifests/$SHA1.json" "$R/redistrib_9.28.0.json" || fail "the stored bytes are not the served ones"

# a cudnnctl mirror of 9.28 (while the server is up), for the offline install below
"${C[@]}" mirror --to /srv/mirror --cudnn $V --cuda 13 --platform linux-x86_64 --mirror "$U" > /dev/null
[ -f "$T/root/srv/mirror/index.html" ] || fail "mirror wrote no index.html"
grep -q 'href="redistrib_9.28.0.json"' "$T/root/srv/mirror/index.html" || fail "the mirror's index does not link the manifest"

# mirror --for: the framework build's cuDNN (torch 2.9.1 pins 9.13.0.50 for CUDA 13)
mkdir -p "$T/root/srv/none" # an empty upstream: nothing to copy, the choice is what counts
"${C[@]}" mirror --to /srv/m-for --for torch==2.9.1 --platform linux-x86_64 --mirror /srv/none --json > "$T/mfor.json" 2>/dev/null || true
json_assert "$T/mfor.json" 'd["archives"][0]["cudnn_version"] == "9.13.0.50" and d["archives"][0]["cuda_variant"] == "13"'

# ---- the server stopped: the catalog knows 9.28 offline ----
stop
"${C[@]}" available --platform linux-x86_64 --cuda 13 --json > "$T/av.json" 2> "$T/av.err"
json_assert "$T/av.json" 'd[0]["cudnn_version"] == "'$V'" and d[0]["manifest"] == "catalog:redistrib_9.28.0.json"'
"${C[@]}" available --platform linux-x86_64 --cuda 13 2> "$T/av.err" > /dev/null
grep -q "1 from \`cudnnctl update\` (last run" "$T/av.err" || { cat "$T/av.err"; fail "available does not say what the catalog holds and since when"; }
"${C[@]}" plan --platform linux-x86_64 --cuda 13 --prefix /opt/p --json > "$T/plan.json"
json_assert "$T/plan.json" 'd["cudnn_version"] == "'$V'" and d["archive"]["manifest"] == "catalog:redistrib_9.28.0.json"'
"$CUDNNCTL" --root "$T/root" --version --json > "$T/ver.json"
json_assert "$T/ver.json" 'd["catalog"]["stored"] == 1 and d["catalog"]["stored_newest"] == "redistrib_9.28.0.json" and d["catalog"]["age_days"] == 0'
"${C[@]}" install --platform linux-x86_64 --cuda 13 --cudnn 9 --mirror /srv/mirror --prefix /opt/p --no-validate --json > "$T/inst.json" 2> "$T/inst.err"
json_assert "$T/inst.json" 'd["result"] == "installed" and d["cudnn_version"] == "'$V'"'
! grep -q "days old" "$T/inst.err" || { cat "$T/inst.err"; fail "a fresh catalog was called stale"; }
# offline update: exit 10, nothing changed
snap "$ST" > "$T/st-before"
set +e
"${C[@]}" update --mirror "$U" 2> "$T/err"
rc=$?
set -e
[ $rc -eq 10 ] || { cat "$T/err"; fail "update with the server down: exit $rc, want 10"; }
snap "$ST" > "$T/st-now"; same_snap "$T/st-before" "$T/st-now" "an offline update changed the catalog"

# ---- republished: whitespace only is the same manifest; other archives are refused ----
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); open(sys.argv[1],"w").write(json.dumps(d, indent=2)+"\n")' "$R/redistrib_9.28.0.json"
start_pyserver
"${C[@]}" update --mirror "$U" --json > "$T/u2.json" 2> "$T/err"
json_assert "$T/u2.json" '[m for m in d["manifests"] if m["name"] == "redistrib_9.28.0.json"][0]["result"] == "same-archives"'
grep -q "the pin is kept" "$T/err" || { cat "$T/err"; fail "no word on the rewritten-but-same manifest"; }
json_assert "$ST/index.json" 'd["manifests"][0]["sha256"] == "'"$SHA1"'"'
build_archive "$R/cudnn/linux-x86_64" "cudnn-linux-x86_64-${V}_cuda13-rebuilt-archive" 9.28.0 "libcudnn libcudnn_graph" 0
build_archive "$R/cudnn_jit/linux-x86_64" "cudnn_jit-linux-x86_64-${V}_cuda13-rebuilt-archive" 9.28.0 "libcudnn libcudnn_graph" 0
write_928 "$R/redistrib_9.28.0.json" -rebuilt
SHA2=$(sha256sum "$R/redistrib_9.28.0.json" | cut -d' ' -f1)
# a label nobody has seen beside it: stored only if nothing is refused
sed 's/"release_label": "9.22.0"/"release_label": "9.23.0"/' "$R/redistrib_9.22.0.json" > "$R/redistrib_9.23.0.json"
snap "$ST" > "$T/st-before"
set +e
"${C[@]}" -q update --mirror "$U" 2> "$T/err"
rc=$?
set -e
[ $rc -eq 3 ] || { cat "$T/err"; fail "a republished label: exit $rc, want 3"; }
grep "error:" "$T/err" | grep -q "$SHA1" && grep "error:" "$T/err" | grep -q "$SHA2" \
  || { cat "$T/err"; fail "the refusal does not name both digests"; }
grep "error:" "$T/err" | grep -q "fetched from http://127.0.0.1:[0-9]*/compute/cudnn/redist/redistrib_9.28.0.json at 20" \
  || { cat "$T/err"; fail "the refusal does not say where the pin came from"; }
grep -q -- "--allow-manifest-override" "$T/err" || fail "the refusal does not name the override"
snap "$ST" > "$T/st-now"; same_snap "$T/st-before" "$T/st-now" "a refused update changed the catalog"
"${C[@]}" available --platform linux-x86_64 --cuda 13 --cudnn $V --json > "$T/av.json"
json_assert "$T/av.json" 'd[0]["manifest_sha256"] == "'"$SHA1"'"'
# a label embedded in cudnnctl is pinned too
cp "$R/redistrib_9.22.0.json" "$T/keep-922"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d["cudnn"]["linux-x86_64"]["cuda13"]; a["sha256"]="ab"*32; json.dump(d,open(sys.argv[1],"w"))' "$R/redistrib_9.22.0.json"
set +e
"${C[@]}" update --mirror "$U" --json > "$T/u3.json" 2> "$T/err"
rc=$?
set -e
[ $rc -eq 3 ] || { cat "$T/err"; fail "an embedded label republished: exit $rc, want 3"; }
json_assert "$T/u3.json" 'd["refused"] == 2 and [m for m in d["manifests"] if m["name"] == "redistrib_9.22.0.json"][0]["pinned_from"].startswith("embedded")'
cp "$T/keep-922" "$R/redistrib_9.22.0.json"

# ---- accepted knowingly: stored over the pin, and the receipt says so ----
"${C[@]}" update --mirror "$U" --allow-manifest-override --json > "$T/u4.json"
json_assert "$T/u4.json" '{m["name"]: m["result"] for m in d["manifests"]}["redistrib_9.28.0.json"] == "overridden" and d["added"] == 2'
json_assert "$ST/index.json" '[m for m in d["manifests"] if m["name"] == "redistrib_9.28.0.json"][0]["sha256"] == "'"$SHA2"'" and "'"$SHA1"'" in [m for m in d["manifests"] if m["name"] == "redistrib_9.28.0.json"][0]["override"]'
"${C[@]}" install --platform linux-x86_64 --cuda 13 --cudnn $V --mirror "${U%/}" --prefix /opt/q --no-validate --json > "$T/inst2.json" 2> "$T/err"
RC=$(json_get "$T/inst2.json" 'd["receipt"]["path"]')
json_assert "$T/root$RC" '"'"$SHA1"'" in d["manifest"]["override"] and "'"$SHA2"'" in d["manifest"]["override"]'
stop

# ---- a `cudnnctl mirror` dir served by a server without directory listings ----
C2=("$CUDNNCTL" --root "$T/root" --state-dir "$T/state2" --cache-dir "$T/cache2" --no-progress)
start_httpd "$T/root/srv/mirror"
"${C2[@]}" update --mirror "$U/" --json > "$T/u5.json"
json_assert "$T/u5.json" 'd["added"] == 1 and d["source"].endswith("/index.html") and d["manifests"][0]["name"] == "redistrib_9.28.0.json"'
stop
# ---- and a local dir ----
C3=("$CUDNNCTL" --root "$T/root" --state-dir "$T/state3" --cache-dir "$T/cache3" --no-progress)
"${C3[@]}" update --mirror /srv/mirror --json > "$T/u6.json"
json_assert "$T/u6.json" 'd["added"] == 1 and d["stored"] == 1'
"${C3[@]}" plan --platform linux-x86_64 --cuda 13 --flavor jit --prefix /opt/j --json > "$T/plan3.json"
json_assert "$T/plan3.json" 'd["cudnn_version"] == "'$V'" and d["flavor"] == "jit"'
echo "ok"
