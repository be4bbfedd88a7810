#!/usr/bin/env bash
# test_ansible_canary.sh: packaging/ansible/playbook-canary.yml (serial [1, "30%"],
# max_fail_percentage 0) on a fleet of three hosts with separate filesystems: three clean Debian 12
# roots (tests/tools/debroot.sh) reached through Ansible's chroot connection, the role installing
# the .deb that cpack makes from this build and cuDNN from a mirror inside each root. Each host has
# a CUDA 13 toolkit of CPU test doubles (tests/fixtures/validate_fake_vendor.c), so validation
# passes there with exit 7 (no GPU: versions and loading checked) — except gpu1, the canary, built
# to fail: its toolkit lacks libcublas.so.13, so its validation fails (exit 6).
#  1. --check --diff on all three: exit 0, every host previewed, no file written on any host
#  2. the roll-out: gpu1 fails at validation and the play ends; gpu2 and gpu3 are not touched
#     (not one file newer than before), gpu1's on-change handler did not run
#  3. --tags cudnnctl_package,cudnnctl_report: cudnnctl and a report from every host; `cudnnctl
#     compare` of the three on the controller shows the drift (gpu1's cuDNN, absent elsewhere)
#  4. max_fail_percentage 0 in a batch of two (serial [1, 2], order gpu2 gpu3 gpu1): gpu2 passes
#     and runs its handler; gpu1 fails validation next to gpu3, and the play ends there (gpu3's
#     later tasks and handler do not run); then --check on gpu2, gpu3 predicts no change
# Needs root (chroot, mount, unshare --uts), mmdebstrap (scripts/bootstrap), ansible-core; exit 77 when not root.
set -euo pipefail
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${BUILD_DIR:?BUILD_DIR must be the build tree}" "${CUDNNCTL:?CUDNNCTL must point at the cudnnctl binary}"
fail() { echo "FAIL: $*" >&2; exit 1; }
T0=$(date +%s)
stage() { echo "[$(( $(date +%s) - T0 ))s] $*" >&2; }
[ "$(id -u)" -eq 0 ] || { echo "test_ansible_canary: not root: chroot needs root (skipped)" >&2; exit 77; }
command -v ansible-playbook >/dev/null || fail "ansible-playbook is missing (Debian ansible-core): run scripts/bootstrap"
T=$(mktemp -d "${TMPDIR:-/tmp}/cc-canary-XXXXXX")
HOSTS=(gpu1 gpu2 gpu3)
cleanup() {
    local h
    for h in "${HOSTS[@]}"; do mountpoint -q "$T/roots/$h/proc" && umount "$T/roots/$h/proc"; done
    for h in "${HOSTS[@]}"; do mountpoint -q "$T/roots/$h/proc" && return; done  # never rm under a mount
    rm -rf "$T"
}
trap cleanup EXIT
VER=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$BUILD_DIR/CPackConfig.cmake")
cpack --config "$BUILD_DIR/CPackConfig.cmake" -G DEB -B "$T/dist" >"$T/cpack.log" 2>&1 || { tail -n 30 "$T/cpack.log"; fail "cpack -G DEB"; }
DEB=$T/dist/cudnnctl_${VER}_amd64.deb
[ -s "$DEB" ] || fail "no $DEB"

stage "cpack done"
# ---- the mirror: one cuDNN 9.19 archive of CPU doubles in NVIDIA's layout, and its manifest ---------
CV=9.19.0.99
NAME=cudnn-linux-x86_64-${CV}_cuda13-archive
S=$SOURCE_DIR/tests/fixtures/validate_fake_vendor.c
A=$T/build/$NAME
mkdir -p "$A/lib" "$A/include" "$T/mirror/cudnn/linux-x86_64"
cc -shared -fPIC -DFAKE_CUDNN -Wl,-soname,libcudnn.so.9 -o "$A/lib/libcudnn.so.9.19.0" "$S"
for l in graph ops cnn adv; do
    printf 'int cudnnGraphVersionCheck(void) { return 0; }\nunsigned long cudnnGetVersion(void) { return 91900; }\n' |
        cc -shared -fPIC -x c -Wl,-soname,libcudnn_$l.so.9 -o "$A/lib/libcudnn_$l.so.9.19.0" -
