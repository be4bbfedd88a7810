#!/usr/bin/env bash
# A crash or a hang inside a vendor library ends as a clear failure naming the vendor step
# (exit 6), never as a crash of cudnnctl. The "vendor library" is an ELF double of libcudnn.so.9.
set -euo pipefail
command -v cc >/dev/null || { echo "FAIL: no C compiler for the test doubles"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/shim.c" <<'C'
/* test double of libcudnn.so.9 whose cudnnGetVersion crashes or hangs */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
unsigned long cudnnGetVersion(void)
{
#ifdef CRASH
    fprintf(stderr, "double: about to crash\n");
    raise(SIGSEGV);
#else
    for (;;)
        sleep(1);
#endif
    return 0;
}
C
mkdir -p "$tmp/crash/lib" "$tmp/hang/lib"
cc -shared -fPIC -DCRASH -Wl,-soname,libcudnn.so.9 -o "$tmp/crash/lib/libcudnn.so.9" "$tmp/shim.c"
cc -shared -fPIC -Wl,-soname,libcudnn.so.9 -o "$tmp/hang/lib/libcudnn.so.9" "$tmp/shim.c"

set +e
"$CUDNNCTL" validate "$tmp/crash" --json >"$tmp/crash.json" 2>"$tmp/crash.err"
rc=$?
set -e
[ "$rc" -eq 6 ] || { echo "FAIL: crash exit $rc, want 6"; cat "$tmp/crash.err" "$tmp/crash.json"; exit 1; }
python3 - "$tmp/crash.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); c = {k["name"]: k for k in r["checks"]}
def fail(m): print("FAIL(crash):", m); print(json.dumps(r, indent=1)); sys.exit(1)
ch = c.get("child")
if r["status"] != "failed" or not ch or "SIGSEGV" not in ch["error"] or "cudnnGetVersion" not in ch["error"]: fail("child %r" % ch)
if "inside the vendor library" not in ch["error"]: fail("not attributed to the vendor library")
if not c["load_cudnn"]["ok"]: fail("the load itself worked")
if "about to crash" not in (r["vendor_output"] or ""): fail("vendor output lost")
PY

start=$(date +%s)
set +e
"$CUDNNCTL" validate "$tmp/hang" --timeout 2 >"$tmp/hang.out" 2>"$tmp/hang.err"
rc=$?
set -e
took=$(( $(date +%s) - start ))
[ "$rc" -eq 6 ] || { echo "FAIL: hang exit $rc, want 6"; cat "$tmp/hang.err"; exit 1; }
[ "$took" -lt 10 ] || { echo "FAIL: the hang took ${took}s to end with --timeout 2"; exit 1; }
grep -q "hung for 2 s inside the vendor library during cudnnGetVersion" "$tmp/hang.err" ||
    { echo "FAIL: hang not named"; cat "$tmp/hang.err"; exit 1; }
grep -Eq '^child +FAIL ' "$tmp/hang.out" || { echo "FAIL: table lacks the failed child"; cat "$tmp/hang.out"; exit 1; }
echo "ok: vendor crash and hang are reported, exit 6"
