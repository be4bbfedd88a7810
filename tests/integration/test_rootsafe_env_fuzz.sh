#!/usr/bin/env bash
# test_rootsafe_env_fuzz.sh (issue 18 item 9): a property test. Random bytes (control characters,
# quotes, $(), backticks, ;|&, globs, backslashes, invalid UTF-8, injection fragments) as a path
# component of a prefix, given to `env` (as --prefix and as the target) for every shell here
# (bash, dash, zsh, fish), and the output evaluated in that shell. Each case must be either a
# clean refusal (exit 2, nothing on stdout, the reason named: the component has a control
# character, or a ':', which no PATH / LD_LIBRARY_PATH entry can hold) or a text
# that, evaluated, exits 0, prints nothing, creates no file, and changes exactly PATH,
# LD_LIBRARY_PATH, CUDNNCTL_ENV, CUDA_HOME and CUDA_PATH, to the values the selection (`env
# --json` for the same arguments) says: its dirs in front, the entries the shell had under the
# prefix dropped, the others (a sibling whose name starts with the component, a decoy a glob
# would match) kept in order. Fixed seed, a fixed number of cases:
# CUDNNCTL_FUZZ_SEED (default 18), CUDNNCTL_FUZZ_CASES (default 120).
set -euo pipefail
. "$(dirname "$0")/envwire_lib.sh"
need bash
R=$T/root
mk_root "$R"
ln -s cuda-13.0 "$R/usr/local/cuda"
python3 - "$CUDNNCTL" "$T" "$R" "${CUDNNCTL_FUZZ_SEED:-18}" "${CUDNNCTL_FUZZ_CASES:-120}" <<'PY'
import json, os, random, shutil, subprocess, sys

exe, T, R, seed, cases = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(seed)
shells = [s for s in ("bash", "dash", "zsh", "fish") if shutil.which(s)]
name = {"bash": "bash", "dash": "sh", "zsh": "zsh", "fish": "fish"}
CTL = [bytes([c]) for c in list(range(1, 0x20)) + [0x7f]]
META = [bytes([c]) for c in b" \t'\"\\$`;|&<>(){}[]*?!#~=%^,:@+"] + [b"$(", b"${", b"$'", b"\\'", b"'\\''"]
FRAG = [b"$(touch pwn1)", b"`touch pwn2`", b";touch pwn3;", b"';touch pwn4;'", b"\";touch pwn5;\"",
        b"$(>pwn6)", b"|touch pwn7", b"&& touch pwn8", b"\\';touch pwn9;#", b"(touch pwn10)",
        b"\ntouch pwn11\n", b"\rtouch pwn12", b"\x1b]0;x\x07", b"%PATH%", b"$env:PATH"]
HIGH = [bytes([c]) for c in range(0x80, 0x100)] + ["é".encode(), "中".encode(), b"\xc3", b"\xff\xfe"]
PLAIN = [bytes([c]) for c in b"abcxyzABC0189._-"]
VARS = ["PATH", "LD_LIBRARY_PATH", "CUDNNCTL_ENV", "CUDA_HOME", "CUDA_PATH"]
# and what builds read (issue 19, docs/build.md): the lists and the root variables env --json names
BUILD_LISTS = ("CPATH", "LIBRARY_PATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH")

def component():
    parts = []
    for _ in range(rnd.randint(1, 10)):
        k = rnd.random()
        pool = CTL if k < 0.04 else META if k < 0.45 else FRAG if k < 0.57 else HIGH if k < 0.77 else PLAIN
        parts.append(rnd.choice(pool))
    c = b"".join(parts).replace(b"/", b"_").replace(b"\0", b"_")[:200]
    return c if c not in (b".", b"..", b"") else b"x" + c

def run(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)

def cudnnctl(*args):
    return run([exe, "--root", R, "--state-dir", T + "/state", "env", *args])

def dump_cmd(sh, act):
    """Evaluate act (a file) as a user would, then print the environment (NUL-separated)."""
    if sh == "fish":
        if not act:
            return ["fish", "--no-config", "-c", "exec /usr/bin/env -0"]
        return ["fish", "--no-config", "-c", "source $argv[1]; and exec /usr/bin/env -0", act]
    opt = {"bash": ["--norc", "--noprofile"], "zsh": ["-f"], "dash": []}[sh]
    body = 'eval "$(cat "$1")" && exec /usr/bin/env -0' if act else "exec /usr/bin/env -0"
    return [sh, *opt, "-c", body, "x", act or ""]

