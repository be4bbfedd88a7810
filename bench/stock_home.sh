# stock_home.sh (sourced by the benches): run a command as root whose passwd home is a stock one.
#
# cudnnctl's after-install check starts a login shell of the effective user (bash -lic from their
# passwd home: docs/which.md), so its cost is that user's start-up files'. As root on these
# machines those run `pyenv init` and rustup's env (~0.12 s alone). To time the default for a
# user whose files are Debian's stock ones (/etc/skel's .bashrc and .profile; /etc/profile.d as
# it is, Lmod's init among them), stock_home_runner makes a wrapper that runs its arguments in a
# mount namespace of their own (unshare -m) where a copy of /etc/passwd, root's home pointing to
# such a home, is bound over /etc/passwd. The machine's /etc is not touched; the wrapper's own
# cost (unshare, the bind mount, one sh) is in every time taken through it.
#
#   stock_home_runner HOME_DIR TMP_DIR  -> prints the wrapper's path, or nothing where unshare -m
#                                          or the bind mount does not work (not root, no unshare)
# HOME_DIR must have root-owned, not group/other-writable dirs all the way up (the login check
# runs no start-up file another user could have written: it would report "not run" instead).
stock_home_runner() {
  local home=$1 tmp=$2
  rm -rf "$home"; mkdir -p "$home"; chmod 755 "$home"
  cp /etc/skel/.bashrc /etc/skel/.profile "$home/"
  awk -F: -v OFS=: -v h="$home" '$3 == 0 { $6 = h } 1' /etc/passwd > "$tmp/passwd.stock"
  printf '#!/bin/sh\nexec unshare -m sh -c '\''mount --bind "$0" /etc/passwd && exec "$@"'\'' %s "$@"\n' \
    "$tmp/passwd.stock" > "$tmp/stock-home"
  chmod +x "$tmp/stock-home"
  if "$tmp/stock-home" sh -c 'getent passwd 0 | cut -d: -f6' 2>/dev/null | grep -qxF "$home"; then
    echo "$tmp/stock-home"
  fi
}

# stock_home_ran JSON: the install's --json output says a login shell really ran (effective_load's
# login entry, not "not run").
stock_home_ran() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=[e for e in d["effective_load"] if e["scope"]=="login"]; assert l and not l[0]["not_run"], d["effective_load"]' "$1"
}
