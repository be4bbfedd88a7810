#!/usr/bin/env bash
# test_build_consumers.sh: after `eval "$(cudnnctl env --prefix P)"` alone, with a decoy cuDNN of
# another release (the machine's 9.19) on the compiler's DEFAULT include and library paths
# (/usr/local/include, /usr/local/lib in a private mount namespace: found without any flag, as
# the first step shows), each real consumer takes P's cuDNN 9.27: `cc t.c -lcudnn`,
# `cc t.c $(pkg-config --cflags --libs cudnn)`, find_package(CUDNN 9.19 CONFIG) + CUDNN::cudnn,
# and a CMake search the way cudnn-frontend's cmake/cuDNN.cmake does it (its hint variables, then
# the toolkit's dirs); each program prints P's version for the header and the loaded library.
# Then which --build and doctor (the planted split and its fix, silent when consistent),
# uninstall (the metadata goes with the install), and a CUDA-tree install's metadata.
set -euo pipefail
. "$(dirname "$0")/build_lib.sh"
install_p --prefix "$T/P"
I=$T/P/cudnn-9.27.0.42-cuda13
for f in lib/pkgconfig/cudnn.pc lib/pkgconfig/cudnn_graph.pc lib/cmake/CUDNN/CUDNNConfig.cmake \
         lib/cmake/CUDNN/CUDNNConfigVersion.cmake; do
    [ -f "$I/$f" ] || fail "the install has no $f"
    grep -q "\"$I/$f\"" "$T"/state/receipts/*.json || fail "the receipt does not own $f"
done
grep -qx 'Version: 9.27.0.42' "$I/lib/pkgconfig/cudnn.pc" || fail "cudnn.pc Version: $(cat "$I/lib/pkgconfig/cudnn.pc")"
grep -q 'cuda_includedir=/usr/local/cuda-13.0/include' "$I/lib/pkgconfig/cudnn.pc" || fail "cudnn.pc: no CUDA include dir"
mkdir -p "$T/cm" "$T/fe" "$T/cmx"
cat >"$T/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(t C)
find_package(CUDNN ${WANT} CONFIG REQUIRED)
message(STATUS "found CUDNN ${CUDNN_VERSION} at ${CUDNN_DIR}")
add_executable(t ${SRC})
target_link_libraries(t PRIVATE CUDNN::cudnn)
CM
# the search of cudnn-frontend's cuDNN.cmake, in our own words: cudnn.h and libcudnn with its
# hint variables (environment first), the Python wheel dir, then CUDAToolkit's dirs
cat >"$T/fe/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(fe C)
find_package(CUDAToolkit REQUIRED)
find_path(FE_INC cudnn.h HINTS $ENV{CUDNN_INCLUDE_PATH} $ENV{CUDNN_PATH} ${CUDAToolkit_INCLUDE_DIRS}
          PATH_SUFFIXES include REQUIRED)
find_library(FE_LIB NAMES cudnn libcudnn.so.9 NAMES_PER_DIR
             HINTS $ENV{CUDNN_LIBRARY_PATH} $ENV{CUDNN_PATH} ${CUDAToolkit_LIBRARY_DIR}
             PATH_SUFFIXES lib64 lib/x64 lib REQUIRED)
message(STATUS "frontend-style search: ${FE_INC} ${FE_LIB}")
add_executable(t ${SRC})
target_include_directories(t PRIVATE ${FE_INC})
target_link_libraries(t PRIVATE ${FE_LIB} CUDA::cudart)
CM
cat >"$T/cmx/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(x NONE)
find_package(CUDNN ${WANT} ${EXACT} CONFIG)
message(STATUS "CUDNN_FOUND=${CUDNN_FOUND}")
CM
cat >"$T/steps.sh" <<'SH'
set -euo pipefail
T=$1; I=$2
run() { local b=$1; shift; "$@" >"$T/$b.log" 2>&1 || { echo "FAIL $b: $(tail -20 "$T/$b.log")"; exit 1; }; }
cd "$T"
echo "== before the activation: the decoy is on the default paths"
cc t.c -o t0 -lcudnn && ./t0
echo "== eval \"\$(cudnnctl env --prefix P)\""
eval "$(cudnnctl env --prefix "$T/P")"
cc t.c -o t1 -lcudnn && echo "cc -lcudnn: $(./t1)"
readelf -d t1 | grep -q 'NEEDED.*libcudnn.so.9' || { echo "FAIL t1 needs no libcudnn.so.9"; exit 1; }
echo "pkg-config: $(pkg-config --modversion cudnn)"
cc t.c -o t2 $(pkg-config --cflags --libs cudnn) && echo "pkg-config build: $(./t2)"
run cm cmake -S cm -B cmb -DWANT=9.19 -DSRC="$T/t.c"
run cmbuild cmake --build cmb
grep -o "found CUDNN .*" cm.log
echo "find_package(CUDNN 9.19 CONFIG): $(./cmb/t)"
run fe cmake -S fe -B feb -DSRC="$T/t.c"
run febuild cmake --build feb
grep -o "frontend-style search: .*" fe.log
echo "frontend-style: $(./feb/t)"
for w in 9.30 8 10 "9.0...9.26" "9.0...<10"; do
    cmake -S cmx -B "cmx-$w" -DWANT=$w 2>&1 | grep -o "CUDNN_FOUND=.*" | sed "s/^/find_package(CUDNN $w CONFIG): /"
done
for w in 9.27 9.19; do
    cmake -S cmx -B "cmx-e$w" -DWANT=$w -DEXACT=EXACT 2>&1 | grep -o "CUDNN_FOUND=.*" | sed "s/^/find_package(CUDNN $w EXACT CONFIG): /"
done
echo "== which --build"
set +e; cudnnctl which --build --json >wb.json; echo "which --build exit $?"; set -e
echo "== doctor (the nvcc of the toolkit puts that toolkit's include dir, with its own 9.19 cudnn.h, first)"
cudnnctl doctor --json >d1.json || true
python3 - d1.json >fix.sh <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["code"] == "BUILD_CUDNN_MISMATCH"]
for x in f: print("# finding:", x["message"], file=sys.stderr)
print("\n".join(x["command"] for x in f if x.get("command")))
PY
cat fix.sh
. ./fix.sh
cudnnctl doctor --json >d2.json || true
cudnnctl which --build >wb2.txt || true
cp t.c t.cu && nvcc t.cu -o t3 -lcudnn && echo "nvcc after the fix: $(./t3)"
SH
decoy_ns "$T/steps.sh" "$T" "$I" >"$T/out" 2>&1 || fail "$(cat "$T/out")"
cat "$T/out"
grep -qx "header 91900 runtime 91900" "$T/out" || fail "the decoy was not what a plain build takes"
for w in "cc -lcudnn" "pkg-config build" "find_package(CUDNN 9.19 CONFIG)" "frontend-style" "nvcc after the fix"; do
    grep -qx "$w: header 92700 runtime 92700" "$T/out" || fail "$w did not take P (header and runtime 9.27)"
done
grep -qx "pkg-config: 9.27.0.42" "$T/out" || fail "pkg-config --modversion"
grep -q "found CUDNN 9.27.0.42 at $I/lib/cmake/CUDNN" "$T/out" || fail "find_package took another config"
grep -q "frontend-style search: $I/include $I/lib/libcudnn.so" "$T/out" || fail "frontend-style search"
for want in "9.27 EXACT CONFIG): CUDNN_FOUND=1" "9.19 EXACT CONFIG): CUDNN_FOUND=0" \
            "9.30 CONFIG): CUDNN_FOUND=0" "8 CONFIG): CUDNN_FOUND=0" "10 CONFIG): CUDNN_FOUND=0" \
            "9.0...9.26 CONFIG): CUDNN_FOUND=0" "9.0...<10 CONFIG): CUDNN_FOUND=1"; do
    grep -qxF "find_package(CUDNN $want" "$T/out" || fail "version check: find_package(CUDNN $want"
done
q() { python3 -c "import json,sys; d=json.load(open('$T/$1')); print($2)"; }
[ "$(q wb.json '[c["header"] for c in d["compilers"] if c["name"]=="cc"][0]')" = "$I/include/cudnn.h" ] || fail "which --build: cc header"
[ "$(q wb.json 'd["library"]')" = "$I/lib/libcudnn.so" ] || fail "which --build: library $(q wb.json 'd["library"]')"
[ "$(q wb.json 'd["runtime"]["real_path"]')" = "$I/lib/libcudnn.so.9.27.0" ] || fail "which --build: runtime"
[ "$(q wb.json '[c["header"] for c in d["compilers"] if c["name"]=="nvcc"][0]')" = "$TK/targets/x86_64-linux/include/cudnn.h" ] ||
    fail "which --build: nvcc takes its toolkit's cudnn.h"
[ "$(q wb.json 'd["agree"]')" = False ] && grep -qx "which --build exit 6" "$T/out" || fail "which --build: the nvcc split"
[ "$(q d1.json 'len([f for f in d["findings"] if f["code"]=="BUILD_CUDNN_MISMATCH" and "nvcc takes" in f["message"]])')" = 1 ] ||
    fail "doctor: the nvcc split"
[ "$(q d2.json 'len([f for f in d["findings"] if f["code"].startswith("BUILD_")])')" = 0 ] || fail "doctor after its fix"
grep -q "agreement: yes, one release" "$T/wb2.txt" || fail "which --build after the fix: $(cat "$T/wb2.txt")"
echo "== the consumers take P: ok"

# a planted split on a machine of one cuDNN (its 9.19 everywhere): doctor is silent; a 9.27
# cudnn.h planted on /usr/local/include is found, with a fix that works (state without P)
cat >"$T/split.sh" <<'SH'
set -euo pipefail
T=$1
export PATH=$T/bin2:$PATH
cudnnctl doctor --json >"$T/s0.json" || true
cp "$T"/P/cudnn-9.27.0.42-cuda13/include/cudnn*.h /usr/local/include/
cudnnctl doctor --json >"$T/s1.json" || true
python3 -c 'import json,sys; [print(f["command"]) for f in json.load(open(sys.argv[1]))["findings"] if f["code"]=="BUILD_CUDNN_MISMATCH" and f.get("command")][:1]' "$T/s1.json" >"$T/fix2.sh"
cat "$T/fix2.sh"
. "$T/fix2.sh"
cudnnctl doctor --json >"$T/s2.json" || true
cd "$T" && cc t.c -o t4 -lcudnn && echo "after the doctor fix: $(./t4)"
SH
mkdir -p "$T/bin2" "$T/state2"
printf '#!/bin/sh\nexec "%s" --state-dir "%s/state2" "$@"\n' "$CUDNNCTL" "$T" >"$T/bin2/cudnnctl"
chmod +x "$T/bin2/cudnnctl"
decoy_ns "$T/split.sh" "$T" >"$T/out2" 2>&1 || fail "$(cat "$T/out2")"
cat "$T/out2"
[ "$(q s0.json 'len([f for f in d["findings"] if f["code"].startswith("BUILD_")])')" = 0 ] || fail "doctor on a consistent machine: $(q s0.json 'd["findings"]')"
[ "$(q s1.json '[f["message"] for f in d["findings"] if f["code"]=="BUILD_CUDNN_MISMATCH"][0]')" != "" ] || fail "doctor: no planted split"
q s1.json '[f["message"] for f in d["findings"] if f["code"]=="BUILD_CUDNN_MISMATCH"][0]' | grep -qE "built against cuDNN 9.27.0, runs with 9.19.0(.56)?: cc takes /usr/local/include/cudnn.h" ||
    fail "doctor's message: $(q s1.json 'd["findings"]')"
[ "$(q s2.json 'len([f for f in d["findings"] if f["code"].startswith("BUILD_")])')" = 0 ] || fail "the planted split after the fix"
grep -qx "after the doctor fix: header 91900 runtime 91900" "$T/out2" || fail "a build after the doctor fix"

# uninstall: the metadata goes with the install
cudnnctl uninstall --prefix "$T/P" --no-ldconfig >/dev/null 2>&1 || fail "uninstall"
[ ! -e "$I" ] || fail "uninstall left $(find "$I" | head)"
# a CUDA tree: the metadata with absolute paths in its lib dir, removed by uninstall
C=$T/cuda
mkdir -p "$C/include" "$C/lib64" "$C/bin"
printf '{"cuda":{"name":"CUDA SDK","version":"13.0.88"}}\n' >"$C/version.json"
install_p --cuda-home "$C"
grep -qx "includedir=$C/include" "$C/lib64/pkgconfig/cudnn.pc" || fail "tree cudnn.pc: $(cat "$C/lib64/pkgconfig/cudnn.pc")"
grep -q "set(CUDNN_LIBRARY_DIR \"$C/lib64\")" "$C/lib64/cmake/CUDNN/CUDNNConfig.cmake" || fail "tree CUDNNConfig.cmake"
[ "$(PKG_CONFIG_PATH=$C/lib64/pkgconfig pkg-config --cflags cudnn | sed "s/ *$//")" = "-I$C/include" ] || fail "tree pkg-config --cflags"
cudnnctl uninstall --cuda-home "$C" --no-ldconfig >/dev/null 2>&1 || fail "tree uninstall"
[ ! -e "$C/lib64/pkgconfig" ] && [ ! -e "$C/lib64/cmake" ] || fail "tree uninstall left $(find "$C/lib64")"
echo ok
