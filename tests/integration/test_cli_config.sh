#!/usr/bin/env bash
# test_cli_config.sh: configuration. /etc/cudnnctl/config (under --root), the user's
# $XDG_CONFIG_HOME/cudnnctl/config and CUDNNCTL_* variables, precedence flag > env > user >
# system shown by 'cudnnctl config' (and --json) with where each value came from; the values
# take effect (plan's URL uses the configured mirror, its target the configured prefix, the cache
# dir is the configured one, downloads go through the configured proxy); an unknown key is
# reported. 'cache list|verify|clean': blobs with sizes, a corrupted blob found by verify (exit 3),
# parts and quarantine listed, clean --dry-run removes nothing, clean removes everything.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
unset CUDNNCTL_MIRROR CUDNNCTL_MANIFEST_BASE_URL CUDNNCTL_CACERT CUDNNCTL_CACHE_DIR \
    CUDNNCTL_STATE_DIR CUDNNCTL_PROXY CUDNNCTL_PREFIX
export XDG_CONFIG_HOME=$T/xdg
cli_make_root "$T/r"
mkdir -p "$T/r/etc/cudnnctl" "$XDG_CONFIG_HOME/cudnnctl"
C=("$CUDNNCTL" --root "$T/r" --no-progress)
jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
origin() { # FILE KEY → "origin where value"
    jget "$1" "' '.join(str(x) for x in (d['values']['$2']['origin'], d['values']['$2']['where'], d['values']['$2']['value']))"
}

# ---- precedence ------------------------------------------------------------------------------------
printf '# fleet defaults\n[cudnnctl]\nmirror = http://system.example/redist/\nprefix = /opt/sys-cudnn\ncacert = /etc/sys.pem\n' \
    >"$T/r/etc/cudnnctl/config"
"${C[@]}" --json config >"$T/c1.json" || fail "config (system file only)"
[ "$(origin "$T/c1.json" mirror)" = "system $T/r/etc/cudnnctl/config http://system.example/redist/" ] ||
    fail "system file (under --root): $(origin "$T/c1.json" mirror)"
printf 'mirror = http://user.example/redist/\n' >"$XDG_CONFIG_HOME/cudnnctl/config"
"${C[@]}" --json config >"$T/c2.json"
[ "$(origin "$T/c2.json" mirror)" = "user $XDG_CONFIG_HOME/cudnnctl/config http://user.example/redist/" ] ||
    fail "user file over system: $(origin "$T/c2.json" mirror)"
[ "$(origin "$T/c2.json" prefix)" = "system $T/r/etc/cudnnctl/config /opt/sys-cudnn" ] || fail "system prefix kept"
CUDNNCTL_MIRROR=http://env.example/redist/ "${C[@]}" --json config >"$T/c3.json"
[ "$(origin "$T/c3.json" mirror)" = "env CUDNNCTL_MIRROR http://env.example/redist/" ] || fail "env over user: $(origin "$T/c3.json" mirror)"
CUDNNCTL_MIRROR=http://env.example/redist/ "${C[@]}" --json config --mirror http://flag.example/ >"$T/c4.json"
[ "$(origin "$T/c4.json" mirror)" = "flag --mirror http://flag.example/" ] || fail "flag over env: $(origin "$T/c4.json" mirror)"
CUDNNCTL_MIRROR=http://env.example/redist/ "${C[@]}" config >"$T/c.txt"
grep -Eq '^mirror +http://env.example/redist/ +env \(CUDNNCTL_MIRROR\)' "$T/c.txt" || fail "human config: $(cat "$T/c.txt")"
grep -Eq '^prefix +/opt/sys-cudnn +system ' "$T/c.txt" || fail "human config (prefix): $(cat "$T/c.txt")"

# ---- the values take effect ------------------------------------------------------------------------------
"${C[@]}" --json plan --cudnn 9.19.0.56 >"$T/p.json" 2>/dev/null || fail "plan with the configured mirror and prefix"
[ "$(jget "$T/p.json" "d['url']")" = "http://user.example/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz" ] ||
    fail "plan does not use the configured mirror: $(jget "$T/p.json" "d['url']")"
[ "$(jget "$T/p.json" "d['target']['mode'] + ' ' + d['target']['path']")" = "prefix /opt/sys-cudnn" ] ||
    fail "plan does not use the configured prefix: $(jget "$T/p.json" "d['target']")"
"${C[@]}" --json plan --cudnn 9.19.0.56 --cuda-home /usr/local/cuda-13.0 >"$T/p2.json" 2>/dev/null
[ "$(jget "$T/p2.json" "d['target']['mode']")" = cuda-tree ] || fail "--cuda-home does not win over the configured prefix"

