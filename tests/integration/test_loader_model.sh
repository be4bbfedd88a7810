#!/usr/bin/env bash
# The loader model against the real loader: programs built here with cc (dlopen from the program,
# DT_RPATH, DT_RUNPATH, $ORIGIN, $PLATFORM, $LIB, a dependency's dependency under DT_RPATH vs
# DT_RUNPATH), with copies of the machine's real libcudnn.so.9 (cuDNN 9.19), with and without
# LD_LIBRARY_PATH shadowing. For every consumer and environment, `cudnnctl which --json CONSUMER`
# must name the very file the program's own process mapped (dl_iterate_phdr), or the same error.
set -euo pipefail
CUDNN=/usr/local/cuda-13.0/lib/libcudnn.so.9
[ -f "$CUDNN" ] || { echo "no $CUDNN (CUDA 13.0 with cuDNN 9.19): cannot build consumers"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
src=$SOURCE_DIR/tests/integration/loader
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T"/{bin,rp,rp2,llp,bad,mid,mid2,x86_64}
for d in rp rp2 llp x86_64; do cp "$CUDNN" "$T/$d/libcudnn.so.9"; done
libdir=lib/x86_64-linux-gnu   # glibc's $LIB on a Debian-style (multiarch) system
[ -d /lib/x86_64-linux-gnu ] || libdir=lib64
mkdir -p "$T/$libdir" && cp "$CUDNN" "$T/$libdir/libcudnn.so.9"
echo "this is not an ELF file" >"$T/bad/libcudnn.so.9"

cc -O0 -o "$T/bin/plain" "$src/probe.c" -ldl
cc -O0 -o "$T/bin/rpath" "$src/probe.c" -ldl -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../rp'
cc -O0 -o "$T/bin/runpath" "$src/probe.c" -ldl -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../rp'
cc -O0 -o "$T/bin/platform" "$src/probe.c" -ldl -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../$PLATFORM'
cc -O0 -o "$T/bin/libtoken" "$src/probe.c" -ldl -Wl,--disable-new-dtags,-rpath,"$T/"'$LIB'
cc -shared -fPIC -o "$T/mid/libmid.so" "$src/mid.c" -L"$T/rp" -l:libcudnn.so.9
cc -shared -fPIC -o "$T/mid2/libmid.so" "$src/mid.c" -L"$T/rp" -l:libcudnn.so.9 \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../rp2'
cc -o "$T/bin/indirect_rpath" "$src/main_linked.c" -L"$T/mid" -lmid \
    -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../mid:$ORIGIN/../rp'
cc -o "$T/bin/indirect_runpath" "$src/main_linked.c" -L"$T/mid" -lmid \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../mid:$ORIGIN/../rp'
cc -o "$T/bin/mid_runpath" "$src/main_linked.c" -L"$T/mid2" -lmid \
    -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../mid2:$ORIGIN/../rp'

fails=0 checked=0
# check NAME ENV(none|DIR) DLOPEN(yes|no) [WANT substring of the real answer, a control]
check() {
    local name=$1 env=$2 dl=$3 want=${4:-}
    local exe=$T/bin/$name real model
    if [ "$env" = none ]; then
        real=$(env -u LD_LIBRARY_PATH "$exe" ${dl:+libcudnn.so.9} 2>&1 | head -1 || true)
        env -u LD_LIBRARY_PATH "$CUDNNCTL" which --json "$exe" >"$T/m.json" 2>"$T/m.err" || true
    else
        real=$(LD_LIBRARY_PATH=$env "$exe" ${dl:+libcudnn.so.9} 2>&1 | head -1 || true)
        LD_LIBRARY_PATH=$env "$CUDNNCTL" which --json "$exe" >"$T/m.json" 2>"$T/m.err" || true
    fi
    model=$(python3 - "$T/m.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no-json", e); sys.exit(0)
for l in r["consumers"][0]["loads"]:
    if l["soname"] == "libcudnn.so.9":
        print(("mapped " + l["path"]) if l["path"] else ("error" if l["rule"] == "error" else "not-found"),
              "|", l["rule"], "|", l["why"])
        break
else:
    print("no-answer")
PY
)
    local mpath=${model%% |*} ok=no
    if [ "$mpath" = "$real" ]; then ok=yes
    elif [ "$mpath" = error ] && [[ "$real" == error* ]]; then ok=yes; fi
    if [ -n "$want" ] && [[ "$real" != *"$want"* ]]; then
        echo "FAIL control: consumer $name (LD_LIBRARY_PATH=$env): real loader gave '$real', the test expected '$want'"
        fails=$((fails + 1))
    fi
    checked=$((checked + 1))
    if [ $ok = yes ]; then
        echo "ok   consumer $name, LD_LIBRARY_PATH=$env: real '$real' = model '${model}'"
    else
        echo "FAIL consumer $name, LD_LIBRARY_PATH=$env: real '$real' != model '$model'"; cat "$T/m.err"
        fails=$((fails + 1))
    fi
}

check plain none yes "$CUDNN"            # ld.so.cache
check plain "$T/llp" yes "$T/llp/"       # LD_LIBRARY_PATH beats the cache
check plain "$T/bad" yes "error"         # a non-ELF file stops the search
check rpath none yes "/rp/"
check rpath "$T/llp" yes "/rp/"          # DT_RPATH beats LD_LIBRARY_PATH
check runpath none yes "/rp/"
check runpath "$T/llp" yes "$T/llp/"     # LD_LIBRARY_PATH beats DT_RUNPATH
check platform none yes "/x86_64/"       # $PLATFORM
check libtoken none yes "$T/$libdir/"    # $LIB
check indirect_rpath none "" "/rp/"      # the program's DT_RPATH serves libmid's dependency
check indirect_rpath "$T/llp" "" "/rp/"
check indirect_runpath none "" "$CUDNN"  # DT_RUNPATH serves only the program's own deps
check indirect_runpath "$T/llp" "" "$T/llp/"
check mid_runpath none "" "/rp2/"        # libmid has DT_RUNPATH: no DT_RPATH of the chain is used
check mid_runpath "$T/llp" "" "$T/llp/"
# glibc-hwcaps: in every searched dir, DIR/glibc-hwcaps/x86-64-v{4,3,2} come first (where this
# CPU and glibc support them: ld.so --help says so; the model assumes support)
LDSO=/lib64/ld-linux-x86-64.so.2
if [ -x "$LDSO" ] && "$LDSO" --help 2>/dev/null | grep -q "x86-64-v2 (supported, searched)"; then
    mkdir -p "$T/hw/glibc-hwcaps/x86-64-v2"
    cp "$CUDNN" "$T/hw/libcudnn.so.9"; cp "$CUDNN" "$T/hw/glibc-hwcaps/x86-64-v2/libcudnn.so.9"
    check plain "$T/hw" yes "/glibc-hwcaps/x86-64-v2/"
else
    echo "this glibc/CPU does not search glibc-hwcaps/x86-64-v2: that case not run"
fi
echo "$checked checks, $fails failures"
[ "$fails" -eq 0 ]
