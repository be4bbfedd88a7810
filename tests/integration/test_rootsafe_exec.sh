#!/usr/bin/env bash
# test_rootsafe_exec.sh: issue 18 item 6 (what root runs) and item 7's "nothing under the root is
# executed", played by a local user (eve) against cudnnctl run as root. Every program eve could
# change appends "euid=N" to a marker when it runs; the test asserts that root never ran one, that
# the refusal says why (exit 9 where a command was asked to run it), and that the printed fix
# works. The controls run the same thing as eve herself, so the markers can appear.
#   - detect/doctor/plan with CUDA_HOME at eve's toolkit: her nvcc is not run, the version comes
#     from the files, the toolkit's problem says why
#   - PATH (kept by sudo -E) with eve's dir first: her nvidia-smi is not run; her `sh` is refused
#     for `which --env-of` (the central guard in cc_pf_run), the fix (root's own PATH) works
#   - which/doctor --python with eve's interpreter: refused, the fix `sudo -u eve ...` works;
#     a root-owned interpreter with eve's PYTHONPATH runs none of her sitecustomize
#   - which --env-of with eve's activation file: not evaluated by root; the fix works
#   - --root: nothing under the root is run, whoever runs
set -euo pipefail
. "$SOURCE_DIR/tests/integration/rootsafe_lib.sh"
rs_init
T=$RS_T
make_user EVE
MK=$T/markers
mkdir -p "$MK" && chmod 1777 "$MK"
fail() { rs_fail "$@"; }
# json FILE 'python expression over d'
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" ||
  { cat "$1" >&2; fail "JSON check failed: $2"; }; }
# sudo_fix ERRFILE: the "sudo -u USER CMD..." of the fix, run with runuser where sudo is missing
run_fix() {
  local fix
  fix=$(sed -n 's/.*not as root: \(sudo -u .*\)$/\1/p' "$1" | head -1)
  [ -n "$fix" ] || { cat "$1" >&2; fail "no 'sudo -u' fix in the message"; }
  echo "fix: $fix"
  command -v sudo >/dev/null || fix=$(printf '%s' "$fix" | sed 's/^sudo -u \([^ ]*\) /runuser -u \1 -- /')
  fix=${fix/cudnnctl /$CUDNNCTL }
  (cd "$T" && eval "$fix")
}

# ---- eve's CUDA toolkit (CUDA_HOME under sudo -E), with an nvcc that marks who ran it ----------
TK=$EVE_HOME/cuda-13.0
mkdir -p "$TK/bin" "$TK/include" "$TK/lib64"
printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.2"}}\n' > "$TK/version.json"
printf '#define CUDA_VERSION 13000\n' > "$TK/include/cuda.h"
cat > "$TK/bin/nvcc" <<EOF
#!/bin/sh
echo "euid=\$(id -u) nvcc" >> "$MK/nvcc"
echo "Cuda compilation tools, release 13.0, V13.0.88"
EOF
chmod 755 "$TK/bin/nvcc"
chown -R "$EVE:$EVE" "$TK"

env -i PATH=/usr/bin:/bin HOME="$T" CUDA_HOME="$TK" "$CUDNNCTL" detect --json > "$T/d.json"
rs_expect_absent "$MK/nvcc" "root ran eve's nvcc"
json "$T/d.json" "[t for t in d['toolkits'] if t['path'] == '$TK'][0]['version'] == '13.0'"
json "$T/d.json" "'nvcc' not in [t for t in d['toolkits'] if t['path'] == '$TK'][0]['sources']"
json "$T/d.json" "any('$TK/bin/nvcc not run (running as root, cudnnctl runs only programs no other user can change' in p and '($EVE)' in p and 'read from the toolkit' in p for p in [t for t in d['toolkits'] if t['path'] == '$TK'][0]['problems'])"
# the commands that run detect: none runs it either
env -i PATH=/usr/bin:/bin HOME="$T" CUDA_HOME="$TK" "$CUDNNCTL" doctor --json > "$T/doc.json" || true
env -i PATH=/usr/bin:/bin HOME="$T" CUDA_HOME="$TK" "$CUDNNCTL" --cache-dir "$T/c" plan --cudnn 9.19 \
  --prefix "$T/p" > /dev/null 2>&1 || true
