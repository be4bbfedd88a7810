#!/usr/bin/env bash
# test_envwire_ldconfig.sh: the /etc/ld.so.conf.d entry `env --persist --system` writes names the
# selected toolkit's library dir, and the real ldconfig, given that entry (as a temporary config
# and cache: the host's are never touched), resolves libcudnn.so.9 to it; after `use 12.4` it
# resolves to 12.4's. The libraries are real ELF files with SONAME libcudnn.so.9 built here.
set -euo pipefail
. "$(dirname "$0")/envwire_lib.sh"
need cc
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
[ -x "$LDCONFIG" ] || fail "ldconfig not found"
R=$T/root
mk_root "$R"
ln -s cuda-13.0 "$R/usr/local/cuda"
echo 'int cudnn_double_marker(void) { return 1; }' >"$T/x.c"
for v in 12.4 13.0; do # test doubles of libcudnn.so.9 in both toolkits
    d=$R/usr/local/cuda-$v/lib64
    cc -shared -fPIC -Wl,-soname,libcudnn.so.9 -o "$d/libcudnn.so.9.19.0" "$T/x.c"
    ln -s libcudnn.so.9.19.0 "$d/libcudnn.so.9"
done

resolve() { # the path ldconfig gives libcudnn.so.9 with only our ld.so.conf.d entries
    : >"$T/ld.conf"
    for f in "$R"/etc/ld.so.conf.d/cudnnctl-*.conf; do
        grep -v '^#' "$f" | sed "s|^|$R|" >>"$T/ld.conf"
    done
    rm -f "$T/ld.cache"
    "$LDCONFIG" -X -C "$T/ld.cache" -f "$T/ld.conf" 2>"$T/ldconfig.err" ||
        fail "ldconfig: $(cat "$T/ldconfig.err")"
    "$LDCONFIG" -C "$T/ld.cache" -p | awk '$1 == "libcudnn.so.9" && !found { print $NF; found = 1 }'
}

C env --persist --system >/dev/null
ls "$R"/etc/ld.so.conf.d/cudnnctl-*.conf >/dev/null 2>&1 || fail "no ld.so.conf.d entry written"
[ "$(grep -hv '^#' "$R"/etc/ld.so.conf.d/cudnnctl-*.conf)" = /usr/local/cuda-13.0/lib64 ] ||
    fail "entry: $(cat "$R"/etc/ld.so.conf.d/cudnnctl-*.conf)"
got=$(resolve)
[ "$got" = "$R/usr/local/cuda-13.0/lib64/libcudnn.so.9" ] || fail "ldconfig resolves libcudnn.so.9 to '$got'"
echo "13.0: ldconfig -> $got"

C use 12.4 >/dev/null
got=$(resolve)
[ "$got" = "$R/usr/local/cuda-12.4/lib64/libcudnn.so.9" ] || fail "after use 12.4: '$got'"
echo "12.4: ldconfig -> $got"

# the real /usr/local/cuda-13.0 of this machine, when present: its libcudnn.so.9 (129 KB) copied
real=/usr/local/cuda-13.0/lib/libcudnn.so.9
if [ -f "$real" ]; then
    R=$T/real
    mk_root "$R"
    rm -rf "$R/usr/local/cuda-13.0/lib64"
    mkdir -p "$R/usr/local/cuda-13.0/lib"
    cp "$real" "$R/usr/local/cuda-13.0/lib/"
    ln -s lib "$R/usr/local/cuda-13.0/lib64"
    ln -s cuda-13.0 "$R/usr/local/cuda"
    C env --persist --system >/dev/null
    [ "$(grep -hv '^#' "$R"/etc/ld.so.conf.d/cudnnctl-*.conf)" = /usr/local/cuda-13.0/lib ] ||
        fail "entry should name the real dir behind lib64: $(cat "$R"/etc/ld.so.conf.d/cudnnctl-*.conf)"
    got=$(resolve)
    [ "$got" = "$R/usr/local/cuda-13.0/lib/libcudnn.so.9" ] || fail "real libcudnn.so.9: '$got'"
    echo "real cuDNN 9.19 copy: ldconfig -> $got"
fi
echo "ok"