# ---- a problem in a file is reported -----------------------------------------------------------------------
printf 'mirror = http://user.example/redist/\nmirorr = typo\n' >"$XDG_CONFIG_HOME/cudnnctl/config"
rc=0; "${C[@]}" config >"$T/o" 2>"$T/e" || rc=$?
[ $rc = 1 ] && grep -q "unknown key 'mirorr'" "$T/e" || fail "unknown key: rc=$rc $(cat "$T/e")"
"${C[@]}" detect >/dev/null 2>"$T/e" || true
grep -q "configuration: .*unknown key 'mirorr'" "$T/e" || fail "other commands do not warn about the unknown key"
rm -f "$XDG_CONFIG_HOME/cudnnctl/config" "$T/r/etc/cudnnctl/config"

# ---- cache dir and proxy from the environment; an install fills the cache -----------------------------------
V=9.96.0.1
cli_make_archive "$T/www" $V
cli_make_manifest "$T/www" $V "$T/r/m.json"
"$PY" "$SOURCE_DIR/tests/tools/httpd.py" --root "$T/www" --port-file "$T/port" --log "$T/http.log" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
P="http://127.0.0.1:$(cat "$T/port")"
export CUDNNCTL_CACHE_DIR=$T/cache CUDNNCTL_STATE_DIR=$T/state
# the mirror's host does not resolve: the bytes can only come through the proxy (httpd.py)
CUDNNCTL_PROXY=$P CUDNNCTL_MIRROR=http://mirror.invalid/ "${C[@]}" install --manifest /m.json --cudnn $V \
    --prefix /opt/px --no-validate --no-ldconfig >/dev/null 2>"$T/i.err" || { cat "$T/i.err" >&2; fail "install through the proxy"; }
grep -q '"path": "http://mirror.invalid/cudnn/linux-x86_64/' "$T/http.log" || fail "the download did not go through CUDNNCTL_PROXY: $(cat "$T/http.log")"
"${C[@]}" --json cache list >"$T/l.json" || fail "cache list"
[ "$(jget "$T/l.json" "d['dir']")" = "$T/cache" ] || fail "cache list: not CUDNNCTL_CACHE_DIR's dir"
SHA=$(jget "$T/r/m.json" "d['cudnn']['linux-x86_64']['cuda13']['sha256']")
SIZE=$(stat -c %s "$T/www/cudnn/linux-x86_64/cudnn-linux-x86_64-${V}_cuda13-archive.tar.xz")
[ "$(jget "$T/l.json" "[(e['sha256'], e['size']) for e in d['entries'] if e['kind'] == 'blob'] == [('$SHA', $SIZE)]")" = True ] ||
    fail "cache list: the blob with its hash and size: $(cat "$T/l.json")"
"${C[@]}" cache verify >"$T/v.txt" || fail "cache verify of a good blob"
grep -q "ok (matches its name)" "$T/v.txt" || fail "verify: $(cat "$T/v.txt")"
# a part, a quarantined file, and a blob that no longer matches its name
B=$T/cache/blobs/sha256/$SHA
head -c 100 /dev/zero >"$T/cache/blobs/sha256/$(printf '%064d' 7).part"
mkdir -p "$T/cache/quarantine" && echo junk >"$T/cache/quarantine/$(printf '%064d' 9)-x.tar.xz"
# (every bit of byte 100 flipped: writing a fixed byte leaves a blob whose byte was that one intact)
"$PY" -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(100); c = f.read(1)[0]; f.seek(100); f.write(bytes([c ^ 0xFF]))' "$B"
rc=0; "${C[@]}" cache verify >"$T/v2.txt" 2>"$T/v2.err" || rc=$?
[ $rc = 3 ] && grep -q MISMATCH "$T/v2.txt" || fail "verify of a corrupted blob: rc=$rc $(cat "$T/v2.txt" "$T/v2.err")"
"${C[@]}" cache list >"$T/l.txt"
for k in blob part quarantine; do grep -q "^$k " "$T/l.txt" || fail "cache list shows no $k: $(cat "$T/l.txt")"; done
"${C[@]}" cache clean --dry-run >"$T/d.txt"
[ "$(grep -c 'would remove' "$T/d.txt")" -ge 3 ] && [ -e "$B" ] || fail "clean --dry-run: $(cat "$T/d.txt")"
"${C[@]}" --json cache clean >"$T/cl.json" || fail "cache clean"
[ ! -e "$B" ] && [ -z "$(find "$T/cache" -type f -not -path '*/locks/*')" ] || fail "clean left files: $(find "$T/cache" -type f)"
[ "$(jget "$T/cl.json" "all(e['removed'] for e in d['entries'])")" = True ] || fail "clean --json"
"${C[@]}" cache list | grep -q '^0 entries' || fail "the cache is not empty after clean"
rc=0; "${C[@]}" cache purge 2>/dev/null || rc=$?
[ $rc = 2 ] || fail "cache purge: exit $rc"
echo "ok: config precedence, effect, problems; cache list, verify, clean"
