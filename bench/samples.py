#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Read a pmr-perf --samples file: every measured iteration's latency, in
the order the iterations ran.

For each loop in the file (raw, rdma or one_qp, and message size) prints
its count, median and 99th and 99.9th percentiles, taken as pmr-perf takes
them, so they match its own table.  Then the same split by iteration
number modulo PERIOD (default 8, pmr-perf's default -Q), with how many of
the loop's slowest TAIL per cent (default 0.2) fall on each residue.
pmr-perf numbers a loop's iterations from the first of its warm-up, so
with one QP and one message size the residue PERIOD - 1 of -Q PERIOD
holds the signaled iterations.  A step
of the stack that repeats with the iteration number shows as one residue
with a higher median or more than its share of the tail; what the
machine does shows on none in particular.

    samples.py FILE [--period N] [--tail PERCENT]
"""
import argparse
import math
import sys

HEADER = "mode,bytes,iteration,usec"


def fail(msg):
    print(f"samples.py: {msg}", file=sys.stderr)
    sys.exit(2)


def pct(s, p):
    """pmr-perf's percentile: the ceil(p n)-th smallest of the sorted s."""
    i = math.ceil(p * len(s)) - 1
    return s[min(max(i, 0), len(s) - 1)]


def stats(xs):
    s = sorted(xs)
    return len(s), s[len(s) // 2], pct(s, 0.99), pct(s, 0.999)


def read(path):
    """[(mode, bytes, first iteration, [usec...])] in the order of the
    file: a loop is a run of lines of one mode and size, its iterations
    numbered one after the other."""
    loops = []
    try:
        f = open(path)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    with f:
        first = f.readline().strip()
        if first != HEADER:
            fail(f"{path}: not a pmr-perf --samples file (first line "
                 f"'{first[:40]}', expected '{HEADER}')")
        for n, line in enumerate(f, 2):
            where = f"{path} line {n}"
            parts = line.strip().split(",")
            if len(parts) != 4:
                fail(f"{where}: {len(parts)} fields, expected 4")
            mode, b, it, us = parts
            try:
                b, it, us = int(b), int(it), float(us)
            except ValueError:
                fail(f"{where}: bytes and iteration must be whole "
                     f"numbers, usec a number")
            if b < 0 or not math.isfinite(us) or us < 0:
                fail(f"{where}: bytes or usec out of range")
            if it < 0:
                fail(f"{where}: iteration {it} out of range")
            if not loops or loops[-1][:2] != (mode, b):
                loops.append((mode, b, it, []))
            elif it != loops[-1][2] + len(loops[-1][3]):
                fail(f"{where}: iteration {it} of {mode} {b} B out of "
                     f"order (a loop's iterations follow one another)")
            loops[-1][3].append(us)
    if not loops:
        fail(f"{path}: no samples")
    return loops


def main():
    ap = argparse.ArgumentParser(description="Read a pmr-perf --samples "
                                 "file: percentiles, and by iteration "
                                 "number modulo a period.")
    ap.add_argument("file")
    ap.add_argument("--period", type=int, default=8)
    ap.add_argument("--tail", type=float, default=0.2,
                    help="the slowest PERCENT of a loop (default 0.2)")
    a = ap.parse_args()
    if not 1 <= a.period <= 1 << 20:
        fail(f"bad --period {a.period}: 1 .. {1 << 20}")
    if not 0 < a.tail <= 100:
        fail(f"bad --tail {a.tail}: above 0, at most 100")
    for mode, b, first, xs in read(a.file):
        n, typ, p99, p999 = stats(xs)
        print(f"{mode} {b} B: {n} iterations, t_typical {typ:.3f} "
              f"99% {p99:.3f} 99.9% {p999:.3f} usec")
        ntail = max(1, math.ceil(n * a.tail / 100))
        # the slowest ntail, ties at the edge taken by iteration number
        slow = sorted(range(n), key=lambda i: (-xs[i], i))[:ntail]
        hits = [0] * a.period
        for i in slow:
            hits[(first + i) % a.period] += 1
        print(f"  iteration mod {a.period}: n, t_typical, 99%, "
              f"of the slowest {ntail} (share {ntail / a.period:.1f})")
        for r in range(min(a.period, n)):
            # the samples whose iteration number leaves residue r
            rn, rt, r99, _ = stats(xs[(r - first) % a.period::a.period])
            print(f"  {r:4d} {rn:7d} {rt:8.3f} {r99:8.3f} {hits[r]:6d}")


if __name__ == "__main__":
    main()
