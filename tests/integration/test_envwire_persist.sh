#!/usr/bin/env bash
# test_envwire_persist.sh: env --persist / --remove through the CLI under a fake root: the user's
# env files and one marked rc line (added once, sourced by a real interactive bash and by fish,
# following a later `use`), the refusal of a persistent LD_LIBRARY_PATH, and the system files
# (/etc/profile.d/cudnnctl.sh read by dash, /etc/ld.so.conf.d/cudnnctl-*.conf rewritten by use).
set -euo pipefail
. "$(dirname "$0")/envwire_lib.sh"
need fish
need dash
R=$T/root
mk_root "$R"
ln -s cuda-13.0 "$R/usr/local/cuda"
export HOME=/home/u SHELL=/bin/bash
printf '# my bashrc\nexport EDITOR=vi\n' >"$R/home/u/.bashrc"
mkdir -p "$R/home/u/.config/fish"
printf 'set -gx EDITOR vi\n' >"$R/home/u/.config/fish/config.fish"

C env --persist >"$T/out" || fail "env --persist: $(cat "$T/out")"
C env --persist >/dev/null
[ "$(grep -c '# added by cudnnctl' "$R/home/u/.bashrc")" = 1 ] || fail "bashrc: $(cat "$R/home/u/.bashrc")"
[ "$(grep -c '# added by cudnnctl' "$R/home/u/.config/fish/config.fish")" = 1 ] || fail "config.fish"
[ "$(head -2 "$R/home/u/.bashrc")" = "$(printf '# my bashrc\nexport EDITOR=vi')" ] || fail "user lines changed"
[ ! -e "$R/home/u/.zshrc" ] || fail "no zshrc existed: none should be created"
grep -q "CUDA_HOME='/usr/local/cuda'" "$R/home/u/.config/cudnnctl/env.sh" ||
    fail "persistent activation should name /usr/local/cuda: $(cat "$R/home/u/.config/cudnnctl/env.sh")"

# a new interactive bash / fish with that home picks it up (paths are the root's, as strings)
p=$(HOME=$R/home/u PATH=/usr/bin:/bin bash -i -c 'printf %s "$PATH"' 2>/dev/null)
[ "$p" = "/usr/local/cuda/bin:/usr/bin:/bin" ] || fail "interactive bash PATH: $p"
p=$(HOME=$R/home/u XDG_CONFIG_HOME=$R/home/u/.config PATH=/usr/bin:/bin fish -c 'printf %s "$CUDA_HOME"')
[ "$p" = "/usr/local/cuda" ] || fail "fish CUDA_HOME: $p"
# `use` moves /usr/local/cuda: the persisted text needs no rewrite
C use 12.4 >/dev/null
grep -q "CUDA_HOME='/usr/local/cuda'" "$R/home/u/.config/cudnnctl/env.sh" || fail "env.sh changed by use"

# a pinned persist names the version
C env --persist --shell bash 11.8 >/dev/null
grep -q "CUDA_HOME='/usr/local/cuda-11.8'" "$R/home/u/.config/cudnnctl/env.sh" || fail "pinned 11.8"
[ "$(grep -c '# added by cudnnctl' "$R/home/u/.bashrc")" = 1 ] || fail "bashrc line doubled"

set +e
C env --persist --ld-library-path >/dev/null 2>"$T/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "ld.so.conf.d" "$T/err" || fail "--persist --ld-library-path: rc $rc $(cat "$T/err")"

C env --remove >"$T/out"
grep -q '# added by cudnnctl' "$R/home/u/.bashrc" "$R/home/u/.config/fish/config.fish" && fail "lines left"
[ "$(cat "$R/home/u/.bashrc")" = "$(printf '# my bashrc\nexport EDITOR=vi')" ] || fail "bashrc after remove"
[ ! -e "$R/home/u/.config/cudnnctl" ] || fail "~/.config/cudnnctl left behind"
C env --remove | grep -q "nothing to remove" || fail "second --remove"

# ---- system ----------------------------------------------------------------------------------
C use 13.0 >/dev/null
C env --persist --system >"$T/out" || fail "env --persist --system: $(cat "$T/out")"
grep -q "ldconfig -r $R" "$T/out" || fail "under --root the ldconfig step is named, not run: $(cat "$T/out")"
p=$(env -u CUDNNCTL_ENV PATH=/usr/bin:/bin dash -c ". '$R/etc/profile.d/cudnnctl.sh'; printf %s \"\$PATH|\$CUDA_HOME\"")
[ "$p" = "/usr/local/cuda/bin:/usr/bin:/bin|/usr/local/cuda" ] || fail "profile.d in dash: $p"
conf=$R/etc/ld.so.conf.d/cudnnctl-cuda-13.0.conf
[ "$(grep -v '^#' "$conf")" = /usr/local/cuda-13.0/lib64 ] || fail "ld.so.conf.d: $(cat "$conf")"
C use 12.4 >"$T/out"
[ ! -e "$conf" ] || fail "use 12.4 left the 13.0 entry"
[ "$(grep -v '^#' "$R/etc/ld.so.conf.d/cudnnctl-cuda-12.4.conf")" = /usr/local/cuda-12.4/lib64 ] ||
    fail "use 12.4 did not rewrite ld.so.conf.d"
C env --remove --system >/dev/null
ls "$R/etc/ld.so.conf.d" | grep -q cudnnctl && fail "ld.so.conf.d entry left"
[ ! -e "$R/etc/profile.d/cudnnctl.sh" ] || fail "profile.d left"
echo "ok"
