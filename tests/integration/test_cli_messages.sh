#!/usr/bin/env bash
# test_cli_messages.sh: a failure's fix fits the situation at hand, and the printed fix works —
# each case checks the message and then runs what it says:
#   - a wrong --sha256: not "pass --sha256" (it was passed) but the file's own hash; installing
#     with that value succeeds;
#   - an HTML login page as manifest (a URL answering with it, or a saved file): named as HTML,
#     never "not valid JSON", and nothing of it in the cache; --manifest FILE (the fix) works;
#   - a 404 for a manifest URL: "no manifest at that address", not "the archive";
#   - --mirror URL whose host does not resolve or does not answer: never "looks offline — use
#     --mirror"; the fix (a local copy, --mirror DIR) installs;
#   - --mirror URL without the archive (404): "the mirror does not have this archive" and the
#     command that fills it; `cudnnctl mirror --to DIR` and an install from DIR work;
#   - --dry-run by a user who cannot write the target: exit 9, "the real install would fail"
#     (as the real run does), and with --prefix DIR of its own (the fix) the dry run and the
#     real run succeed.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
C=("$CUDNNCTL" --cache-dir "$T/cache" --state-dir "$T/state" --no-progress)
run() { # RC OUT args...: run cudnnctl, exit code must be RC, output (both streams) in OUT
    local want=$1 out=$2 rc=0
    shift 2
    "${C[@]}" "$@" >"$out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] || { cat "$out" >&2; fail "cudnnctl $* exited $rc, expected $want"; }
}
has() { grep -Eq -- "$2" "$1" || { cat "$1" >&2; fail "no '$2' in the message"; }; }
hasnt() { ! grep -Eq -- "$2" "$1" || { cat "$1" >&2; fail "'$2' in the message"; }; }
serve() { # ROOT PORTFILE: start httpd.py
    "$PY" "$SOURCE_DIR/tests/tools/httpd.py" --root "$1" --port-file "$2" &
    PIDS+=($!)
    for _ in $(seq 100); do [ -s "$2" ] && return 0; sleep 0.05; done
    fail "httpd.py did not start"
}
V=9.97.0.8
cli_make_root "$T/r"
W=$T/r/srv/www # inputs under the root: --root resolves every path the tool reads
cli_make_archive "$W" $V
cli_make_manifest "$W" $V "$W/redistrib_$V.json"
cp "$W/redistrib_$V.json" "$T/r/m.json"
A=$W/cudnn/linux-x86_64/cudnn-linux-x86_64-${V}_cuda13-archive.tar.xz
SHA=$(sha256sum "$A" | cut -d' ' -f1)
cat >"$W/login.json" <<'EOF'
<!DOCTYPE html>
<html><head><title>Sign in - Corporate Web Gateway</title></head>
<body><form method="post" action="/auth"><input name="user"><input type="password" name="pw">
<button>Log in</button></form></body></html>
EOF
serve "$W" "$T/port"
U="http://127.0.0.1:$(cat "$T/port")"
R=(--root "$T/r" --cuda 13)

# ---- a wrong --sha256 ------------------------------------------------------------------------------
run 3 "$T/o" "${R[@]}" install --prefix /opt/p1 --archive "$A" --no-validate --no-ldconfig \
    --sha256 0000000000000000000000000000000000000000000000000000000000000000
hasnt "$T/o" "pass --sha256 with the hash it has"
has "$T/o" "The --sha256 given is not this file's"
fix=$(sed -n 's/.*(--sha256 \([0-9a-f]\{64\}\)).*/\1/p' "$T/o")
[ "$fix" = "$SHA" ] || fail "the printed --sha256 ($fix) is not the file's ($SHA)"
run 0 "$T/o" "${R[@]}" install --prefix /opt/p1 --archive "$A" --no-validate --no-ldconfig --sha256 "$fix"

# ---- an HTML login page as manifest -------------------------------------------------------------------
rm -rf "$T/cache"
run 1 "$T/o" available --manifest "$U/login.json"
has "$T/o" "manifest $U/login.json is an HTML login page, not NVIDIA's redistrib JSON"
hasnt "$T/o" "not valid JSON"
has "$T/o" "it was not cached"
if [ -d "$T/cache" ]; then
    ! grep -rlq "Corporate Web Gateway" "$T/cache" || fail "the login page was kept in the cache: $(grep -rl Gateway "$T/cache")"
    [ -z "$(find "$T/cache" -name '*.json' -o -name '*.ref')" ] || fail "a manifest entry was cached for the login page: $(find "$T/cache" -type f)"
fi
# a second run has no cached copy to fall back on either: still named as HTML
run 1 "$T/o" available --manifest "$U/login.json"
has "$T/o" "is an HTML login page"
cp "$W/login.json" "$T/saved.json"
run 1 "$T/o" available --manifest "$T/saved.json"
has "$T/o" "is an HTML login page, not NVIDIA's redistrib JSON: a web page was saved instead"
has "$T/o" "pass it as --manifest FILE"
# the fix: the .json itself as --manifest FILE
run 0 "$T/o" available --platform linux-x86_64 --manifest "$W/redistrib_$V.json"
has "$T/o" "^$V "

