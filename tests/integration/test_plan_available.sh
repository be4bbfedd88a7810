#!/usr/bin/env bash
# test_plan_available.sh: 'available' lists every archive of the embedded manifests (counted
# independently with python), filters by platform / CUDA / cuDNN, and --manifest FILE|file://
# adds to the catalog for both available and plan; malformed manifests are refused by name.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
A() { "$CUDNNCTL" --root "$T" "$@"; }

# independent count: distinct relative_paths of the cudnn component over every manifest
expect=$(python3 - "$SOURCE_DIR/data/manifests/cudnn" <<'PY'
import glob, json, os, sys
paths = set()
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    c = json.load(open(f))["cudnn"]
    for plat, pv in c.items():
        if not isinstance(pv, dict) or plat == "source":
            continue
        for v in pv.values():
            if isinstance(v, dict):
                paths.add(v["relative_path"])
        if "relative_path" in pv:
            paths.add(pv["relative_path"])
print(len(paths))
PY
)
A available --json --platform all >"$T/all.json"
got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/all.json")
[ "$got" = "$expect" ] || fail "available lists $got archives, the manifests have $expect"
python3 - "$T/all.json" <<'PY' || fail "entry fields"
import json, sys
d = json.load(open(sys.argv[1]))
e = [x for x in d if x["relative_path"].endswith("9.13.0.50_cuda13-archive.tar.xz") and x["platform"] == "linux-x86_64"]
assert len(e) == 1, e
e = e[0]
assert e["sha256"] == "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01"
assert e["size"] == 641302680 and isinstance(e["size"], int)
assert e["cudnn_version"] == "9.13.0.50" and e["cuda_variant"] == "13"
assert e["release_date"] == "2025-09-04"
for k in ("cudnn_version", "platform", "cuda_variant", "relative_path", "sha256", "size", "release_date"):
    assert all(k in x for x in d), k
PY

count() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
[ "$(A available --json --platform windows-arm64 --cuda 13.0 | count)" = 1 ] || fail "--cuda 13.0"
[ "$(A available --json --platform windows-arm64 --cuda 13.4 | count)" = 2 ] || fail "--cuda 13.4"
[ "$(A available --json --platform linux-x86_64 --cuda 13 --cudnn 9.13 | count)" = 2 ] || fail "--cudnn 9.13"
set +e
A available --cudnn nine >/dev/null 2>"$T/err"; rc=$?
set -e
[ "$rc" = 2 ] || fail "bad --cudnn: exit $rc"

# human table
A available --platform linux-x86_64 --cuda 13 --cudnn 9.13 >"$T/h" 2>"$T/herr"
grep -Eq '^CUDNN +CUDA +PLATFORM +DOWNLOAD +INSTALLED +RELEASED +FILE$' "$T/h" || fail "table header: $(cat "$T/h")"
grep -Eq '^9\.13\.1\.26 +13 +linux-x86_64 +[0-9.]+ MiB +\? +[0-9-]+ +cudnn-linux-x86_64-9\.13\.1\.26_cuda13-archive\.tar\.xz$' "$T/h" ||
    fail "table row: $(cat "$T/h")"
[ "$(wc -l <"$T/h")" = 3 ] || fail "table rows: $(cat "$T/h")"

# --manifest FILE and file:// (inside the root: absolute paths are resolved under --root)
mkdir -p "$T/m"
cat >"$T/m/redistrib_9.99.0.json" <<'JSON'
{"release_date": "2030-01-02", "release_label": "9.99.0", "release_product": "cudnn",
 "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "version": "9.99.0.1",
  "linux-x86_64": {"cuda13": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz",
     "sha256": "1111111111111111111111111111111111111111111111111111111111111111", "size": "4242"}},
  "cuda_variant": ["13"]},
 "cudnn_samples": {"source": {"relative_path": "cudnn_samples/source/x.tar.xz", "sha256": "x", "size": "1"}}}
JSON
for m in /m/redistrib_9.99.0.json "file:///m/redistrib_9.99.0.json"; do
    [ "$(A available --json --manifest "$m" --platform linux-x86_64 --cudnn 9.99 | count)" = 1 ] ||
        fail "--manifest $m not listed"
    A --json plan --manifest "$m" --platform linux-x86_64 --cuda 13 >"$T/p.json"
    python3 - "$T/p.json" "$m" <<'PY' || fail "plan with --manifest $m: $(cat "$T/p.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cudnn_version"] == "9.99.0.1", d["cudnn_version"]
assert d["archive"]["sha256"] == "1" * 64
assert d["archive"]["size"] == 4242
assert d["archive"]["manifest"] == sys.argv[2]
assert len(d["archive"]["manifest_sha256"]) == 64
PY
done

# malformed manifests are refused, naming the file and the key
sed 's/"1111111111111111111111111111111111111111111111111111111111111111"/"xyz"/' \
    "$T/m/redistrib_9.99.0.json" >"$T/m/bad_sha.json"
sed 's/"4242"/"42x"/' "$T/m/redistrib_9.99.0.json" >"$T/m/bad_size.json"
sed 's#"cudnn/linux-x86_64/cudnn-linux#"../../cudnn-linux#' "$T/m/redistrib_9.99.0.json" >"$T/m/bad_path.json"
echo '{ this is not json' >"$T/m/bad_json.json"
for b in bad_sha:sha256 bad_size:size bad_path:relative_path bad_json:"not valid JSON"; do
    f=${b%%:*} key=${b#*:}
    set +e
    A available --manifest "/m/$f.json" >/dev/null 2>"$T/err"; rc=$?
    set -e
    [ "$rc" = 1 ] || fail "$f: exit $rc"
    grep -q "$f.json" "$T/err" || fail "$f: error does not name the manifest: $(cat "$T/err")"
    grep -q "$key" "$T/err" || fail "$f: error does not name '$key': $(cat "$T/err")"
done
set +e
A available --manifest /m/missing.json >/dev/null 2>"$T/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q missing.json "$T/err" || fail "missing manifest: exit $rc $(cat "$T/err")"
echo "ok: available and --manifest"
