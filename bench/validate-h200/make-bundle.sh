#!/usr/bin/env bash
# make-bundle.sh BUILD_DIR OUT_DIR: a cudnnctl binary that runs on the device machine without
# LD_LIBRARY_PATH (the validation child does not inherit it): relinked with RPATH $ORIGIN/lib
# (DT_RPATH, so it also covers the dependencies' own dependencies) and every non-glibc shared
# library it needs copied into OUT_DIR/bin/lib. Then: cp run.sh timing.py torch_check.py OUT_DIR/.
set -euo pipefail
B=$(cd "$1" && pwd); O=$2
mkdir -p "$O/bin/lib"
O=$(cd "$O" && pwd)
# the link line of the cudnnctl target: build/src/cli/ since src/ has a folder per stage
lt=$B/src/cli/CMakeFiles/cudnnctl.dir/link.txt; dir=$B/src/cli
[ -f "$lt" ] || { lt=$B/CMakeFiles/cudnnctl.dir/link.txt; dir=$B; }
link=$(sed -E "s#-o [^ ]*cudnnctl #-o $O/bin/cudnnctl #" "$lt")
(cd "$dir" && eval "$link -Wl,--disable-new-dtags -Wl,-rpath,'\$ORIGIN/lib'")
ldd "$O/bin/cudnnctl" | awk '/=> \//{print $3}' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' |
    while read -r f; do cp -L "$f" "$O/bin/lib/"; done
readelf -d "$O/bin/cudnnctl" | grep -E 'RPATH|NEEDED'
ls -l "$O/bin/lib"
