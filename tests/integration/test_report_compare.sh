#!/usr/bin/env bash
# test_report_compare.sh: `report` on two fake hosts under --root (their own /etc/hostname and
# /etc/os-release) records hostname, OS, platform, driver, detect's result and doctor's findings
# with the documented keys; `compare` of the two shows exactly the planted drift (driver, the
# tree's cuDNN, a wheel only one host has, doctor's findings) as a table and as JSON, and exit
# codes 0 (identical) / 1 (drift) / 2 (not a report).
set -euo pipefail
. "$(dirname "$0")/doctor_common.sh"

healthy_machine
os_release() {
    printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n' > "$R/etc/os-release"
}
new_case gpu1
echo gpu1 > "$R/etc/hostname"
os_release
new_case gpu2
echo gpu2 > "$R/etc/hostname"
os_release
driver_proc 570.172.08
rm "$R$TREE/lib64/"libcudnn*
cudnn_libs $TREE/lib64 9.14.0 tar
cudnn_header $TREE/include 9.14.0
DP=/usr/lib/python3/dist-packages
mkdir -p "$R$DP/nvidia_cudnn_cu13-9.19.0.56.dist-info"
cudnn_libs $DP/nvidia/cudnn/lib 9.19.0 wheel

report() { # HOST OUT
    local rc=0
    env -i PATH=/usr/bin:/bin HOME=/root "$CUDNNCTL" --root "$TOP/$1" report >"$2" 2>"$2.err" || rc=$?
    [ "$rc" -eq 0 ] || { cat "$2.err" >&2; fail "report on $1 exited $rc"; }
}
A=$TOP/gpu1.json
B=$TOP/gpu2.json
report gpu1 "$A"
report gpu2 "$B"

# ---- the record's keys (docs/formats.md "report") ----------------------------------------------
R=$TOP/gpu1
check "$A" "d['format'] == 'cudnnctl-report' and d['format_version'] == 1" "format and version"
check "$A" "d['cudnnctl_version'] and d['created_at'].endswith('Z') and len(d['created_at']) == 20" "tool version, ISO time"
check "$A" "d['root'] == '$TOP/gpu1'" "the root is recorded"
check "$A" "d['host']['hostname'] == 'gpu1'" "host name from the root's /etc/hostname"
check "$A" "d['host']['os']['id'] == 'debian' and d['host']['os']['version_id'] == '12' and d['host']['os']['pretty_name'].startswith('Debian')" "os-release parsed"
check "$A" "d['host']['os']['kernel'] is None" "no kernel under --root (the running one is not the image's)"
check "$A" "d['platform'] == d['detect']['platform'] and d['platform'].startswith('linux-')" "platform"
check "$A" "d['driver']['version'] == '580.95.05'" "driver at the top"
check "$A" "d['detect']['toolkits'][0]['path'] == '$TREE' and d['detect']['toolkits'][0]['version_full'] == '13.0.2'" "detect's full result"
check "$A" "[c['version'] for c in d['detect']['cudnn']] == ['9.19.0']" "the tree's cuDNN"
check "$A" "d['doctor']['ok'] is True and d['doctor']['findings'] == []" "doctor's findings on a healthy host"
check "$A" "d['validate'] is None" "no validation unless asked"
check "$A" "'installs' in d" "installs key present"
verify

# ---- compare: identical with itself ----------------------------------------------------------------
rc=0
"$CUDNNCTL" compare "$A" "$A" > "$TOP/same.txt" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TOP/same.txt" >&2; fail "compare of a record with itself exited $rc"; }
grep -q '^identical' "$TOP/same.txt" || fail "no 'identical' line: $(cat "$TOP/same.txt")"
grep -q 'gpu1#2' "$TOP/same.txt" || fail "duplicate host names are not made unique"

# ---- compare: the planted drift ---------------------------------------------------------------------
rc=0
"$CUDNNCTL" compare --json "$A" "$B" > "$TOP/cmp.json" || rc=$?
[ "$rc" -eq 1 ] || { cat "$TOP/cmp.json" >&2; fail "compare with drift exited $rc (expected 1)"; }
C=$TOP/cmp.json
check "$C" "d['hosts'] == ['gpu1', 'gpu2'] and d['identical'] is False" "hosts in order"
check "$C" "sorted(x['item'] for x in d['drift']) == ['cudnn.cuda-tree', 'cudnn.wheel', 'doctor', 'driver', 'driver.cuda']" "exactly the planted drift"
check "$C" "[x for x in d['drift'] if x['item'] == 'driver'][0]['values'] == {'gpu1': '580.95.05', 'gpu2': '570.172.08'}" "driver values per host"
check "$C" "[x for x in d['drift'] if x['item'] == 'cudnn.cuda-tree'][0]['values'] == {'gpu1': '9.19.0', 'gpu2': '9.14.0'}" "tree cuDNN per host"
check "$C" "[x for x in d['drift'] if x['item'] == 'cudnn.wheel'][0]['values'] == {'gpu1': '-', 'gpu2': '9.19.0'}" "a wheel only gpu2 has"
check "$C" "[x for x in d['items'] if x['item'] == 'cuda.active'][0] == {'item': 'cuda.active', 'drift': False, 'values': {'gpu1': '13.0.2', 'gpu2': '13.0.2'}}" "agreeing items are listed, not drifting"
check "$C" "d['n_drift'] == len(d['drift']) == sum(1 for x in d['items'] if x['drift'])" "counts agree"
verify
# the human table: a row per item, drifting ones marked
rc=0
"$CUDNNCTL" compare "$A" "$B" > "$TOP/cmp.txt" || rc=$?
[ "$rc" -eq 1 ] || fail "human compare exited $rc"
grep -Eq '^\*  driver +580\.95\.05 +570\.172\.08$' "$TOP/cmp.txt" || fail "driver row: $(cat "$TOP/cmp.txt")"
grep -Eq '^ +cuda\.active +13\.0\.2 +13\.0\.2$' "$TOP/cmp.txt" || fail "agreeing row: $(cat "$TOP/cmp.txt")"
grep -q '^5 of ' "$TOP/cmp.txt" || fail "summary: $(tail -1 "$TOP/cmp.txt")"

# ---- not a report / too few ---------------------------------------------------------------------------
echo '{"findings": []}' > "$TOP/other.json"
rc=0
"$CUDNNCTL" compare "$A" "$TOP/other.json" >/dev/null 2>"$TOP/err.txt" || rc=$?
[ "$rc" -eq 2 ] || fail "a foreign JSON file: exit $rc (expected 2)"
grep -q 'other.json is not a cudnnctl report' "$TOP/err.txt" || fail "error text: $(cat "$TOP/err.txt")"
rc=0
"$CUDNNCTL" compare "$A" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "one file: exit $rc (expected 2)"
rc=0
"$CUDNNCTL" compare "$A" "$TOP/missing.json" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "missing file: exit $rc (expected 2)"
R=$TOP
echo "PASS: report records two fake hosts; compare shows exactly the planted drift"
