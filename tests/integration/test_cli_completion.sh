#!/usr/bin/env bash
# test_cli_completion.sh: the bash, zsh and fish completions (src/cli/completions/), driven by the
# real shells: bash through complete -p and COMP_WORDS/COMP_LINE with the completion function,
# zsh interactively in tmux (compinit, then TAB), fish through complete -C. Commands, options of
# the command at hand, and values: shells, colors, platforms and cuDNN versions from the catalog,
# toolkit versions from detect (a fake root), versions installed by cudnnctl (receipts), dirs.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
T=$(mktemp -d)
SOCK=cc-comp-$$
cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
D=$SOURCE_DIR/src/cli/completions
mkdir -p "$T/bin"
ln -s "$CUDNNCTL" "$T/bin/cudnnctl"
export PATH="$T/bin:$PATH"
cli_make_root "$T/r"
mkdir -p "$T/r/www" "$T/dirs/alpha" "$T/dirs/beta"

# one install by cudnnctl, for the installed-versions completion
cli_make_archive "$T/r/www" 9.98.0.1
cli_make_manifest "$T/r/www" 9.98.0.1 "$T/r/m.json"
cudnnctl --root "$T/r" --state-dir "$T/state" --cache-dir "$T/cache" --no-progress install --manifest /m.json \
    --cudnn 9.98.0.1 --mirror /www --prefix /opt/px --no-validate --no-ldconfig >/dev/null 2>&1 ||
    fail "the install the installed-versions completion needs"

# ---- bash ------------------------------------------------------------------------------------------
bcomp() { # WORDS... (COMP_WORDS as bash splits them; the last is the word at the cursor)
    bash --norc --noprofile -c '
        source "$1"; shift
        complete -p cudnnctl
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        COMP_LINE=$LINE; COMP_POINT=${#COMP_LINE}
        _cudnnctl
        printf "%s\n" "${COMPREPLY[@]}"' _ "$D/cudnnctl.bash" "$@"
}
bhas() { # EXPECTED-WORDS -- WORDS...
    local want=$1; shift 2
    LINE="$*" bcomp "$@" >"$T/b" || fail "bash completion of '$*' failed"
    grep -qx 'complete -F _cudnnctl cudnnctl' "$T/b" || fail "complete -p cudnnctl: $(head -1 "$T/b")"
    for w in $want; do grep -qx -- "$w" "$T/b" || fail "bash: '$*' does not offer '$w': $(tail -n +2 "$T/b" | tr '\n' ' ')"; done
}
bhas "install" -- cudnnctl ins
bhas "detect doctor" -- cudnnctl d
bhas "--cudnn --cuda --cuda-home" -- cudnnctl plan --cud
! LINE="cudnnctl detect --" bcomp cudnnctl detect -- | grep -qx -- --archive || fail "bash offers install's --archive to detect"
bhas "bash zsh fish pwsh" -- cudnnctl env --shell ""
bhas "linux-sbsa" -- cudnnctl plan --platform linux-s
bhas "9.19 9.19.0.56 9.19.1.2" -- cudnnctl install --cudnn 9.19
bhas "13.0" -- cudnnctl --root "$T/r" use ""
bhas "13.0 13 12" -- cudnnctl --root "$T/r" plan --cuda ""
bhas "9.98.0.1" -- cudnnctl --state-dir "$T/state" uninstall --version ""
bhas "uninstall use" -- cudnnctl help u
bhas "$T/dirs/alpha $T/dirs/beta" -- cudnnctl install --prefix "$T/dirs/"
# "--color=al": bash splits the word at '=' (COMP_WORDBREAKS); the line keeps it whole
LINE="cudnnctl --color=al" bcomp cudnnctl --color = al | grep -qx always || fail "bash: --color=al"

# ---- fish --------------------------------------------------------------------------------------------
if command -v fish >/dev/null; then
    fcomp() { fish --no-config -c "source $D/cudnnctl.fish; complete -C '$1'" | cut -f1; }
    fcomp "cudnnctl ins" | grep -qx install || fail "fish: cudnnctl ins"
    fcomp "cudnnctl plan --cud" | grep -qx -- --cudnn || fail "fish: plan --cud"
    fcomp "cudnnctl env --shell " | grep -qx fish || fail "fish: env --shell"
    fcomp "cudnnctl --root $T/r use " | grep -qx 13.0 || fail "fish: use (toolkits from detect)"
    fcomp "cudnnctl install --cudnn 9.19.0" | grep -qx 9.19.0.56 || fail "fish: --cudnn 9.19.0"
    fcomp "cudnnctl install --prefix $T/dirs/a" | grep -qx "$T/dirs/alpha/" || fail "fish: --prefix DIR: $(fcomp "cudnnctl install --prefix $T/dirs/a")"
    fish --no-config -c "source $D/cudnnctl.fish; complete -C 'cudnnctl ins'" | grep -q $'^install\tfetch, verify' ||
        fail "fish: no description for install"
else
    echo "fish missing (scripts/bootstrap installs it)" >&2; exit 77
fi

# ---- zsh, interactively (compinit + TAB in a real terminal) -----------------------------------------------
command -v zsh >/dev/null && command -v tmux >/dev/null || { echo "zsh/tmux missing" >&2; exit 77; }
tmux -L "$SOCK" new-session -d -x 120 -y 30 \
    "env -i HOME=$T PATH=$PATH TERM=xterm zsh -f"
zsend() { tmux -L "$SOCK" send-keys -t 0 "$@"; }
zscreen() { tmux -L "$SOCK" capture-pane -p -N -t 0; }
zwait() { # PATTERN: wait for it on the screen
    for _ in $(seq 50); do zscreen | grep -q -- "$1" && return 0; sleep 0.1; done
    zscreen >&2; fail "zsh: '$1' not on the screen"
}
zsend "PS1='zsh%% '; fpath=($D \$fpath); autoload -U compinit; compinit -u -d $T/zcompdump; print ready" Enter
zwait '^ready'
zsend "clear" Enter
zsend "cudnnctl ins" Tab
zwait '^zsh% cudnnctl install $'
zsend C-u "cudnnctl --root $T/r use " Tab
zwait "^zsh% cudnnctl --root $T/r use 13.0 \$"
zsend C-u "cudnnctl env --shell " Tab
zwait 'pwsh'
zscreen | grep -q 'fish' || fail "zsh: env --shell lists no fish"
zsend C-c
sleep 0.3
zsend "clear" Enter
zwait '^zsh% $'
zsend "cudnnctl plan --cudnn 9.19.0." Tab
zwait '^zsh% cudnnctl plan --cudnn 9.19.0.56 $'
echo "ok: bash, fish and zsh complete commands, options and values"
