#!/usr/bin/env bash
# test_rootsafe_env_ctl.sh (issue 18): a control character in a path must never become a command.
# A prefix named $'x\ntouch PWNED\n' made `eval "$(cudnnctl env --prefix ...)"` run `touch PWNED`
# in bash, dash, zsh and fish (the comment line printed the path raw). Now:
#  - install --prefix / --cuda-home and env (--prefix, the target, --persist) refuse such a path
#    with exit 2, naming the option and the byte (\x0a), before writing anything;
#  - text that is only shown (a toolkit version read from its version.json, notes) is escaped in
#    the comments of every shell's activation (sh, bash, zsh, fish, pwsh, cmd) and of the
#    persisted files (/etc/profile.d/cudnnctl.sh, ~/.config/cudnnctl/env.sh);
#  - a managed dir with a control character (a detected toolkit) is left out of the text;
# and evaluating whatever was printed, in each shell, creates no file.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
for s in bash dash zsh fish; do command -v $s >/dev/null || { echo "no $s"; exit 77; }; done
T=$(mktemp -d /tmp/cudnnctl-rootsafe-ctl.XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config
unset LD_LIBRARY_PATH CUDNNCTL_ENV CUDA_HOME CUDA_PATH
mkdir -p "$HOME" "$T/cwd"
C=("$CUDNNCTL" --state-dir "$T/state" --cache-dir "$T/cache")
A=$(make_archive "$T" 9.19.0.99 "libcudnn libcudnn_graph" tiny)
NL=$'\n'
EVIL="x${NL}touch PWNED${NL}"

# no_pwned WHAT: the evaluation ran in $T/cwd, where nothing may appear
no_pwned() {
    local l
    l=$(ls -A "$T/cwd")
    [ -z "$l" ] || fail "$1: the evaluation created files: $l"
}

# clean_text FILE WHAT: no control byte but the newline ending each line, and no line that is
# the injected command
clean_text() {
    python3 - "$1" "$2" <<'PY' || fail "$2: control characters in the text"
import sys
b = open(sys.argv[1], "rb").read()
bad = [i for i, c in enumerate(b) if (c < 0x20 and c != 0x0a) or c == 0x7f]
assert not bad, (sys.argv[2], bad[:5], b[max(0, bad[0] - 40):bad[0] + 40])
assert b"\ntouch PWNED" not in b and not b.startswith(b"touch PWNED"), sys.argv[2]
PY
}

# evaluate SHELL FILE: as a user would (eval / source), in $T/cwd
evaluate() {
    case $1 in
    fish) (cd "$T/cwd" && fish -c "source '$2'") ;;
    *) (cd "$T/cwd" && "$1" -c 'eval "$(cat "$0")"' "$2") ;;
    esac
}

# 1. install refuses the prefix (and --cuda-home), before anything is made
set +e
"${C[@]}" install --prefix "$T/$EVIL" --archive "$A" --insecure-skip-verify --no-validate \
    --no-ldconfig >"$T/out" 2>"$T/err"
rc=$?
set -e
[ $rc = 2 ] || fail "install --prefix with a newline: exit $rc, want 2: $(cat "$T/err")"
grep -q -- '--prefix' "$T/err" && grep -qF '\x0a' "$T/err" || fail "the refusal must name --prefix and \\x0a: $(cat "$T/err")"
[ ! -e "$T/$EVIL" ] || fail "install created the refused prefix"
[ ! -d "$T/state" ] || [ -z "$(find "$T/state" -name '*.json')" ] || fail "install wrote a receipt"
mkdir -p "$T/tk$NL" && printf '{"cuda":{"version":"13.0.1"}}\n' >"$T/tk$NL/version.json"
set +e
"${C[@]}" install --cuda-home "$T/tk$NL" --archive "$A" --insecure-skip-verify --no-validate \
    --no-ldconfig >"$T/out" 2>"$T/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q -- '--cuda-home' "$T/err" && grep -qF '\x0a' "$T/err" ||
    fail "install --cuda-home with a newline: exit $rc: $(cat "$T/err")"
echo "install refuses: $(head -c 160 "$T/err")..."