done
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' >"$A/include/cudnn_version.h"
echo "test double of the cuDNN license" >"$A/LICENSE"
tar -C "$T/build" -cJf "$T/mirror/cudnn/linux-x86_64/$NAME.tar.xz" "$NAME"
python3 - "$T/mirror/cudnn/linux-x86_64/$NAME.tar.xz" "$T/mirror/redistrib_$CV.json" "$CV" <<'PY'
import hashlib, json, os, sys
p, out, ver = sys.argv[1:4]
b = open(p, "rb").read()
json.dump({"release_label": ver, "release_product": "cudnn", "release_date": "2099-01-01",
           "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                     "version": ver, "cuda_variant": ["13"],
                     "linux-x86_64": {"cuda13": {"relative_path": "cudnn/linux-x86_64/" + os.path.basename(p),
                                                  "sha256": hashlib.sha256(b).hexdigest(), "size": str(len(b))}}}},
          open(out, "w"), indent=2)
PY

stage "mirror done"
# ---- three hosts: Debian 12 roots with a CUDA 13 toolkit of doubles; gpu1's lacks cublas -----------
for h in "${HOSTS[@]}"; do
    R=$T/roots/$h
    rc=0; bash "$SOURCE_DIR/tests/tools/debroot.sh" "$R" || rc=$?
    [ $rc -eq 0 ] || exit $rc
    TK=$R/usr/local/cuda-13.0
    mkdir -p "$TK/lib64" "$R/srv"
    echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.88"}}' >"$TK/version.json"
    cc -shared -fPIC -DFAKE_CUDART -Wl,-soname,libcudart.so.13 -o "$TK/lib64/libcudart.so.13" "$S"
    libs=(libcublasLt.so.13 libnvrtc.so.13)
    [ "$h" = gpu1 ] || libs+=(libcublas.so.13)   # the canary is built to fail: no cublas
    for s in "${libs[@]}"; do echo "int fake_$RANDOM;" | cc -shared -fPIC -x c -Wl,-soname,$s -o "$TK/lib64/$s" -; done
    ln -s cuda-13.0 "$R/usr/local/cuda"
    echo "$h" >"$R/etc/hostname"
    cp -a "$T/mirror" "$R/srv/cudnn-mirror"
    # cudnnctl validate re-executes itself through /proc/self/exe
    mount -t proc proc "$R/proc" || { echo "test_ansible_canary: cannot mount /proc in a root (no CAP_SYS_ADMIN?): skipped" >&2; exit 77; }
    # the chroot connection enters each root through this, in a UTS namespace of its own: each host
    # has its own name (gethostname, which `cudnnctl report` records), as separate machines would
    cat >"$T/chroot-$h" <<EOF2
#!/bin/sh
exec unshare --uts -- sh -c 'hostname "\$0" && exec chroot "\$@"' $h "\$@"
EOF2
    chmod +x "$T/chroot-$h"
done
{
    echo "[gpu]"
    for h in "${HOSTS[@]}"; do echo "$h ansible_host=$T/roots/$h ansible_chroot_exe=$T/chroot-$h"; done
    echo "[gpu:vars]"
    echo "ansible_connection=chroot"
    echo "ansible_python_interpreter=/usr/bin/python3"
} >"$T/inventory.ini"
cat >"$T/vars.json" <<EOF2
{"ansible_become": false, "cudnnctl_package_src": "$DEB", "cudnnctl_cudnn": "$CV", "cudnnctl_cuda": "13",
 "cudnnctl_platform": "linux-x86_64", "cudnnctl_mirror": "/srv/cudnn-mirror",
 "cudnnctl_manifest": "/srv/cudnn-mirror/redistrib_$CV.json", "cudnnctl_prefix": "/opt/cudnn",
 "cudnnctl_report_dir": "$T/reports", "cudnnctl_on_change_command": ["touch", "/var/tmp/cudnn-changed"]}
