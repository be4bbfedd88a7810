#!/usr/bin/env bash
# test_detect_toolkits.sh: several CUDA toolkits side by side, each recording its version
# differently (version.json with a patch, version.json with a build date, version.txt only,
# headers + SONAME only), and the choice of the active one: CUDA_HOME > first nvcc on PATH >
# the /usr/local/cuda link; wrong CUDA_HOME, non-executable and hanging nvcc. Nothing under
# --root is run (issue 18): there the versions come from the files and a note says why nvcc was
# not run; the nvcc cases run on the same trees given by host path, without --root.
set -euo pipefail
. "$(dirname "$0")/detect_common.sh"

# 12.4 runfile install: version.json 12.4.1, nvcc, headers, lib64/libcudart.so.12.4.127
T124=/usr/local/cuda-12.4
version_json $T124 12.4.1
fake_nvcc $T124 12.4.131
cuda_headers $T124/include 12 4
cudart $T124/lib64 libcudart.so.12.4.127 libcudart.so.12
# 11.8: version.json patch is a build date; SONAME libcudart.so.11.0 (as for every 11.x)
T118=/usr/local/cuda-11.8
version_json $T118 11.8.20220929
fake_nvcc $T118 11.8.89
cuda_headers $T118/include 11 8
cudart $T118/lib64 libcudart.so.11.8.89 libcudart.so.11.0
# 10.2: version.txt only (no version.json, no nvcc), SONAME libcudart.so.10.2
T102=/usr/local/cuda-10.2
mkdir -p "$R$T102"
echo "CUDA Version 10.2.89" > "$R$T102/version.txt"
cudart $T102/lib64 libcudart.so.10.2.89 libcudart.so.10.2
# 12.1 under /opt with a date patch, headers under targets/x86_64-linux/include only
T121=/opt/cuda-12.1
version_json $T121 12.1.20230222
cuda_headers $T121/targets/x86_64-linux/include 12 1
cudart $T121/targets/x86_64-linux/lib libcudart.so.12.1.55 libcudart.so.12
ln -s /usr/local/cuda-12.4 "$R/usr/local/cuda"
ln -s cuda-11.8 "$R/usr/local/cuda-11"

J=$R/out.json
detect_json "$J"
check "$J" "len(d['toolkits']) == 4" "four toolkits (the /usr/local/cuda and cuda-11 links add none)"
check "$J" "[t['path'] for t in d['toolkits']] == ['$T124', '$T121', '$T118', '$T102']" "toolkits sorted newest first"
check "$J" "tk('$T124')['version'] == '12.4' and tk('$T124')['version_full'] == '12.4.1'" "12.4.1 from version.json"
check "$J" "set(tk('$T124')['sources']) == set(['version.json','cuda.h','cuda_runtime_api.h','soname'])" "12.4: four file sources agree (nvcc is under --root: not run)"
check "$J" "has_note('$T124/bin/nvcc not run (it is under --root $R, where nothing is run): the version is read from the toolkit\\'s files')" "the note says why nvcc was not run"
check "$J" "tk('$T124')['active'] and tk('$T124')['active_reason'] == '/usr/local/cuda -> /usr/local/cuda-12.4'" "12.4 active through /usr/local/cuda"
check "$J" "tk('$T118')['version'] == '11.8' and tk('$T118')['minor'] == 8" "11.8 from a dated version.json"
check "$J" "tk('$T118')['version_full'] is None and tk('$T118')['patch'] is None" "the date is no patch (and nvcc, which knows it, is not run under --root)"
check "$J" "'soname' in tk('$T118')['sources'] and not tk('$T118')['sources_disagree']" "libcudart.so.11.0 agrees with 11.8"
check "$J" "tk('$T118')['aliases'] == ['/usr/local/cuda-11']" "/usr/local/cuda-11 is an alias of 11.8"
check "$J" "tk('$T102')['version'] == '10.2' and tk('$T102')['version_full'] == '10.2.89'" "10.2.89 from version.txt"
check "$J" "set(tk('$T102')['sources']) == set(['version.txt','soname'])" "10.2: version.txt and SONAME"
check "$J" "tk('$T121')['version'] == '12.1' and tk('$T121')['patch'] is None and tk('$T121')['version_full'] is None" "12.1 with a date patch: no patch"
check "$J" "tk('$T121')['lib_dir'] == '$T121/targets/x86_64-linux/lib' and tk('$T121')['include_dir'] == '$T121/targets/x86_64-linux/include'" "12.1: targets/ dirs"
check "$J" "sum(1 for t in d['toolkits'] if t['active']) == 1" "exactly one active toolkit"
check "$J" "d['driver'] is None" "no driver in this root"