env -i PATH=/usr/bin:/bin HOME="$T" CUDA_HOME="$TK" "$CUDNNCTL" env --prefix "$T/p" > /dev/null 2>&1 || true
rs_expect_absent "$MK/nvcc" "doctor, plan or env as root ran eve's nvcc"
json "$T/doc.json" "any(f['code'] == 'TOOLKIT_PROBLEM' and 'not run' in f['message'] for f in d['findings'])"
# the control: eve herself runs her own nvcc
as_user "$EVE" env -i PATH=/usr/bin:/bin HOME="$EVE_HOME" CUDA_HOME="$TK" "$CUDNNCTL" detect --json > "$T/d.json"
grep -qx "euid=$EVE_UID nvcc" "$MK/nvcc" || fail "control: eve's detect did not run her nvcc"
json "$T/d.json" "'nvcc' in [t for t in d['toolkits'] if t['path'] == '$TK'][0]['sources']"
rm -f "$MK/nvcc"

# ---- eve's directory first on PATH: her nvidia-smi and her sh -------------------------------
EB=$EVE_HOME/bin
mkdir -p "$EB"
for p in nvidia-smi sh; do
  printf '#!/bin/sh\necho "euid=$(id -u) %s" >> "%s/%s"\necho 580.95.05\n' "$p" "$MK" "$p" > "$EB/$p"
  chmod 755 "$EB/$p"
done
chown -R "$EVE:$EVE" "$EB"
env -i PATH="$EB:/usr/bin:/bin" HOME="$T" "$CUDNNCTL" detect --json > "$T/d.json"
rs_expect_absent "$MK/nvidia-smi" "root ran eve's nvidia-smi from PATH"
if [ ! -e /proc/driver/nvidia/version ]; then # only then does detect ask nvidia-smi at all
  json "$T/d.json" "any('$EB/nvidia-smi not run' in n for n in d['notes'])"
fi
# sh from PATH: the central guard (cc_pf_run) refuses it, exit 9, and says what to do
printf 'LD_LIBRARY_PATH=/opt/x/lib; export LD_LIBRARY_PATH\n' > "$T/act.sh"
set +e
env -i PATH="$EB:/usr/bin:/bin" HOME="$T" "$CUDNNCTL" which --env-of "$T/act.sh" \
  > /dev/null 2> "$T/err"
rc=$?
set -e
rs_expect_absent "$MK/sh" "root ran eve's sh from PATH"
[ $rc -eq 9 ] || { cat "$T/err"; fail "which --env-of with eve's sh first on PATH: exit $rc, want 9"; }
grep -q "refusing to run $EB/sh as root: .*owned by uid $EVE_UID ($EVE)" "$T/err" &&
  grep -q "it was the first 'sh' on PATH: run cudnnctl with a PATH of root's own directories" "$T/err" ||
  { cat "$T/err"; fail "the refusal of sh does not say why and what to do"; }
# the fix: root's own PATH
env -i PATH=/usr/bin:/bin HOME="$T" "$CUDNNCTL" which --env-of "$T/act.sh" --json > "$T/w.json" ||
  fail "with root's PATH which --env-of still fails"

# ---- --python: eve's interpreter is refused (the fix runs it as eve); her PYTHONPATH runs nothing
PYE=$EVE_HOME/venv/bin/python
mkdir -p "${PYE%/*}"
printf '#!/bin/sh\necho "euid=$(id -u) python" >> "%s/python"\nexec /usr/bin/python3 "$@"\n' "$MK" > "$PYE"
chmod 755 "$PYE"
chown -R "$EVE:$EVE" "$EVE_HOME/venv"
for cmd in which doctor; do
  set +e
  env -i PATH=/usr/bin:/bin HOME="$T" "$CUDNNCTL" $cmd --python "$PYE" > /dev/null 2> "$T/err"
  rc=$?
  set -e
  rs_expect_absent "$MK/python" "root ran eve's --python interpreter ($cmd)"
  [ $rc -eq 9 ] || { cat "$T/err"; fail "$cmd --python eve's interpreter: exit $rc, want 9"; }
  grep -q -- "--python $PYE: refusing to run $PYE as root: .*($EVE)" "$T/err" &&
    grep -q "fix: run it as $EVE, who owns it, not as root: sudo -u $EVE cudnnctl which --python $PYE" "$T/err" ||
    { cat "$T/err"; fail "$cmd: the refusal of --python does not name the owner and the fix"; }
