#!/usr/bin/env bash
# test_doctor_state.sh: doctor's checks of cudnnctl's own state, through the real binary on a
# fake CUDA 13.0 tree under --root: after a real install (small NVIDIA-layout archive) nothing
# is reported and every receipt file is checked; then a file changed in place (same size: only
# --deep's re-hash sees it; newer than the install: reported as touched without --deep), a file
# grown, a file removed, a link re-pointed, a receipt that does not parse, and an install
# killed mid-way (sticky fault injection) that leaves its journal — until `recover` (doctor's fix)
# settles it.
# report records the install; compare shows it.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-doctor-state-XXXXXX")
trap 'rm -rf "$T"' EXIT
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
R=$T/root
mkdir -p "$R/srv"
A=$(make_archive "$R/srv" 9.19.0.56 "libcudnn libcudnn_graph" tiny)
SHA=$(sha256sum "$A" | cut -d' ' -f1)
make_tree "$R"
cp -a "$R" "$T/pristine"
LIB=/usr/local/cuda-13.0/lib
STATE=$R/var/lib/cudnnctl

install_it() {
    "$CUDNNCTL" --root "$R" --cache-dir "$T/cache" install --cuda-home /usr/local/cuda \
        --archive "$A" --sha256 "$SHA" --no-validate --force --json "$@" # make_tree's foreign cuDNN
}
doctor() { # OUT WANT_RC [args]
    local out=$1 want=$2 rc=0
    shift 2
    env -i PATH=/usr/bin:/bin HOME=/root "$CUDNNCTL" --root "$R" doctor --json "$@" >"$out" 2>"$out.err" || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$out" "$out.err" >&2; fail "doctor $* exited $rc (expected $want)"; }
}
codes() { "$PY" -c 'import json,sys; print(" ".join(sorted(set(f["code"] for f in json.load(open(sys.argv[1]))["findings"] if f["code"].startswith(("RECEIPT_", "STALE_"))))))' "$1"; }
expect_codes() { # JSON "CODES" WHAT
    local got; got=$(codes "$1")
    [ "$got" = "$2" ] || { cat "$1" >&2; fail "$3: state findings '$got', expected '$2'"; }
}
finding() { # JSON CODE → its message
    "$PY" -c 'import json,sys; print([f["message"] for f in json.load(open(sys.argv[1]))["findings"] if f["code"] == sys.argv[2]][0])' "$1" "$2"
}

install_it > "$T/i.json" 2>"$T/i.err" || { cat "$T/i.err"; fail "install"; }
grep -q '"result":"installed"' "$T/i.json" || fail "install result: $(cat "$T/i.json")"

# ---- fresh install: nothing to report, every receipt file looked at ----------------------------
doctor "$T/d0.json" 0
expect_codes "$T/d0.json" "" "a fresh install"
n=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["receipt_files_checked"])' "$T/d0.json")
[ "$n" -ge 6 ] || fail "only $n receipt files checked"
doctor "$T/d0deep.json" 0 --deep
expect_codes "$T/d0deep.json" "" "a fresh install, re-hashed"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["deep"] else 1)' "$T/d0deep.json" || fail "deep not recorded"

# ---- the same size, other bytes, newer than the install: touched; --deep: modified ----------------
F=$R$LIB/libcudnn_graph.so.9.19.0
"$PY" - "$F" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-1] ^= 0x5A
open(p, "wb").write(bytes(b))
PY
touch -d "@$(( $(date +%s) + 600 ))" "$F"
doctor "$T/d1.json" 0
expect_codes "$T/d1.json" "RECEIPT_FILE_TOUCHED" "same size, newer"
doctor "$T/d1deep.json" 0 --deep
expect_codes "$T/d1deep.json" "RECEIPT_FILE_MODIFIED" "same size, --deep"
finding "$T/d1deep.json" RECEIPT_FILE_MODIFIED | grep -q "libcudnn_graph.so.9.19.0 (content changed)" ||
    fail "the modified file is not named: $(finding "$T/d1deep.json" RECEIPT_FILE_MODIFIED)"

