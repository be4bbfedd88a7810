#!/usr/bin/env bash
# The H200 checks of issue 18 items 3 and 6 (branch i18b): validation and the effective-load check
# as root, on a real GPU, where the files are root's and where they are not.
#  0. who owns what on the image (the trust rule decides by owner and mode)
#  1. validate, as root, the distribution's cuDNN 9.14 (/usr/lib/x86_64-linux-gnu, root's): the
#     trust checks pass and the GPU part runs: want status "ok", exit 0
#  2. validate, as root, the torch wheel's cuDNN 9.19: exit 0 when /opt/torch/.venv is root's;
#     else exit 9 and the printed fix (runuser -u OWNER -- cudnnctl validate ...) is run
#  3. a copy of the wheel's lib dir owned by `nobody`: as root exit 9, nothing loaded; the printed
#     fix, run as printed, validates it on the GPU as nobody (want: not 9; "ok" where nobody may
#     open /dev/nvidia*)
#  4. the effective probe as root with that copy on LD_LIBRARY_PATH: the model's answer
#     (cudnnctl-model: line), nothing loaded
#  5. a real terminal (script(1) gives the command a pty as its controlling terminal): env
#     --persist, which ends with the login-shell probe, takes seconds, not 60 s, and the login
#     scope maps a file (no "exit -1")
# Bundle: bench/validate-h200/make-bundle.sh build DIR && cp bench/rootsafe-h200/run.sh DIR/;
# run as root on the device: bash DIR/run.sh (raw output: $OUT/*; WHEEL=DIR overrides the wheel's
# lib dir, for a dry run elsewhere).
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/rootsafe-out}
mkdir -p "$OUT"
W=/tmp/rs
rm -rf $W
mkdir -p $W/b $W/wrap
cp -a "$D/bin" $W/b/ # the bundle (bin/cudnnctl, bin/lib/), readable by nobody too (step 3)
chmod -R a+rX $W
printf '#!/bin/sh\nexec %s/b/bin/cudnnctl --state-dir /tmp/rs-state-$(id -u) --cache-dir /tmp/rs-cache-$(id -u) "$@"\n' \
    $W >$W/wrap/cudnnctl
chmod 0755 $W/wrap/cudnnctl
export PATH=$W/wrap:$PATH
if [ -z "${WHEEL:-}" ]; then
    SITE=$(/opt/torch/.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    WHEEL=$SITE/nvidia/cudnn/lib
fi
summary() {
    python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  (no JSON:", e, ")"); sys.exit(0)
print("  status", d.get("status"), "cudnn", d.get("cudnn_version"), "loaded_from", d.get("loaded_from"))
print("  failed checks:", [(c["name"], c.get("error")) for c in d.get("checks", []) if not c["ok"] and not c.get("skipped")])' "$1"
}
{
    echo "===== 0. owners"
    id
    ls -ld / /usr /usr/lib/x86_64-linux-gnu /usr/local/cuda-13.0 /opt /opt/torch /opt/torch/.venv "$WHEEL"
    ls -l /dev/nvidia* 2>&1 | head -5
    echo "===== 1. validate (root) the distribution's cuDNN 9.14"
    cudnnctl validate /usr/lib/x86_64-linux-gnu --cuda-home /usr/local/cuda-13.0 --json >$OUT/v-distro.json 2>$OUT/v-distro.err
    echo "exit $?"
    cat $OUT/v-distro.err
    summary $OUT/v-distro.json
    echo "===== 2. validate (root) the torch wheel's cuDNN 9.19"
    cudnnctl validate "$WHEEL" --cuda-home /usr/local/cuda-13.0 --json >$OUT/v-wheel.json 2>$OUT/v-wheel.err
    rc=$?
    echo "exit $rc"
    cat $OUT/v-wheel.err
    summary $OUT/v-wheel.json
    if [ $rc = 9 ]; then
        fix=$(sed -n 's/.*; fix: validate it as [^:]*: //p' $OUT/v-wheel.err)
        echo "running the printed fix: $fix"
        (cd /tmp && eval "$fix --json") >$OUT/v-wheel-fix.json 2>$OUT/v-wheel-fix.err
        echo "fix exit $?"
        summary $OUT/v-wheel-fix.json
    fi
    echo "===== 3. a copy owned by nobody"
    C=$W/nobody
    mkdir -p $C
    cp -a "$WHEEL" $C/lib
    chown -R nobody $C
    chmod 0755 $C
    cudnnctl validate $C/lib --cuda-home /usr/local/cuda-13.0 --json >$OUT/v-nobody-root.json 2>$OUT/v-nobody-root.err
    echo "as root: exit $? (want 9)"
    cat $OUT/v-nobody-root.err
    fix=$(sed -n 's/.*; fix: validate it as [^:]*: //p' $OUT/v-nobody-root.err)
    echo "running the printed fix: $fix"
    (cd /tmp && eval "$fix --json") >$OUT/v-nobody-fix.json 2>$OUT/v-nobody-fix.err
    echo "fix exit $? (want not 9)"
    tail -3 $OUT/v-nobody-fix.err
    summary $OUT/v-nobody-fix.json
    echo "===== 4. the effective probe as root, that copy on LD_LIBRARY_PATH"
    LD_LIBRARY_PATH=$C/lib cudnnctl __load-probe libcudnn.so.9
    echo "===== 5. in a real terminal (script -qec): env --persist ends with the login-shell probe"
    export HOME=$W/home
    mkdir -p $HOME
    P=$W/p # a prefix made by hand (no archive here): the wheel's files as cudnn-9.19.0.0-cuda13
    mkdir -p $P/cudnn-9.19.0.0-cuda13
    cp -a "$WHEEL" $P/cudnn-9.19.0.0-cuda13/lib
    ln -s cudnn-9.19.0.0-cuda13 $P/current
    t0=$(date +%s%N)
    script -qec "cudnnctl env --persist --shell bash --prefix $P --json >$OUT/persist.json 2>$OUT/persist.err" \
        /dev/null </dev/null >/dev/null
    echo "exit $?, $((($(date +%s%N) - t0) / 1000000)) ms"
    cat $OUT/persist.err
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(" effective_load", e["scope"], e["mapped"], "not_run" if e["not_run"] else "", e["error"] or "") for e in d["effective_load"]]' $OUT/persist.json
} 2>&1 | tee $OUT/rootsafe-h200.txt
