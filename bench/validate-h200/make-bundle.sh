#!/usr/bin/env bash
# make-bundle.sh BUILD_DIR OUT_DIR: a cudnnctl binary that runs on the device machine without
# LD_LIBRARY_PATH (the validation child does not inherit it): relinked with RPATH $ORIGIN/lib
# (DT_RPATH, so it also covers the dependencies' own dependencies) and every non-glibc shared
# library it needs copied into OUT_DIR/bin/lib. Then: cp run.sh timing.py torch_check.py OUT_DIR/.
set -euo pipefail
B=$(cd "$1" && pwd); O=$2
mkdir -p "$O/bin/lib"
O=$(cd "$O" && pwd)
# the CLI's link line lives in src/cli since src/lib became one folder per stage
L=$B/src/cli; [ -f "$L/CMakeFiles/cudnnctl.dir/link.txt" ] || L=$B
link=$(sed -E "s#-o [^ ]*cudnnctl #-o $O/bin/cudnnctl #" "$L/CMakeFiles/cudnnctl.dir/link.txt")
(cd "$L" && eval "$link -Wl,--disable-new-dtags -Wl,-rpath,'\$ORIGIN/lib'")
ldd "$O/bin/cudnnctl" | awk '/=> \//{print $3}' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' |
    while read -r f; do cp -L "$f" "$O/bin/lib/"; done
readelf -d "$O/bin/cudnnctl" | grep -E 'RPATH|NEEDED'
ls -l "$O/bin/lib"
