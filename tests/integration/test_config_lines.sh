#!/usr/bin/env bash
# test_config_lines.sh: the configuration files are read as KEY = VALUE only, and every problem
# names its file and line: "mirror http://x" (which inih alone reads as the key "mirror http")
# and "proxy: URL" are refused with the line that was meant, an unknown key gets a "did you
# mean" from the known ones, an unknown section its line; the value of a good line after them
# still applies; writing the suggested line fixes it (config exits 0). `config` shows the real
# defaults: the state dir (/var/lib/cudnnctl as root, else $XDG_STATE_HOME/cudnnctl) and the
# cache dir as paths (under --root, the root's), never "-".
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=python3
export XDG_CONFIG_HOME=$T/cfg HOME=$T/home XDG_CACHE_HOME=$T/xc XDG_STATE_HOME=$T/xs
unset CUDNNCTL_MIRROR CUDNNCTL_PROXY CUDNNCTL_CACHE_DIR CUDNNCTL_STATE_DIR CUDNNCTL_CACERT CUDNNCTL_PREFIX CUDNNCTL_MANIFEST_BASE_URL
mkdir -p "$T/cfg/cudnnctl" "$T/home"
F=$T/cfg/cudnnctl/config
cat >"$F" <<'INI'
# cudnnctl settings
mirror http://mirror.example/cudnn

mirorr = http://y
proxy: http://proxy.example:3128
[other]
cache-dir = /nowhere
[cudnnctl]
prefix = /opt/from-file
INI
rc=0
"$CUDNNCTL" config >"$T/out" 2>"$T/err" || rc=$?
[ $rc = 1 ] || { cat "$T/err" >&2; fail "config with problems exited $rc, want 1"; }
grep -qF "$F:2: 'mirror http://mirror.example/cudnn' is not KEY = VALUE (only '=' separates a key from its value: write 'mirror = http://mirror.example/cudnn')" "$T/err" ||
    { cat "$T/err" >&2; fail "line 2 (mirror URL) not named with the line meant"; }
grep -qF "$F:4: unknown key 'mirorr'; did you mean 'mirror'?" "$T/err" || { cat "$T/err" >&2; fail "line 4: no suggestion"; }
grep -qF "$F:5: 'proxy: http://proxy.example:3128' is not KEY = VALUE" "$T/err" || { cat "$T/err" >&2; fail "line 5 (key: value) accepted"; }
grep -qF "$F:7: [other]: unknown section" "$T/err" || { cat "$T/err" >&2; fail "line 7: the section's line"; }
! grep -q "mirror http" "$T/out" || fail "a key 'mirror http' was made"
"$CUDNNCTL" config --json >"$T/j" 2>/dev/null || true
"$PY" - "$T/j" <<'PY' || fail "config --json (above)"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["values"]
assert v["prefix"]["value"] == "/opt/from-file" and v["prefix"]["origin"] == "user", v["prefix"]
assert v["mirror"]["value"] is None and v["proxy"]["value"] is None, (v["mirror"], v["proxy"])
assert "mirror http" not in v
assert all(":" in p.split(" ")[0] for p in d["problems"]), d["problems"]  # FILE:LINE: each
PY
# the fix: the lines as suggested
cat >"$F" <<'INI'
# cudnnctl settings
mirror = http://mirror.example/cudnn

mirror = http://y
proxy = http://proxy.example:3128
[cudnnctl]
prefix = /opt/from-file
INI
"$CUDNNCTL" config --json >"$T/j" 2>"$T/err" || { cat "$T/err" >&2; fail "the suggested lines still fail"; }
"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1]))["values"]; assert v["mirror"]["value"]=="http://y" and v["proxy"]["value"]=="http://proxy.example:3128", v' "$T/j" ||
    fail "the fixed lines do not apply"

# ---- real defaults -------------------------------------------------------------------------------------
rm -f "$F"
"$CUDNNCTL" config >"$T/out"
want_state=$T/xs/cudnnctl
[ "$(id -u)" = 0 ] && want_state=/var/lib/cudnnctl
grep -Eq "^state-dir +$want_state +default " "$T/out" || { cat "$T/out" >&2; fail "state-dir default is not $want_state"; }
want_cache=$T/xc/cudnnctl
[ "$(id -u)" = 0 ] && want_cache=/var/cache/cudnnctl # root's cache is the system's (security.md)
grep -Eq "^cache-dir +$want_cache +default " "$T/out" || { cat "$T/out" >&2; fail "cache-dir default is not $want_cache"; }
! grep -Eq '^[a-z-]+ +- ' "$T/out" || { cat "$T/out" >&2; fail "a default shown as '-'"; }
mkdir -p "$T/r"
"$CUDNNCTL" --root "$T/r" config --json | "$PY" -c '
import json, sys
v = json.load(sys.stdin)["values"]
assert v["state-dir"]["default"] == sys.argv[1] + sys.argv[2], v["state-dir"]
assert v["state-dir"]["value"] is None and v["state-dir"]["origin"] == "default"' "$T/r" "$want_state" ||
    fail "under --root the state dir default is not the root's"
echo "ok: KEY = VALUE only, problems with their lines, suggestions, real defaults"