EOF2
play() { # LOG [ansible-playbook args]
    local log=$1 rc=0; shift
    env ANSIBLE_HOME="$T/.ansible" ANSIBLE_LOCAL_TEMP="$T/.ansible/tmp" ANSIBLE_ROLES_PATH="$SOURCE_DIR/packaging/ansible/roles" \
        ANSIBLE_CONNECTION_PLUGINS="$SOURCE_DIR/tests/ansible/connection_plugins" ANSIBLE_NOCOLOR=1 \
        ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PIPELINING=1 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 \
        ansible-playbook -i "${INVENTORY:-$T/inventory.ini}" "$SOURCE_DIR/packaging/ansible/playbook-canary.yml" \
        -e @"$T/vars.json" "$@" >"$log" 2>&1 || rc=$?
    return $rc
}
recap() { sed -n "s/^$1 *: \(.*\)/\1/p" "$2"; }       # HOST LOG -> "ok=.. changed=.. ..." or ""
count() { recap "$1" "$3" | sed -n "s/.*$2=\([0-9]*\).*/\1/p"; }
# what changed in a root since a stamp: every entry, dirs included (a host Ansible never reached)
touched() { find "$T/roots/$1" -xdev -newer "$2" -print; }
# files written (not dirs: Python's and Ansible's scratch files come and go in /tmp, /dev/shm and
# ~/.ansible/tmp and leave only the dirs' mtimes changed) — for check mode, which connects
written() { find "$T/roots/$1" -xdev -newer "$2" ! -type d ! -path "$T/roots/$1/root/.ansible/*" -print; }

stage "three roots ready"
# ---- 1. --check --diff: every host previewed, nothing written ------------------------------------------
touch "$T/stamp0"; sleep 1
play "$T/check.log" --check --diff || { cat "$T/check.log"; fail "--check --diff failed"; }
for h in "${HOSTS[@]}"; do
    [ "$(count "$h" failed "$T/check.log")" = 0 ] || { cat "$T/check.log"; fail "$h failed in check mode"; }
    [ -z "$(written "$h" "$T/stamp0")" ] || fail "--check wrote on $h: $(written "$h" "$T/stamp0" | head)"
done
grep -q 'is not on the host yet' "$T/check.log" || { cat "$T/check.log"; fail "check mode did not say why the install is not previewed"; }