# CUDA_HOME wins over the link (and is taken under --root); the disagreement is noted
detect_json "$J" CUDA_HOME=/opt/cuda-12.1
check "$J" "tk('$T121')['active'] and tk('$T121')['active_reason'] == 'CUDA_HOME=/opt/cuda-12.1'" "CUDA_HOME selects 12.1"
check "$J" "not tk('$T124')['active']" "the link target is not active then"
check "$J" "has_note('the active toolkit is /opt/cuda-12.1 (12.1) but /usr/local/cuda -> /usr/local/cuda-12.4')" "the link disagreeing with CUDA_HOME is noted"
# CUDA_PATH too; a host path under the root is understood as well
detect_json "$J" CUDA_PATH="$R/usr/local/cuda-11"
check "$J" "tk('$T118')['active'] and tk('$T118')['active_reason'] == 'CUDA_PATH=/usr/local/cuda-11 -> /usr/local/cuda-11.8'" "CUDA_PATH selects 11.8 through its link"
# the first nvcc on PATH beats the link
detect_json "$J" PATH=/usr/local/cuda-11.8/bin:/usr/local/cuda/bin:/usr/bin:/bin
check "$J" "tk('$T118')['active'] and tk('$T118')['active_reason'] == 'first nvcc on PATH: /usr/local/cuda-11.8/bin/nvcc'" "PATH order selects 11.8"
check "$J" "tk('$T118')['found_via'].startswith('PATH')" "found through PATH first"
# a CUDA_HOME that is no toolkit: noted, the next rule decides
detect_json "$J" CUDA_HOME=/nonexistent/cuda
check "$J" "has_note('CUDA_HOME: /nonexistent/cuda does not exist')" "a missing CUDA_HOME dir is noted"
check "$J" "tk('$T124')['active']" "the link decides after a missing CUDA_HOME"
mkdir -p "$R/opt/not-cuda"
detect_json "$J" CUDA_HOME=/opt/not-cuda
check "$J" "has_note('CUDA_HOME=/opt/not-cuda is not a CUDA toolkit detect could read: ignored')" "a CUDA_HOME that is no toolkit is noted"
check "$J" "has_note('/opt/not-cuda (found via CUDA_HOME): no CUDA version found')" "and why"
check "$J" "tk('$T124')['active']" "the link decides after a wrong CUDA_HOME"

# a /usr/local made of links into a toolkit plus an nvcc wrapper script (as on the dev image):
# a view of 12.4, not a toolkit; its nvcc on PATH selects 12.4
mkdir -p "$R/usr/local/bin" "$R/usr/local/include"
printf '#!/bin/sh\nexec /usr/local/cuda-12.4/bin/nvcc "$@"\n' > "$R/usr/local/bin/nvcc"
chmod 755 "$R/usr/local/bin/nvcc"
ln -s /usr/local/cuda-12.4/include/cuda.h "$R/usr/local/include/cuda.h"
ln -s /usr/local/cuda-12.4/include/cuda_runtime_api.h "$R/usr/local/include/cuda_runtime_api.h"
ln -s /usr/local/cuda-12.4/lib64 "$R/usr/local/lib64"
detect_json "$J" PATH=/usr/local/bin:/usr/local/cuda-11.8/bin:/usr/bin:/bin CUDA_HOME=/usr/local
check "$J" "tk('/usr/local') is None and len(d['toolkits']) == 4" "/usr/local is no toolkit of its own"
check "$J" "has_note('/usr/local only links into /usr/local/cuda-12.4')" "the view is noted"
check "$J" "tk('$T124')['active'] and tk('$T124')['active_reason'].startswith('CUDA_HOME=/usr/local -> /usr/local/cuda-12.4; first nvcc on PATH: /usr/local/bin/nvcc')" "CUDA_HOME and the wrapper nvcc lead to 12.4"
check "$J" "not has_note('the first nvcc on PATH')" "no false PATH disagreement"
rm -rf "$R/usr/local/bin" "$R/usr/local/include" "$R/usr/local/lib64"

# outside --root the toolkits' own nvcc is run (by host path: CUDA_HOME, the first nvcc on PATH)
H124=$R$T124 H118=$R$T118
detect_json_host "$J" CUDA_HOME="$H124" PATH="$H118/bin:/usr/bin:/bin"
check "$J" "set(tk('$H124')['sources']) == set(['version.json','nvcc','cuda.h','cuda_runtime_api.h','soname'])" "12.4: five sources agree"
check "$J" "tk('$H118')['version_full'] == '11.8.89' and tk('$H118')['patch'] == 89" "the date is no patch: the patch comes from nvcc"
check "$J" "not has_note('$H124/bin/nvcc not run')" "no note: nvcc ran"

# nvcc that is not executable is never run; one that hangs is killed after its timeout
chmod 644 "$R$T124/bin/nvcc"
cat > "$R$T118/bin/nvcc" <<'EOF'
#!/bin/sh
sleep 30
EOF
chmod 755 "$R$T118/bin/nvcc"
start=$(date +%s)
detect_json_host "$J" CUDA_HOME="$H124" PATH="$H118/bin:/usr/bin:/bin"
took=$(( $(date +%s) - start ))
[ "$took" -le 10 ] || fail "detect took ${took}s with a hanging nvcc (timeout is 2 s)"
check "$J" "has_problem(tk('$H124'), 'bin/nvcc is not executable: not run') and 'nvcc' not in tk('$H124')['sources']" "non-executable nvcc is not run"
check "$J" "has_problem(tk('$H118'), 'did not answer within 2000 ms')" "a hanging nvcc is reported"
check "$J" "tk('$H118')['version'] == '11.8' and tk('$H118')['patch'] is None" "11.8 still read from the other sources"
verify
echo "PASS: four toolkits with their sources; CUDA_HOME / CUDA_PATH / PATH / link precedence; bad nvcc handled (${took}s)"
