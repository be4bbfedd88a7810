#!/usr/bin/env bash
# test_windows_zip.sh: Windows cuDNN zips, built at test time in each NVIDIA layout from the real
# cudnn 9.1.0.70 Windows DLLs / headers / import libs of the nvidia-cudnn-cu12 wheel (cached outside
# the clone), extracted under wine by the library's extraction (tests/tools/win_extract.c):
#  - 8.3-8.6 (bin, lib), 8.8-9.17 (bin, lib\x64) and 9.18+ (bin\x64, lib\x64) layouts all stage
#    bin\*.dll, include\*.h and lib\*.lib with the bytes' SHA-256;
#  - unsafe zips (..\..\x.dll, C:\x.dll, \\server\share\x.dll, CON.dll, an ADS name) are refused with
#    exit 4, the staging dir stays empty and nothing is written anywhere else.
# Runs under scripts/test-windows.sh (WINE, WINEPREFIX, WINEXTRACT set by CTest).
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${WINEXTRACT:?}"

. "$(dirname "${BASH_SOURCE[0]}")/cudnn_wheel.sh"

W="$WINEPREFIX/drive_c/cudnnctl-ziptest"
WW='C:\cudnnctl-ziptest'
rm -rf "$W"
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
TOP=cudnn-windows-x86_64-${VER}_cuda12-archive

python3 - "$WHL" "$W" "$TOP" <<'PY'
import hashlib, sys, zipfile
whl, out, top = sys.argv[1:4]
z = zipfile.ZipFile(whl)
files = {
    "dll": {n: z.read(f"nvidia/cudnn/bin/{n}") for n in ("cudnn64_9.dll", "cudnn_graph64_9.dll")},
    "h": {n: z.read(f"nvidia/cudnn/include/{n}") for n in ("cudnn.h", "cudnn_version.h")},
    "lib": {n: z.read(f"nvidia/cudnn/lib/x64/{n}") for n in ("cudnn.lib", "cudnn64_9.lib")},
}
layouts = {"bin": ("bin", "lib"), "libx64": ("bin", "lib/x64"), "binx64": ("bin/x64", "lib/x64")}
with open(f"{out}/expected.txt", "w") as exp:
    for kind in ("dll", "h", "lib"):
        for n, b in files[kind].items():
            d = {"dll": "bin", "h": "include", "lib": "lib"}[kind]
            exp.write(f"file {d}/{n} {len(b)} {hashlib.sha256(b).hexdigest()}\n")
for name, (bindir, libdir) in layouts.items():
    with zipfile.ZipFile(f"{out}/{name}.zip", "w", zipfile.ZIP_DEFLATED) as o:
        for n, b in files["dll"].items(): o.writestr(f"{top}/{bindir}/{n}", b)
        for n, b in files["h"].items(): o.writestr(f"{top}/include/{n}", b)
        for n, b in files["lib"].items(): o.writestr(f"{top}/{libdir}/{n}", b)
        o.writestr(f"{top}/LICENSE", b"license text\n")
bad = {
    "dotdot": f"{top}\\..\\..\\x.dll",
    "drive": "C:\\x.dll",
    "unc": "\\\\server\\share\\x.dll",
    "con": f"{top}/bin/CON.dll",
    "ads": f"{top}/bin/cudnn64_9.dll:evil",
}
for name, entry in bad.items():
    with zipfile.ZipFile(f"{out}/bad-{name}.zip", "w") as o:
        o.writestr(f"{top}/include/cudnn.h", files["h"]["cudnn.h"])
        o.writestr(zipfile.ZipInfo(entry), b"MZ payload that must never be written\n")
PY

fail() { echo "FAIL: $*"; exit 1; }
run_extract() { # zip-name staging-name -> stdout; sets RC
  set +e
  OUT=$("$WINE" "$WINEXTRACT" "$WW\\$1" "$WW\\$2" 2>&1 | tr -d '\r')
  RC=${PIPESTATUS[0]}
  set -e
}
sort "$W/expected.txt" >"$W/expected.sorted"
for layout in bin libx64 binx64; do
  mkdir -p "$W/stage-$layout"
  # under NVIDIA's file name: the name tells the extraction which top dir to expect
  mkdir -p "$W/$layout"
  cp "$W/$layout.zip" "$W/$layout/$TOP.zip"
  run_extract "$layout\\$TOP.zip" "stage-$layout"
  [ "$RC" -eq 0 ] || fail "$layout layout: exit $RC: $OUT"
  grep '^file ' <<<"$OUT" | grep -v ' LICENSE ' | sort >"$W/got.sorted"
  diff "$W/expected.sorted" "$W/got.sorted" >&2 || fail "$layout layout: staged files differ (above)"
  for f in bin/cudnn64_9.dll include/cudnn_version.h lib/cudnn.lib; do
    [ -f "$W/stage-$layout/$f" ] || fail "$layout layout: $f not on disk"
  done
  echo "ok: $layout layout staged $(grep -c '^file ' <<<"$OUT") files"
done

# (a walk of the shared prefix: another test's temp dir may vanish under it; what counts is the
# names found)
before=$( { find "$WINEPREFIX/drive_c" -name 'x.dll' -o -name 'CON.dll' 2>/dev/null || true; } | wc -l)
for bad in dotdot drive unc con ads; do
  mkdir -p "$W/badzip-$bad" "$W/stage-bad-$bad"
  cp "$W/bad-$bad.zip" "$W/badzip-$bad/$TOP.zip"
  run_extract "badzip-$bad\\$TOP.zip" "stage-bad-$bad"
  [ "$RC" -eq 4 ] || fail "unsafe zip '$bad': exit $RC, want 4: $OUT"
  grep -q '^error UNSAFE_ARCHIVE ' <<<"$OUT" || fail "unsafe zip '$bad': $OUT"
  [ -z "$(ls -A "$W/stage-bad-$bad")" ] || fail "unsafe zip '$bad': staging not empty: $(ls -A "$W/stage-bad-$bad")"
  echo "ok: unsafe '$bad' refused: ${OUT#error }"
done
after=$( { find "$WINEPREFIX/drive_c" -name 'x.dll' -o -name 'CON.dll' 2>/dev/null || true; } | wc -l)
[ "$before" -eq "$after" ] || fail "an unsafe entry was written somewhere in the prefix"
[ ! -e "$WINEPREFIX/drive_c/x.dll" ] || fail "C:\\x.dll was written"
echo "ok: three NVIDIA zip layouts staged; five unsafe zips refused with exit 4, nothing written"
