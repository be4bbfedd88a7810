#!/usr/bin/env bash
# run.sh BUNDLE: the cold wheel install of issue 24 on the device machine's 16 cores (and on 2 of
# them, as on the CI VM), against uv, interleaved, medians. No network there, so the wheel is
# built on the spot from the pip-installed cuDNN the machine's torch uses (nvidia/cudnn/{lib,
# include} as NVIDIA's wheel lays them out, deflate, a dist-info), named as NVIDIA's wheel of that
# release; cudnnctl takes it with --archive LOOPBACK_URL --sha256 (its digest is not the
# catalog's), uv with --index-url from the same loopback server (tests/tools/httpd.py, a PEP 691
# project page). Then one more install of it (its zip entries inflated by ISA-L: pinned) and
# `validate` of that prefix on the GPU. Output: $OUT/summary.txt, $OUT/validate.json.
set -u
B=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=$(mktemp -d /tmp/cudnnctl-wheel-h200.XXXXXX)
tar -C "$W" -xJf "$B/bin.tar.xz"
xz -dc "$B/uv.xz" >"$W/uv"; chmod 755 "$W/uv"
{
echo "===== machine"
nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; df -hT /tmp | tail -1
ldd "$W/bin/cudnnctl" | grep "not found" && echo "MISSING LIBRARIES"
"$W/uv" --version
python3 - "$W" <<'PY'
import hashlib, importlib.metadata as md, os, sys, zipfile
w = sys.argv[1]
import nvidia.cudnn as c
root = list(c.__path__)[0]
dist = next(d for d in md.distributions() if (d.metadata["Name"] or "").startswith("nvidia-cudnn-cu"))
pkg, ver = dist.metadata["Name"], dist.version
name = "%s-%s-py3-none-manylinux_2_27_x86_64.whl" % (pkg.replace("-", "_"), ver)
di = "%s-%s.dist-info/" % (pkg.replace("-", "_"), ver)
out = os.path.join(w, "idx", "simple", pkg)
os.makedirs(out)
path = os.path.join(out, name)
with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
    for sub in ("include", "lib"):
        d = os.path.join(root, sub)
        for f in sorted(os.listdir(d)):
            p = os.path.join(d, f)
            if os.path.isfile(p) and not os.path.islink(p) and (f.endswith(".h") or ".so" in f):
                z.write(p, "nvidia/cudnn/%s/%s" % (sub, f))
    z.writestr(di + "WHEEL", "Wheel-Version: 1.0\nGenerator: cudnnctl-bench\nRoot-Is-Purelib: true\nTag: py3-none-manylinux_2_27_x86_64\n")
    z.writestr(di + "METADATA", "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (pkg, ver))
    z.writestr(di + "RECORD", "")
sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
import json
json.dump({"meta": {"api-version": "1.1"}, "name": pkg, "files": [{"filename": name, "url": name,
          "hashes": {"sha256": sha}, "size": os.path.getsize(path)}]}, open(os.path.join(out, "index.json"), "w"))
open(os.path.join(out, "index.html"), "w").write('<a href="%s#sha256=%s">%s</a>\n' % (name, sha, name))
open(os.path.join(w, "wheel.env"), "w").write("PKG=%s\nVER=%s\nNAME=%s\nSHA=%s\nMAJOR=%s\n" % (pkg, ver, name, sha, pkg[-2:]))
print("wheel:", name, os.path.getsize(path), "bytes, from", root, "sha256", sha)
PY
. "$W/wheel.env"
python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(len(z.infolist()), \"entries,\", sum(i.file_size for i in z.infolist()), \"bytes unpacked\")" "$W/idx/simple/$PKG/$NAME"
python3 "$here/tests/tools/httpd.py" --root "$W/idx" --port-file "$W/port" --dir-index --max-lifetime 3600 >/dev/null 2>&1 &
srv=$!
for _ in $(seq 50); do [ -s "$W/port" ] && break; sleep 0.1; done
IDX=http://127.0.0.1:$(cat "$W/port")/simple
python3 - "$W" "$IDX" "$PKG" "$VER" "$NAME" "$SHA" "$MAJOR" <<'PY'
import os, shutil, statistics, subprocess, sys, time
w, idx, pkg, ver, name, sha, major = sys.argv[1:]
cli = os.path.join(w, "bin", "cudnnctl")
def cmds(d):
    return {
        "uv": [os.path.join(w, "uv"), "pip", "install", "-q", "--no-deps", "--target", d + "/t",
               "--cache-dir", d + "/c", "--python", shutil.which("python3"), "--index-url", idx,
               "%s==%s" % (pkg, ver)],
        "cudnnctl": [cli, "--state-dir", d + "/s", "--cache-dir", d + "/c", "--no-progress", "install",
                     "--cudnn", ver, "--cuda", major, "--platform", "linux-x86_64",
                     "--components", "runtime,dev", "--no-validate", "--archive",
                     "%s/%s/%s" % (idx, pkg, name), "--sha256", sha, "--prefix", d + "/p"],
    }
def run(argv, cores):
    if cores:
        argv = ["taskset", "-c", cores] + argv
    subprocess.run(["sync"])
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    err = p.stderr.read().decode(errors="replace")
    if status != 0:
        print("FAILED", argv[:3], err[-600:])
    return wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime
for cores in ("", "0,1"):
    res = {}
    for r in range(5):
        for tool in ("uv", "cudnnctl"):
            d = os.path.join(w, "run-%s-%d" % (tool, r))
            shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
            wall, rss, cpu = run(cmds(d)[tool], cores)
            res.setdefault(tool, []).append((wall, rss, cpu))
            print("cores %-4s round %d %-9s %6.3f s  %7d KiB  cpu %.2f s" % (cores or "all", r + 1, tool, wall, rss, cpu))
            if tool == "cudnnctl" and r == 0:
                n = sum(len(f) for _, _, f in os.walk(d + "/p"))
                print("  installed files+links under the prefix:", n)
            shutil.rmtree(d, ignore_errors=True)
    med = {t: (statistics.median(x[0] for x in v), max(x[1] for x in v), statistics.median(x[2] for x in v)) for t, v in res.items()}
    print("cores %s: medians of 5" % (cores or "all (%d)" % os.cpu_count()))
    for t, (wl, rss, cpu) in med.items():
        print("  %-9s %6.3f s  peak RSS %6.1f MiB  cpu %.2f s" % (t, wl, rss / 1024, cpu))
    print("  cudnnctl / uv cold: %.2fx" % (med["cudnnctl"][0] / med["uv"][0]))
PY
echo "===== the pinned wheel's entries through ISA-L, then validate on the GPU"
P=$W/val
"$W/bin/cudnnctl" --state-dir "$P/s" --cache-dir "$P/c" --no-progress --debug install --cudnn "$VER" \
  --cuda "$MAJOR" --platform linux-x86_64 --components runtime,dev --no-validate \
  --archive "$IDX/$PKG/$NAME" --sha256 "$SHA" --prefix "$P/p" 2>&1 | grep -E "ISA-L|error" ; echo "[install] exit ${PIPESTATUS[0]}"
"$W/bin/cudnnctl" --state-dir "$P/s" validate --prefix "$P/p" --timeout 120 --json >"$O/validate.json"; echo "[validate json] exit $?"
"$W/bin/cudnnctl" --state-dir "$P/s" validate --prefix "$P/p" --timeout 120; echo "[validate human] exit $?"
kill $srv 2>/dev/null
} 2>&1 | tee "$O/summary.txt"
rm -rf "$W"
