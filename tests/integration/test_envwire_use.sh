#!/usr/bin/env bash
# test_envwire_use.sh: `cudnnctl use` under fake roots with toolkits 11.8 / 12.4 / 13.0:
# a plain /usr/local/cuda link and an update-alternatives group (checked with the real
# update-alternatives --query), switching back and forth, /usr/local/cuda-<M>, a prefix's
# `current`, a reader loop that never sees /usr/local/cuda missing during 200 switches,
# exit 5 with the list for an unknown version, and `use` without a version.
set -euo pipefail
. "$(dirname "$0")/envwire_lib.sh"
need update-alternatives

# ---- plain link -------------------------------------------------------------------------------
R=$T/plain
mk_root "$R"
ln -s cuda-13.0 "$R/usr/local/cuda"
C use 12.4 >"$T/out" || fail "use 12.4 failed: $(cat "$T/out")"
[ "$(readlink "$R/usr/local/cuda")" = cuda-12.4 ] || fail "use 12.4 left $(readlink "$R/usr/local/cuda")"
grep -q "CUDA 12.4.* now active" "$T/out" || fail "use 12.4 did not say so: $(cat "$T/out")"
act=$(C detect --json | json_get '[t["path"] for t in d["toolkits"] if t["active"]]')
[ "$act" = "['/usr/local/cuda-12.4']" ] || fail "detect after use 12.4 says active: $act"
C use 13.0 >/dev/null
[ "$(readlink "$R/usr/local/cuda")" = cuda-13.0 ] || fail "use 13.0 did not flip back"
C use 13.0 | grep -q "already active" || fail "use 13.0 twice should say already active"
j=$(C --json use 12.4)
[ "$(echo "$j" | json_get 'd["previous"], d["changed"], d["mechanism"]')" = \
  "('/usr/local/cuda-13.0', True, 'link')" ] || fail "use --json: $j"

# unknown version: exit 5, the list of what exists
set +e
C use 12.9 >"$T/out" 2>"$T/err"
rc=$?
set -e
[ $rc -eq 5 ] || fail "use 12.9 exited $rc, want 5"
for v in 11.8 12.4 13.0; do
    grep -q "$v (/usr/local/cuda-$v)" "$T/err" || fail "use 12.9 does not list $v: $(cat "$T/err")"
done
[ "$(readlink "$R/usr/local/cuda")" = cuda-12.4 ] || fail "a failed use changed the link"

# use without a version: the list, the active mark, what activates it
C use >"$T/out"
grep -q '^\*  *12.4' "$T/out" || fail "use list does not mark 12.4: $(cat "$T/out")"
grep -q '/usr/local/cuda -> /usr/local/cuda-12.4' "$T/out" || fail "use list: $(cat "$T/out")"
sel=$(C --json use | json_get '[t["version"] for t in d["toolkits"] if t["selected"]], d["link"]["kind"], len(d["toolkits"])')
[ "$sel" = "(['12.4'], 'link', 3)" ] || fail "use --json list: $sel"

# a real directory at /usr/local/cuda is never replaced
R2=$T/dir
mk_root "$R2"
mkdir -p "$R2/usr/local/cuda/bin"
set +e
"$CUDNNCTL" --root "$R2" use 12.4 2>"$T/err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "real directory" "$T/err" || fail "use over a real dir: rc $rc $(cat "$T/err")"
[ -d "$R2/usr/local/cuda/bin" ] && [ ! -L "$R2/usr/local/cuda" ] || fail "the real dir was touched"

# /usr/local/cuda-12 follows; the prefix's current follows the major
mk_toolkit "$R" 12.6
ln -s cuda-12.4 "$R/usr/local/cuda-12"
for i in 9.19.0.56-cuda12 9.19.0.56-cuda13 8.9.7.29-cuda11; do mkdir -p "$R/opt/cudnn/cudnn-$i/lib"; done
ln -s cudnn-9.19.0.56-cuda13 "$R/opt/cudnn/current"
C --prefix /opt/cudnn use 12.6 >/dev/null
[ "$(readlink "$R/usr/local/cuda-12")" = cuda-12.6 ] || fail "cuda-12 did not follow to 12.6"
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-9.19.0.56-cuda12 ] || fail "current did not follow: $(readlink "$R/opt/cudnn/current")"
C --prefix /opt/cudnn use 11.8 >/dev/null
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-8.9.7.29-cuda11 ] || fail "current for 11.8"
[ "$(readlink "$R/usr/local/cuda-12")" = cuda-12.6 ] || fail "cuda-12 moved on use 11.8"