def env_of(out):
    return dict(kv.split(b"=", 1) for kv in out.split(b"\0") if b"=" in kv)

base_env = {b"PATH": b"/usr/bin:/bin", b"HOME": os.fsencode(T + "/home"), b"LANG": b"C.UTF-8"}
cwd = T + "/cwd"
os.makedirs(cwd, exist_ok=True)
baseline = {}
for sh in shells:
    r = run(dump_cmd(sh, None), env=base_env, cwd=cwd)
    assert r.returncode == 0, (sh, r.stderr)
    baseline[sh] = env_of(r.stdout)

def start_env(prefix):
    """What the shell had: entries under the prefix (dropped), a sibling and a decoy (kept)."""
    inst = prefix + b"/cudnn-9.19.0.99-cuda13"
    kept_path = b"/usr/bin:" + prefix + b"x/bin:/fz/decoy:/bin"
    kept_llp = prefix + b"x/lib:/opt/mine/lib"
    env = dict(base_env)
    env[b"PATH"] = inst + b"/bin:/usr/bin:" + prefix + b"x/bin:/fz/decoy:" + prefix + b"/bin:/bin"
    env[b"LD_LIBRARY_PATH"] = inst + b"/lib:" + prefix + b"x/lib:/opt/mine/lib"
    return env, kept_path, kept_llp

def expected(sel, kept_path, kept_llp):
    j = lambda v: b":".join(os.fsencode(x).rstrip(b"/") or b"/" for x in v)
    want = {"LD_LIBRARY_PATH": j(sel["lib_dirs"]) + b":" + kept_llp, "CUDNNCTL_ENV": j(sel["roots"]),
            "PATH": j(sel["path_prepend"]) + b":" + kept_path}
    if sel["toolkit"]:
        want["CUDA_HOME"] = want["CUDA_PATH"] = os.fsencode(sel["toolkit"]["path"])
    for k in BUILD_LISTS:
        if sel["build"].get(k):
            want[k] = j(sel["build"][k])
    for k, v in sel["build"]["vars"].items():
        want[k] = os.fsencode(v)
    return want

refused = accepted = 0
for i in range(cases):
    comp = component()
    prefix = b"/fz/" + comp
    os.makedirs(os.fsencode(R) + prefix + b"/cudnn-9.19.0.99-cuda13/lib", exist_ok=True)
    form = [b"--prefix", prefix] if i % 2 == 0 else [prefix]
    ctl = next((c for c in comp if c < 0x20 or c == 0x7f), None)
    why = (b"\\x%02x" % ctl) if ctl is not None else b"has a ':' in it" if b":" in comp else None
    js = cudnnctl("--json", "--ld-library-path", *form)
    for sh in shells:
        r = cudnnctl("--shell", name[sh], "--ld-library-path", *form)
        what = f"case {i} {sh} {form!r}"
        if why:
            assert r.returncode == 2 and r.stdout == b"", (what, r.returncode, r.stdout[:200], r.stderr)
            assert why in r.stderr, (what, why, r.stderr)
            continue
        assert r.returncode == 0, (what, r.returncode, r.stderr)
        assert not [c for c in r.stdout if (c < 0x20 and c != 0x0a) or c == 0x7f], (what, r.stdout)
        act = T + "/act"
        open(act, "wb").write(r.stdout)
        env0, kept_path, kept_llp = start_env(prefix)
        e = run(dump_cmd(sh, act), env=env0, cwd=cwd)
        assert e.returncode == 0 and e.stderr == b"", (what, e.returncode, e.stderr[:400], r.stdout)
        assert not os.listdir(cwd), (what, "the evaluation created", os.listdir(cwd))
        got = env_of(e.stdout)
        sel = json.loads(js.stdout.decode("utf-8", "surrogateescape"))
        want = expected(sel, kept_path, kept_llp)
        for k, v in want.items():
            assert got.get(k.encode()) == v, (what, k, got.get(k.encode()), v)
        allowed = {v.encode() for v in VARS} | {k.encode() for k in want}
        changed = {k for k in set(got) | set(baseline[sh]) if got.get(k) != baseline[sh].get(k)}
        assert changed <= allowed, (what, "also changed", changed - allowed)
    if ctl is not None:
        assert js.returncode == 2, ("case", i, "--json", js.returncode)
    if why:
        refused += 1
    else:
        accepted += 1
print(f"seed {seed}: {cases} components x {len(shells)} shells ({', '.join(shells)}): "
      f"{refused} refused (control character or ':', exit 2), {accepted} evaluated exactly")
assert refused and accepted, "both kinds of case must occur"
PY
echo ok
