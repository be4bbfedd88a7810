#!/usr/bin/env python3
"""xz_stream_bound.py ARCHIVE RATE: the earliest moment any streaming installer with a
single-threaded xz decoder could finish decoding ARCHIVE if its bytes arrived at RATE bytes/s.

It feeds ARCHIVE to `xz -dc` (the same liblzma, nothing else running) as fast as xz takes it,
noting when each 256 KiB has been consumed (T_k; the pipe is 64 KiB, so a write returns about
when xz has read it), then

    bound = max over k of ( k / RATE  +  (T_end - T_k) )

— byte k cannot be decoded before it arrives, and everything after it takes at least the time
xz needed for it. A payload whose tail decodes slowly (compressible data at the end) puts the
bound above max(download, decode): no overlap can hide decode work that has not arrived yet.
Prints one JSON line: {"decode_s", "download_s", "bound_s", "bound_ratio"}.
"""
import json
import subprocess
import sys
import time


def main():
    path, rate = sys.argv[1], float(sys.argv[2])
    xz = subprocess.Popen(["xz", "-dc"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    marks = []
    pos = 0
    t0 = time.monotonic()
    with open(path, "rb") as f:
        while True:
            b = f.read(256 * 1024)
            if not b:
                break
            xz.stdin.write(b)
            pos += len(b)
            marks.append((pos, time.monotonic() - t0))
    xz.stdin.close()
    if xz.wait() != 0:
        sys.exit("xz -dc failed")
    end = time.monotonic() - t0
    download = pos / rate
    bound = max(k / rate + (end - t) for k, t in marks)
    print(json.dumps({"decode_s": round(end, 3), "download_s": round(download, 3),
                      "bound_s": round(bound, 3),
                      "bound_ratio": round(bound / max(download, end), 3)}))


if __name__ == "__main__":
    main()
