#!/usr/bin/env bash
# test_windows_manifests.sh: packaging/windows/manifests.py on a ZIP laid out as CPack lays out the
# Windows one (the real ZIP is checked by tests/windows/test_windows_package.sh in the cross build).
# The generated scoop and winget manifests validate against the vendored published schemas and
# name the ZIP's SHA-256; and the validator rejects what the schemas or the ZIP contradict:
# a misspelt InstallerType, an unknown scoop key, a missing License, a ZIP with other bytes, a
# version other than the build's, an .exe the ZIP does not hold. Needs python3-jsonschema and
# python3-yaml (scripts/bootstrap).
set -euo pipefail
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-winman-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" -c 'import jsonschema, yaml' 2>/dev/null || fail "python3-jsonschema / python3-yaml missing: run scripts/bootstrap"
M=$SOURCE_DIR/packaging/windows/manifests.py
VER=$(sed -n 's/^project(cudnnctl VERSION \([0-9.]*\) .*/\1/p' "$SOURCE_DIR/CMakeLists.txt")
Z=$T/cudnnctl-$VER-windows-x86_64.zip
mkdir -p "$T/z/docs"
printf 'MZ not really a PE\n' >"$T/z/cudnnctl.exe"
cp "$SOURCE_DIR/LICENSE" "$SOURCE_DIR/README.md" "$SOURCE_DIR/packaging/windows/README-windows.txt" "$T/z/"
cp "$SOURCE_DIR/docs/windows.md" "$T/z/docs/"
"$PY" - "$T/z" "$Z" <<'PY'
import os, sys, zipfile
src, out = sys.argv[1:]
with zipfile.ZipFile(out, "w") as z:
    for d, _, files in os.walk(src):
        for f in files:
            p = os.path.join(d, f)
            z.write(p, os.path.relpath(p, src))
PY
"$PY" "$M" generate --zip "$Z" --version "$VER" --out "$T/m" >/dev/null || fail "generate"
"$PY" "$M" validate --zip "$Z" --dir "$T/m" --version "$VER" || fail "the generated manifests do not validate"
SHA=$(sha256sum "$Z" | cut -d' ' -f1)
W=$T/m/winget/manifests/c/cudnnctl/cudnnctl/$VER
grep -q "\"hash\": \"$SHA\"" "$T/m/scoop/cudnnctl.json" || fail "scoop manifest lacks the ZIP's SHA-256"
grep -qi "InstallerSha256: ${SHA^^}" "$W/cudnnctl.cudnnctl.installer.yaml" || fail "winget installer lacks the ZIP's SHA-256"
grep -q "^PackageVersion: $VER$" "$W/cudnnctl.cudnnctl.yaml" || fail "winget version manifest lacks $VER"

# each broken copy must be rejected, with the reason named
broken() { # NAME EXPECTED-TEXT: validate $T/b against $ZIP (default $Z) and expect a failure
    local name=$1 want=$2 zip=${3:-$Z} ver=${4:-$VER} out rc=0
    out=$("$PY" "$M" validate --zip "$zip" --dir "$T/b" --version "$ver" 2>&1) || rc=$?
    [ $rc -ne 0 ] || fail "$name: validate passed"
    grep -q -- "$want" <<<"$out" || fail "$name: expected '$want' in: $out"
}
fresh() { rm -rf "$T/b"; cp -r "$T/m" "$T/b"; }
BW=$T/b/winget/manifests/c/cudnnctl/cudnnctl/$VER
fresh; sed -i 's/^InstallerType: zip$/InstallerType: zipp/' "$BW/cudnnctl.cudnnctl.installer.yaml"
broken "InstallerType zipp" "InstallerType: 'zipp' is not one of"
fresh; sed -i 's/"bin": /"binary": /' "$T/b/scoop/cudnnctl.json"
broken "scoop key binary" "Additional properties are not allowed ('binary'"
fresh; sed -i '/^License: /d' "$BW/cudnnctl.cudnnctl.locale.en-US.yaml"
broken "no License" "'License' is a required property"
fresh; cp "$Z" "$T/other.zip"; printf 'x' >"$T/z2"; (cd "$T" && zip -q other.zip z2)
broken "other ZIP bytes" "is not the ZIP's SHA-256" "$T/other.zip"
fresh; broken "another version" "the build is '9.9.9'" "$Z" 9.9.9
fresh; sed -i 's/"bin": "cudnnctl.exe"/"bin": "cudnnctl2.exe"/' "$T/b/scoop/cudnnctl.json"
broken "exe not in the ZIP" "bin 'cudnnctl2.exe' is not in the ZIP"
echo "PASS: winget (schema 1.12.0) and scoop manifests generated from the ZIP validate; 6 broken variants rejected"
