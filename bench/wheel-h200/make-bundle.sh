#!/usr/bin/env bash
# make-bundle.sh BUILD_DIR OUT_DIR: what bench/wheel-h200/run.sh needs on the device machine (no
# network there): OUT_DIR/bin.tar.xz (the cudnnctl binary with its shared libraries, as
# bench/validate-h200/make-bundle.sh makes it, less libxml2/ICU which the device has) and
# OUT_DIR/uv.xz (uv, from UV=PATH or the venv bench/wheel_bench.sh made in /tmp/wb). Then carry
# OUT_DIR (an ignored path such as .device/wheel-bundle) and run `bash bench/wheel-h200/run.sh
# OUT_DIR`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=$1; O=$2
UV=${UV:-/tmp/wb/venv/bin/uv}
[ -x "$UV" ] || { echo "make-bundle.sh: no uv at $UV (UV=PATH)" >&2; exit 1; }
mkdir -p "$O"
bash "$here/../validate-h200/make-bundle.sh" "$B" "$O" >/dev/null
rm -f "$O"/bin/lib/libicu* "$O"/bin/lib/libxml2.so*
tar -C "$O" -cf - bin | xz -9 -T1 >"$O/bin.tar.xz"
rm -rf "$O/bin"
xz -6 -T2 -c "$UV" >"$O/uv.xz"
du -sh "$O" "$O"/*
