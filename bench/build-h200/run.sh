#!/usr/bin/env bash
# run.sh: the H200 record of issue 19 (docs/build-h200.md). On the image (CUDA 13.0 debs,
# the distribution's cuDNN 9.14 debs — headers in /usr/include/x86_64-linux-gnu, libraries in
# /usr/lib/x86_64-linux-gnu: the decoy on the compiler's and the loader's default paths —, torch
# with NVIDIA's cuDNN 9.19 wheel in /opt/torch/.venv):
#  1. install that wheel's cuDNN 9.19 (packed by local-mirror) into the prefix /opt/pb
#  2. before anything: what a plain `cc t.c -lcudnn` takes; which --build
#  3. eval "$(cudnnctl env --prefix /opt/pb)" and NOTHING ELSE set by hand: the same build, which
#     --build, doctor; pkg-config and find_package(CUDNN CONFIG)
#  4. NVIDIA cudnn-frontend's C++ samples configured (its own cmake/cuDNN.cmake), built and run
#     against the prefix; the library the real loader maps, from LD_DEBUG=libs of that run
# Bundle: bench/build-h200/make-bundle.sh BUILD .device/build. Raw output: $OUT/*.
set -u
D=$(cd "$(dirname "$0")" && pwd); BIN=$D/bin/cudnnctl
W=/tmp/wb; rm -rf $W; mkdir -p $W/bin
printf '#!/bin/sh\nexec %s --state-dir %s/state --cache-dir %s/cache "$@"\n' "$BIN" $W $W >$W/bin/cudnnctl
chmod +x $W/bin/cudnnctl; export PATH=$W/bin:/usr/local/cuda-13.0/bin:$PATH
SITE=$(/opt/torch/.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cat >$W/t.c <<'C'
#include <stdio.h>
#include <cudnn.h>
int main(void) { printf("header %d runtime %zu\n", (int)CUDNN_VERSION, cudnnGetVersion()); return 0; }
C
{
echo "===== 0. image"; uname -r; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls /usr/include/x86_64-linux-gnu/cudnn_version*.h /usr/lib/x86_64-linux-gnu/libcudnn.so* 2>&1 | head
env | grep -E '^(CPATH|LIBRARY_PATH|PKG_CONFIG_PATH|CMAKE_PREFIX_PATH|CUDNN_[A-Z_]*|LD_LIBRARY_PATH)=' || echo "(no build variable set)"
echo "===== 1. install the wheel's 9.19 into /opt/pb"
python3 $D/local-mirror --lib-dir $SITE/nvidia/cudnn/lib --include-dir $SITE/nvidia/cudnn/include \
  --cuda 13 --xz-preset -0 --xz-threads 0 --out $W/mirror >$W/mirror.json; cat $W/mirror.json
MF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest"])' $W/mirror.json)
V4=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cudnn_version"])' $W/mirror.json)
cudnnctl install --manifest "$MF" --mirror $W/mirror --cudnn "$V4" --cuda 13 --platform linux-x86_64 \
  --prefix /opt/pb --no-validate 2>&1 | tail -6; echo "install exit $?"
find /opt/pb/current/lib/pkgconfig /opt/pb/current/lib/cmake -type f | sort
echo "===== 2. before the activation"
cd $W && cc t.c -o t0 -lcudnn && echo "cc t.c -lcudnn: $(./t0)"
cudnnctl which --build; echo "which --build exit $?"
echo "===== 3. eval \"\$(cudnnctl env --prefix /opt/pb)\" (nothing else set by hand)"
eval "$(cudnnctl env --prefix /opt/pb)"
env | grep -E '^(CPATH|LIBRARY_PATH|PKG_CONFIG_PATH|CMAKE_PREFIX_PATH|CUDNN_PATH|LD_LIBRARY_PATH)=' | sort
cc t.c -o t1 -lcudnn && echo "cc t.c -lcudnn: $(./t1)"
cc t.c -o t2 $(pkg-config --cflags --libs cudnn) && echo "pkg-config $(pkg-config --modversion cudnn): $(./t2)"
mkdir -p $W/cm && printf 'cmake_minimum_required(VERSION 3.18)\nproject(t C)\nfind_package(CUDNN 9.19 CONFIG REQUIRED)\nmessage(STATUS "CUDNN ${CUDNN_VERSION} ${CUDNN_DIR}")\nadd_executable(t %s/t.c)\ntarget_link_libraries(t PRIVATE CUDNN::cudnn)\n' $W >$W/cm/CMakeLists.txt
cmake -S $W/cm -B $W/cmb -G Ninja 2>&1 | grep -E "CUDNN|Error"; cmake --build $W/cmb >/dev/null && echo "find_package(CUDNN 9.19 CONFIG): $($W/cmb/t)"
cudnnctl which --build --json >$OUT/which-build.json; cudnnctl which --build; echo "which --build exit $?"
cudnnctl doctor --json >$OUT/doctor.json; python3 -c '
import json,sys; f=[x for x in json.load(open(sys.argv[1]))["findings"] if x["code"].startswith("BUILD")]
print("doctor BUILD findings:", len(f)); [print(" ", x["message"], "| fix:", x.get("command")) for x in f]' $OUT/doctor.json
echo "===== 4. cudnn-frontend C++ samples against /opt/pb"
cat $D/cudnn-frontend.commit
tar -C $W -xzf $D/cudnn-frontend.tar.gz; tar -C $W -xzf $D/Catch2.tar.gz
cmake -S $W/cudnn-frontend -B $W/feb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDNN_FRONTEND_BUILD_TESTS=OFF \
  -DFETCHCONTENT_SOURCE_DIR_CATCH2=$W/Catch2 -DFETCHCONTENT_FULLY_DISCONNECTED=ON >$OUT/fe-configure.log 2>&1
echo "configure exit $?"; grep -E "^-- cuDNN|cudnn.* found at" $OUT/fe-configure.log
( time cmake --build $W/feb --target samples -j 16 ) >$OUT/fe-build.log 2>&1; echo "build exit $?"; tail -3 $OUT/fe-build.log
S=$(find $W/feb -name samples -type f -perm -u+x | head -1); echo "samples: $S"
cudnnctl which "$S" | head -8
LD_DEBUG=libs timeout 480 "$S" "[conv],[matmul],[layernorm]" 2>$W/ld.txt | tail -5
echo "samples exit ${PIPESTATUS[0]}"
grep -E "calling init: .*libcudnn" $W/ld.txt | sed 's/^ *[0-9]*: *//' | sort -u | head -12
} 2>&1 | tee $OUT/summary.txt
