#!/usr/bin/env bash
# test_install_signals.sh: SIGINT, SIGTERM and SIGHUP cancel an install through the library
# (issue 12 item 5). Each signal is sent to a real install at three points — during the
# download from a throttled httpd.py, during the extraction of a large local archive, and in the
# commit (the CLI's test knob CUDNNCTL_TEST_STEP_PAUSE holds the run as the commit step starts;
# the library then meets the signal in the commit's prepare loop) — and each time: exit 130 /
# 143 / 129, no staging dir, temp name or journal left, the target exactly the old tree. (A
# signal that lands after the commit point finishes the install instead: exit 0 and the new
# tree; at most one of the nine may.) Under a terminal the progress line is ended before the
# error.
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
have_real || { echo "no real cuDNN under $REAL: the large archive needs its libraries" >&2; exit 77; }
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
R=$T/root
VER=9.19.0.56
NAME=cudnn-linux-x86_64-${VER}_cuda13-archive
REL=cudnn/linux-x86_64/$NAME.tar.xz
mkdir -p "$T/www/cudnn/linux-x86_64" "$R/srv" "$R/opt"

# the small archive (xz, served throttled) and a large one (170 MB of real libraries, gzip -1
# under the .tar.xz name: libarchive reads it by content; inflating it takes about a second)
# for extraction and commit
A=$(make_archive "$T/small" "$VER" "libcudnn libcudnn_graph libcudnn_cnn")
cp "$A" "$T/www/$REL"
SHA=$(sha256sum "$A" | cut -c1-64); SIZE=$(stat -c %s "$A")
write_manifest "$R/srv/manifest.json" "$VER" "$REL" "$SHA" "$SIZE"
B=$T/big/$NAME
mkdir -p "$B/include" "$B/lib"
cp "$REAL/include/cudnn_version.h" "$REAL/include/cudnn.h" "$B/include/"
echo "license (test copy)" > "$B/LICENSE"
for s in libcudnn libcudnn_adv libcudnn_heuristic libcudnn_graph; do
  cp "$REAL/lib/$s.so.9" "$B/lib/$s.so.9.19.0"
  ln -s "$s.so.9.19.0" "$B/lib/$s.so.9"; ln -s "$s.so.9" "$B/lib/$s.so"
done
tar -C "$T/big" -cf - "$NAME" | gzip -1 > "$R/srv/$NAME.tar.xz"
BSHA=$(sha256sum "$R/srv/$NAME.tar.xz" | cut -c1-64)

start_httpd "$T/www"

make_tree "$R" clean
TREE=$R/usr/local/cuda-13.0
STATE=$R/var/lib/cudnnctl
snap "$TREE" > "$T/before"

