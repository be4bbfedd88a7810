#!/usr/bin/env bash
# test_cli_json_errors.sh: with --json every failure prints exactly one JSON document on stdout,
# whose "error" has the code (errors.def's name), the exit code the process returned, the message
# and the fix (what follows the message's "; ", null when none): a usage error (also one found
# while parsing), a missing path, a network failure, a lock held by another run, and an install
# that fails after its result document exists (the error goes into that one document, with its
# "result": "failed"). A dry run keeps nothing of a manifest URL in the cache, dirs included.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
one_doc() { # RC CODE PATTERN args...: exit RC, stdout one JSON document with error.code CODE
    local want=$1 code=$2 pat=$3 rc=0
    shift 3
    "${C[@]}" "$@" >"$T/out" 2>"$T/err" || rc=$?
    [ "$rc" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "cudnnctl $* exited $rc, want $want"; }
    "$PY" - "$T/out" "$rc" "$code" "$pat" <<'PY' || { cat "$T/out" "$T/err" >&2; fail "cudnnctl $*: stdout (above)"; }
import json, re, sys
text, rc, code, pat = open(sys.argv[1]).read(), int(sys.argv[2]), sys.argv[3], sys.argv[4]
dec = json.JSONDecoder()
doc, end = dec.raw_decode(text)
assert text[end:].strip() == "", "more than one document: %r" % text[end:][:200]
e = doc["error"]
assert e["code"] == code, e
assert e["exit_code"] == rc, e
assert re.search(pat, e["message"]), e["message"]
assert e["fix"] is None or (e["fix"] and e["fix"] in e["message"]), e
assert set(e) >= {"code", "exit_code", "message", "fix"}, e
print(json.dumps(e)[:300])
PY
}
cli_make_root "$T/r"
W=$T/r/srv/www
V=9.97.0.11
cli_make_archive "$W" $V
cli_make_manifest "$W" $V "$T/r/m.json"
cp "$T/r/m.json" "$W/redistrib_$V.json"
A=$W/cudnn/linux-x86_64/cudnn-linux-x86_64-${V}_cuda13-archive.tar.xz

one_doc 2 USAGE "option '--cu' is ambiguous" --json plan --cu 9
one_doc 2 USAGE "unknown option '--cdnn'; did you mean '--cudnn'" plan --cdnn 9 --json
one_doc 2 USAGE "'detect' does not take --sha256" --json detect --sha256 x
one_doc 2 USAGE "^--cuda-home $T/none: no such directory" --json plan --cuda-home "$T/none"
grep -q "no such directory" "$T/err" || fail "the human message is not on stderr under --json"
one_doc 10 NETWORK "cannot connect" --json --root "$T/r" install --cuda 13 --manifest /m.json --cudnn $V \
    --mirror http://127.0.0.1:9/ --prefix /opt/p --no-validate --no-ldconfig
"$PY" -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["fix"] and "--mirror" in e["fix"], e' "$T/out" ||
    fail "the network failure's fix is not the message's"
# a failure after the result document: one document, the result and the error in it
one_doc 3 HASH_MISMATCH "does not match" --json --root "$T/r" --cuda 13 install --prefix /opt/p --archive "$A" \
    --sha256 1111111111111111111111111111111111111111111111111111111111111111 --no-validate --no-ldconfig
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["result"] == "failed" and d["cudnn_version"] == sys.argv[2], d' "$T/out" $V ||
    fail "the failed install's document lost its result"
# the lock
mkdir -p "$T/state"
flock -n "$T/state/lock" sleep 3 &
PIDS+=($!)
sleep 0.3
one_doc 8 LOCKED "another cudnnctl" --json recover
wait
# a dry run with a manifest URL keeps nothing in the cache
"$PY" "$SOURCE_DIR/tests/tools/httpd.py" --root "$W" --port-file "$T/port" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
U="http://127.0.0.1:$(cat "$T/port")"
rm -rf "$T/cache"
"${C[@]}" --json --root "$T/r" --cuda 13 install --dry-run --manifest "$U/redistrib_$V.json" --cudnn $V \
    --mirror "$U/" --prefix /opt/pd --no-validate >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "the dry run"; }
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["result"] == "dry-run" and d.get("error") is None, d' "$T/out" ||
    fail "the dry run's document"
[ ! -e "$T/cache" ] || fail "the dry run left in the cache: $(find "$T/cache")"
"${C[@]}" --root "$T/r" --cuda 13 plan --manifest "$U/redistrib_$V.json" --cudnn $V --prefix /opt/pd >/dev/null 2>&1
[ -n "$(find "$T/cache" -name '*.json')" ] || fail "control: plan keeps the manifest for offline use, the dry run's check sees nothing"
echo "ok: --json failures are one document with code, exit code, message and fix"
