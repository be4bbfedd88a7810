# timing.py: wall time and peak RSS of `cudnnctl validate` vs the seeds' PyTorch check, interleaved
# (A B A B ...), after one warm-up of each. Peak RSS from wait4(): the largest of the process and
# its reaped descendants (so it covers the validation child).
import json, os, statistics, subprocess, sys, time

TORCH_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_check.py")

def run(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": round(time.perf_counter() - t, 4), "peak_rss_mib": round(ru.ru_maxrss / 1024.0, 1),
            "rc": p.returncode, "tail": out.decode(errors="replace")[-300:]}

def main():
    bin_, target, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cmds = {"validate": [bin_, "validate", target, "--json"], "torch": [sys.executable, TORCH_FILE]}
    res = {"commands": {"validate": " ".join(cmds["validate"]), "torch": "python3 torch_check.py"},
           "torch_script": open(TORCH_FILE).read(), "warmup": {}, "runs": {"validate": [], "torch": []}}
    for k in ("validate", "torch"):
        res["warmup"][k] = run(cmds[k])
    for _ in range(rounds):
        for k in ("validate", "torch"):
            res["runs"][k].append(run(cmds[k]))
    med = {k: statistics.median(r["wall_s"] for r in v) for k, v in res["runs"].items()}
    res["median_wall_s"] = med
    res["median_peak_rss_mib"] = {k: statistics.median(r["peak_rss_mib"] for r in v) for k, v in res["runs"].items()}
    res["ratio_validate_over_torch"] = round(med["validate"] / med["torch"], 4)
    res["all_rc_zero"] = all(r["rc"] == 0 for v in res["runs"].values() for r in v)
    print(json.dumps({k: res[k] for k in ("median_wall_s", "median_peak_rss_mib", "ratio_validate_over_torch", "all_rc_zero")}))
    for k, v in res["runs"].items():
        print(k, [r["wall_s"] for r in v], [r["peak_rss_mib"] for r in v], [r["rc"] for r in v])
    json.dump(res, open(sys.argv[4], "w"), indent=1)

main()
