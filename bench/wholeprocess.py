#!/usr/bin/env python3
"""Whole-process timings of the uriscan command, as a pipeline sees them.

    go build -o /tmp/uriscan ./cmd/uriscan
    python3 bench/wholeprocess.py /tmp/uriscan [DATA]

DATA is the shared data directory (default ../shared/data). Builds k64
(kasztp.txt 64 times) and l16 (the three URL lists 16 times) in /tmp, then
prints the best of N runs (stdout and stderr to /dev/null) of: one worker on
one pinned core, and --workers 1 against --workers 2, and extract against
grep -oE. The README's "Whole process" tables come from it.
"""
import os
import shutil
import subprocess
import sys
import time

N = 11
dn = open(os.devnull, "wb")


def best(cmd, n=N, shell=False, stdin=None):
    b = 1e9
    for _ in range(n):
        f = open(stdin, "rb") if stdin else None
        t = time.perf_counter()
        subprocess.run(cmd, stdout=dn, stderr=dn, shell=shell, stdin=f)
        b = min(b, time.perf_counter() - t)
        if f:
            f.close()
    return b * 1000


def concat(out, parts, times):
    if not os.path.exists(out):
        with open(out, "wb") as w:
            for _ in range(times):
                for p in parts:
                    with open(p, "rb") as r:
                        shutil.copyfileobj(r, w)
    return out


def main():
    u = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else "../shared/data"
    urls = os.path.join(data, "urls")
    lists = [os.path.join(urls, f) for f in ("isaacs_files.txt", "kasztp.txt", "node_files.txt")]
    k64 = concat("/tmp/uriscan-k64.txt", [os.path.join(urls, "kasztp.txt")], 64)
    l16 = concat("/tmp/uriscan-l16.txt", lists, 16)
    access = os.path.join(data, "logs", "access.log")
    pin = ["taskset", "-c", "1"] if shutil.which("taskset") else []
    print("one worker, one pinned core (ms):")
    for f in (k64, l16):
        v = best(pin + [u, "validate", "--workers", "1", f])
        vr = best(pin + [u, "validate", "--workers", "1"], stdin=f)
        s = best(pin + [u, "split", "--workers", "1", f])
        n = best(pin + [u, "normalize", "--workers", "1", f])
        print(f"  {os.path.basename(f)}: validate {v:.0f} (read(2) from stdin: {vr:.0f}), "
              f"split {s:.0f} ({s / v:.2f}x), normalize {n:.0f} ({n / v:.2f}x)")
    print("--workers 1 vs 2 (ms):")
    runs = ((access, [["split"], ["normalize"], ["extract"], ["extract", "--log", "combined"]]),
            (l16, [["split"], ["normalize"], ["extract"]]),
            (k64, [["validate"], ["split"], ["normalize"], ["extract"]]))
    for f, cmds in runs:
        for c in cmds:
            w = {}
            for _ in range(2):  # alternate, so that a noisy moment hits both
                for k in (1, 2):
                    w[k] = min(w.get(k, 1e9), best([u] + c + ["--workers", str(k), f], n=6))
            print(f"  {' '.join(c)} {os.path.basename(f)}: w1 {w[1]:.1f} w2 {w[2]:.1f} ratio {w[1] / w[2]:.2f}")
    g = best(f"LC_ALL=C grep -oE 'https?://[^ \"]+' {access} | wc -l", shell=True)
    x = best(f"{u} extract {access} | wc -l", shell=True)
    x1 = best(f"{u} extract --workers 1 {access} | wc -l", shell=True)
    print(f"extract | wc -l: {x:.1f} ms (--workers 1: {x1:.1f}), grep -oE | wc -l: {g:.1f} ms")


if __name__ == "__main__":
    main()
