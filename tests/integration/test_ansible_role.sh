#!/usr/bin/env bash
# test_ansible_role.sh: the Ansible role (packaging/ansible/roles/cudnnctl) — its YAML parses and
# every task is named and uses fully-qualified modules; then ansible-playbook runs it on
# localhost (-c local) into a temporary prefix from a local mirror made by `cudnnctl mirror`:
# the first run installs (changed), the second changes nothing ("unchanged"), the validation's
# exit code is judged by cudnnctl_validate_ok_rc, and the report lands on the "controller" where
# `cudnnctl compare` reads it. Needs ansible-core and python3-yaml (scripts/bootstrap).
set -euo pipefail
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${CUDNNCTL:?CUDNNCTL must point at the cudnnctl binary}"
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-ansible-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
"$PY" -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing: run scripts/bootstrap"
command -v ansible-playbook >/dev/null || fail "ansible-playbook is missing (Debian ansible-core): run scripts/bootstrap"
ROLES=$SOURCE_DIR/packaging/ansible/roles

# ---- structure ------------------------------------------------------------------------------------
"$PY" - "$SOURCE_DIR/packaging/ansible" <<'PY' || fail "role structure"
import os, re, sys, yaml
base = sys.argv[1]
role = os.path.join(base, "roles", "cudnnctl")
for f in ("tasks/main.yml", "defaults/main.yml", "meta/main.yml", "meta/argument_specs.yml",
          "handlers/main.yml", "README.md"):
    assert os.path.isfile(os.path.join(role, f)), "missing " + f
tasks = yaml.safe_load(open(os.path.join(role, "tasks/main.yml")))
defaults = yaml.safe_load(open(os.path.join(role, "defaults/main.yml")))
play = yaml.safe_load(open(os.path.join(base, "playbook-example.yml")))
assert isinstance(tasks, list) and len(tasks) >= 6, "tasks/main.yml is no task list"
for t in tasks:
    assert t.get("name"), "unnamed task: %r" % t
    mods = [k for k in t if "." in k]
    assert len(mods) == 1 and mods[0].startswith("ansible.builtin."), "task %r: module %r" % (t["name"], mods)
used = open(os.path.join(role, "tasks/main.yml")).read() + open(os.path.join(role, "handlers/main.yml")).read()
handlers = yaml.safe_load(open(os.path.join(role, "handlers/main.yml")))
hnames = {h["name"] for h in handlers}
for t in tasks:
    for n in ([t["notify"]] if isinstance(t.get("notify"), str) else t.get("notify", [])):
        assert n in hnames, "task %r notifies %r, no such handler" % (t["name"], n)
    assert t.get("tags"), "task %r has no tags" % t["name"]
specs = yaml.safe_load(open(os.path.join(role, "meta/argument_specs.yml")))["argument_specs"]["main"]["options"]
assert set(specs) == set(defaults), "argument_specs and defaults differ: %r" % (set(specs) ^ set(defaults))
for k, spec in specs.items():
    if "{{" not in str(spec.get("default")):
        assert spec.get("default") == defaults[k], "%s: argument_specs default %r, defaults/main.yml %r" % (k, spec.get("default"), defaults[k])
assert defaults["cudnnctl_bin"] == "/usr/bin/cudnnctl", "cudnnctl_bin must default to where the .deb puts it"
pkg = play[0]["roles"][0]["vars"]["cudnnctl_package_src"]
assert re.fullmatch(r"(.*/)?cudnnctl_[0-9.]+_amd64\.deb", pkg), "the example names %r, not what cpack makes" % pkg
for k in defaults:
    assert k.startswith("cudnnctl_"), "default %s lacks the role prefix" % k
    assert k in used, "default %s is never used" % k
readme = open(os.path.join(role, "README.md")).read()
for k in defaults:
    assert k in readme, "README.md does not document %s" % k
assert play[0]["roles"][0]["role"] == "cudnnctl"
PY

# ---- a local mirror with one small NVIDIA-layout archive ------------------------------------------------
VER=9.99.0.1
NAME=cudnn-linux-x86_64-${VER}_cuda13-archive
B=$T/build/$NAME
mkdir -p "$B/lib" "$B/include" "$T/www/cudnn/linux-x86_64" "$T/m"
printf 'int cudnnctl_test_double(void) { return 42; }\n' > "$T/stub.c"
for l in libcudnn libcudnn_graph libcudnn_ops; do
    cc -shared -fPIC -Wl,-soname,$l.so.9 -o "$B/lib/$l.so.9.99.0" "$T/stub.c"
    ln -s $l.so.9.99.0 "$B/lib/$l.so.9"
    ln -s $l.so.9 "$B/lib/$l.so"
