#!/usr/bin/env bash
# ld.so.cache as glibc writes it: ldconfig builds caches in the new, compat (old + new) and old
# formats from a temporary ld.so.conf naming two dirs that both hold a copy of the machine's real
# libcudnn.so.9; `cudnnctl --root R which` must answer with the entry glibc's own reader
# (`ldconfig -p -C FILE`) lists first, for each format and for both dir orders; a truncated or
# garbage cache must not crash it (the default dirs answer then).
set -euo pipefail
CUDNN=/usr/local/cuda-13.0/lib/libcudnn.so.9
[ -f "$CUDNN" ] || { echo "no $CUDNN"; exit 77; }
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
[ -x "$LDCONFIG" ] || { echo "no ldconfig"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/etc" "$R/opt/a/lib" "$R/opt/b/lib" "$R/lib/x86_64-linux-gnu" "$R/usr/lib/x86_64-linux-gnu"
cp "$CUDNN" "$R/opt/a/lib/"; cp "$CUDNN" "$R/opt/b/lib/"
fails=0
model() { # the path the model names for libcudnn.so.9 under --root R
    "$CUDNNCTL" --root "$R" which --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
l = [x for x in r["consumers"][0]["loads"] if x["soname"] == "libcudnn.so.9"][0]
print(l["path"] or "none", l["rule"])'
}
for order in "b a" "a b"; do
    : >"$R/etc/ld.so.conf"
    for d in $order; do
        if [ "$(id -u)" = 0 ]; then echo "/opt/$d/lib"; else echo "$R/opt/$d/lib"; fi >>"$R/etc/ld.so.conf"
    done
    for fmt in new compat old; do
        if [ "$(id -u)" = 0 ]; then   # as glibc does it for a root: chroot, root-relative paths
            "$LDCONFIG" -c "$fmt" -X -r "$R"
        else
            "$LDCONFIG" -c "$fmt" -X -C "$R/etc/ld.so.cache" -f "$R/etc/ld.so.conf"
        fi
        want=$("$LDCONFIG" -p -C "$R/etc/ld.so.cache" | awk '$1 == "libcudnn.so.9" && /x86-64/ {print $NF; exit}')
        want=${want#"$R"}; [ "$(id -u)" = 0 ] || want=$R${want}
        got=$(model)
        if [ "${got% *}" = "$want" ] && [ "${got#* }" = ld.so.cache ]; then
            echo "ok   cache format $fmt, conf order '$order': model '$got' = ldconfig -p first entry '$want'"
        else
            echo "FAIL cache format $fmt, conf order '$order': model '$got', ldconfig -p says '$want'"
            fails=$((fails + 1))
        fi
    done
done
# the control: the two orders must have given different answers (b first, then a)
[[ "$want" == *"/opt/a/lib/"* ]] || { echo "FAIL control: the last order should put /opt/a first"; fails=$((fails + 1)); }

# broken caches: truncated at every 997 bytes, and garbage; the default dirs answer instead
printf '%s\n' "$R/opt/a/lib" >"$T/host.conf"
"$LDCONFIG" -c new -X -C "$T/good" -f "$T/host.conf"
cp "$CUDNN" "$R/usr/lib/x86_64-linux-gnu/libcudnn.so.9"
cp "$T/good" "$R/etc/ld.so.cache"
got=$(model)
[ "$got" = "$R/opt/a/lib/libcudnn.so.9 ld.so.cache" ] ||
    { echo "FAIL control: the whole cache should answer: '$got'"; fails=$((fails + 1)); }
size=$(stat -c %s "$T/good")
cuts=0
for ((n = 0; n < size; n += 997)); do
    head -c "$n" "$T/good" >"$R/etc/ld.so.cache"
    cuts=$((cuts + 1))
    got=$(model) || { echo "FAIL: which crashed on a cache cut at $n bytes"; fails=$((fails + 1)); continue; }
    case "$got" in
    "/usr/lib/x86_64-linux-gnu/libcudnn.so.9 default_dirs" | *" ld.so.cache") ;;
    *) echo "FAIL: cache cut at $n bytes: '$got'"; fails=$((fails + 1)) ;;
    esac
done
head -c 4096 /dev/urandom >"$R/etc/ld.so.cache"
got=$(model)
[ "$got" = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9 default_dirs" ] ||
    { echo "FAIL: garbage cache: '$got'"; fails=$((fails + 1)); }
echo "$cuts truncated caches and a garbage one: no crash; the default dirs answer ('$got')"
[ "$fails" -eq 0 ]
