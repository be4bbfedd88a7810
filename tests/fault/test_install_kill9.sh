#!/usr/bin/env bash
# test_install_kill9.sh: whole-process crash consistency (issue 12 item 8). A real install is
# killed with SIGKILL at random moments — during the download (throttled httpd.py), the
# extraction, the commit and its link/receipt steps — in both modes, again and again. After each
# kill the next run ('cudnnctl recover': settle the journal, nothing else) must leave the target
# exactly the old tree or exactly the new one — a manifest of every path, type, link target,
# mode and SHA-256 — with no journal, staging dir or temp name, and a receipt exactly when it is
# the new one (uninstall then gives the old tree back). What the target looked like right after
# each kill is counted too: old, new, or in flight (the journal's new empty dirs, the renames
# half done; cudnnctl's hidden work names are left out of that look).
#   CUDNNCTL_KILLS=N       kills in all (default 200, spread over modes and phases)
#   CUDNNCTL_KILL_SEED=S   the random seed (default: the time; printed, to replay a failure)
set -euo pipefail
. "$SOURCE_DIR/tests/integration/install_lib.sh"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT
KILLS=${CUDNNCTL_KILLS:-200}
SEED=${CUDNNCTL_KILL_SEED:-$(date +%s)}
RANDOM=$SEED
echo "kills: $KILLS, seed: $SEED"
R=$T/root
VER=9.19.0.56
NAME=cudnn-linux-x86_64-${VER}_cuda13-archive.tar.xz
REL=cudnn/linux-x86_64/$NAME
mkdir -p "$T/www/cudnn/linux-x86_64" "$R/srv" "$R/opt"
A=$(make_archive "$R/srv" "$VER" "libcudnn libcudnn_graph")
cp "$A" "$T/www/$REL"
SHA=$(sha256sum "$A" | cut -c1-64); SIZE=$(stat -c %s "$A")
write_manifest "$R/srv/manifest.json" "$VER" "$REL" "$SHA" "$SIZE"
# the prefix already holds another version: its old tree is not empty, PREFIX/current moves
B=$(make_archive "$R/srv" 9.18.1.3 "libcudnn libcudnn_graph" tiny)
start_httpd "$T/www"
make_tree "$R" clean
C=("$CUDNNCTL" --root "$R" --no-progress)
"${C[@]}" --cache-dir "$T/c0" install --prefix /opt/cudnn --archive "$B" \
  --sha256 "$(sha256sum "$B" | cut -c1-64)" --no-validate > "$T/first.out" 2>&1 ||
  { cat "$T/first.out" >&2; fail "the prefix's first install"; }

# manifest DIR: the tree without cudnnctl's hidden work names
manifest() {
  (cd "$1" && find . \( -name '.cudnnctl-*' -o -name '.staging-*' \) -prune -o -printf '%p %y %l %m\n' \
     | LC_ALL=C sort &&
   find . \( -name '.cudnnctl-*' -o -name '.staging-*' \) -prune -o -type f -print0 | LC_ALL=C sort -z \
     | xargs -0 -r sha256sum)
}
dir_of() { [ "$1" = tree ] && echo "$R/usr/local/cuda-13.0" || echo "$R/opt/cudnn"; }
tgt_of() { [ "$1" = tree ] && echo "--cuda-home /usr/local/cuda-13.0" || echo "--prefix /opt/cudnn"; }
SRC_LOCAL=(--archive "/srv/$NAME" --sha256 "$SHA")
SRC_HTTP=(--manifest /srv/manifest.json --allow-manifest-override --cudnn "$VER" --cuda 13 --platform linux-x86_64)

# old and new manifests of each mode, from clean runs (and the time a clean install takes)
for m in tree prefix; do
  D=$(dir_of "$m")
  manifest "$D" > "$T/$m.old"
  "${C[@]}" --cache-dir "$T/c0" install $(tgt_of "$m") "${SRC_LOCAL[@]}" --no-validate --no-ldconfig \
    > /dev/null 2>&1 || fail "$m: a clean install"
  manifest "$D" > "$T/$m.new"
  "${C[@]}" uninstall $(tgt_of "$m") --version "$VER" --no-ldconfig > /dev/null || fail "$m: clean uninstall"
  manifest "$D" > "$T/now"; same_snap "$T/$m.old" "$T/now" "$m: a clean uninstall"
done

