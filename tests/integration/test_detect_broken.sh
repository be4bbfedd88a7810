#!/usr/bin/env bash
# test_detect_broken.sh: broken trees never crash or hang detect; each problem is reported:
# a dangling /usr/local/cuda, a version.json that is not JSON, garbage headers, a leftover
# directory, a symlink loop, sources that disagree, cuDNN sub-libraries of mixed versions,
# headers that disagree with the libraries, a "library" that is no ELF file, a wrong SONAME,
# an incomplete copy, and cuDNN headers without libraries.
set -euo pipefail
. "$(dirname "$0")/detect_common.sh"

# dangling /usr/local/cuda (its target was removed)
mkdir -p "$R/usr/local"
ln -s /usr/local/cuda-12.6 "$R/usr/local/cuda"
# 12.4 whose version.json is garbage: still found through headers and SONAME
T=/usr/local/cuda-12.4
mkdir -p "$R$T"
printf '{ "cuda" : { "name" : "CUDA SDK", "version" : "12.4.1" ' > "$R$T/version.json" # cut short
cuda_headers $T/include 12 4
cudart $T/lib64 libcudart.so.12.4.127 libcudart.so.12
# sources that disagree: version.txt says 12.2, everything else 12.3
T3=/usr/local/cuda-12.3
mkdir -p "$R$T3"
echo "CUDA Version 12.2.140" > "$R$T3/version.txt"
fake_nvcc $T3 12.3.107
cuda_headers $T3/include 12 3
cudart $T3/lib64 libcudart.so.12.3.101 libcudart.so.12
# a leftover dir with garbage only: no toolkit, one note
G=/usr/local/cuda-9.9
mkdir -p "$R$G/include" "$R$G/lib64"
head -c 3000 /dev/urandom > "$R$G/include/cuda.h"
echo 'not json at all' > "$R$G/version.json"
# a symlink loop named like a toolkit
ln -s cuda-loop-b "$R/usr/local/cuda-loop-a"
ln -s cuda-loop-a "$R/usr/local/cuda-loop-b"

# cuDNN: mixed sub-library versions in the 12.4 tree (a partial upgrade)
L=$T/lib64
cudnn_libs $L 9.14.0 tar
rm "$R$L/libcudnn_ops.so.9.14.0"
elf_double "$R$L/libcudnn_ops.so.9.19.0" libcudnn_ops.so.9
ln -sfn libcudnn_ops.so.9.19.0 "$R$L/libcudnn_ops.so.9"
cudnn_header $T/include 9.14.0
# system copy whose headers disagree with the libraries, one file that is no ELF, one wrong SONAME
S=/usr/lib/x86_64-linux-gnu
cudnn_libs $S 9.10.2 deb
cudnn_header /usr/include/x86_64-linux-gnu 9.10.1
echo "this is no library" > "$R$S/libcudnn_adv.so.9.10.2"
elf_double "$R$S/libcudnn_cnn.so.9.10.2" libcudnn_ops.so.9
# an incomplete wheel-style copy (no shim, no graph) with garbage headers beside it
I=/opt/cudnn/cudnn-9.5.0.50-cuda12
mkdir -p "$R$I/include"
elf_double "$R$I/lib/libcudnn_ops.so.9" libcudnn_ops.so.9
printf '#define CUDNN_MAJOR garbage\n' > "$R$I/include/cudnn_version.h"
# cuDNN headers without libraries in /usr/local/include
cudnn_header /usr/local/include 8.9.7
# a garbage cudnn_version.h in /usr/include (no libraries claim it)
printf '\x00\x01binary junk' > "$R/usr/include/cudnn_version.h"