# run POINT SIGNAL: start an install, wait for its step line (-v --json: on stderr, unbuffered),
# send the signal, check the end
cancelled=0
run() {
  local point=$1 sig=$2 pat delay
  local cmd=("$CUDNNCTL" --root "$R" --cache-dir "$T/cache" -v --json --no-progress install
             --cuda-home /usr/local/cuda-13.0 --no-validate --no-ldconfig)
  case $point in
    download) cmd+=(--manifest /srv/manifest.json --allow-manifest-override --cudnn "$VER" --cuda 13 --platform linux-x86_64
                    --mirror "$U/__fault/throttle,arg=150000/"); pat="==> fetch + extract"; delay=1 ;;
    extract) cmd+=(--archive "/srv/$NAME.tar.xz" --sha256 "$BSHA"); pat="==> fetch + extract"; delay=0.1 ;;
    # the commit: the CLI's test knob holds the run 400 ms as the commit step starts; the signal
    # comes then, and the library sees it in the commit's prepare loop
    commit) cmd+=(--archive "/srv/$NAME.tar.xz" --sha256 "$BSHA"); pat="==> commit:"; delay=0.1 ;;
  esac
  rm -rf "$T/cache"
  CUDNNCTL_TEST_STEP_PAUSE=$([ "$point" = commit ] && echo "commit:400" || echo "") \
    "${cmd[@]}" > "$T/out" 2> "$T/err" &
  local pid=$!
  for _ in $(seq 3000); do grep -q "$pat" "$T/err" 2>/dev/null && break; sleep 0.01; done
  sleep "$delay"
  kill -s "$sig" "$pid" 2>/dev/null || echo "  (the install had ended before the signal)"
  local rc=0
  wait "$pid" || rc=$?
  local want; case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
  no_leftovers "$TREE"
  [ ! -e "$STATE/journal.json" ] || fail "$point/$sig: the journal stayed"
  snap "$TREE" > "$T/now"
  if [ $rc -eq "$want" ]; then
    same_snap "$T/before" "$T/now" "$point/$sig: the target is not the old tree after exit $rc"
    grep -q "cancelled" "$T/err" || { cat "$T/err"; fail "$point/$sig: the error does not say it was cancelled"; }
    cancelled=$((cancelled + 1))
    echo "  $point SIG$sig: exit $rc, old tree"
  elif [ $rc -eq 0 ] && [ "$point" = commit ]; then
    echo "  $point SIG$sig: landed after the commit point: installed (exit 0)"
    "$CUDNNCTL" --root "$R" uninstall --cuda-home /usr/local/cuda-13.0 --no-ldconfig > /dev/null
    snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "$point/$sig: uninstall after a finished install"
  else
    cat "$T/err"; fail "$point/$sig: exit $rc, want $want"
  fi
}

for point in download extract commit; do
  for sig in INT TERM HUP; do run "$point" "$sig"; done
done
[ $cancelled -ge 8 ] || fail "only $cancelled of 9 signals cancelled an install"

# under a terminal: the progress line is ended before the error (script(1) gives a pty)
if command -v script > /dev/null; then
  rm -rf "$T/cache"
  script -qfec "'$CUDNNCTL' --root '$R' --cache-dir '$T/cache' install --cuda-home /usr/local/cuda-13.0 \
    --no-validate --no-ldconfig --manifest /srv/manifest.json --allow-manifest-override --cudnn $VER --cuda 13 \
    --platform linux-x86_64 --mirror '$U/__fault/throttle,arg=150000/'" "$T/tty" > /dev/null &
  spid=$!
  PIDS+=($spid)
  for _ in $(seq 1000); do grep -q "download" "$T/tty" 2>/dev/null && break; sleep 0.01; done
  sleep 0.5
  # script(1) runs the command through $SHELL -c, which may exec it or fork it: the cudnnctl
  # is found among all descendants of script, not only its children
  cpid=
  for _ in $(seq 500); do
    todo=$spid
    while [ -n "$todo" ] && [ -z "$cpid" ]; do
      next=
      for p in $todo; do
        for c in $(pgrep -P "$p" || true); do
          [ "$(cat /proc/$c/comm 2>/dev/null)" = cudnnctl ] && { cpid=$c; break; }
          next="$next $c"
        done
        [ -n "$cpid" ] && break
      done
      todo=$next
    done
    [ -n "$cpid" ] && break
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.01
  done
  [ -n "$cpid" ] || { cat "$T/tty" 2>/dev/null; fail "no cudnnctl under script(1)"; }
  kill -INT "$cpid"
  wait "$spid" || true
  python3 - "$T/tty" <<'PY' || fail "the progress line was not ended before the error"
import sys
t = open(sys.argv[1], "rb").read().replace(b"\r\n", b"\n")
i = t.find(b"cudnnctl: error:")
sys.exit(0 if i > 0 and b"\rdownload" in t[:i] and t[i - 1:i] == b"\n" else 1)
PY
  snap "$TREE" > "$T/now"; same_snap "$T/before" "$T/now" "tty run: the target changed"
fi
echo "ok: $cancelled of 9 signals cancelled an install cleanly"
