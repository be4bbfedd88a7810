#!/usr/bin/env bash
# test_build_lmod.sh: the modulefile of `cudnnctl env --persist --modulefiles DIR` in the real
# Lmod (Debian's lmod): `module load cudnn/<version>-cuda<M>`, then a build (cc -lcudnn and
# pkg-config) and a run take the prefix's cuDNN 9.27 while the machine's 9.19 sits on the default
# paths as a decoy; `module unload` leaves the environment as it was (no trace of the prefix).
# The Tcl modulefile (--shell tcl) is loaded by Lmod the same way.
set -euo pipefail
. "$(dirname "$0")/build_lib.sh"
LMOD_INIT=$(ls /usr/share/lmod/lmod/init/bash /usr/share/lmod/*/init/bash 2>/dev/null | head -1 || true)
[ -n "$LMOD_INIT" ] || skip "Lmod is not installed (apt-get install lmod; scripts/bootstrap)"
install_p --prefix "$T/P"
cudnnctl env --persist --modulefiles "$T/mods" --prefix "$T/P" >/dev/null 2>&1 || fail "env --persist --modulefiles"
cudnnctl env --persist --modulefiles "$T/tmods" --shell tcl --prefix "$T/P" >/dev/null 2>&1 || fail "--shell tcl"
M=$T/mods/cudnn/9.27.0.42-cuda13.lua
[ -f "$M" ] && [ -f "$T/tmods/cudnn/9.27.0.42-cuda13" ] || fail "no modulefiles: $(find "$T/mods" "$T/tmods")"
cat >"$T/lmod.sh" <<'SH'
set -euo pipefail
T=$1; INIT=$2; MODS=$3
export PATH=$T/bin:/usr/local/bin:/usr/bin:/bin
source "$INIT"
export MODULEPATH=$MODS
snap() { env | grep -vE '^(_|SHLVL|OLDPWD|PWD|LMOD_[A-Z_]*|__LMOD_[A-Z_]*|_ModuleTable[A-Za-z0-9_]*|_LMFILES_|LOADEDMODULES|MODULEPATH_ROOT)=' | sort; }
snap >"$T/before"
module load cudnn/9.27.0.42-cuda13
module list 2>&1 | grep -o 'cudnn/[^ ]*'
echo "whatis: $(module whatis cudnn/9.27.0.42-cuda13 2>&1 | grep -o 'Version: .*')"
cd "$T" && cc t.c -o tl -lcudnn && echo "after module load: $(./tl)"
cc t.c -o tp $(pkg-config --cflags --libs cudnn) && echo "pkg-config: $(./tp)"
module unload cudnn
snap >"$T/after"
env | grep -F "$T/P" || echo "no trace of the prefix"
SH
decoy_ns "$T/lmod.sh" "$T" "$LMOD_INIT" "$T/mods" >"$T/out" 2>&1 || fail "$(cat "$T/out")"
cat "$T/out"
grep -qx "cudnn/9.27.0.42-cuda13" "$T/out" || fail "module list"
grep -qx "whatis: Version: 9.27.0.42" "$T/out" || fail "module whatis"
grep -qx "after module load: header 92700 runtime 92700" "$T/out" || fail "build + run after module load"
grep -qx "pkg-config: header 92700 runtime 92700" "$T/out" || fail "pkg-config build after module load"
grep -qx "no trace of the prefix" "$T/out" || fail "module unload left the prefix in the environment"
diff "$T/before" "$T/after" || fail "module unload did not restore the environment"
# the Tcl modulefile through Lmod
decoy_ns "$T/lmod.sh" "$T" "$LMOD_INIT" "$T/tmods" >"$T/out2" 2>&1 || fail "tcl: $(cat "$T/out2")"
grep -qx "after module load: header 92700 runtime 92700" "$T/out2" || fail "tcl: build + run: $(cat "$T/out2")"
grep -qx "no trace of the prefix" "$T/out2" || fail "tcl: module unload left the prefix: $(cat "$T/out2")"
diff "$T/before" "$T/after" >"$T/d2" || fail "tcl: module unload did not restore the environment: $(cat "$T/d2")"
# conflict: a second cuDNN module is refused while one is loaded
mkdir -p "$T/mods/cudnnx"
sed 's/9.27.0.42/0.0.0/' "$M" >"$T/mods/cudnnx/1.lua"
out=$(bash -c "source '$LMOD_INIT'; export MODULEPATH='$T/mods'; module load cudnn/9.27.0.42-cuda13; module load cudnnx/1 2>&1; module list 2>&1" || true)
echo "$out" | grep -q "Cannot load module \"cudnnx/1\" because" || fail "no conflict between two cuDNN modules: $out"
echo ok