# 2. env refuses it, in every shell; what is printed (nothing) evaluates to nothing
P=$T/$EVIL
mkdir -p "$P/cudnn-9.19.0.99-cuda13/lib" # made by hand: install refused it
for sh in bash sh zsh fish; do
    run=$sh
    [ $sh = sh ] && run=dash
    for form in prefix target persist; do
        case $form in
        prefix) args=(env --shell $sh --prefix "$P") ;;
        target) args=(env --shell $sh "$P") ;;
        persist) args=(env --persist --shell $sh --prefix "$P") ;;
        esac
        set +e
        "${C[@]}" "${args[@]}" >"$T/act" 2>"$T/err"
        rc=$?
        set -e
        [ $rc = 2 ] || fail "$sh env ($form) with a newline path: exit $rc: $(cat "$T/err")"
        grep -qF '\x0a' "$T/err" || fail "$sh env ($form): the refusal must show the byte: $(cat "$T/err")"
        [ ! -s "$T/act" ] || fail "$sh env ($form) printed activation text after refusing"
        evaluate $run "$T/act" || fail "$sh: evaluating the empty output failed"
        no_pwned "$sh env ($form)"
    done
    [ ! -e "$XDG_CONFIG_HOME/cudnnctl/env.sh" ] || fail "env --persist wrote env.sh for a refused path"
done
echo "env refuses the newline prefix in bash, dash, zsh, fish (--prefix, target, --persist)"

# 3. text that is shown, not set: a toolkit whose version.json carries a newline is escaped in the
# comment of every shell's text and of the persisted files
Q=$T/good
"${C[@]}" install --prefix "$Q" --archive "$A" --insecure-skip-verify --no-validate \
    --no-ldconfig >/dev/null 2>"$T/err" || fail "install into $Q: $(cat "$T/err")"
TK=$T/evil-tk
mkdir -p "$TK/bin" "$TK/lib64"
python3 -c 'import json,sys; json.dump({"cuda": {"name": "CUDA SDK", "version": "13.0\ntouch PWNED\n"}}, open(sys.argv[1], "w"))' "$TK/version.json"
for sh in bash sh zsh fish pwsh cmd; do
    "${C[@]}" env --shell $sh "$TK" --prefix "$Q" >"$T/act.$sh" 2>"$T/err" ||
        fail "env --shell $sh for a toolkit with a hostile version: $(cat "$T/err")"
    clean_text "$T/act.$sh" "env --shell $sh"
done
# (detect does not believe such a version: "(version ?)"; where one is shown, it is escaped:
# tests/unit/test_env_render.c, control_characters)
head -1 "$T/act.bash" | grep -qE 'CUDA (\(version \?\)|13\.0\\x0atouch PWNED)' ||
    fail "the version must be shown escaped or not at all: $(head -1 "$T/act.bash")"
for sh in bash dash zsh; do
    out=$(cd "$T/cwd" && $sh -c 'eval "$(cat "$0")"; printf "%s|%s" "$CUDA_HOME" "$CUDNNCTL_ENV"' "$T/act.${sh/dash/sh}" 2>"$T/err") ||
        fail "$sh: evaluating: $(cat "$T/err")"
    [ ! -s "$T/err" ] || fail "$sh printed errors: $(cat "$T/err")"
    [ "$out" = "$TK|$TK" ] || fail "$sh: the activation set $out"
    no_pwned "$sh with a hostile version"
done
out=$(cd "$T/cwd" && fish -c "source '$T/act.fish'; printf '%s|%s' \$CUDA_HOME (string join : -- \$CUDNNCTL_ENV)" 2>"$T/err") ||
    fail "fish: evaluating: $(cat "$T/err")"
[ "$out" = "$TK|$TK" ] || fail "fish: the activation set $out ($(cat "$T/err"))"
no_pwned "fish with a hostile version"
echo "a hostile version is shown escaped in sh, bash, zsh, fish, pwsh, cmd; evaluated, it runs nothing"

# the persisted files: the user's env.sh / env.fish, and /etc/profile.d under a fake root
"${C[@]}" env --persist --shell bash "$TK" --prefix "$Q" >/dev/null 2>"$T/err" || fail "env --persist: $(cat "$T/err")"
clean_text "$XDG_CONFIG_HOME/cudnnctl/env.sh" "env.sh"
clean_text "$XDG_CONFIG_HOME/cudnnctl/env.fish" "env.fish"
(cd "$T/cwd" && bash -c '. "$0"' "$XDG_CONFIG_HOME/cudnnctl/env.sh") || fail "sourcing env.sh"
no_pwned "env.sh"
R=$T/root
mkdir -p "$R/etc/fish" "$R/opt/tk"
cp -a "$TK/." "$R/opt/tk/"
"$CUDNNCTL" --root "$R" --state-dir "$T/rstate" env --persist --system /opt/tk >/dev/null 2>"$T/err" ||
    fail "env --persist --system under --root: $(cat "$T/err")"
