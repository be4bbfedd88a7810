# speed.py: `cudnnctl validate` against its floor and the seeds' PyTorch check on one machine,
# interleaved (A B C D A B C D ...) after one warm-up of each: wall time (perf_counter) and peak
# RSS (wait4: the process and its reaped children, so the validation child is covered).
#   python3 speed.py ROUNDS OUT.json NAME=CMD... (CMD words split on spaces)
import json, os, statistics, subprocess, sys, time

def run(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    return {"wall_s": round(time.perf_counter() - t, 4), "peak_rss_mib": round(ru.ru_maxrss / 1024.0, 1),
            "rc": os.waitstatus_to_exitcode(status), "tail": out.decode(errors="replace")[-400:]}

rounds, out = int(sys.argv[1]), sys.argv[2]
cmds = dict(a.split("=", 1) for a in sys.argv[3:])
cmds = {k: v.split() for k, v in cmds.items()}
res = {"commands": {k: " ".join(v) for k, v in cmds.items()}, "warmup": {}, "runs": {k: [] for k in cmds}}
for k, v in cmds.items():
    res["warmup"][k] = run(v)
for _ in range(rounds):
    for k, v in cmds.items():
        res["runs"][k].append(run(v))
med = {k: statistics.median(r["wall_s"] for r in v) for k, v in res["runs"].items()}
res["median_wall_s"] = med
res["min_wall_s"] = {k: min(r["wall_s"] for r in v) for k, v in res["runs"].items()}
res["median_peak_rss_mib"] = {k: statistics.median(r["peak_rss_mib"] for r in v) for k, v in res["runs"].items()}
res["all_rc_zero"] = all(r["rc"] == 0 for v in res["runs"].values() for r in v)
print(json.dumps({k: res[k] for k in ("median_wall_s", "min_wall_s", "median_peak_rss_mib", "all_rc_zero")}, indent=1))
for k, v in res["runs"].items():
    print(k, [r["wall_s"] for r in v], [r["rc"] for r in v])
json.dump(res, open(out, "w"), indent=1)
