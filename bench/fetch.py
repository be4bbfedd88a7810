#!/usr/bin/env python3
"""fetch.py: the fetch benchmark — cc_source download throughput from the loopback test server
against curl, SHA-256 through EVP against `openssl dgst -sha256`, cache-hit and local-file reads,
and peak RSS of a streaming download. Interleaved runs (A B C ... A B C ...), medians reported.

    bench/fetch.py [--build build] [--size-mb 300] [--runs 3] [--work /tmp/cudnnctl-bench]
                   [--throttle BYTES_PER_S]

Test data is generated with head -c from /dev/urandom under --work (never in the repository).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd):
    t0 = time.perf_counter()
    sh(cmd, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def peak_rss_kib(cmd):
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=True)
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[1])
    raise RuntimeError("no RSS in /usr/bin/time output")


def start_server(root, work, name, throttle=0):
    port_file = os.path.join(work, name + ".port")
    if os.path.exists(port_file):
        os.unlink(port_file)
    cmd = [sys.executable, os.path.join(SRC, "tests/tools/httpd.py"), "--root", root,
           "--port-file", port_file, "--max-lifetime", "3600"]
    if throttle:
        cmd += ["--throttle", str(throttle)]
    p = subprocess.Popen(cmd)
    for _ in range(200):
        if os.path.exists(port_file):
            return p, int(open(port_file).read())
        time.sleep(0.05)
    p.kill()
    raise RuntimeError("httpd.py did not start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--size-mb", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default="/tmp/cudnnctl-bench")
    ap.add_argument("--throttle", type=int, default=0, help="also a throttled run (bytes/s)")
    a = ap.parse_args()

    fb = os.path.join(a.build, "bench/fetch_bench")
    for tool in (fb, "/usr/bin/time", shutil.which("curl"), shutil.which("openssl")):
        if not tool or not os.path.exists(tool):
            sys.exit(f"fetch.py: missing {tool or 'curl/openssl'} (build first; apt-get install time)")
    www = os.path.join(a.work, "www")
    os.makedirs(www, exist_ok=True)
    payload = os.path.join(www, "payload.bin")
    size = a.size_mb * 1024 * 1024
    if not os.path.exists(payload) or os.path.getsize(payload) != size:
        sh(f"head -c {size} /dev/urandom > {payload}", shell=True)
    sha = subprocess.run(["openssl", "dgst", "-sha256", "-r", payload], capture_output=True,
                         text=True, check=True).stdout.split()[0]
    sh(["cat", payload], stdout=subprocess.DEVNULL)  # warm the page cache

    srv, port = start_server(www, a.work, "httpd")
    url = f"http://127.0.0.1:{port}/payload.bin"
    hit_cache = os.path.join(a.work, "cache-hit")
    shutil.rmtree(hit_cache, ignore_errors=True)
    sh([fb, "fetch", url, sha, str(size), hit_cache], stdout=subprocess.DEVNULL)
    curl_out = os.path.join(a.work, "curl.out")

    def fresh_cache():
        d = os.path.join(a.work, "cache-fresh")
        shutil.rmtree(d, ignore_errors=True)
        return d

    cases = {
        "curl -o /dev/null": lambda: timed(["curl", "-s", "-o", "/dev/null", url]),
        "curl -o FILE": lambda: timed(["curl", "-s", "-o", curl_out, url]),
        "cc_source download (hash + cache write)": lambda: timed(
            [fb, "fetch", url, sha, str(size), fresh_cache()]),
        "cc_source cache hit (re-hash)": lambda: timed([fb, "fetch", url, sha, str(size),
                                                        hit_cache]),
        "cc_source local file": lambda: timed([fb, "fetch", payload, sha, str(size),
                                               fresh_cache()]),
        "openssl dgst -sha256": lambda: timed(["openssl", "dgst", "-sha256", payload]),
        "cc_sha256_file (EVP)": lambda: timed([fb, "hash", payload]),
    }
    times = {k: [] for k in cases}
    try:
        for _ in range(a.runs):
            for k, f in cases.items():
                times[k].append(f())
        rss = {
            "cc_source download": peak_rss_kib([fb, "fetch", url, sha, str(size), fresh_cache()]),
            "curl -o /dev/null": peak_rss_kib(["curl", "-s", "-o", "/dev/null", url]),
        }
        throttled = None
        if a.throttle:
            tsrv, tport = start_server(www, a.work, "httpd-throttled", a.throttle)
            turl = f"http://127.0.0.1:{tport}/payload.bin"
            try:
                throttled = {
                    "curl -o /dev/null": timed(["curl", "-s", "-o", "/dev/null", turl]),
                    "cc_source download": timed([fb, "fetch", turl, sha, str(size),
                                                 fresh_cache()]),
                    "size / rate": size / a.throttle,
                }
            finally:
                tsrv.terminate()
    finally:
        srv.terminate()
        for d in (curl_out,):
            if os.path.exists(d):
                os.unlink(d)
        shutil.rmtree(os.path.join(a.work, "cache-fresh"), ignore_errors=True)

    med = {k: statistics.median(v) for k, v in times.items()}
    mib = size / (1024 * 1024)
    print(f"payload: {a.size_mb} MiB random, {a.runs} interleaved runs, medians\n")
    print("| what | median s | MiB/s | runs |")
    print("|---|---|---|---|")
    for k, v in med.items():
        print(f"| {k} | {v:.3f} | {mib / v:.0f} | {' '.join(f'{x:.3f}' for x in times[k])} |")
    print()
    print(f"- download / curl -o /dev/null: {med['cc_source download (hash + cache write)'] / med['curl -o /dev/null']:.2f}x")
    print(f"- download / curl -o FILE: {med['cc_source download (hash + cache write)'] / med['curl -o FILE']:.2f}x")
    print(f"- EVP SHA-256 throughput / openssl dgst: {med['openssl dgst -sha256'] / med['cc_sha256_file (EVP)']:.2f}x")
    print(f"- peak RSS: cc_source download {rss['cc_source download'] / 1024:.1f} MiB, "
          f"curl {rss['curl -o /dev/null'] / 1024:.1f} MiB")
    if throttled:
        print(f"- throttled to {a.throttle / 1e6:.0f} MB/s: size/rate {throttled['size / rate']:.2f} s, "
              f"curl {throttled['curl -o /dev/null']:.2f} s, cc_source {throttled['cc_source download']:.2f} s "
              f"({throttled['cc_source download'] / throttled['size / rate']:.3f}x size/rate)")
    print(json.dumps({"medians_s": med, "runs_s": times, "peak_rss_kib": rss,
                      "throttled_s": throttled}))


if __name__ == "__main__":
    main()
