#!/usr/bin/env bash
# test_rootsafe_xdg.sh: issue 18 item 4 (its XDG part). A relative XDG_CONFIG_HOME,
# XDG_CACHE_HOME or XDG_STATE_HOME (or HOME) is ignored, as the XDG spec says: `sudo -E` with
# XDG_CONFIG_HOME=. in a directory a local user owns must not make root read that user's config
# (a mirror, a cache dir of theirs); an unprivileged user's relative XDG dirs do not land in the
# working directory either. An absolute one still works (the control: the same file is read).
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
. "$SOURCE_DIR/tests/integration/rootsafe_lib.sh"
rs_init
T=$RS_T
make_user EVE

# the attacker's working directory with a config that points root at the attacker's mirror
W=$EVE_HOME/work
mkdir -p "$W/cudnnctl" "$W/sub/cudnnctl"
printf 'mirror = http://attacker.invalid/\ncache-dir = %s/evilcache\n' "$W" > "$W/cudnnctl/config"
cp "$W/cudnnctl/config" "$W/sub/cudnnctl/config"
chown -R "$EVE:$EVE" "$W"
H=$T/roothome # root's HOME for these runs: nothing of the machine's is read or written
mkdir -p "$H"

cfg() { (cd "$W" && env HOME="$H" "$@" "$CUDNNCTL" config --json) > "$T/cfg.json"; }
for x in . sub ./sub "sub/../."; do
  cfg XDG_CONFIG_HOME="$x"
  json_assert "$T/cfg.json" 'd["values"]["mirror"]["origin"] == "default" and d["values"]["cache-dir"]["value"] is None'
  json_assert "$T/cfg.json" "all(f['path'].startswith('/') for f in d['files']) and '$H/.config/cudnnctl/config' in [f['path'] for f in d['files']]"
  json_assert "$T/cfg.json" "not any(f['path'].startswith('$W') for f in d['files'])"
done
# the control: given absolutely, the same file is read by its owner (so the check above can
# fail) — and root, whose config it is not, refuses it (exit 9: security.md, config files)
(cd "$W" && as_user "$EVE" env XDG_CONFIG_HOME="$W" "$CUDNNCTL" config --json) > "$T/cfg.json"
json_assert "$T/cfg.json" 'd["values"]["mirror"]["value"] == "http://attacker.invalid/" and d["values"]["mirror"]["origin"] == "user"'
set +e; (cd "$W" && env HOME="$H" XDG_CONFIG_HOME="$W" "$CUDNNCTL" config --json) > /dev/null 2> "$T/cfg.err"; rc=$?; set -e
[ $rc -eq 9 ] && grep -q "is not read" "$T/cfg.err" || { cat "$T/cfg.err"; fail "root read another user's config file (exit $rc)"; }

# a relative XDG_CACHE_HOME / HOME: the cache is where the (absolute) home says
# (as the user: root's cache is /var/cache/cudnnctl whatever the environment says)
(cd "$W" && as_user "$EVE" env XDG_CACHE_HOME=. "$CUDNNCTL" cache list --json) > "$T/cache.json"
json_assert "$T/cache.json" "d['dir'] == '$EVE_HOME/.cache/cudnnctl'"
(cd "$W" && as_user "$EVE" env XDG_CACHE_HOME="$W/abs" "$CUDNNCTL" cache list --json) > "$T/cache.json"
json_assert "$T/cache.json" "d['dir'] == '$W/abs/cudnnctl'"
(cd "$W" && HOME="$H" XDG_CACHE_HOME="$W/abs" "$CUDNNCTL" cache list --json) > "$T/cache.json"
json_assert "$T/cache.json" "d['dir'] == '/var/cache/cudnnctl'"

# ---- the unprivileged user: relative XDG_STATE_HOME / XDG_CACHE_HOME / HOME never land in the
# working directory; the install's receipt and cache are under the passwd home ----------------
A=$(make_archive "$T/arch" 9.99.0.1 "libcudnn")
chmod -R a+rX "$T/arch"
SHA=$(sha256sum "$A" | cut -c1-64)
as_user "$EVE" sh -c 'cd "$1" && shift && HOME=. XDG_STATE_HOME=. XDG_CACHE_HOME=sub XDG_CONFIG_HOME=. "$@"' \
  sh "$W" "$CUDNNCTL" --no-progress install --archive "$A" --sha256 "$SHA" --prefix "$EVE_HOME/p" \
  --no-validate --json > "$T/inst.json" 2> "$T/err" || { cat "$T/err"; fail "the user's install"; }
json_assert "$T/inst.json" 'd["result"] == "installed"'
ls "$EVE_HOME"/.local/state/cudnnctl/receipts/*.json >/dev/null 2>&1 ||
  { find "$EVE_HOME" >&2; fail "the receipt is not under the passwd home's ~/.local/state/cudnnctl"; }
as_user "$EVE" sh -c 'cd "$1" && HOME=. XDG_CACHE_HOME=sub "$2" cache list --json' sh "$W" "$CUDNNCTL" \
  > "$T/cache.json"
json_assert "$T/cache.json" "d['dir'] == '$EVE_HOME/.cache/cudnnctl'"
for d in "$W/cudnnctl/receipts" "$W/sub/cudnnctl/blobs" "$W/.local" "$W/.cache" "$W/evilcache"; do
  rs_expect_absent "$d" "a relative XDG dir was used: $d exists"
done
echo "PASS: relative XDG_CONFIG_HOME / XDG_CACHE_HOME / XDG_STATE_HOME / HOME are ignored (root and user); absolute ones work"
