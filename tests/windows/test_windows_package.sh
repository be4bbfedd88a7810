#!/usr/bin/env bash
# test_windows_package.sh: the Windows package from this cross build. `cpack -G ZIP` makes
# $BUILD_DIR/dist/cudnnctl-<ver>-windows-x86_64.zip; it holds cudnnctl.exe (static: imports only
# Windows' own DLLs, checked by scripts/test-windows.sh), LICENSE, README.md, README-windows.txt,
# docs\ (no headers: no DLL of the library is shipped); the .exe unpacked from it runs under wine and says the build's version.
# Then packaging/windows/manifests.py writes the winget and scoop manifests for that ZIP into
# $BUILD_DIR/dist/manifests (version and SHA-256 from the build) and validates them against the
# vendored published schemas. Runs under scripts/test-windows.sh.
set -euo pipefail
: "${WINE:?run through scripts/test-windows.sh}" "${WINEPREFIX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" -c 'import jsonschema, yaml' 2>/dev/null || fail "python3-jsonschema / python3-yaml missing (apt-get install python3-jsonschema python3-yaml)"
VER=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$BUILD_DIR/CPackConfig.cmake")
[ -n "$VER" ] || fail "no CPACK_PACKAGE_VERSION in $BUILD_DIR/CPackConfig.cmake"
DIST=$BUILD_DIR/dist
rm -rf "$DIST"
cpack --config "$BUILD_DIR/CPackConfig.cmake" -G ZIP -B "$DIST" >"$TMP/cpack.log" 2>&1 ||
  { tail -n 30 "$TMP/cpack.log"; fail "cpack -G ZIP"; }
Z=$DIST/cudnnctl-$VER-windows-x86_64.zip
[ -s "$Z" ] || fail "no $Z ($(ls "$DIST"))"
rm -rf "$DIST/_CPack_Packages"
unzip -Z1 "$Z" | sort >"$TMP/list"
for f in cudnnctl.exe LICENSE README.md README-windows.txt docs/windows.md docs/install.md; do
  grep -qx "$f" "$TMP/list" || fail "the ZIP lacks $f: $(tr '\n' ' ' <"$TMP/list")"
done
! grep -Eq '\.(so|a|pc|cmake|h)$|^(lib|include)/' "$TMP/list" || fail "library files in the Windows ZIP (no DLL is shipped): $(grep -E '\.(so|a|pc|cmake|h)$|^(lib|include)/' "$TMP/list")"
cmp -s <(unzip -p "$Z" LICENSE) "$SOURCE_DIR/LICENSE" || fail "the ZIP's LICENSE is not the repo's"
mkdir -p "$TMP/u" && (cd "$TMP/u" && unzip -q "$Z")
out=$("$WINE" "$TMP/u/cudnnctl.exe" --print-version 2>&1 | tr -d '\r') || fail "cudnnctl.exe from the ZIP: $out"
grep -q "^cudnnctl $VER" <<<"$out" || fail "cudnnctl.exe from the ZIP says: $out"
"$PY" "$SOURCE_DIR/packaging/windows/manifests.py" generate --zip "$Z" --version "$VER" --out "$DIST/manifests" ||
  fail "manifests.py generate"
"$PY" "$SOURCE_DIR/packaging/windows/manifests.py" validate --zip "$Z" --dir "$DIST/manifests" --version "$VER" ||
  fail "the manifests of the ZIP do not validate"
echo "ok: $(basename "$Z") ($(stat -c %s "$Z") bytes, $(wc -l <"$TMP/list") files), winget + scoop manifests in $DIST/manifests"
