#!/usr/bin/env bash
# test_envwire_shells.sh: the activation `cudnnctl env` prints, evaluated by real bash, zsh, dash
# and fish: evaluating it twice gives the same PATH as once; switching 12.4 -> 13.0 drops 12.4's
# entries (and those of 11.8 that the user had, a managed version) and keeps the user's own entries
# in order; LD_LIBRARY_PATH only with --ld-library-path, and cleaned on every switch.
set -euo pipefail
. "$(dirname "$0")/envwire_lib.sh"
for s in bash zsh dash fish; do need "$s"; done
R=$T/root
mk_root "$R"
ln -s cuda-13.0 "$R/usr/local/cuda"
USERPATH=/home/u/bin:/usr/local/cuda-11.8/bin:/usr/bin:/usr/local/cuda-12.4/bin:/bin
USERLD=/opt/mine/lib
export CUDNNCTL R

check() { # check SHELL LABEL GOT WANT
    [ "$3" = "$4" ] || fail "$1: $2
  got:  $3
  want: $4"
}

# POSIX shells: the same text for sh / bash / zsh (each shell asks for its own name)
for sh in bash zsh dash; do
    name=$sh
    [ $sh = dash ] && name=sh
    out=$(env PATH="$USERPATH" LD_LIBRARY_PATH="$USERLD" SHELL_NAME=$name "$sh" -c '
        a() { "$CUDNNCTL" --root "$R" env --shell "$SHELL_NAME" "$@"; }
        eval "$(a 12.4)"; p1=$PATH
        eval "$(a 12.4)"; p2=$PATH
        eval "$(a --ld-library-path 13.0)"; p3=$PATH; l3=$LD_LIBRARY_PATH; h3=$CUDA_HOME
        eval "$(a --ld-library-path 13.0)"; p4=$PATH; l4=$LD_LIBRARY_PATH
        eval "$(a 12.4)"; p5=$PATH; l5=${LD_LIBRARY_PATH-unset}
        eval "$(a)"; p6=$PATH; h6=$CUDA_PATH
        eval "$(a)"; p7=$PATH
        left=$(set | grep -c "^__cudnnctl_" || true)
        printf "%s\n" "$p1" "$p2" "$p3" "$l3" "$h3" "$p4" "$l4" "$p5" "$l5" "$p6" "$h6" "$p7" "$left"
    ' 2>"$T/err") || fail "$sh: evaluation failed: $(cat "$T/err")"
    [ -s "$T/err" ] && fail "$sh printed errors: $(cat "$T/err")"
    mapfile -t v <<<"$out"
    check $sh "once" "${v[0]}" "/usr/local/cuda-12.4/bin:/home/u/bin:/usr/bin:/bin"
    check $sh "twice = once" "${v[1]}" "${v[0]}"
    check $sh "switch to 13.0" "${v[2]}" "/usr/local/cuda-13.0/bin:/home/u/bin:/usr/bin:/bin"
    check $sh "LD_LIBRARY_PATH with --ld-library-path" "${v[3]}" "/usr/local/cuda-13.0/lib64:/opt/mine/lib"
    check $sh "CUDA_HOME" "${v[4]}" "/usr/local/cuda-13.0"
    check $sh "13.0 twice = once" "${v[5]}" "${v[2]}"
    check $sh "LD twice = once" "${v[6]}" "${v[3]}"
    check $sh "back to 12.4" "${v[7]}" "${v[0]}"
    check $sh "LD cleaned without --ld-library-path" "${v[8]}" "/opt/mine/lib"
    check $sh "default target (the active toolkit)" "${v[9]}" "/usr/local/cuda-13.0/bin:/home/u/bin:/usr/bin:/bin"
    check $sh "CUDA_PATH" "${v[10]}" "/usr/local/cuda-13.0"
    check $sh "default twice = once" "${v[11]}" "${v[9]}"
    check $sh "no helper variables left" "${v[12]}" "0"
    echo "$sh: ok"
done

# the acceptance form, literally: eval "$(cudnnctl env --shell bash)" twice == once
out=$(env PATH="$USERPATH" bash -c '
    cudnnctl() { "$CUDNNCTL" --root "$R" "$@"; }
    eval "$(cudnnctl env --shell bash)"; once=$PATH
    eval "$(cudnnctl env --shell bash)"; [ "$PATH" = "$once" ] && echo same || echo "differs: $once / $PATH"')
[ "$out" = same ] || fail "bash acceptance: $out"

# fish: | source, the same expectations
out=$(env PATH="$USERPATH" LD_LIBRARY_PATH="$USERLD" fish -c '
    function a; $CUDNNCTL --root $R env --shell fish $argv; end
    a 12.4 | source; set p1 "$PATH"
    a 12.4 | source; set p2 "$PATH"
    a --ld-library-path 13.0 | source; set p3 "$PATH"; set l3 "$LD_LIBRARY_PATH"; set h3 $CUDA_HOME
    a --ld-library-path 13.0 | source; set p4 "$PATH"
    a 12.4 | source; set p5 "$PATH"; set l5 "$LD_LIBRARY_PATH"
    a | source; set p6 "$PATH"
    a | source; set p7 "$PATH"
    set -q __cudnnctl_keep; or set -q __cudnnctl_drop; set left $status
    printf "%s\n" $p1 $p2 $p3 $l3 $h3 $p4 $p5 $l5 $p6 $p7 $left
    # the exported values other programs see
    env | grep -E "^(PATH|CUDNNCTL_ENV)=" | sort
' 2>"$T/err") || fail "fish: evaluation failed: $(cat "$T/err")"
[ -s "$T/err" ] && fail "fish printed errors: $(cat "$T/err")"
mapfile -t v <<<"$out"
# fish (3.x) joins a quoted path variable with colons
check fish "once" "${v[0]}" "/usr/local/cuda-12.4/bin:/home/u/bin:/usr/bin:/bin"
check fish "twice = once" "${v[1]}" "${v[0]}"
check fish "switch to 13.0" "${v[2]}" "/usr/local/cuda-13.0/bin:/home/u/bin:/usr/bin:/bin"
check fish "LD_LIBRARY_PATH" "${v[3]}" "/usr/local/cuda-13.0/lib64:/opt/mine/lib"
check fish "CUDA_HOME" "${v[4]}" "/usr/local/cuda-13.0"
check fish "13.0 twice = once" "${v[5]}" "${v[2]}"
check fish "back to 12.4" "${v[6]}" "${v[0]}"
check fish "LD cleaned" "${v[7]}" "/opt/mine/lib"
check fish "default target" "${v[8]}" "/usr/local/cuda-13.0/bin:/home/u/bin:/usr/bin:/bin"
check fish "default twice = once" "${v[9]}" "${v[8]}"
check fish "no helper variables left" "${v[10]}" "1"
check fish "exported CUDNNCTL_ENV" "${v[11]}" "CUDNNCTL_ENV=/usr/local/cuda-13.0"
check fish "exported PATH" "${v[12]}" "PATH=/usr/local/cuda-13.0/bin:/home/u/bin:/usr/bin:/bin"
echo "fish: ok"

# a bash session switched by fish's export and back: CUDNNCTL_ENV carries over between shells
out=$(env PATH="$USERPATH" fish -c '$CUDNNCTL --root $R env --shell fish 12.4 | source
    exec bash -c "eval \"\$(\"\$CUDNNCTL\" --root \"\$R\" env --shell bash 13.0)\"; printf %s \"\$PATH\""')
check "fish -> bash" "switch" "$out" "/usr/local/cuda-13.0/bin:/home/u/bin:/usr/bin:/bin"

# --json: the selection
j=$(C --json env 12.4)
[ "$(echo "$j" | json_get 'd["toolkit"]["path"], d["path_prepend"], d["lib_dirs"]')" = \
  "('/usr/local/cuda-12.4', ['/usr/local/cuda-12.4/bin'], ['/usr/local/cuda-12.4/lib64'])" ] ||
    fail "env --json: $j"
# usage errors
set +e
C env --shell tcsh >/dev/null 2>&1; [ $? -eq 2 ] || fail "--shell tcsh should be a usage error"
C env 12.9 >/dev/null 2>"$T/err"; rc=$?
set -e
[ $rc -eq 5 ] && grep -q "13.0 (/usr/local/cuda-13.0)" "$T/err" || fail "env 12.9: rc $rc $(cat "$T/err")"
echo "ok"