# ---- a reader never sees the link missing while 200 switches run -----------------------------
reader() { # $1 = test to run, $2 = path
    local n=0 miss=0
    while [ ! -e "$T/stop" ]; do
        test "$1" "$2" || miss=$((miss + 1))
        n=$((n + 1))
    done
    echo "$n $miss" >"$T/reader"
}
flip200() {
    local i
    for i in $(seq 1 100); do
        C use 12.4 >/dev/null || fail "use 12.4 failed in the loop"
        C use 13.0 >/dev/null || fail "use 13.0 failed in the loop"
    done
}
rm -f "$T/stop"
reader -e "$R/usr/local/cuda" &
rpid=$!
flip200
touch "$T/stop"
wait $rpid
read -r n miss <"$T/reader"
echo "plain link: reader checked $n times during 200 switches, missing $miss times"
[ "$miss" -eq 0 ] || fail "/usr/local/cuda was missing $miss times"
[ "$n" -gt 200 ] || fail "the reader only ran $n times: not concurrent"

# ---- update-alternatives ------------------------------------------------------------------
R=$T/alt
mk_root "$R"
mk_toolkit "$R" 12.6
mkdir -p "$R/etc/alternatives" "$R/var/lib/dpkg/alternatives" "$R/var/log"
UA() { update-alternatives --root "$R" --quiet "$@"; }
UA --install /usr/local/cuda cuda /usr/local/cuda-12.4 124 \
   --slave /usr/local/cuda-bin cuda-bin /usr/local/cuda-12.4/bin
UA --install /usr/local/cuda cuda /usr/local/cuda-12.6 126
UA --install /usr/local/cuda cuda /usr/local/cuda-13.0 130
UA --install /usr/local/cuda-12 cuda-12 /usr/local/cuda-12.4 124
UA --install /usr/local/cuda-12 cuda-12 /usr/local/cuda-12.6 126
[ "$(readlink "$R/usr/local/cuda")" = /etc/alternatives/cuda ] || fail "fixture: not alternatives"
q() { update-alternatives --root "$R" --query "$1" | sed -n "s/^$2: //p"; }
[ "$(q cuda Value)" = /usr/local/cuda-13.0 ] || fail "fixture: auto mode should pick 13.0"

C use 12.4 >"$T/out" || fail "use 12.4 (alternatives): $(cat "$T/out")"
[ "$(q cuda Status)" = manual ] || fail "update-alternatives --query: status $(q cuda Status)"
[ "$(q cuda Value)" = /usr/local/cuda-12.4 ] || fail "update-alternatives --query: value $(q cuda Value)"
[ "$(q cuda-12 Value)" = /usr/local/cuda-12.4 ] || fail "cuda-12 group: $(q cuda-12 Value)"
[ "$(readlink "$R/usr/local/cuda-bin")" = /etc/alternatives/cuda-bin ] || fail "slave link missing"
[ "$(readlink "$R/etc/alternatives/cuda-bin")" = /usr/local/cuda-12.4/bin ] || fail "slave target"
C use 12.6 >/dev/null
[ "$(q cuda Value)" = /usr/local/cuda-12.6 ] && [ "$(q cuda-12 Value)" = /usr/local/cuda-12.6 ] ||
    fail "use 12.6: cuda=$(q cuda Value) cuda-12=$(q cuda-12 Value)"
[ ! -e "$R/etc/alternatives/cuda-bin" ] && [ ! -L "$R/usr/local/cuda-bin" ] ||
    fail "12.6 has no cuda-bin slave: its links should be gone"
j=$(C --json use 13.0)
[ "$(echo "$j" | json_get 'd["mechanism"]')" = alternatives ] || fail "mechanism: $j"
[ "$(q cuda Value)" = /usr/local/cuda-13.0 ] || fail "use 13.0: $(q cuda Value)"
[ "$(q cuda-12 Value)" = /usr/local/cuda-12.6 ] || fail "use 13.0 must leave cuda-12 alone"
# the real tool keeps working on the state we wrote
UA --set cuda /usr/local/cuda-12.4
[ "$(readlink "$R/etc/alternatives/cuda")" = /usr/local/cuda-12.4 ] || fail "update-alternatives --set after us"
C use 13.0 >/dev/null
grep -q "update-alternatives (group 'cuda', manual mode)" <(C use) || fail "use list: $(C use)"

# 11.8 is not registered: refused, with the command that registers it
set +e
C use 11.8 2>"$T/err"
rc=$?
set -e
[ $rc -ne 0 ] && grep -q "update-alternatives --install /usr/local/cuda cuda /usr/local/cuda-11.8" "$T/err" ||
    fail "use 11.8 (unregistered): rc $rc $(cat "$T/err")"
[ "$(q cuda Value)" = /usr/local/cuda-13.0 ] || fail "a refused use changed the group"

rm -f "$T/stop"
reader -L "$R/etc/alternatives/cuda" &
rpid=$!
flip200
touch "$T/stop"
wait $rpid
read -r n miss <"$T/reader"
echo "alternatives: reader checked $n times during 200 switches, missing $miss times"
[ "$miss" -eq 0 ] || fail "/etc/alternatives/cuda was missing $miss times"
[ "$(q cuda Value)" = /usr/local/cuda-13.0 ] || fail "after the loop: $(q cuda Value)"
echo "ok"
