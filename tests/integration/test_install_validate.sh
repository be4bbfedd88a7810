#!/usr/bin/env bash
# test_install_validate.sh: the validation after an install is the library's (install option
# validate, result postcheck), the CLI only renders it. An archive of ELF test doubles installs
# fine but cannot be validated (no cudnnGetVersion): the install must stand (files in place,
# receipt, JSON result "installed"), the command exits 6 with the warning that says so, and the
# JSON embeds the failed validation; --no-validate says "not run" and exits 0.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/root/srv"
make_tree "$T/root" clean
A=$(make_archive "$T/root/srv" 9.18.0.10 "libcudnn libcudnn_ops" tiny 2>/dev/null) # doubles
SHA=$(sha256sum "$A" | cut -d' ' -f1)
TREE="$T/root/usr/local/cuda-13.0"
run() {
  "$CUDNNCTL" --root "$T/root" --cache-dir "$T/cache" install --cuda-home /usr/local/cuda \
    --archive "$A" --sha256 "$SHA" "$@"
}

set +e
run --json > "$T/a.json" 2> "$T/a.err"
rc=$?
set -e
[ $rc -eq 6 ] || { cat "$T/a.err"; fail "a failed validation after the install: exit $rc, want 6"; }
grep -q 'cuDNN was installed, but validating it failed' "$T/a.err" || { cat "$T/a.err"; fail "no warning that the install stands"; }
grep -q 'has no cudnnGetVersion' "$T/a.err" || { cat "$T/a.err"; fail "the validation's error is not reported"; }
json_assert "$T/a.json" 'd["result"] == "installed"'
json_assert "$T/a.json" 'd["validation"]["status"] == "failed"'
json_assert "$T/a.json" 'any(c["name"] == "load_cudnn" and not c["ok"] for c in d["validation"]["checks"])'
[ -f "$TREE/lib/libcudnn_ops.so.9.18.0" ] || fail "the installed files are gone"
[ "$(ls "$T/root/var/lib/cudnnctl/receipts" | wc -l)" -eq 1 ] || fail "no receipt for the install that stands"

# human output: the summary, the validation line, then the warning and the error (exit 6)
set +e
run --force > "$T/b.out" 2> "$T/b.err"
rc=$?
set -e
[ $rc -eq 6 ] || { cat "$T/b.out" "$T/b.err"; fail "human: exit $rc, want 6"; }
grep -q '^  result    installed' "$T/b.out" || { cat "$T/b.out"; fail "human: no install summary"; }
grep -q '^  validated failed: ' "$T/b.out" || { cat "$T/b.out"; fail "human: no validation line"; }

# --no-validate: nothing ran, nothing to rule on
run --force --no-validate --json > "$T/c.json" 2> "$T/c.err" || { cat "$T/c.err"; fail "--no-validate failed"; }
json_assert "$T/c.json" 'd["validation"] == "not run" and d["result"] == "installed"'
! grep -q 'validat' "$T/c.err" || { cat "$T/c.err"; fail "--no-validate still talked about validation"; }
echo "ok: install validation"
