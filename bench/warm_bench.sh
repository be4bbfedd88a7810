#!/usr/bin/env bash
# warm_bench.sh: warm installs from the unpacked store against uv's `pip install --target` of the
# same bytes, in one interleaved run (issue 24's acceptance).
#
# Workload: the machine's real cuDNN 9.19 payload (8 libraries + headers, ~494 MB unpacked) —
# the archive install_bench.sh packs into build/bench/mirror (made here the same way when it is
# missing), and a wheel of the very same files (nvidia/cudnn/{lib,include}, deflate) built here.
# uv comes from `python3 -m pip install uv` into a venv cached outside the clone
# ($CUDNNCTL_BENCH_CACHE, default ~/.cache/cudnnctl-bench). Once: cudnnctl installs the archive
# into a prefix and into a CUDA tree (filling the store: one entry per content mode) and uv
# installs the wheel (filling its cache). Then ROUNDS rounds, each into new targets (a new state
# dir each, the cache kept), interleaved:
#   U1  uv pip install --target NEW --link-mode copy      U2  ... --link-mode hardlink
#   C1  cudnnctl install --prefix NEW --link-mode auto (reflink where the filesystem can, else copy)
#   C2  cudnnctl install --prefix NEW --link-mode hardlink
#   C4  the same with --no-login-check (the after-install check without a login shell, whose
#       start-up files are the user's: root's pyenv and Lmod inits here)
#   C5  C2 (the login check on) for a user whose start-up files are Debian's stock ones
#       (bench/stock_home.sh: root's passwd home swapped for such a home in a mount namespace
#       of the run's own; the machine's /etc is not touched). Only where unshare -m works.
#   C3  cudnnctl install --cuda-home NEW_TREE (copy)
#   L0  the login shell alone, started as C2's check starts it (setsid env -i HOME=<passwd home>
#       ... bash -lic, stdin/out /dev/null), running `true`: the floor under C2 for this user
# Every cudnnctl run is the whole install: plan, locks, store checks, staging, links, build
# metadata, the journaled commit with its fsyncs, the receipt. Prints medians and the ratios the
# issue asks for; append them to docs/performance.md with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
BIN=${CUDNNCTL:-build/cudnnctl}
SRC_LIB=${SRC_LIB:-/usr/local/cuda-13.0/lib}
SRC_INC=${SRC_INC:-/usr/local/cuda-13.0/include}
BC=${CUDNNCTL_BENCH_CACHE:-$HOME/.cache/cudnnctl-bench}
work=build/bench
[ -x "$BIN" ] || { echo "build first: cmake --preset default && cmake --build --preset default" >&2; exit 1; }
mkdir -p "$work" "$BC"
if [ ! -f "$work/mirror/done.json" ]; then
  echo "bench: packing the payload once (xz -T1 -6, a few minutes)..." >&2
  rm -rf "$work/mirror"; mkdir -p "$work/mirror"
  scripts/local-mirror --lib-dir "$SRC_LIB" --include-dir "$SRC_INC" --cuda 13 --xz-preset -6 \
    --xz-threads 1 --out "$work/mirror" > "$work/mirror.done.tmp"
  mv "$work/mirror.done.tmp" "$work/mirror/done.json"
fi
read -r manifest ver < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["manifest"], d["cudnn_version"])' "$work/mirror/done.json")
if [ ! -x "$BC/venv/bin/uv" ]; then
  echo "bench: python3 -m pip install uv (into $BC/venv)..." >&2
  python3 -m venv "$BC/venv" && "$BC/venv/bin/python" -m pip install -q uv
fi
UV=$BC/venv/bin/uv
whl=$work/nvidia_cudnn_bench-$ver-py3-none-manylinux_2_27_x86_64.whl
if [ ! -f "$whl" ]; then # the same library and header bytes as the archive, as a wheel
  python3 - "$SRC_LIB" "$SRC_INC" "$whl" "$ver" <<'PY'