done
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 99\n#define CUDNN_PATCHLEVEL 0\n' > "$B/include/cudnn_version.h"
echo "test double of the cuDNN license" > "$B/LICENSE"
tar -C "$T/build" -cJf "$T/www/cudnn/linux-x86_64/$NAME.tar.xz" "$NAME"
"$PY" - "$T/www/cudnn/linux-x86_64/$NAME.tar.xz" "$T/m/redistrib_9.99.0.json" "$VER" <<'PY'
import hashlib, json, os, sys
p, out, ver = sys.argv[1:4]
b = open(p, "rb").read()
rel = "cudnn/linux-x86_64/" + os.path.basename(p)
json.dump({"release_label": "9.99.0", "release_product": "cudnn", "release_date": "2099-01-01",
           "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                     "version": ver, "cuda_variant": ["13"],
                     "linux-x86_64": {"cuda13": {"relative_path": rel,
                                                  "sha256": hashlib.sha256(b).hexdigest(),
                                                  "size": str(len(b))}}}},
          open(out, "w"), indent=2)
PY
"$CUDNNCTL" --cache-dir "$T/cache0" --no-progress mirror --to "$T/mirror" --manifest "$T/m/redistrib_9.99.0.json" \
    --cudnn 9.99 --cuda 13 --platform linux-x86_64 --mirror "$T/www" >/dev/null || fail "cudnnctl mirror"

# ---- the playbook ---------------------------------------------------------------------------------------
cat > "$T/play.yml" <<EOF
- hosts: all
  gather_facts: false
  roles:
    - role: cudnnctl
      vars:
        cudnnctl_binary_src: "$CUDNNCTL"
        cudnnctl_bin: "$T/bin/cudnnctl"
        cudnnctl_cudnn: "9.99"
        cudnnctl_cuda: "13"
        cudnnctl_platform: linux-x86_64
        cudnnctl_mirror: "$T/mirror"
        cudnnctl_manifest: "$T/mirror/redistrib_9.99.0.json"
        cudnnctl_prefix: "$T/px"
        cudnnctl_state_dir: "$T/state"
        cudnnctl_cache_dir: "$T/cache"
        cudnnctl_report_dir: "$T/reports"
        cudnnctl_validate_ok_rc: "{{ ok_rc | default([0, 7]) }}"
EOF
mkdir -p "$T/bin"
play() { # LOG [extra args]
    local log=$1 rc=0
    shift
    env ANSIBLE_HOME="$T/.ansible" ANSIBLE_LOCAL_TEMP="$T/.ansible/tmp" ANSIBLE_REMOTE_TEMP="$T/.ansible/rtmp" \
        ANSIBLE_ROLES_PATH="$ROLES" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PIPELINING=1 \
        ANSIBLE_PYTHON_INTERPRETER="$PY" \
        ansible-playbook -i localhost, -c local "$T/play.yml" "$@" >"$log" 2>&1 || rc=$?
    return $rc
}
recap() { grep -E '^localhost +:' "$1" | sed -E 's/.*changed=([0-9]+).*failed=([0-9]+).*/\1 \2/'; }

# The test archive's libraries are ELF doubles without cuDNN's symbols: validate fails (6) on
# them. First: the default ok list must fail the play at the validate task.
rc=0; play "$T/run0.log" || rc=$?
[ "$rc" -ne 0 ] || { cat "$T/run0.log"; fail "validate exit 6 passed with cudnnctl_validate_ok_rc [0, 7]"; }
grep -A3 'TASK \[cudnnctl : Fail with the validation.s message when it failed\]' "$T/run0.log" |
    grep -q '^fatal: \[localhost\]: FAILED! => .*cuDNN validation failed on localhost (exit 6, status failed): validation of ' ||
    { cat "$T/run0.log"; fail "the play did not stop at the validation with exit 6 and its message"; }
