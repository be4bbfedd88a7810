#!/usr/bin/env bash
# test_envwire_prefix.sh: prefix mode end to end, with real installs (`cudnnctl install --prefix`
# of two small archives: ELF test doubles with SONAME libcudnn.so.9, CUDA 12 and 13 variants).
# `use` and `env` find the prefix through the install receipts (no --prefix given): `use X.Y`
# flips PREFIX/current to the install for that CUDA major, `env` adds its lib dir (cuDNN first),
# the ld.so.conf.d entry names it and ldconfig resolves libcudnn.so.9 into the prefix; a rollback
# after a `use` still leaves a consistent prefix.
set -euo pipefail
. "$(dirname "$0")/envwire_lib.sh"
need cc
need xz
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
export R=$T/root
mk_root "$R"
ln -s cuda-13.0 "$R/usr/local/cuda"

mkarch() { # mkarch VER4 CUDA_MAJOR: an archive in NVIDIA's 9.x layout under $R/arch
    local ver4=$1 m=$2 ver3=${1%.*}
    local name="cudnn-linux-x86_64-${ver4}_cuda${m}-archive"
    local d="$T/build-$m/$name" s
    mkdir -p "$d/include" "$d/lib" "$R/arch"
    printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' \
        >"$d/include/cudnn_version.h"
    printf '/* cudnn.h test double */\n' >"$d/include/cudnn.h"
    printf 'license (test copy)\n' >"$d/LICENSE"
    echo 'int cudnnctl_test_double(void) { return 1; }' >"$T/x.c"
    for s in libcudnn libcudnn_graph; do
        cc -shared -fPIC -Wl,-soname,$s.so.9 -o "$d/lib/$s.so.$ver3" "$T/x.c"
        ln -s "$s.so.$ver3" "$d/lib/$s.so.9"
        ln -s "$s.so.9" "$d/lib/$s.so"
    done
    tar -C "$T/build-$m" -cf - "$name" | xz -T1 -1 >"$R/arch/$name.tar.xz"
    echo "/arch/$name.tar.xz"
}
for m in 13 12; do
    a=$(mkarch 9.19.0.56 $m)
    C install --prefix /opt/cudnn --cuda $m --archive "$a" \
        --sha256 "$(sha256sum "$R$a" | cut -d' ' -f1)" --no-validate >"$T/out" 2>&1 ||
        fail "install cuda$m: $(cat "$T/out")"
done
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-9.19.0.56-cuda12 ] || fail "fixture: current"

# use finds the prefix in the receipts
C use 13.0 >"$T/out"
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-9.19.0.56-cuda13 ] ||
    fail "use 13.0 did not flip current: $(readlink "$R/opt/cudnn/current") $(cat "$T/out")"
grep -q "cuDNN /opt/cudnn/cudnn-9.19.0.56-cuda13" "$T/out" || fail "use 13.0 output: $(cat "$T/out")"
C use 12.4 >/dev/null
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-9.19.0.56-cuda12 ] || fail "use 12.4: current"
act=$(C --json list | json_get '[i["install_dir"] for i in d["installs"] if i["active"]]')
[ "$act" = "['/opt/cudnn/cudnn-9.19.0.56-cuda12']" ] || fail "list after use 12.4: active $act"

# env: the cuDNN lib dir first (with --ld-library-path), managed entries cleaned on a switch
out=$(env PATH=/home/u/bin:/usr/bin:/bin LD_LIBRARY_PATH=/opt/mine bash -c '
    eval "$("$CUDNNCTL" --root "$R" env --shell bash --ld-library-path 12.4)"; a=$LD_LIBRARY_PATH
    eval "$("$CUDNNCTL" --root "$R" env --shell bash --ld-library-path 13.0)"; b=$LD_LIBRARY_PATH
    eval "$("$CUDNNCTL" --root "$R" env --shell bash 12.4)"; c=$LD_LIBRARY_PATH
    eval "$("$CUDNNCTL" --root "$R" env --shell bash --no-ld-library-path 12.4)"; d=$LD_LIBRARY_PATH
    printf "%s\n" "$a" "$b" "$c" "$d"')
mapfile -t v <<<"$out"
[ "${v[0]}" = "/opt/cudnn/cudnn-9.19.0.56-cuda12/lib:/usr/local/cuda-12.4/lib64:/opt/mine" ] ||
    fail "LD_LIBRARY_PATH for 12.4: ${v[0]}"
[ "${v[1]}" = "/opt/cudnn/cudnn-9.19.0.56-cuda13/lib:/usr/local/cuda-13.0/lib64:/opt/mine" ] ||
    fail "LD_LIBRARY_PATH for 13.0: ${v[1]}"
# without the flag: the selected cuDNN (which the loader would not find by itself) goes in front,
# the toolkit's lib dir does not; --no-ld-library-path leaves only the user's own entries
[ "${v[2]}" = "/opt/cudnn/cudnn-9.19.0.56-cuda12/lib:/opt/mine" ] ||
    fail "LD_LIBRARY_PATH after a switch without the flag: ${v[2]}"
[ "${v[3]}" = "/opt/mine" ] || fail "LD_LIBRARY_PATH with --no-ld-library-path: ${v[3]}"
# a prefix as the target: its current install and the toolkit of that major
t=$(C --json env /opt/cudnn | json_get 'd["toolkit"]["path"], d["cudnn"]["path"]')
[ "$t" = "('/usr/local/cuda-12.4', '/opt/cudnn/cudnn-9.19.0.56-cuda12')" ] || fail "env /opt/cudnn: $t"

# system wiring: ld.so.conf.d names the prefix install; ldconfig resolves libcudnn.so.9 there
C env --persist --system >/dev/null
conf=$(ls "$R"/etc/ld.so.conf.d/cudnnctl-*.conf)
[ "$(grep -v '^#' "$conf" | head -1)" = /opt/cudnn/cudnn-9.19.0.56-cuda12/lib ] || fail "entry: $(cat "$conf")"
grep -v '^#' "$conf" | sed "s|^|$R|" >"$T/ld.conf"
"$LDCONFIG" -X -C "$T/ld.cache" -f "$T/ld.conf" || fail "ldconfig"
got=$("$LDCONFIG" -C "$T/ld.cache" -p | awk '$1 == "libcudnn.so.9" && !found { print $NF; found = 1 }')
[ "$got" = "$R/opt/cudnn/cudnn-9.19.0.56-cuda12/lib/libcudnn.so.9" ] || fail "ldconfig: '$got'"
echo "prefix: ldconfig -> $got"

# the install's rollback after a use: the prefix stays consistent
C use 13.0 >/dev/null
C rollback --prefix /opt/cudnn >/dev/null || fail "rollback after use"
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-9.19.0.56-cuda13 ] || fail "current after rollback"
[ ! -e "$R/opt/cudnn/cudnn-9.19.0.56-cuda12" ] || fail "rolled-back install still there"
C use 12.4 >"$T/out" 2>&1
grep -q "has no cuDNN for CUDA 12" "$T/out" || fail "use 12.4 with no CUDA 12 install: $(cat "$T/out")"
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-9.19.0.56-cuda13 ] || fail "current moved"
echo "ok"
