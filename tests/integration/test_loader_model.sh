#!/usr/bin/env bash
# The loader model against the real loader: programs built here with cc (dlopen from the program,
# DT_RPATH, DT_RUNPATH, $ORIGIN, $PLATFORM, $LIB, a dependency's dependency under DT_RPATH vs
# DT_RUNPATH), with copies of the machine's real libcudnn.so.9 (cuDNN 9.19), with and without
# LD_LIBRARY_PATH shadowing. For every consumer and environment, `cudnnctl which --json CONSUMER`
# must name the very file the program's own process mapped (dl_iterate_phdr), or the same error.
# Nothing here assumes this machine's CPU or glibc: $PLATFORM is what the real loader searches
# (LD_DEBUG=libs; haswell or xeon_phi on Intel CPUs, x86_64 elsewhere), the glibc-hwcaps case puts
# a copy in every x86-64-v* subdir and the real loader picks; the expansions this machine cannot
# produce (and the glibc-hwcaps masks) are checked against the model through a stand-in for the
# machine (CUDNNCTL_TEST_LOADER_FACTS: a `ld.so --list-diagnostics` text, or glibc + CPU features).
set -euo pipefail
CUDNN=/usr/local/cuda-13.0/lib/libcudnn.so.9
[ -f "$CUDNN" ] || { echo "no $CUDNN (CUDA 13.0 with cuDNN 9.19): cannot build consumers"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
src=$SOURCE_DIR/tests/integration/loader
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T"/{bin,rp,rp2,llp,bad,mid,mid2}
for d in rp rp2 llp; do cp "$CUDNN" "$T/$d/libcudnn.so.9"; done
Tp=$(cd "$T" && pwd -P) # $ORIGIN of a program: its dir with links resolved
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
# What the real loader expands $PLATFORM to: the RPATH element it searches (LD_DEBUG=libs), and
# what it says itself (--list-diagnostics, glibc >= 2.34). The fixture goes there.
dbg=$(env -u LD_LIBRARY_PATH LD_DEBUG=libs "$T/bin/platform" libcudnn.so.9 2>&1 >/dev/null |
      grep -m1 "search path=.*RPATH from file" || true)
PLAT=
if [[ "$dbg" == *"search path=$Tp/bin/../"* ]]; then
    PLAT=${dbg#*search path="$Tp"/bin/../}; PLAT=${PLAT%%[/:]*}
fi
LDSO=/lib64/ld-linux-x86-64.so.2
diag=$("$LDSO" --list-diagnostics 2>/dev/null || true)
diag_plat=$(sed -n 's/^dl_platform="\(.*\)"$/\1/p' <<<"$diag")
echo "the real loader expands \$PLATFORM to '${PLAT:-(nothing: the element is dropped)}' (LD_DEBUG=libs; --list-diagnostics: '${diag_plat:-n/a}')"
if [ -n "$diag" ] && [ "$diag_plat" != "$PLAT" ]; then
    echo "FAIL control: LD_DEBUG searched \$PLATFORM='$PLAT', ld.so --list-diagnostics says '$diag_plat'"
    fails=$((fails + 1))
fi
[ -z "$PLAT" ] || { mkdir -p "$T/$PLAT" && cp "$CUDNN" "$T/$PLAT/libcudnn.so.9"; }
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
pwant=${PLAT:+/$PLAT/}
check platform none yes "${pwant:-$CUDNN}" # $PLATFORM (none: the element is dropped, the cache)
check libtoken none yes "$T/$libdir/"    # $LIB
check indirect_rpath none "" "/rp/"      # the program's DT_RPATH serves libmid's dependency
check indirect_rpath "$T/llp" "" "/rp/"
check indirect_runpath none "" "$CUDNN"  # DT_RUNPATH serves only the program's own deps
check indirect_runpath "$T/llp" "" "$T/llp/"
check mid_runpath none "" "/rp2/"        # libmid has DT_RUNPATH: no DT_RPATH of the chain is used
check mid_runpath "$T/llp" "" "$T/llp/"
# glibc-hwcaps: in every searched dir, DIR/glibc-hwcaps/x86-64-v{4,3,2} come first, those the CPU
# reaches (glibc >= 2.33). A copy in each: the real loader picks, whatever this CPU is.
mkdir -p "$T"/hw/glibc-hwcaps/x86-64-v{4,3,2}
for d in hw hw/glibc-hwcaps/x86-64-v4 hw/glibc-hwcaps/x86-64-v3 hw/glibc-hwcaps/x86-64-v2; do
    cp "$CUDNN" "$T/$d/libcudnn.so.9"
done
best=$("$LDSO" --help 2>/dev/null | sed -n 's/^ *\(x86-64-v[234]\) (supported, searched)$/\1/p' | head -1)
echo "the real loader's best glibc-hwcaps subdir here: ${best:-none}"
check plain "$T/hw" yes "$T/hw/${best:+glibc-hwcaps/$best/}libcudnn.so.9"
# The model's own facts for this machine: what the loader said, not assumed
"$CUDNNCTL" which --json "$T/bin/platform" >"$T/w.json" 2>/dev/null || true
facts=$(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["loader"]; print(l["platform"] or "", " ".join(l["hwcaps"]), l["assumed"], sep="|")' "$T/w.json")
want_hw=$("$LDSO" --help 2>/dev/null | sed -n 's/^ *\(x86-64-v[234]\) (supported, searched)$/\1/p' | tr '\n' ' ')
checked=$((checked + 1))
if [ "$facts" = "$PLAT|${want_hw% }|False" ]; then echo "ok   which --json loader: $facts"
else echo "FAIL which --json loader: '$facts', the real loader: '$PLAT|${want_hw% }|False'"; fails=$((fails + 1)); fi
# --root: another machine's files; the facts are assumed, and the JSON says so and from what
mkdir -p "$T/root"
"$CUDNNCTL" --root "$T/root" which --json >"$T/w.json" 2>/dev/null || true
assumed=$(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["loader"]; print(l["assumed"], l["source"].startswith("assumed: --root"))' "$T/w.json")
checked=$((checked + 1))
if [ "$assumed" = "True True" ]; then echo "ok   --root: the loader's facts are marked assumed"
else echo "FAIL --root: loader.assumed/source: $assumed"; fails=$((fails + 1)); fi

# ---- the expansions this machine cannot produce: the model with a stand-in for the machine ----
# stand_in NAME FACTS EXE LLP(none|DIR) WANT_PATH WANT_PLATFORM(- = none)
stand_in() {
    local name=$1 facts=$2 exe=$3 llp=$4 want=$5 wplat=$6 got
    if [ "$llp" = none ]; then
        env -u LD_LIBRARY_PATH CUDNNCTL_TEST_LOADER_FACTS="$facts" "$CUDNNCTL" which --json "$exe" \
            >"$T/s.json" 2>"$T/s.err" || true
    else
        LD_LIBRARY_PATH=$llp CUDNNCTL_TEST_LOADER_FACTS="$facts" "$CUDNNCTL" which --json "$exe" \
            >"$T/s.json" 2>"$T/s.err" || true
    fi
    got=$(python3 - "$T/s.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    l = [x for x in r["consumers"][0]["loads"] if x["soname"] == "libcudnn.so.9"][0]
    print(l["path"] or "-", r["loader"]["platform"] or "-", sep="|")
except Exception as e:
    print("no-answer", e)
PY
)
    checked=$((checked + 1))
    if [ "$got" = "$want|$wplat" ]; then
        echo "ok   stand-in $name: the model maps $want (\$PLATFORM ${wplat})"
    else
        echo "FAIL stand-in $name: the model gave '$got', expected '$want|$wplat'"; cat "$T/s.err"
        fails=$((fails + 1))
    fi
}
for p in x86_64 haswell xeon_phi; do
    mkdir -p "$T/$p" && cp "$CUDNN" "$T/$p/libcudnn.so.9"
done
# an AArch64 program and library: the same files with e_machine = 183 (EM_AARCH64; the model reads
# the ELF header and the dynamic section, it never runs them)
cp "$T/bin/platform" "$T/bin/platform_a64"
mkdir -p "$T/aarch64" && cp "$CUDNN" "$T/aarch64/libcudnn.so.9"
for f in "$T/bin/platform_a64" "$T/aarch64/libcudnn.so.9"; do
    printf '\267\000' | dd of="$f" bs=1 seek=18 conv=notrunc status=none
done
hw='dl_hwcaps_subdirs="x86-64-v4:x86-64-v3:x86-64-v2"'
# (a) what `ld.so --list-diagnostics` prints on such machines (elf/dl-diagnostics.c)
for p in x86_64 haswell xeon_phi; do
    stand_in "diagnostics $p" "$(printf '%s\n' "$hw" 'dl_hwcaps_subdirs_active=0x7' \
        "dl_platform=\"$p\"" 'version.version="2.36"' 'uname.machine="x86_64"')" \
        "$T/bin/platform" none "$Tp/bin/../$p/libcudnn.so.9" "$p"
done
stand_in "diagnostics aarch64" "$(printf '%s\n' 'dl_hwcaps_subdirs=""' \
    'dl_hwcaps_subdirs_active=0x0' 'dl_platform="aarch64"' 'version.version="2.36"' \
    'uname.machine="aarch64"')" "$T/bin/platform_a64" none "$Tp/bin/../aarch64/libcudnn.so.9" aarch64
# (b) a loader without --list-diagnostics (glibc < 2.34): decided from glibc + the CPU's features
HSW="sse3 ssse3 sse4_1 sse4_2 popcnt cmpxchg16b lahf64 avx avx2 fma f16c bmi1 bmi2 lzcnt movbe"
cpu() { printf '%s\n' "version.version=\"$1\"" "cpu.vendor=\"$2\"" "cpu.usable=\"$3\""; }
stand_in "glibc 2.31 Intel Haswell-class" "$(cpu 2.31 GenuineIntel "$HSW")" \
    "$T/bin/platform" none "$Tp/bin/../haswell/libcudnn.so.9" haswell
stand_in "glibc 2.31 Intel Xeon Phi" \
    "$(cpu 2.31 GenuineIntel "$HSW avx512f avx512cd avx512er avx512pf")" \
    "$T/bin/platform" none "$Tp/bin/../xeon_phi/libcudnn.so.9" xeon_phi
stand_in "glibc 2.31 AMD, same features" "$(cpu 2.31 AuthenticAMD "$HSW")" \
    "$T/bin/platform" none "$Tp/bin/../x86_64/libcudnn.so.9" x86_64
stand_in "glibc 2.31 AArch64" "$(printf '%s\n' 'version.version="2.31"' 'uname.machine="aarch64"')" \
    "$T/bin/platform_a64" none "$Tp/bin/../aarch64/libcudnn.so.9" aarch64
# glibc 2.26 on a CPU it does not rename: no $PLATFORM, the element is dropped (BZ #22299)
stand_in "glibc 2.26 AMD" "$(cpu 2.26 AuthenticAMD "$HSW")" "$T/bin/platform" none "$CUDNN" -
# (c) glibc-hwcaps: only the subdirs the loader says are active (bit i: the i-th of the list)
stand_in "hwcaps x86-64-v2 only" "$(printf '%s\n' "$hw" 'dl_hwcaps_subdirs_active=0x4' \
    'dl_platform="x86_64"')" "$T/bin/plain" "$T/hw" "$T/hw/glibc-hwcaps/x86-64-v2/libcudnn.so.9" x86_64
stand_in "hwcaps none (glibc 2.32)" "$(cpu 2.32 AuthenticAMD "$HSW")" \
    "$T/bin/plain" "$T/hw" "$T/hw/libcudnn.so.9" x86_64
# ---- the real loader on another CPU: valgrind runs a program on a synthetic CPU (an Intel model,
# GenuineIntel, where the host has AVX2), ld.so included, so glibc's own loader takes its Intel path
# there (haswell on glibc >= 2.26) on any machine. The probe's mapping against the model, both
# under valgrind (--trace-children: the model's ld.so --list-diagnostics runs on that CPU too),
# and the glibc + cpuid decision of test_loader_platform against that loader. Not with sanitizer
# builds (valgrind cannot run them).
UT=${BUILD_DIR:-$(dirname "$CUDNNCTL")}/tests/test_loader_platform
if ! command -v valgrind >/dev/null; then
    echo "no valgrind: the case on its synthetic CPU is not run"
# (ldd's list read whole first: `ldd | grep -q` under pipefail is false when grep's early exit
# stops ldd with SIGPIPE, and an ASan build then ran under valgrind)
elif deps=$(ldd "$CUDNNCTL" 2>/dev/null || true); grep -q 'lib[at]san\|libubsan' <<<"$deps"; then
    echo "a sanitizer build: the case on valgrind's synthetic CPU is not run"
else
    VG=(valgrind -q --trace-children=yes)
    vcpu=$("${VG[@]}" "$LDSO" --list-diagnostics 2>/dev/null | sed -n 's/^dl_platform="\(.*\)"$/\1/p')
    real=$("${VG[@]}" env -u LD_LIBRARY_PATH "$T/bin/platform" libcudnn.so.9 2>/dev/null | head -1 || true)
    env -u LD_LIBRARY_PATH "${VG[@]}" "$CUDNNCTL" which --json "$T/bin/platform" >"$T/v.json" 2>/dev/null || true
    model=$(python3 - "$T/v.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    l = [x for x in r["consumers"][0]["loads"] if x["soname"] == "libcudnn.so.9"][0]
    print("mapped %s|%s" % (l["path"], r["loader"]["platform"]))
except Exception as e:
    print("no-answer", e)
PY
)
    checked=$((checked + 1))
    if [ "${model%|*}" = "$real" ] && [ "$real" = "mapped $Tp/bin/../${model##*|}/libcudnn.so.9" ]; then
        echo "ok   valgrind's CPU (its loader: \$PLATFORM=$vcpu): real '$real' = model '$model'"
    else
        echo "FAIL valgrind's CPU (its loader: \$PLATFORM=$vcpu): real '$real' != model '$model'"
        fails=$((fails + 1))
    fi
    if [ -x "$UT" ]; then
        checked=$((checked + 1))
        if "${VG[@]}" "$UT" >"$T/ut.txt" 2>&1; then
            echo "ok   valgrind's CPU: $(grep -m1 '^this machine' "$T/ut.txt")"
        else
            echo "FAIL valgrind's CPU: test_loader_platform"; grep -v '^==' "$T/ut.txt" | tail -20
            fails=$((fails + 1))
        fi
    fi
fi
echo "$checked checks, $fails failures"
[ "$fails" -eq 0 ]