# ---- a manifest URL that is not there -------------------------------------------------------------------
run 10 "$T/o" available --manifest "$U/redistrib_9.99.0.json"
has "$T/o" "HTTP 404 for $U/redistrib_9.99.0.json: there is no manifest at that address"
hasnt "$T/o" "archive is not at that address"
has "$T/o" "as --manifest FILE"

# ---- --mirror URL that cannot be reached --------------------------------------------------------------
for bad in "http://cudnnctl-test.invalid/" "http://127.0.0.1:9/"; do
    rc=0
    timeout 120 "${C[@]}" "${R[@]}" install --manifest /m.json --cudnn $V --mirror "$bad" --prefix /opt/p2 \
        --no-validate --no-ldconfig >"$T/o" 2>&1 || rc=$?
    [ $rc = 10 ] || { cat "$T/o" >&2; fail "--mirror $bad: exit $rc, want 10"; }
    hasnt "$T/o" "looks offline"
    hasnt "$T/o" "use --mirror DIR\|URL"
    has "$T/o" "check the --mirror URL"
done
# the fix: a local copy (the served dir is laid out as a mirror)
run 0 "$T/o" "${R[@]}" install --manifest /m.json --cudnn $V --mirror "$W" --prefix /opt/p2 --no-validate --no-ldconfig

# ---- --mirror URL without the archive -------------------------------------------------------------------
mkdir -p "$T/empty"
serve "$T/empty" "$T/port2"
E="http://127.0.0.1:$(cat "$T/port2")/"
# the unpacked store holds this verified archive from /opt/p2 and would serve it: emptied first
run 0 "$T/o" --root "$T/r" cache clean
run 10 "$T/o" "${R[@]}" install --manifest /m.json --cudnn $V --mirror "$E" --prefix /opt/p3 --no-validate --no-ldconfig
has "$T/o" "the mirror does not have this archive; fill it with \`cudnnctl mirror --to DIR\`"
hasnt "$T/o" "point --mirror at a mirror"
# the fix: fill a mirror dir (here from the good server) and install from it
run 0 "$T/o" "${R[@]}" mirror --to /srv/m --manifest /m.json --cudnn $V --mirror "$U/"
run 0 "$T/o" "${R[@]}" install --manifest /m.json --cudnn $V --mirror /srv/m --prefix /opt/p3 --no-validate --no-ldconfig

# ---- --dry-run by a user who cannot write the target -------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    mkdir -p "$T/nh" "$T/rootonly"
    chmod 755 "$T" "$T/rootonly"
    chown 65534:65534 "$T/nh"
    chmod o+r "$A"
    N=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/nh" XDG_STATE_HOME="$T/nh/st"
       XDG_CACHE_HOME="$T/nh/ca" "$CUDNNCTL" --no-progress)
    args=(install --cuda 13 --archive "$A" --sha256 "$SHA" --no-validate)
    rc=0; "${N[@]}" "${args[@]}" --dry-run --prefix "$T/rootonly/px" >"$T/o" 2>&1 || rc=$?
    [ $rc = 9 ] || { cat "$T/o" >&2; fail "a dry run into a dir the user cannot write: exit $rc, want 9"; }
    has "$T/o" "--dry-run: the real install would fail: .* $T/rootonly cannot be written \(Permission denied\)"
    has "$T/o" "choose a place you own with --prefix DIR"
    rc=0; "${N[@]}" "${args[@]}" --prefix "$T/rootonly/px" >"$T/o" 2>&1 || rc=$?
    [ $rc = 9 ] || { cat "$T/o" >&2; fail "the real run the dry run predicted to fail: exit $rc, want 9"; }
    [ -z "$(ls -A "$T/rootonly")" ] || fail "the refused runs left files in the target: $(ls -A "$T/rootonly")"
    # the fix: a prefix of one's own — the dry run says so, and the real run does it
    "${N[@]}" "${args[@]}" --dry-run --prefix "$T/nh/px" >"$T/o" 2>&1 || { cat "$T/o" >&2; fail "dry run into the user's own prefix"; }
    has "$T/o" "result +dry-run"
    [ ! -e "$T/nh/px" ] || fail "the dry run wrote the prefix"
    "${N[@]}" "${args[@]}" --prefix "$T/nh/px" >"$T/o" 2>&1 || { cat "$T/o" >&2; fail "the real run into the user's own prefix"; }
    [ -e "$T/nh/px/current/lib/libcudnn.so.9" ] || fail "no libcudnn.so.9 in the user's prefix"
else
    echo "not root or no setpriv: the --dry-run part is not run" >&2
fi
echo "ok: messages name fixes that fit, and the fixes work"