declare -A hits=()
settled_new=0
stale_locks=0
for k in $(seq 1 "$KILLS"); do
  m=$([ $((k % 2)) -eq 0 ] && echo tree || echo prefix)
  phase=$(( (k / 2) % 4 ))
  D=$(dir_of "$m")
  rm -rf "$T/cache"
  # download: a throttled server (1 MB/s), killed 0-0.8 s into the fetch; extract: a local
  # archive, killed 0-150 ms into fetch+extract; commit: 0-40 ms after the commit starts (its
  # prepare, renames, links); late: 0-12 ms after it (links, the commit point, the receipt)
  case $phase in
    0) src=(--mirror "$U/__fault/throttle,arg=1000000/" "${SRC_HTTP[@]}"); pat="==> fetch"; ms=$((RANDOM % 800)); name=download ;;
    1) src=("${SRC_LOCAL[@]}"); pat="==> fetch"; ms=$((RANDOM % 150)); name=extract ;;
    2) src=("${SRC_LOCAL[@]}"); pat="==> commit:"; ms=$((RANDOM % 40)); name=commit ;;
    3) src=("${SRC_LOCAL[@]}"); pat="==> commit:"; ms=$((RANDOM % 12)); name=links+receipt ;;
  esac
  : > "$T/err"
  "${C[@]}" --cache-dir "$T/cache" -v --json install $(tgt_of "$m") "${src[@]}" --no-validate --no-ldconfig \
    > /dev/null 2> "$T/err" &
  pid=$!
  for _ in $(seq 2000); do grep -q "$pat" "$T/err" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.005; done
  sleep "$(printf '0.%03d' "$ms")"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # right after the kill: old, new, or in flight (the journal's work: new empty dirs made at
  # prepare, part of the renames done) — counted, not failed: the next run settles it
  manifest "$D" > "$T/now"
  if cmp -s "$T/now" "$T/$m.old"; then at=old
  elif cmp -s "$T/now" "$T/$m.new"; then at=new
  else at=inflight; fi
  # the next run settles it (recover: the journal rolled back or finished, nothing else)
  "${C[@]}" recover --json > "$T/rec.json" 2> "$T/rec.err" \
    || { cat "$T/rec.err"; fail "kill $k ($m, $name): recover failed"; }
  manifest "$D" > "$T/now"
  if cmp -s "$T/now" "$T/$m.old"; then state=old
  elif cmp -s "$T/now" "$T/$m.new"; then state=new
  else
    diff "$T/$m.old" "$T/now" | head -20 >&2
    fail "kill $k ($m, $name +${ms} ms, seed $SEED): after the next run the target is neither the old nor the new tree"
  fi
  # a kill before the journal names the target leaves its (unlocked) lock file inside it, which
  # the next run on the target takes and removes (security.md, "One run per target")
  if [ -e "$D/.cudnnctl-lock" ]; then
    flock -n "$D/.cudnnctl-lock" true || fail "kill $k: the target lock is still held after recover"
    stale_locks=$((stale_locks + 1))
    mv "$D/.cudnnctl-lock" "$T/stale-lock"
  fi
  no_leftovers "$D"
  [ -z "$(find "$(dirname "$D")" -maxdepth 1 \( -name '*.tmp-*' -o -name '.*cudnnctl*' \))" ] \
    || fail "kill $k: temp files, a lock or a ledger beside the target"
  [ ! -e "$R/var/lib/cudnnctl/journal.json" ] || fail "kill $k: the journal stayed after recover"
  "${C[@]}" list --json > "$T/list.json"
  n=$(python3 -c 'import json,sys; print(sum(i["cudnn_version"] == sys.argv[2] for i in json.load(open(sys.argv[1]))["installs"]))' "$T/list.json" "$VER")
  want=0; [ "$state" = new ] && want=1
  [ "$n" = "$want" ] || fail "kill $k ($m, $name): the tree is $state but $n receipt(s) of $VER"
  hits[$m.$name.$at.$state]=$(( ${hits[$m.$name.$at.$state]:-0} + 1 ))
  if [ "$state" = new ]; then
    settled_new=$((settled_new + 1))
    "${C[@]}" uninstall $(tgt_of "$m") --version "$VER" --no-ldconfig > /dev/null 2> "$T/un.err" \
      || { cat "$T/un.err"; fail "kill $k ($m): uninstall after settling"; }
    manifest "$D" > "$T/now"
    same_snap "$T/$m.old" "$T/now" "kill $k ($m): uninstall did not give the old tree back"
  fi
done
for key in $(printf '%s\n' "${!hits[@]}" | sort); do echo "  $key: ${hits[$key]}"; done
echo "ok: $KILLS kills (seed $SEED): after the next run always the old or the new tree ($settled_new new; $stale_locks unlocked lock files left by a kill before the journal)"
