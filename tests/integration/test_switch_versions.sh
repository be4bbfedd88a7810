#!/usr/bin/env bash
# test_switch_versions.sh: two cuDNN versions side by side in one prefix; `use --cudnn V --prefix P`
# flips PREFIX/current (journaled, no archive, no network) and says so ("switched", "already-
# current", verified at install / re-verified with --deep); installing a version that is already
# there reports "switched" with when it was verified, not a fresh "(verified)"; a damaged install
# is refused with a fix that the test runs; unknown versions and a foreign `current` are errors.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
C=("$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache")
S="$T/root/srv"
mkdir -p "$S" "$T/root/opt"
A19=$(make_archive "$S" 9.19.0.56 "libcudnn libcudnn_graph")
A14=$(make_archive "$S" 9.14.0.64 "libcudnn libcudnn_graph")
SHA19=$(sha256sum "$A19" | cut -d' ' -f1); SHA14=$(sha256sum "$A14" | cut -d' ' -f1)
P="$T/root/opt/p"
"${C[@]}" install --prefix /opt/p --archive "$A19" --sha256 "$SHA19" --no-validate -q >/dev/null
"${C[@]}" install --prefix /opt/p --archive "$A14" --sha256 "$SHA14" --no-validate -q >/dev/null
[ "$(readlink "$P/current")" = cudnn-9.14.0.64-cuda13 ] || fail "current after the 2nd install"

# ---- switch back: a link flip, said as such ----
"${C[@]}" use --cudnn 9.19 --prefix /opt/p --json > "$T/sw.json"
json_assert "$T/sw.json" 'd["result"] == "switched" and d["cudnn_version"] == "9.19.0.56"'
json_assert "$T/sw.json" 'd["previous"] == "cudnn-9.14.0.64-cuda13" and d["re_verified"] is False'
json_assert "$T/sw.json" 'd["verified_at_install"] and d["files_checked"] >= 3 and d["seconds"] < 1'
[ "$(readlink "$P/current")" = cudnn-9.19.0.56-cuda13 ] || fail "current not switched"
echo "switch took $(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["seconds"]*1000))' "$T/sw.json") ms"
"${C[@]}" use --cudnn 9.19.0.56 --prefix /opt/p --json > "$T/again.json"
json_assert "$T/again.json" 'd["result"] == "already-current"'
"${C[@]}" use --cudnn 9.14 --prefix /opt/p --deep | tee "$T/human.txt"
grep -q "now current" "$T/human.txt" || fail "human output of a switch"
grep -q "re-hashed" "$T/human.txt" || fail "--deep not said"
no_leftovers "$P"

# ---- install of a version already there: "switched", verified at install, nothing hashed ----
"${C[@]}" install --prefix /opt/p --archive "$A19" --sha256 "$SHA19" --no-validate --json > "$T/re.json" 2>/dev/null
json_assert "$T/re.json" 'd["result"] == "switched" and d["archive"]["verified_at_install"]'
"${C[@]}" install --prefix /opt/p --archive "$A19" --sha256 "$SHA19" --no-validate 2>/dev/null > "$T/re.txt"
grep -q "verified at install" "$T/re.txt" || { cat "$T/re.txt"; fail "unchanged install claims a fresh verification"; }
json_assert <("${C[@]}" install --prefix /opt/p --archive "$A19" --sha256 "$SHA19" --no-validate --json 2>/dev/null) 'd["result"] == "unchanged"'

# ---- a damaged install is refused (exit 3, current unchanged), and the printed fix works ----
lib14=$(ls "$P/cudnn-9.14.0.64-cuda13/lib/"libcudnn_graph.so.9.14.0)
printf 'x' >> "$lib14"
set +e
"${C[@]}" use --cudnn 9.14 --prefix /opt/p 2> "$T/err"; rc=$?
set -e
[ $rc -eq 3 ] || { cat "$T/err"; fail "switch to a damaged install: exit $rc, want 3"; }
grep -q "libcudnn_graph.so.9.14.0" "$T/err" || fail "the damaged file is not named"
[ "$(readlink "$P/current")" = cudnn-9.19.0.56-cuda13 ] || fail "current moved to a damaged install"
fix=$(grep -o 'cudnnctl install [^`]*' "$T/err" | head -1)
[ -n "$fix" ] || { cat "$T/err"; fail "no fix printed"; }
echo "running the printed fix: $fix"
read -r -a fixargs <<< "${fix#cudnnctl }"
"${C[@]}" "${fixargs[@]}" --no-validate -q > /dev/null || fail "the printed fix failed"
"${C[@]}" use --cudnn 9.14 --prefix /opt/p --deep --json > "$T/fixed.json"
json_assert "$T/fixed.json" 'd["re_verified"] is True'

# ---- errors: a version not installed there, no prefix, a foreign current ----
set +e
"${C[@]}" use --cudnn 9.1 --prefix /opt/p 2> "$T/err"; rc=$?
set -e
[ $rc -ne 0 ] && grep -q "no cuDNN 9.1 is installed" "$T/err" || { cat "$T/err"; fail "unknown version"; }
set +e
"${C[@]}" use --cudnn 9.14 2> "$T/err"; rc=$?
set -e
[ $rc -eq 2 ] || { cat "$T/err"; fail "use --cudnn without --prefix: exit $rc, want 2"; }
rm "$P/current"; mkdir "$P/current"
set +e
"${C[@]}" use --cudnn 9.19 --prefix /opt/p 2> "$T/err"; rc=$?
set -e
[ $rc -ne 0 ] && grep -q "not a link made by cudnnctl" "$T/err" || { cat "$T/err"; fail "foreign current"; }
echo "ok: switching between installed versions (switched / already-current / --deep / damaged / errors)"