done
run_fix "$T/err" > "$T/fix.out" || { cat "$T/fix.out"; fail "the printed fix did not work"; }
grep -qx "euid=$EVE_UID python" "$MK/python" || fail "the fix did not run the interpreter as eve"
rm -f "$MK/python"
# a root-owned interpreter with eve's PYTHONPATH (kept by sudo -E): her sitecustomize never runs
mkdir -p "$EVE_HOME/pp"
printf 'import os\nopen("%s/sitecustomize", "a").write("euid=%%d sitecustomize\\n" %% os.geteuid())\n' "$MK" \
  > "$EVE_HOME/pp/sitecustomize.py"
chown -R "$EVE:$EVE" "$EVE_HOME/pp"
env -i PATH=/usr/bin:/bin HOME="$T" PYTHONPATH="$EVE_HOME/pp" "$CUDNNCTL" which --python /usr/bin/python3 \
  > /dev/null 2> "$T/err" || [ $? -ne 9 ] || { cat "$T/err"; fail "which --python /usr/bin/python3 refused"; }
rs_expect_absent "$MK/sitecustomize" "root imported eve's sitecustomize through PYTHONPATH"
as_user "$EVE" env -i PATH=/usr/bin:/bin HOME="$EVE_HOME" PYTHONPATH="$EVE_HOME/pp" "$CUDNNCTL" \
  which --python /usr/bin/python3 > /dev/null 2>&1 || true
grep -qx "euid=$EVE_UID sitecustomize" "$MK/sitecustomize" || fail "control: eve's own run did not import it"

# ---- --env-of: eve's activation file is not evaluated by root; the fix works ------------------
EA=$EVE_HOME/act.sh
printf 'echo "euid=$(id -u) env-of" >> "%s/envof"\nLD_LIBRARY_PATH=/opt/x/lib; export LD_LIBRARY_PATH\n' "$MK" > "$EA"
chown "$EVE:$EVE" "$EA"
set +e
env -i PATH=/usr/bin:/bin HOME="$T" "$CUDNNCTL" which --env-of "$EA" > /dev/null 2> "$T/err"
rc=$?
set -e
rs_expect_absent "$MK/envof" "root evaluated eve's activation file"
[ $rc -eq 9 ] || { cat "$T/err"; fail "which --env-of eve's file: exit $rc, want 9"; }
grep -q "fix: run it as $EVE, who owns it, not as root: sudo -u $EVE cudnnctl which --env-of $EA" "$T/err" ||
  { cat "$T/err"; fail "the --env-of refusal has no working fix"; }
run_fix "$T/err" > "$T/fix.out" 2>&1 || true
grep -qx "euid=$EVE_UID env-of" "$MK/envof" || { cat "$T/fix.out"; fail "the fix did not evaluate it as eve"; }

# ---- --root: nothing under the root is run, whoever runs -------------------------------------
FR=$EVE_HOME/fakeroot
mkdir -p "$FR/usr/local"
cp -a "$TK" "$FR/usr/local/cuda-13.0"
ln -s cuda-13.0 "$FR/usr/local/cuda"
chown -R "$EVE:$EVE" "$FR"
for who in root eve; do
  if [ $who = root ]; then
    env -i PATH=/usr/bin:/bin HOME="$T" "$CUDNNCTL" --root "$FR" detect --json > "$T/d.json"
  else
    as_user "$EVE" env -i PATH=/usr/bin:/bin HOME="$EVE_HOME" "$CUDNNCTL" --root "$FR" detect --json > "$T/d.json"
  fi
  rs_expect_absent "$MK/nvcc" "$who ran an nvcc under --root"
  json "$T/d.json" "[t['version'] for t in d['toolkits']] == ['13.0'] and 'nvcc' not in d['toolkits'][0]['sources']"
  json "$T/d.json" "any('/usr/local/cuda-13.0/bin/nvcc not run (it is under --root $FR, where nothing is run)' in n for n in d['notes'])"
done
echo "PASS: root ran none of eve's programs (nvcc, nvidia-smi, sh on PATH, --python, PYTHONPATH, --env-of); nothing under --root ran; the fixes work"