# ---- grown, removed, link re-pointed ------------------------------------------------------------------
INC=/usr/local/cuda-13.0/include
echo '/* extra */' >> "$R$INC/cudnn.h"
rm "$R$LIB/libcudnn.so.9.19.0"
ln -sfn libcudnn_graph.so.9.19.0 "$R$LIB/libcudnn.so.9"
doctor "$T/d2.json" 1
expect_codes "$T/d2.json" "RECEIPT_FILE_MISSING RECEIPT_FILE_MODIFIED RECEIPT_FILE_TOUCHED" "grown, removed, re-pointed"
finding "$T/d2.json" RECEIPT_FILE_MISSING | grep -q "$LIB/libcudnn.so.9.19.0" || fail "missing file not named"
m=$(finding "$T/d2.json" RECEIPT_FILE_MODIFIED)
grep -q "$INC/cudnn.h (size changed)" <<<"$m" || fail "grown file: $m"
grep -q "$LIB/libcudnn.so.9 (link target changed)" <<<"$m" || fail "re-pointed link: $m"

# ---- a receipt that does not parse ---------------------------------------------------------------------
echo '{"format": 1, "id": ' > "$STATE/receipts/000099.json"
doctor "$T/d3.json" 1
expect_codes "$T/d3.json" "RECEIPT_FILE_MISSING RECEIPT_FILE_MODIFIED RECEIPT_FILE_TOUCHED RECEIPT_UNREADABLE" "a damaged receipt"
rm "$STATE/receipts/000099.json"

# ---- report records the install; compare sees it --------------------------------------------------------
"$CUDNNCTL" --root "$R" report > "$T/r1.json"
"$PY" - "$T/r1.json" <<'PY' || fail "report installs"
import json, sys
d = json.load(open(sys.argv[1]))
i = d["installs"]
assert len(i) == 1 and i[0]["cudnn_version"] == "9.19.0.56" and i[0]["cuda_variant"] == "13", i
assert d["pending_journal"] is None
assert "RECEIPT_FILE_MISSING" in [f["code"] for f in d["doctor"]["findings"]]
PY

# ---- an install killed in the middle leaves its journal --------------------------------------------------
rm -rf "$R" && cp -a "$T/pristine" "$R"
CUDNNCTL_FAULT_REPORT=1 install_it > /dev/null 2> "$T/count.err" || { cat "$T/count.err"; fail "clean install"; }
total=$(sed -n 's/.*fault-injection: \([0-9]*\) file operations.*/\1/p' "$T/count.err")
[ -n "$total" ] || fail "no operation count"
found=0
for n in $(seq $((total / 3)) "$total"); do
    rm -rf "$R" && cp -a "$T/pristine" "$R"
    CUDNNCTL_FAULT_AT=$n CUDNNCTL_FAULT_STICKY=1 install_it > /dev/null 2>&1 || true
    if [ -e "$STATE/journal.json" ]; then found=$n; break; fi
done
[ "$found" -gt 0 ] || fail "no fault point between $((total / 3)) and $total left a journal"
doctor "$T/d4.json" 1
expect_codes "$T/d4.json" "STALE_JOURNAL" "an interrupted install (fault at $found of $total)"
finding "$T/d4.json" STALE_JOURNAL | grep -q "interrupted install (phase" || fail "journal finding: $(finding "$T/d4.json" STALE_JOURNAL)"
"$CUDNNCTL" --root "$R" report > "$T/r2.json"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["pending_journal"] else 1)' "$T/r2.json" ||
    fail "report does not record the pending journal"
# doctor's fix names `cudnnctl recover`; run as written, it settles the journal; doctor is
# quiet again
finding "$T/d4.json" STALE_JOURNAL > /dev/null
python3 -c 'import json,sys; f=[x for x in json.load(open(sys.argv[1]))["findings"] if x["code"]=="STALE_JOURNAL"][0]; sys.exit(0 if "`cudnnctl recover`" in f["fix"] else 1)' "$T/d4.json" \
  || fail "the journal finding's fix does not name cudnnctl recover"
"$CUDNNCTL" --root "$R" --cache-dir "$T/cache" recover >/dev/null || fail "cudnnctl recover (doctor's fix) failed"
[ ! -e "$STATE/journal.json" ] || fail "recover did not settle the journal"
# (the tree is as before the install: make_tree's foreign, incomplete wheel-style copy -> exit 1)
doctor "$T/d5.json" 1
expect_codes "$T/d5.json" "" "after recover settled the journal"
grep -q '"CUDNN_INCOMPLETE"' "$T/d5.json" || fail "the pristine tree's foreign copy is not what fails"
echo "PASS: doctor state checks: receipts (touched, --deep, grown, missing, link, unreadable), stale journal until recover; report records installs"
