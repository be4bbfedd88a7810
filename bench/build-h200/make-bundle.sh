#!/usr/bin/env bash
# make-bundle.sh BUILD_DIR OUT_DIR: everything bench/build-h200/run.sh needs on the H200 (which
# has no network): the cudnnctl binary (bench/validate-h200/make-bundle.sh), run.sh, this repo's
# scripts/local-mirror, and the sources of NVIDIA's cudnn-frontend and of Catch2 v3.3.2 (what
# its samples/CMakeLists.txt would download) as tarballs made from clones outside this repository
# (the search tool's fetch of github:NVIDIA/cudnn-frontend and github:catchorg/Catch2;
# FRONTEND_GIT / CATCH2_GIT name other git dirs). Nothing of them is committed here.
set -euo pipefail
B=$1; O=$2
D=$(cd "$(dirname "$0")" && pwd)
FE=${FRONTEND_GIT:-/work/.mirror/NVIDIA+cudnn-frontend/repo}
C2=${CATCH2_GIT:-/work/.mirror/catchorg+Catch2/repo}
mkdir -p "$O"
bash "$D/../validate-h200/make-bundle.sh" "$B" "$O" >/dev/null
strip --strip-unneeded "$O"/bin/lib/*.so* "$O/bin/cudnnctl" 2>/dev/null || true  # the tree + bundle travel in 64 MiB
cp "$D/run.sh" "$D/../../scripts/local-mirror" "$O/"
git --git-dir="$FE" archive --format=tar.gz --prefix=cudnn-frontend/ HEAD CMakeLists.txt cmake include \
    samples cudnn_frontend-config.cmake.in LICENSE.txt >"$O/cudnn-frontend.tar.gz"
git --git-dir="$FE" log -1 --format='%H %cs %s' HEAD >"$O/cudnn-frontend.commit"
git --git-dir="$C2" archive --format=tar.gz --prefix=Catch2/ v3.3.2 >"$O/Catch2.tar.gz"
du -sh "$O"
