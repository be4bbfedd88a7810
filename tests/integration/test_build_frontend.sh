#!/usr/bin/env bash
# test_build_frontend.sh: NVIDIA cudnn-frontend's own cmake/cuDNN.cmake (read from a clone of
# github.com/NVIDIA/cudnn-frontend: $CUDNN_FRONTEND_GIT, a git dir, default
# /work/.mirror/NVIDIA+cudnn-frontend/repo; without one, the verbatim copy in
# tests/third_party/cudnn-frontend/, 3929da2) after the activation alone,
# with the machine's 9.19 as a decoy on the default paths: it finds the prefix's cudnn.h and
# libcudnn (9.27), and a program linked with its CUDNN::cudnn_all prints 9.27 for the header and
# the loaded library. Then the integrated build: find_package(CUDNN CONFIG) first, and cuDNN.cmake
# takes the install's CUDNN::cudnn / CUDNN::cudnn_all without searching. docs/build.md has a run.
set -euo pipefail
. "$(dirname "$0")/build_lib.sh"
G=${CUDNN_FRONTEND_GIT:-/work/.mirror/NVIDIA+cudnn-frontend/repo}
mkdir -p "$T/fe/cmake" "$T/fi/cmake"
if command -v git >/dev/null && git --git-dir="$G" show HEAD:cmake/cuDNN.cmake >"$T/fe/cmake/cuDNN.cmake" 2>/dev/null; then
    echo "cudnn-frontend $(git --git-dir="$G" log -1 --format='%h %cs' HEAD) cmake/cuDNN.cmake (clone $G)"
else
    cp "$SOURCE_DIR/tests/third_party/cudnn-frontend/cuDNN.cmake" "$T/fe/cmake/cuDNN.cmake"
    echo "cudnn-frontend 3929da2 2026-05-08 cmake/cuDNN.cmake (tests/third_party/cudnn-frontend)"
fi
cp "$T/fe/cmake/cuDNN.cmake" "$T/fi/cmake/"
install_p --prefix "$T/P"
I=$T/P/cudnn-9.27.0.42-cuda13
cat >"$T/fe/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(fe C)
find_package(CUDAToolkit REQUIRED)
include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/cuDNN.cmake)
message(STATUS "frontend: ${CUDNN_INCLUDE_DIR} ${cudnn_LIBRARY} ${cudnn_graph_LIBRARY}")
add_executable(t ${SRC})
target_link_libraries(t PRIVATE CUDNN::cudnn_all CUDA::cudart)
CM
sed 's|include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/cuDNN.cmake)|find_package(CUDNN 9 CONFIG REQUIRED)\ninclude(${CMAKE_CURRENT_SOURCE_DIR}/cmake/cuDNN.cmake)|' \
    "$T/fe/CMakeLists.txt" >"$T/fi/CMakeLists.txt"
cat >"$T/steps.sh" <<'SH'
set -euo pipefail
T=$1
cd "$T"
cmake -S fe -B fe0 -DSRC="$T/t.c" >fe0.log 2>&1 || { cat fe0.log; exit 1; }
echo "without the activation: $(grep -o 'frontend: .*' fe0.log)"
eval "$(cudnnctl env --prefix "$T/P")"
cmake -S fe -B feb -DSRC="$T/t.c" >fe.log 2>&1 || { cat fe.log; exit 1; }
grep -E "cuDNN: |frontend: " fe.log
cmake --build feb >feb.log 2>&1 || { cat feb.log; exit 1; }
echo "cuDNN.cmake build: $(./feb/t)"
cmake -S fi -B fib -DSRC="$T/t.c" >fi.log 2>&1 || { cat fi.log; exit 1; }
grep -E "cuDNN: " fi.log | sed 's/^/integrated: /'
cmake --build fib >fib.log 2>&1 || { cat fib.log; exit 1; }
echo "integrated build: $(./fib/t)"
SH
decoy_ns "$T/steps.sh" "$T" >"$T/out" 2>&1 || fail "$(cat "$T/out")"
cat "$T/out"
grep -q "^without the activation: frontend: /usr/local/" "$T/out" || fail "without the activation cuDNN.cmake should take the machine's copy"
grep -q -- "-- cuDNN: $I/lib/libcudnn.so$" "$T/out" || fail "cuDNN.cmake did not take the prefix's libcudnn"
grep -q -- "-- cuDNN: $I/include$" "$T/out" || fail "cuDNN.cmake did not take the prefix's include dir"
grep -q "frontend: $I/include $I/lib/libcudnn.so $I/lib/libcudnn_graph.so" "$T/out" || fail "cuDNN.cmake's sub-libraries"
grep -qx "cuDNN.cmake build: header 92700 runtime 92700" "$T/out" || fail "the cuDNN.cmake build did not take P"
grep -qx "integrated: -- cuDNN: Using existing CMake targets" "$T/out" || fail "cuDNN.cmake did not take the CMake package"
grep -qx "integrated build: header 92700 runtime 92700" "$T/out" || fail "the integrated build did not take P"
echo ok
