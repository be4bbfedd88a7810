#!/usr/bin/env bash
# test_cli_messages_fs.sh: file-system failures say what is wrong there and a fix that works,
# each fix then run (as root, in a mount namespace with small or read-only tmpfs mounts):
#   - the state dir is a file: "is a file, not a directory", never "run as root (sudo)" (root
#     already); another --state-dir works;
#   - a read-only file system under the state dir or the prefix, as root: "read-only file
#     system", never sudo; a writable --state-dir / --prefix works;
#   - the disk fills while the archive unpacks: "No space left on device" (not only libarchive's
#     "Write failed"), nothing left of the staging dir; with room again the same install works;
#   - the download cache is full: "cudnnctl cache clean"; after running it the install works.
set -euo pipefail
: "${CUDNNCTL:?set by ctest}" "${SOURCE_DIR:?set by ctest}"
if [ -z "${CC_IN_NS:-}" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "needs root (tmpfs mounts)" >&2; exit 77; }
    unshare -m true 2>/dev/null || { echo "unshare -m does not work here" >&2; exit 77; }
    exec env CC_IN_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
T=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for m in "$T/ro" "$T/r/opt" "$T/smallcache"; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SOURCE_DIR/tests/integration/cli_lib.sh"
run() { # RC OUT args...: cudnnctl's exit code must be RC, both streams in OUT
    local want=$1 out=$2 rc=0
    shift 2
    "$CUDNNCTL" --no-progress "$@" >"$out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] || { cat "$out" >&2; fail "cudnnctl $* exited $rc, expected $want"; }
}
has() { grep -Eq -- "$2" "$1" || { cat "$1" >&2; fail "no '$2' in the message"; }; }
hasnt() { ! grep -Eiq -- "$2" "$1" || { cat "$1" >&2; fail "'$2' in the message"; }; }
cli_make_root "$T/r"
W=$T/r/srv/www
for v in 9.97.0.9 9.97.0.10; do
    cli_make_archive "$W" $v 8
    cli_make_manifest "$W" $v "$T/r/m-$v.json"
done
A=$W/cudnn/linux-x86_64/cudnn-linux-x86_64-9.97.0.9_cuda13-archive.tar.xz
SHA=$(sha256sum "$A" | cut -d' ' -f1)
I=(--root "$T/r" --cuda 13 install --archive "$A" --sha256 "$SHA" --no-validate --no-ldconfig)
I2=(--cuda 13 install --archive "$A" --sha256 "$SHA" --no-validate --no-ldconfig) # no --root: $T/ro itself

# ---- the state dir is a file ---------------------------------------------------------------------
: >"$T/statefile"
run 1 "$T/o" --state-dir "$T/statefile" --cache-dir "$T/c0" "${I[@]}" --prefix /opt/p0
has "$T/o" "$T/statefile is a file, not a directory: move it out of the way, or choose another place with --state-dir DIR"
hasnt "$T/o" "sudo|run as root"
run 0 "$T/o" --state-dir "$T/state0" --cache-dir "$T/c0" "${I[@]}" --prefix /opt/p0

# ---- a read-only file system, as root ----------------------------------------------------------
mkdir -p "$T/ro"
mount -t tmpfs -o ro,size=1m tmpfs "$T/ro"
run 9 "$T/o" --state-dir "$T/ro/state" --cache-dir "$T/c0" "${I[@]}" --prefix /opt/p1
has "$T/o" "$T/ro is on a read-only file system: remount it read-write, or choose a place on a writable one with --state-dir DIR"
hasnt "$T/o" "sudo|run as root"
run 9 "$T/o" --state-dir "$T/state1" --cache-dir "$T/c0" "${I2[@]}" --prefix "$T/ro/px"
has "$T/o" "is on a read-only file system: .* with --prefix DIR"
hasnt "$T/o" "sudo|run as root"
run 9 "$T/o" --state-dir "$T/state1" --cache-dir "$T/c0" "${I2[@]}" --prefix "$T/ro/px" --dry-run
has "$T/o" "--dry-run: the real install would fail"
has "$T/o" "is on a read-only file system"
run 0 "$T/o" --state-dir "$T/state1" --cache-dir "$T/c0" "${I[@]}" --prefix /opt/p1

# ---- the disk fills while the archive unpacks ---------------------------------------------------------
# a paced download (1 MiB/s) streams into the unpack; 2 s in, another process fills the prefix's
# 40 MiB file system (the checks before unpacking saw room)
"$PY" "$SOURCE_DIR/tests/tools/httpd.py" --root "$W" --port-file "$T/port" --throttle 1048576 &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
U="http://127.0.0.1:$(cat "$T/port")/"
mount -t tmpfs -o size=40m tmpfs "$T/r/opt"
M=(--root "$T/r" install --manifest /m-9.97.0.9.json --cudnn 9.97.0.9 --mirror "$U" --prefix /opt/px
   --no-validate --no-ldconfig)
( sleep 2.5; dd if=/dev/zero of="$T/r/opt/filler" bs=1M 2>/dev/null || true ) &
filler=$!
run 1 "$T/o" --state-dir "$T/state2" --cache-dir "$T/c2" "${M[@]}"
wait $filler || true
has "$T/o" "unpacking into /opt/px failed: No space left on device"
has "$T/o" "free some space on that file system, or install elsewhere with --prefix DIR"
[ -z "$(find "$T/r/opt" -name '.staging*')" ] || fail "a staging dir was left: $(find "$T/r/opt" -name '.staging*')"
[ ! -e "$T/r/opt/px/current" ] || fail "the failed install left a current link"
rm -f "$T/r/opt/filler" # the fix: free the space
run 0 "$T/o" --state-dir "$T/state2" --cache-dir "$T/c2" "${M[@]}"
[ -e "$T/r/opt/px/current/lib/libcudnn.so.9" ] || fail "the rerun installed no libcudnn.so.9"

# ---- the download cache is full ------------------------------------------------------------------------
umount "$T/r/opt"
mkdir -p "$T/smallcache"
mount -t tmpfs -o size=12m tmpfs "$T/smallcache"
K=(--state-dir "$T/state3" --cache-dir "$T/smallcache")
run 0 "$T/o" "${K[@]}" --root "$T/r" install --manifest /m-9.97.0.9.json --cudnn 9.97.0.9 --mirror "$U" \
    --prefix /opt/pc9 --no-validate --no-ldconfig
run 1 "$T/o" "${K[@]}" --root "$T/r" install --manifest /m-9.97.0.10.json --cudnn 9.97.0.10 --mirror "$U" \
    --prefix /opt/pc10 --no-validate --no-ldconfig
has "$T/o" "No space left on device; the download cache $T/smallcache has no room left: \`cudnnctl cache clean\` removes"
hasnt "$T/o" "next run resumes"
run 0 "$T/o" "${K[@]}" cache clean # the fix
run 0 "$T/o" "${K[@]}" --root "$T/r" install --manifest /m-9.97.0.10.json --cudnn 9.97.0.10 --mirror "$U" \
    --prefix /opt/pc10 --no-validate --no-ldconfig
echo "ok: state dir a file, read-only file systems, a disk full while unpacking, a full cache"