clean_text "$R/etc/profile.d/cudnnctl.sh" "/etc/profile.d/cudnnctl.sh"
clean_text "$R/etc/fish/conf.d/cudnnctl.fish" "/etc/fish/conf.d/cudnnctl.fish"
(cd "$T/cwd" && dash -c '. "$0"' "$R/etc/profile.d/cudnnctl.sh") || fail "sourcing profile.d/cudnnctl.sh"
no_pwned "/etc/profile.d/cudnnctl.sh"
echo "persisted files (env.sh, env.fish, profile.d, fish conf.d) hold no control character"

# 4. a detected toolkit whose dir has a control character: not in the text (it is only a dir
# whose PATH entries would be dropped), the rest works
R2=$T/root2
mkdir -p "$R2/usr/local/cuda-12.4/bin" "$R2/usr/local/cuda-12.4/lib64" "$R2/usr/local/cuda-12.9${NL}touch PWNED/bin"
printf '{"cuda":{"version":"12.4.1"}}\n' >"$R2/usr/local/cuda-12.4/version.json"
printf '{"cuda":{"version":"12.9.1"}}\n' >"$R2/usr/local/cuda-12.9${NL}touch PWNED/version.json"
for sh in bash sh zsh fish pwsh cmd; do
    "$CUDNNCTL" --root "$R2" --state-dir "$T/rstate" env --shell $sh 12.4 >"$T/act2.$sh" 2>"$T/err" ||
        fail "env 12.4 beside a toolkit dir with a newline: $(cat "$T/err")"
    clean_text "$T/act2.$sh" "env --shell $sh (managed dir with a newline)"
done
for sh in bash dash zsh; do
    out=$(cd "$T/cwd" && PATH=/usr/bin:/bin $sh -c 'eval "$(cat "$0")"; printf %s "$PATH"' "$T/act2.${sh/dash/sh}") ||
        fail "$sh: evaluating"
    [ "$out" = "/usr/local/cuda-12.4/bin:/usr/bin:/bin" ] || fail "$sh: PATH $out"
    no_pwned "$sh beside a toolkit dir with a newline"
done
echo "a managed dir with a control character is left out; the rest evaluates as before"

# 5. nothing is written when a persisted file would get one: a lib dir whose real path has a
# newline (the ld.so.conf.d line), a config dir with one (the rc lines)
R3=$T/root3
mkdir -p "$R3/etc" "$R3/opt/p/cudnn-9.19.0.99-cuda13" "$R3/opt/real${NL}touch PWNED"
ln -s "../../real${NL}touch PWNED" "$R3/opt/p/cudnn-9.19.0.99-cuda13/lib"
set +e
"$CUDNNCTL" --root "$R3" --state-dir "$T/rstate" env --persist --system /opt/p >/dev/null 2>"$T/err"
rc=$?
set -e
[ $rc = 2 ] && grep -qF '\x0a' "$T/err" || fail "persist --system, a lib dir linked to a newline name: exit $rc: $(cat "$T/err")"
[ -z "$(find "$R3/etc" -type f)" ] || fail "persist --system wrote $(find "$R3/etc" -type f) before refusing"
rm -rf "$XDG_CONFIG_HOME" "$HOME/.bashrc"
touch "$HOME/.bashrc"
set +e
XDG_CONFIG_HOME="$T/cfg${NL}touch PWNED" "${C[@]}" env --persist --shell bash --prefix "$Q" >/dev/null 2>"$T/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q 'XDG_CONFIG_HOME' "$T/err" || fail "persist with a newline in XDG_CONFIG_HOME: exit $rc: $(cat "$T/err")"
[ ! -e "$T/cfg${NL}touch PWNED" ] && [ ! -s "$HOME/.bashrc" ] || fail "persist wrote files before refusing"
echo "persisting refuses before writing: a linked lib dir with a newline, a config dir with one"
echo "ok"