J=$R/out.json
detect_json "$J"
check "$J" "has_note('/usr/local/cuda -> /usr/local/cuda-12.6 is a dangling link')" "the dangling /usr/local/cuda is noted"
check "$J" "sum(1 for t in d['toolkits'] if t['active']) == 0" "no toolkit is active when the link dangles and nothing else points"
check "$J" "tk('$T')['version'] == '12.4' and set(tk('$T')['sources']) == set(['cuda.h','cuda_runtime_api.h','soname'])" "12.4 still found via headers + SONAME"
check "$J" "has_problem(tk('$T'), '$T/version.json is not valid JSON: ignored')" "the broken version.json is reported"
check "$J" "tk('$T3')['version'] == '12.3' and tk('$T3')['sources_disagree'] is True" "12.3: the majority wins over version.txt"
check "$J" "has_problem(tk('$T3'), 'version sources disagree: version.txt says 12.2.140; using 12.3')" "the disagreement is explained"
check "$J" "[r['agrees'] for r in tk('$T3')['readings'] if r['source'] == 'version.txt'] == [False]" "the version.txt reading is marked as not agreeing"
check "$J" "tk('$G') is None and has_note('$G (found via /usr/local/cuda*): no CUDA version found')" "the garbage dir is no toolkit, noted"
check "$J" "any('$G/include/cuda.h has no readable CUDA_VERSION' in n for n in d['notes'])" "the garbage cuda.h is noted"
check "$J" "all('loop' not in t['path'] for t in d['toolkits'])" "the symlink loop is skipped"

C=$T/lib64
check "$J" "cu('$C') is not None and has_problem(cu('$C'), 'sub-libraries in $C disagree in version')" "mixed sub-library versions are flagged"
check "$J" "has_problem(cu('$C'), 'libcudnn_ops.so.9.19.0')" "the odd sub-library is named"
check "$J" "cu('$C')['version'] == '9.14.0' and cu('$C')['origin'] == 'cuda-tree'" "the shim's version is the copy's version"
check "$J" "cu('$S')['version'] == '9.10.2' and has_problem(cu('$S'), 'headers in /usr/include/x86_64-linux-gnu say cuDNN 9.10.1 but the libraries in $S are 9.10.2')" "header/library disagreement is flagged"
check "$J" "has_problem(cu('$S'), '$S/libcudnn_adv.so.9.10.2 is not an ELF shared library')" "a non-ELF library is flagged"
check "$J" "has_problem(cu('$S'), 'libcudnn_cnn.so.9.10.2 has SONAME libcudnn_ops.so.9, which does not match its name')" "a wrong SONAME is flagged"
check "$J" "cu('$I/lib') is not None and cu('$I/lib')['origin'] == 'prefix' and cu('$I/lib')['version'] == '9'" "the prefix copy: only the major is known"
check "$J" "has_problem(cu('$I/lib'), 'only the major version') and has_problem(cu('$I/lib'), 'the copy is incomplete')" "incomplete, major-only copy is flagged"
check "$J" "cu('/usr/local/include') is not None and cu('/usr/local/include')['version'] == '8.9.7' and cu('/usr/local/include')['libs'] == []" "headers without libraries are listed"
check "$J" "has_problem(cu('/usr/local/include'), 'have no libcudnn libraries beside them')" "and flagged"
check "$J" "has_note('/usr/include/cudnn_version.h has no readable CUDNN_MAJOR/MINOR/PATCHLEVEL: ignored')" "the garbage cudnn header is noted"
check "$J" "d['driver'] is None" "no driver"

# a /proc driver file without a version line: null driver, a note
mkdir -p "$R/proc/driver/nvidia"
echo "garbage" > "$R/proc/driver/nvidia/version"
detect_json "$J"
check "$J" "d['driver'] is None and has_note('/proc/driver/nvidia/version has no \"NVRM version\" line')" "an unreadable driver file gives null and a note"
verify

# the human output renders all of it and exits 0
"$CUDNNCTL" --root "$R" detect >"$R/human.txt" 2>&1 || fail "human detect exited non-zero on a broken tree"
grep -q 'disagree in version' "$R/human.txt" || { cat "$R/human.txt"; fail "human output lacks the mixed-version note"; }
echo "PASS: broken trees reported, no crash, no hang"
