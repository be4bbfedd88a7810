#!/usr/bin/env bash
# platform.sh: issue 25 on the device machine (Ubuntu 24.04, glibc 2.39, whatever its CPU is):
# does `cudnnctl which` name the file the real loader maps for a program whose DT_RPATH is
# $ORIGIN/../$PLATFORM, and for a copy in every glibc-hwcaps/x86-64-v* subdir? On an Intel CPU
# glibc expands $PLATFORM to haswell (or xeon_phi), on AMD to x86_64: the output says which.
# Needs cc and the distribution's /usr/lib/x86_64-linux-gnu/libcudnn.so.9; the binary from
# bench/validate-h200/make-bundle.sh in DIR/bin (DIR = this script's dir). Output: $OUT/platform.txt.
set -u
D=$(cd "$(dirname "$0")" && pwd); BIN=${CUDNNCTL:-$D/bin/cudnnctl}
CUDNN=${CUDNN:-/usr/lib/x86_64-linux-gnu/libcudnn.so.9}
OUT=${OUT:-/tmp}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
Tp=$(cd "$T" && pwd -P)
fails=0
{
echo "===== machine"
grep -m2 -E '^(vendor_id|model name)' /proc/cpuinfo
ldd --version | head -1
/lib64/ld-linux-x86-64.so.2 --list-diagnostics | grep -E '^(dl_platform|dl_hwcaps_subdirs|dl_hwcaps_subdirs_active|version.version)='
/lib64/ld-linux-x86-64.so.2 --help | grep -E 'x86-64-v[234]'
cat >"$T/probe.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
static int show(struct dl_phdr_info *i, size_t n, void *u)
{
    (void)n; (void)u;
    const char *b = strrchr(i->dlpi_name, '/');
    if (b && strncmp(b + 1, "libcudnn.so", 11) == 0)
        printf("mapped %s\n", i->dlpi_name);
    return 0;
}
int main(int argc, char **argv)
{
    if (argc > 1 && !dlopen(argv[1], RTLD_LAZY)) { printf("error %s\n", dlerror()); return 1; }
    dl_iterate_phdr(show, NULL);
    return 0;
}
EOF
mkdir -p "$T/bin"
cc -O0 -o "$T/bin/platform" "$T/probe.c" -ldl -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../$PLATFORM'
cc -O0 -o "$T/bin/plain" "$T/probe.c" -ldl
# where the real loader looks for $PLATFORM
dbg=$(env -u LD_LIBRARY_PATH LD_DEBUG=libs "$T/bin/platform" libcudnn.so.9 2>&1 >/dev/null |
      grep -m1 "search path=.*RPATH from file")
PLAT=${dbg#*search path="$Tp"/bin/../}; PLAT=${PLAT%%[/:]*}
echo "LD_DEBUG: \$PLATFORM = $PLAT"
mkdir -p "$T/$PLAT" "$T"/hw/glibc-hwcaps/x86-64-v{4,3,2}
cp -L "$CUDNN" "$T/$PLAT/libcudnn.so.9"
for d in hw hw/glibc-hwcaps/x86-64-v4 hw/glibc-hwcaps/x86-64-v3 hw/glibc-hwcaps/x86-64-v2; do
    cp -L "$CUDNN" "$T/$d/libcudnn.so.9"
done
# case NAME EXE LLP: the probe's own mapping against which --json
case_() {
    local real model
    real=$(env -u LD_LIBRARY_PATH ${3:+LD_LIBRARY_PATH=$3} "$2" libcudnn.so.9 | head -1)
    env -u LD_LIBRARY_PATH ${3:+LD_LIBRARY_PATH=$3} "$BIN" which --json "$2" >"$T/w.json" 2>&1
    model=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print("mapped " + [l for l in r["consumers"][0]["loads"] if l["soname"] == "libcudnn.so.9"][0]["path"])
print("loader:", json.dumps(r["loader"]), file=sys.stderr)' "$T/w.json")
    if [ "$real" = "$model" ]; then echo "ok   $1: $real"
    else echo "FAIL $1: real '$real', model '$model'"; fails=$((fails + 1)); fi
}
echo "===== cases"
case_ "\$PLATFORM RPATH" "$T/bin/platform" ""
case_ "glibc-hwcaps copies" "$T/bin/plain" "$T/hw"
"$BIN" which "$T/bin/platform" | head -4
echo "===== $fails failures"
} 2>&1 | tee "$OUT/platform.txt"