[ -e "$T/px/cudnn-$VER-cuda13/lib/libcudnn.so.9.99.0" ] || fail "the first run installed nothing"
# undo it, so the next run installs again
"$T/bin/cudnnctl" --state-dir "$T/state" uninstall --prefix "$T/px" --all >/dev/null 2>&1 ||
    fail "uninstall between runs"
[ ! -e "$T/px/cudnn-$VER-cuda13" ] || fail "uninstall left the version dir"

# accepting 6 here (the doubles cannot pass), the role runs through: installed -> changed
play "$T/run1.log" -e '{"ok_rc": [0, 6, 7]}' || { cat "$T/run1.log"; fail "first full run failed"; }
read -r changed failed <<<"$(recap "$T/run1.log")"
[ "$failed" = 0 ] && [ "$changed" -ge 1 ] || { cat "$T/run1.log"; fail "first run: changed=$changed failed=$failed"; }
grep -A2 'TASK \[cudnnctl : Install cuDNN\]' "$T/run1.log" | grep -q '^changed: \[localhost\]' ||
    { cat "$T/run1.log"; fail "the install task is not changed on the first run"; }
[ -e "$T/px/cudnn-$VER-cuda13/lib/libcudnn.so.9.99.0" ] || fail "the role installed nothing"
[ -x "$T/bin/cudnnctl" ] || fail "the binary was not copied"

# again: same version and archive there -> "unchanged" -> nothing changed at all
play "$T/run2.log" -e '{"ok_rc": [0, 6, 7]}' || { cat "$T/run2.log"; fail "second run failed"; }
read -r changed failed <<<"$(recap "$T/run2.log")"
[ "$changed" = 0 ] && [ "$failed" = 0 ] || { cat "$T/run2.log"; fail "second run not idempotent: changed=$changed failed=$failed"; }
grep -A2 'TASK \[cudnnctl : Install cuDNN\]' "$T/run2.log" | grep -q '^ok: \[localhost\]' ||
    { cat "$T/run2.log"; fail "the install task changed on the second run"; }

# the report reached the controller and is a cudnnctl report
R=$T/reports/localhost.json
[ -s "$R" ] || fail "no report stored on the controller"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["format"] == "cudnnctl-report" else 1)' "$R" ||
    fail "the stored report is not a cudnnctl report"
"$CUDNNCTL" compare "$R" "$R" >/dev/null || fail "compare cannot read the stored report"
# ---- a failed install says cudnnctl's message (its --json "error"), not a JSON blob ----------
rc=0; play "$T/run3.log" -e '{"ok_rc": [0, 6, 7], "cudnnctl_cudnn": "9.98"}' || rc=$?
[ $rc -ne 0 ] || { cat "$T/run3.log"; fail "an install of a cuDNN the catalog lacks passed"; }
line=$(grep -A3 'TASK \[cudnnctl : Fail with cudnnctl.s message when the install failed\]' "$T/run3.log" | grep '^fatal: \[localhost\]' || true)
echo "$line" | grep -Eq 'cudnnctl install failed \(exit 5, NO_MATCH\): .*9\.98' ||
    { cat "$T/run3.log"; fail "the failed install's task does not say cudnnctl's message"; }
[ ${#line} -lt 2000 ] || fail "the failure line is ${#line} characters (a JSON blob?)"

# ---- --check with a manifest URL: nothing in the host's cache ----------------------------------------
"$PY" "$SOURCE_DIR/tests/tools/httpd.py" --root "$T/mirror" --port-file "$T/port" &
HP=$!
trap 'kill $HP 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
rm -rf "$T/cache"
play "$T/run4.log" --check -e "{\"ok_rc\": [0, 6, 7], \"cudnnctl_prefix\": \"$T/px-check\", \"cudnnctl_manifest\": \"http://127.0.0.1:$(cat "$T/port")/redistrib_9.99.0.json\"}" ||
    { cat "$T/run4.log"; fail "--check with a manifest URL failed"; }
grep -A2 'TASK \[cudnnctl : Install cuDNN\]' "$T/run4.log" | grep -q '^changed: \[localhost\]' ||
    { cat "$T/run4.log"; fail "--check did not predict the install"; }
[ ! -e "$T/cache" ] || fail "--check left something in the host's cache: $(find "$T/cache")"
[ ! -e "$T/px-check" ] || fail "--check created the prefix"
echo "PASS: Ansible role: structure, install changed then unchanged, validate rc judged, report on the controller, failures with cudnnctl's message, --check keeps nothing"
