#!/usr/bin/env bash
# test_envwire_build.sh: what the activation gives builds (docs/build.md), evaluated by real bash,
# zsh, dash and fish over a fake root with a cudnnctl prefix: CPATH, LIBRARY_PATH,
# PKG_CONFIG_PATH and CMAKE_PREFIX_PATH get the cuDNN install's dirs and then the toolkit's in
# front of the user's own entries (kept, in order); twice = once; a switch to a toolkit without
# that cuDNN drops every entry of it and unsets the root variables that named it (CUDNN_PATH,
# CUDNN_HOME, ...) while a user's own value stays; no helper variable is left.
set -euo pipefail
. "$(dirname "$0")/envwire_lib.sh"
for s in bash zsh dash fish; do need "$s"; done
R=$T/root
mk_root "$R"
I=/opt/p/cudnn-9.19.0.56-cuda13
mkdir -p "$R$I/include" "$R$I/lib/pkgconfig" "$R$I/lib/cmake/CUDNN"
ln -s cudnn-9.19.0.56-cuda13 "$R/opt/p/current"
export CUDNNCTL R
check() { [ "$3" = "$4" ] || fail "$1: $2
  got:  $3
  want: $4"; }
U_CPATH=/home/u/include:/usr/local/cuda-12.4/include
U_LIB=/home/u/lib
U_PC=/home/u/lib/pkgconfig
WANT_CPATH="$I/include:/usr/local/cuda-13.0/include:/home/u/include"
WANT_LIB="$I/lib:/usr/local/cuda-13.0/lib64:/home/u/lib"
WANT_CM="$I:/usr/local/cuda-13.0"

for sh in bash zsh dash; do
    out=$(env CPATH="$U_CPATH" LIBRARY_PATH="$U_LIB" PKG_CONFIG_PATH="$U_PC" "$sh" -c '
        a() { "$CUDNNCTL" --root "$R" env --shell sh "$@"; }
        eval "$(a --prefix /opt/p)"; c1=$CPATH
        eval "$(a --prefix /opt/p)"; c2=$CPATH
        l2=$LIBRARY_PATH; p2=$PKG_CONFIG_PATH; m2=$CMAKE_PREFIX_PATH
        v2="$CUDNN_PATH $CUDNN_HOME $CUDNN_INCLUDE_DIR $CUDNN_LIB_DIR $LOCAL_CUDNN_PATH $CUDNN_INSTALL_PATH"
        CUDNN_HOME=/my/own; export CUDNN_HOME
        eval "$(a 12.4)"; c3=$CPATH; l3=$LIBRARY_PATH; p3=${PKG_CONFIG_PATH-unset}
        m3=${CMAKE_PREFIX_PATH-unset}; v3="${CUDNN_PATH-unset} ${CUDNN_HOME-unset} ${CUDNN_LIB_DIR-unset}"
        left=$(set | grep -c "^__cudnnctl_" || true)
        printf "%s\n" "$c1" "$c2" "$l2" "$p2" "$m2" "$v2" "$c3" "$l3" "$p3" "$m3" "$v3" "$left"
    ' 2>"$T/err") || fail "$sh: evaluation failed: $(cat "$T/err")"
    [ -s "$T/err" ] && fail "$sh printed errors: $(cat "$T/err")"
    mapfile -t v <<<"$out"
    check $sh "CPATH" "${v[0]}" "$WANT_CPATH"
    check $sh "twice = once" "${v[1]}" "${v[0]}"
    check $sh "LIBRARY_PATH" "${v[2]}" "$WANT_LIB"
    check $sh "PKG_CONFIG_PATH" "${v[3]}" "$I/lib/pkgconfig:/home/u/lib/pkgconfig"
    check $sh "CMAKE_PREFIX_PATH" "${v[4]}" "$WANT_CM"
    check $sh "root variables" "${v[5]}" "$I $I $I/include $I/lib $I $I"
    check $sh "12.4: CPATH" "${v[6]}" "/usr/local/cuda-12.4/include:/home/u/include"
    check $sh "12.4: LIBRARY_PATH" "${v[7]}" "/usr/local/cuda-12.4/lib64:/home/u/lib"
    check $sh "12.4: PKG_CONFIG_PATH (the user's)" "${v[8]}" "/home/u/lib/pkgconfig"
    check $sh "12.4: CMAKE_PREFIX_PATH" "${v[9]}" "/usr/local/cuda-12.4"
    check $sh "12.4: root variables unset, the user's CUDNN_HOME kept" "${v[10]}" "unset /my/own unset"
    check $sh "no helper variables left" "${v[11]}" "0"
    echo "$sh: ok"
done

out=$(env CPATH="$U_CPATH" LIBRARY_PATH="$U_LIB" PKG_CONFIG_PATH="$U_PC" fish -c '
    function a; $CUDNNCTL --root $R env --shell fish $argv; end
    a --prefix /opt/p | source; set c1 "$CPATH"
    a --prefix /opt/p | source; set c2 "$CPATH"; set l2 "$LIBRARY_PATH"; set m2 "$CMAKE_PREFIX_PATH"
    set v2 "$CUDNN_PATH $CUDNN_LIBRARY_PATH"
    set -gx CUDNN_HOME /my/own
    a 12.4 | source; set c3 "$CPATH"
    set -q CUDNN_PATH; and set p3 $CUDNN_PATH; or set p3 unset
    printf "%s\n" $c1 $c2 $l2 $m2 $v2 $c3 $p3 $CUDNN_HOME
    env | grep -E "^(CPATH|CMAKE_PREFIX_PATH)=" | sort
' 2>"$T/err") || fail "fish: evaluation failed: $(cat "$T/err")"
[ -s "$T/err" ] && fail "fish printed errors: $(cat "$T/err")"
mapfile -t v <<<"$out"
check fish "CPATH" "${v[0]}" "$WANT_CPATH"
check fish "twice = once" "${v[1]}" "${v[0]}"
check fish "LIBRARY_PATH" "${v[2]}" "$WANT_LIB"
check fish "CMAKE_PREFIX_PATH" "${v[3]}" "$WANT_CM"
check fish "root variables" "${v[4]}" "$I $I/lib"
check fish "12.4: CPATH" "${v[5]}" "/usr/local/cuda-12.4/include:/home/u/include"
check fish "12.4: CUDNN_PATH unset" "${v[6]}" "unset"
check fish "12.4: the user's CUDNN_HOME" "${v[7]}" "/my/own"
check fish "exported CMAKE_PREFIX_PATH" "${v[8]}" "CMAKE_PREFIX_PATH=/usr/local/cuda-12.4"
check fish "exported CPATH (colons)" "${v[9]}" "CPATH=/usr/local/cuda-12.4/include:/home/u/include"
echo "fish: ok"

# --json: the build section
j=$(C --json env --prefix /opt/p)
[ "$(echo "$j" | json_get 'd["build"]["CPATH"], d["build"]["vars"]["CUDNN_PATH"], d["build"]["PKG_CONFIG_PATH"]')" = \
  "(['$I/include', '/usr/local/cuda-13.0/include'], '$I', ['$I/lib/pkgconfig'])" ] || fail "env --json build: $j"
# modulefiles: quoted statements, the conflict, whatis with the versions; nothing raw in comments
C env --shell lmod --prefix /opt/p >"$T/m.lua"
grep -qx 'conflict("cudnn")' "$T/m.lua" || fail "lmod: no conflict: $(cat "$T/m.lua")"
grep -qx 'whatis("Version: 9.19.0.56")' "$T/m.lua" || fail "lmod: no whatis version"
grep -qx "prepend_path(\"CPATH\", \"$I/include\")" "$T/m.lua" || fail "lmod: CPATH"
grep -qx "pushenv(\"CUDNN_PATH\", \"$I\")" "$T/m.lua" || fail "lmod: CUDNN_PATH"
if grep -E '^--' "$T/m.lua" | grep -q /opt/p; then fail "lmod: a path in a comment"; fi
C env --shell tcl --prefix /opt/p >"$T/m.tcl"
head -1 "$T/m.tcl" | grep -qx '#%Module1.0' || fail "tcl: no magic first line"
grep -qx 'conflict cudnn' "$T/m.tcl" || fail "tcl: no conflict"
grep -qx "prepend-path LIBRARY_PATH \"/usr/local/cuda-13.0/lib64\"" "$T/m.tcl" || fail "tcl: LIBRARY_PATH"
tclsh <<TCL || fail "tcl: the modulefile does not parse as Tcl"
proc module-whatis {a} {}; proc conflict {a} {}; proc setenv {a b} {}; proc prepend-path {a b} {}
source $T/m.tcl
TCL
# --persist --modulefiles / --remove (DIR is inside --root, like every path)
M=/opt/modules
C env --persist --modulefiles "$M" --prefix /opt/p >/dev/null
[ -f "$R$M/cudnn/9.19.0.56-cuda13.lua" ] || fail "--persist --modulefiles wrote no $M/cudnn/9.19.0.56-cuda13.lua"
grep -q "/opt/p/current" "$R$M/cudnn/9.19.0.56-cuda13.lua" && fail "a versioned modulefile follows PREFIX/current"
echo mine >"$R$M/cudnn/other.lua"
C env --remove --modulefiles "$M" >/dev/null
[ ! -e "$R$M/cudnn/9.19.0.56-cuda13.lua" ] && [ -f "$R$M/cudnn/other.lua" ] ||
    fail "--remove --modulefiles: $(ls "$R$M/cudnn")"
set +e
C env --modulefiles "$M" >/dev/null 2>&1; rc1=$?
C env --persist --shell lmod >/dev/null 2>&1; rc2=$?
C env --persist --modulefiles "$M" 12.4 >/dev/null 2>"$T/err"; rc3=$?
set -e
[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] || fail "usage errors: $rc1 $rc2"
[ $rc3 -eq 2 ] && grep -q "no cuDNN install" "$T/err" || fail "a modulefile without cuDNN: rc $rc3 $(cat "$T/err")"
echo ok