import base64, glob, hashlib, os, sys, zipfile
lib, inc, out, ver = sys.argv[1:]
files = [(p, "nvidia/cudnn/lib/" + os.path.basename(p)) for p in sorted(glob.glob(lib + "/libcudnn*.so.*")) if not os.path.islink(p)]
files += [(p, "nvidia/cudnn/include/" + os.path.basename(p)) for p in sorted(glob.glob(inc + "/cudnn*.h")) if not os.path.islink(p)]
di = f"nvidia_cudnn_bench-{ver}.dist-info"
meta = {f"{di}/METADATA": f"Metadata-Version: 2.1\nName: nvidia-cudnn-bench\nVersion: {ver}\n",
        f"{di}/WHEEL": "Wheel-Version: 1.0\nGenerator: cudnnctl-bench\nRoot-Is-Purelib: true\nTag: py3-none-manylinux_2_27_x86_64\n"}
rec = []
with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
    for src, arc in files:
        data = open(src, "rb").read(); z.writestr(arc, data)
        rec.append(f"{arc},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}")
    for arc, text in meta.items():
        z.writestr(arc, text); rec.append(f"{arc},,")
    rec.append(f"{di}/RECORD,,"); z.writestr(f"{di}/RECORD", "\n".join(rec) + "\n")
os.rename(out + ".tmp", out)
PY
fi

