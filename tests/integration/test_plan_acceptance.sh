#!/usr/bin/env bash
# test_plan_acceptance.sh: issue 2's acceptance for plan, offline: the 9.13 / CUDA 13 archive with
# its SHA-256 and size; a driver below the cuda13 floor exits 5 with the reason and the fix; the
# human output; the selection flags end to end.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$T/empty"

json_get() { # file python-expression-on-d
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

total=$("$CUDNNCTL" --root "$T/empty" available --json --platform all |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')

# 1. the acceptance command, as written (this machine's detection may add a toolkit target)
"$CUDNNCTL" plan --cuda 13 --platform linux-x86_64 --cudnn 9.13 --json >"$T/a.json" ||
    fail "plan --cuda 13 --cudnn 9.13 exited $?"
for root in "" "$T/empty"; do
    if [ -n "$root" ]; then
        "$CUDNNCTL" --root "$root" plan --cuda 13 --platform linux-x86_64 --cudnn 9.13 --json \
            >"$T/a.json" || fail "plan under an empty root exited $?"
    fi
    python3 - "$T/a.json" "$total" <<'PY' || fail "acceptance JSON: $(head -c 3000 "$T/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["archive"]
assert a["relative_path"] == "cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz", a
assert a["sha256"] == "02f47d9456773c80d97ed245efd9eb22bb985dcfdb74559213536035291e7a01", a
assert a["size"] == 641302680 and type(a["size"]) is int, a
assert d["cudnn_version"] == "9.13.0.50" and d["cuda_variant"] == "13", d
assert d["platform"] == "linux-x86_64"
assert d["url"] == ("https://developer.download.nvidia.com/compute/cudnn/redist/"
                    "cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz"), d["url"]
t = d["target"]
assert t["mode"] in ("cuda-tree", "prefix") and t["path"] and t["lib_dir"] and t["include_dir"], t
assert [s["name"] for s in d["steps"]][:3] == ["download", "verify", "extract"], d["steps"]
# every other archive of the catalog is accounted for, each with a reason
assert sum(r["count"] for r in d["rejected"]) + 1 == int(sys.argv[2]), len(d["rejected"])
assert all(len(r["reason"]) > 10 and r["relative_path"] for r in d["rejected"])
assert [r["kind"] for r in d["rejected"]
        if r["cudnn_version"] == "9.13.1.26" and r["cuda_variant"] == "13"] == ["preference"]
PY
done
# under the empty root there is no toolkit: the default prefix, said in a warning
[ "$(json_get "$T/a.json" 'd["target"]["mode"]')" = "prefix" ] || fail "empty root: mode"
grep -q "no CUDA toolkit to merge into" <<<"$(json_get "$T/a.json" '" ".join(d["warnings"])')" ||
    fail "empty root: no warning about the default prefix"

# 2. the driver floor, with the fix
set +e
"$CUDNNCTL" --root "$T/empty" plan --cuda 13 --driver-version 525.60.13 --platform linux-x86_64 \
    >"$T/out" 2>"$T/err"
rc=$?
set -e
[ "$rc" = 5 ] || fail "driver below the floor: exit $rc, want 5 ($(cat "$T/err"))"
grep -q "driver 525.60.13 is below 580.65.06, the floor of the cuda13 build: update the driver or use --cuda 12" "$T/err" ||
    fail "driver message: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "stdout not empty on failure"
# the same through --json: still exit 5, and stdout is one document with the error (docs/cli.md)
set +e
"$CUDNNCTL" --root "$T/empty" --json plan --cuda 13 --driver-version 525.60.13 \
    --platform linux-x86_64 >"$T/out" 2>"$T/err"
rc=$?
set -e
[ "$rc" = 5 ] || fail "--json driver case: exit $rc"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = d["error"]
assert e["code"] == "DRIVER_TOO_OLD" and e["exit_code"] == 5 and "525.60.13 is below 580.65.06" in e["message"], e
assert e["fix"] and "update the driver" in e["fix"], e' "$T/out" || fail "--json driver case: stdout $(cat "$T/out")"

# 3. nothing to go on: exit 5 naming the flag
set +e
"$CUDNNCTL" --root "$T/empty" plan --platform linux-x86_64 >"$T/out" 2>"$T/err"
rc=$?
set -e
[ "$rc" = 5 ] || fail "no toolkit, no --cuda: exit $rc"
grep -q -- "--cuda" "$T/err" || fail "no toolkit: message does not name --cuda: $(cat "$T/err")"

# 4. bad input is a usage error (2)
for args in "--cudnn nine --cuda 13" "--cuda thirteen" "--cuda 13 --driver-version new"; do
    set +e
    # shellcheck disable=SC2086
    "$CUDNNCTL" --root "$T/empty" plan --platform linux-x86_64 $args >/dev/null 2>"$T/err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "plan $args: exit $rc, want 2"
done

# 5. human output: the choice, the steps, the grouped rejections
"$CUDNNCTL" --root "$T/empty" plan --cuda 13 --platform linux-x86_64 --cudnn 9.13 >"$T/h" 2>"$T/herr"
grep -q '^cuDNN 9.13.0.50 for CUDA 13 on linux-x86_64' "$T/h" || fail "human: headline"
grep -q '^why: ' "$T/h" || fail "human: why"
for s in download verify extract commit links ldconfig receipt validate; do
    grep -Eq "^  [0-9]\. $s " "$T/h" || fail "human: step $s missing"
done
grep -Eq '^  REJECTED +BUILD +WHY' "$T/h" || fail "human: rejection table header"
grep -Eq '^  9\.13\.1\.26 +cuda13 +a later patch' "$T/h" || fail "human: 9.13.1.26 line"
grep -q 'later patch of cuDNN 9.13' "$T/herr" || fail "human: warning about 9.13.1"
[ "$(wc -l <"$T/h")" -lt 40 ] || fail "human output is not bounded ($(wc -l <"$T/h") lines)"

# 6. flags end to end
p() { "$CUDNNCTL" --root "$T/empty" --json plan --platform linux-x86_64 "$@"; }
[ "$(p --cuda 13 --cudnn 9.13.x | python3 -c 'import json,sys; print(json.load(sys.stdin)["cudnn_version"])')" = 9.13.1.26 ] ||
    fail "--cudnn 9.13.x"
[ "$(p --for torch==2.9.1+cu130 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["cudnn_version"], d["cuda_variant"], d["consumer"]["for"])')" = \
  "9.13.0.50 13 torch==2.9.1+cu130" ] || fail "--for torch"
[ "$(p --for tensorflow==2.18.0 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["cuda_variant"], d["cudnn_version"].split(".")[0])')" = "12 9" ] ||
    fail "--for tensorflow"
[ "$(p --cuda 12 --prefix /opt/x --mirror http://m.local/r/ | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["url"], d["target"]["install_dir"])')" = \
  "http://m.local/r/cudnn/linux-x86_64/cudnn-linux-x86_64-9.27.0.42_cuda12-archive.tar.xz /opt/x/cudnn-9.27.0.42-cuda12" ] ||
    fail "--mirror / --prefix"
[ "$("$CUDNNCTL" --root "$T/empty" --json plan --platform windows-arm64 --cuda 13.4 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["archive"]["relative_path"], d["cuda_variant"], d["cuda_build"], d["target"]["bin_dir"] is not None)')" = \
  "cudnn/windows-arm64/cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip 13 13.4 True" ] ||
    fail "windows-arm64 13.4"
echo "ok: plan acceptance"