stage "check mode done"
# ---- 2. the roll-out: the canary fails validation, the play ends, the others are untouched -------
touch "$T/stamp1"; sleep 1
rc=0; play "$T/run1.log" || rc=$?
[ $rc -ne 0 ] || { cat "$T/run1.log"; fail "the roll-out passed although the canary's validation fails"; }
line=$(grep -A3 'TASK \[cudnnctl : Fail with the validation.s message when it failed\]' "$T/run1.log" | grep '^fatal: \[gpu1\]' || true)
[ -n "$line" ] || { cat "$T/run1.log"; fail "gpu1 did not fail at the validation"; }
echo "$line" | grep -q 'cuDNN validation failed on gpu1 (exit 6, status failed)' || { cat "$T/run1.log"; fail "the canary's validate did not exit 6"; }
echo "$line" | grep -Eq 'libcublas\.so\.13 not found' || fail "the canary's failure line does not name libcublas.so.13: $line"
[ ${#line} -lt 3000 ] || fail "the canary's reason is a ${#line}-character line, not a message"
[ "$(count gpu1 failed "$T/run1.log")" = 1 ] || { cat "$T/run1.log"; fail "gpu1 not failed=1 in the recap"; }
[ -x "$T/roots/gpu1/usr/bin/cudnnctl" ] && [ -e "$T/roots/gpu1/opt/cudnn/cudnn-$CV-cuda13/lib/libcudnn.so.9.19.0" ] ||
    fail "the canary did not get cudnnctl and cuDNN before its validation"
[ ! -e "$T/roots/gpu1/var/tmp/cudnn-changed" ] || fail "the handler ran on the failed canary"
for h in gpu2 gpu3; do
    [ -z "$(recap "$h" "$T/run1.log")" ] || { cat "$T/run1.log"; fail "$h ran after the canary failed"; }
    [ -z "$(touched "$h" "$T/stamp1")" ] || fail "$h was touched after the canary failed: $(touched "$h" "$T/stamp1" | head)"
    [ ! -e "$T/roots/$h/usr/bin/cudnnctl" ] && [ ! -e "$T/roots/$h/opt/cudnn" ] || fail "$h has cudnnctl or cuDNN"
done

stage "canary roll-out done"
# ---- 3. reports from every host, compared on the controller ----------------------------------------
play "$T/run2.log" --tags cudnnctl_package,cudnnctl_report || { cat "$T/run2.log"; fail "package + report run"; }
for h in "${HOSTS[@]}"; do [ -s "$T/reports/$h.json" ] || fail "no report from $h"; done
[ ! -e "$T/roots/gpu2/opt/cudnn" ] || fail "--tags cudnnctl_package,cudnnctl_report installed cuDNN"
rc=0; "$CUDNNCTL" compare "$T/reports/gpu1.json" "$T/reports/gpu2.json" "$T/reports/gpu3.json" >"$T/compare.txt" 2>&1 || rc=$?
[ $rc -eq 1 ] || { cat "$T/compare.txt"; fail "compare exited $rc, not 1 (drift)"; }
grep -q '9\.19\.0' "$T/compare.txt" || { cat "$T/compare.txt"; fail "compare does not show gpu1's cuDNN 9.19.0 as drift"; }
grep -Eq '^ +item +gpu1 +gpu2 +gpu3 *$' "$T/compare.txt" || { cat "$T/compare.txt"; fail "compare does not name the hosts gpu1 gpu2 gpu3"; }
grep -Eq "^\* +installs +$CV/cuda13 /opt/cudnn/cudnn-$CV-cuda13 +- +- *$" "$T/compare.txt" ||
    { cat "$T/compare.txt"; fail "compare does not mark gpu1's install as the drift"; }
echo "--- cudnnctl compare gpu1 gpu2 gpu3 (exit 1: drift):"; cat "$T/compare.txt"; echo "---"
rc=0; "$CUDNNCTL" compare "$T/reports/gpu2.json" "$T/reports/gpu3.json" >"$T/compare23.txt" 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat "$T/compare23.txt"; fail "gpu2 and gpu3 drift although neither was touched ($rc)"; }

stage "reports done"
# ---- 4. max_fail_percentage 0 inside a batch of two: gpu2 as the canary (passes), then gpu3 and
# gpu1 together (serial [1, 2]): gpu1 fails validation while gpu3 passes it, and the play ends
# there — gpu3 installed and validated, but its later tasks and its handler do not run ------------
awk '/^gpu1 /{g1=$0; next} {print} /^gpu3 /{print g1}' "$T/inventory.ini" >"$T/inventory2.ini"
grep -A3 '^\[gpu\]' "$T/inventory2.ini" | grep '^gpu1 ' >/dev/null && [ "$(sed -n 2p "$T/inventory2.ini" | cut -d' ' -f1)" = gpu2 ] ||
    fail "inventory2 order: $(cat "$T/inventory2.ini")"
rc=0; INVENTORY=$T/inventory2.ini play "$T/run3.log" -e '{"cudnnctl_serial": [1, 2]}' || rc=$?
[ $rc -ne 0 ] || { cat "$T/run3.log"; fail "the batch with the failing gpu1 did not fail the play"; }
[ "$(count gpu2 failed "$T/run3.log")" = 0 ] && [ -e "$T/roots/gpu2/var/tmp/cudnn-changed" ] ||
    { cat "$T/run3.log"; fail "gpu2 (the passing canary) did not complete with its handler"; }
grep -q 'no-gpu (exit 7)' "$T/run3.log" || { cat "$T/run3.log"; fail "validation on gpu2 was not 'no-gpu (exit 7)'"; }
[ -e "$T/roots/gpu3/opt/cudnn/cudnn-$CV-cuda13/lib/libcudnn.so.9.19.0" ] || { cat "$T/run3.log"; fail "gpu3 (batch 2) did not install"; }
grep -A4 'TASK \[cudnnctl : Validate the installed cuDNN\]' "$T/run3.log" | grep '^ok: \[gpu3\]' >/dev/null ||
    { cat "$T/run3.log"; fail "gpu3 did not pass validation next to the failing gpu1"; }
[ ! -e "$T/roots/gpu3/var/tmp/cudnn-changed" ] || { cat "$T/run3.log"; fail "gpu3 went on after gpu1 failed in its batch (max_fail_percentage 0 ignored)"; }
grep -q 'NO MORE HOSTS LEFT' "$T/run3.log" || { cat "$T/run3.log"; fail "the play did not end after gpu1 failed"; }
play "$T/check2.log" --limit gpu2,gpu3 --check --diff || { cat "$T/check2.log"; fail "--check after the roll-out"; }
for h in gpu2 gpu3; do
    grep -A3 'TASK \[cudnnctl : Install cuDNN\]' "$T/check2.log" | grep "^ok: \[$h\]" >/dev/null ||
        { cat "$T/check2.log"; fail "check mode predicts a change on $h, where it is installed"; }
done
stage "batch roll-out and check done"
echo "PASS: canary: --check changed nothing; gpu1 failed validation (exit 6) and gpu2/gpu3 were not touched; reports + compare show the drift; the others installed without it"