tmp=$(mktemp -d /tmp/cudnnctl-warm.XXXXXX)
. bench/page_warm.sh
page_warm_state >&2
trap 'rm -rf "$tmp"' EXIT
cache=$tmp/cache; uvc=$tmp/uvcache
now() { date +%s.%N; }
mk_tree() { mkdir -p "$1/include" "$1/lib" "$1/bin"; printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.88"}}\n' > "$1/version.json"; printf '/* cuda.h */\n' > "$1/include/cuda.h"; }
RUN=
cinstall() { # $1 = state dir, rest = target and options. Prints the process's wall seconds; the
  local st=$1 t0 t1; shift # install's own (its JSON "seconds") goes to $tmp/lib.<state dir's suffix>
  page_warm "$tmp"
  t0=$(now)
  $RUN "$BIN" --cache-dir "$cache" --state-dir "$st" -q --json install --manifest "$manifest" --mirror "$work/mirror" \
    --cudnn "$ver" --cuda 13 --platform linux-x86_64 --no-validate --no-ldconfig "$@" > "$st.json"
  t1=$(now)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["store"]["result"] in ("hit","filled"), d["store"]; print(d["seconds"])' "$st.json" >> "$tmp/lib.${st##*/s}"
  echo "$t1 - $t0" | bc
}
. bench/stock_home.sh
ns=$(stock_home_runner "$(realpath "$work")/stock-home" "$tmp")
c5=1; [ -n "$ns" ] || c5=0
cinstall5() { # C2 in the namespace; asserts that the login scope really ran there
  RUN=$ns cinstall "$@"
  stock_home_ran "$1.json"
}
uinstall() { UV_CACHE_DIR=$uvc "$UV" -q pip install --python "$BC/venv/bin/python" --offline --no-deps --target "$@" "$whl"; }
timed() { local t0; page_warm "$tmp"; t0=$(now); "$@"; echo "$(now) - $t0" | bc; }
login_alone() { # L0: effective.c's login_start, with `true` for the probe
  local home user; home=$(getent passwd "$(id -u)" | cut -d: -f6); user=$(id -un)
  setsid /usr/bin/env -i HOME="$home" USER="$user" LOGNAME="$user" TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -lic true </dev/null >/dev/null 2>&1
}

echo "bench: filling the store (a prefix and a CUDA tree) and uv's cache..." >&2
# the store is opt-in (--link-mode): the fills and every warm install name a mode
cinstall "$tmp/s0" --prefix "$tmp/p0" --link-mode auto >/dev/null
mk_tree "$tmp/t0"; cinstall "$tmp/s0t" --cuda-home "$tmp/t0" --link-mode copy >/dev/null
uinstall "$tmp/u0" --link-mode copy
"$BIN" --cache-dir "$cache" cache list >&2
bytes=$(du -sb "$tmp/p0/cudnn-$ver-cuda13" | cut -f1)

: > "$tmp/u1"; : > "$tmp/u2"; : > "$tmp/c1"; : > "$tmp/c2"; : > "$tmp/c3"; : > "$tmp/c4"; : > "$tmp/c5"; : > "$tmp/l5"; : > "$tmp/la"
for i in $(seq "$ROUNDS"); do
  sync
  timed uinstall "$tmp/u1-$i" --link-mode copy >> "$tmp/u1"
  cinstall "$tmp/s1-$i" --prefix "$tmp/p1-$i" --link-mode auto >> "$tmp/c1"
  timed uinstall "$tmp/u2-$i" --link-mode hardlink >> "$tmp/u2"
  cinstall "$tmp/s2-$i" --prefix "$tmp/p2-$i" --link-mode hardlink >> "$tmp/c2"
  cinstall "$tmp/s4-$i" --prefix "$tmp/p4-$i" --link-mode hardlink --no-login-check >> "$tmp/c4"
  [ "$c5" = 0 ] || cinstall5 "$tmp/s5-$i" --prefix "$tmp/p5-$i" --link-mode hardlink >> "$tmp/c5"
  timed login_alone >> "$tmp/la"
  mk_tree "$tmp/t-$i"; cinstall "$tmp/s3-$i" --cuda-home "$tmp/t-$i" --link-mode copy >> "$tmp/c3"
  echo "round $i: uv copy $(tail -1 "$tmp/u1") s, cudnnctl prefix $(tail -1 "$tmp/c1") s, uv hardlink $(tail -1 "$tmp/u2") s," \
       "cudnnctl hardlink $(tail -1 "$tmp/c2") s (--no-login-check $(tail -1 "$tmp/c4") s, stock home $(tail -1 "$tmp/c5") s; the login shell alone $(tail -1 "$tmp/la") s)," \
       "cudnnctl CUDA tree $(tail -1 "$tmp/c3") s" >&2
  rm -rf "$tmp/u1-$i" "$tmp/p1-$i" "$tmp/u2-$i" "$tmp/p2-$i" "$tmp/p4-$i" "$tmp/p5-$i" "$tmp/t-$i" "$tmp"/s?-"$i"
  for k in 1 2 3 4 5; do [ ! -f "$tmp/lib.$k-$i" ] || cat "$tmp/lib.$k-$i" >> "$tmp/l$k"; done
done
cmp "$tmp/p0/cudnn-$ver-cuda13/lib/libcudnn_adv.so.9.19.0" "$tmp/u0/nvidia/cudnn/lib/libcudnn_adv.so.9" 2>/dev/null ||
  cmp "$tmp/p0/cudnn-$ver-cuda13/lib/libcudnn_adv.so.9" "$tmp/u0/nvidia/cudnn/lib/libcudnn_adv.so.9" ||
  { echo "bench: the wheel and the archive do not hold the same bytes" >&2; exit 1; }
python3 - "$tmp" "$ROUNDS" "$bytes" "$(stat -f -c %T "$tmp")" <<'PY'
import statistics, sys
tmp, rounds, nbytes, fs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
med = lambda k: (lambda v: statistics.median(v) if v else float("nan"))([float(x) for x in open(f"{tmp}/{k}").read().split()])
m = {k: med(k) for k in ("u1", "u2", "c1", "c2", "c3", "c4", "c5", "la", "l1", "l2", "l3", "l4", "l5")}
print(f"payload: {nbytes/1e6:.0f} MB installed, {rounds} rounds (medians), filesystem {fs}")
print(f"(process: the whole command, wall; install: the library's install itself, its JSON 'seconds' —")
print(f" the process adds the CLI's effective-load checks after the install, child processes)")
print(f"uv pip install --target --link-mode copy       {m['u1']:7.3f} s")
print(f"cudnnctl install --prefix (auto: reflink/copy) {m['c1']:7.3f} s process, {m['l1']:6.3f} s install   {m['c1']/m['u1']:.2f}x / {m['l1']/m['u1']:.2f}x uv copy (target <= 2x)")
print(f"uv pip install --target --link-mode hardlink   {m['u2']:7.3f} s")
print(f"cudnnctl install --prefix --link-mode hardlink {m['c2']:7.3f} s process, {m['l2']:6.3f} s install   (target <= 0.1 s)")
print(f"  this user's login shell alone (bash -lic true, as the check starts it) {m['la']:6.3f} s: C2's floor here")
print(f"  the same, --no-login-check                 {m['c4']:7.3f} s process, {m['l4']:6.3f} s install   (target <= 0.1 s)")
print(f"  the same, a stock home (/etc/skel)         {m['c5']:7.3f} s process, {m['l5']:6.3f} s install   (target <= 0.1 s; nan: unshare -m did not work here)")
print(f"cudnnctl install --cuda-home (copy)            {m['c3']:7.3f} s process, {m['l3']:6.3f} s install   (target <= 1.0 s)")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
