#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How a hot path's code falls on the sets of an instruction cache, from a
callgrind output made with --dump-instr=yes (best with --toggle-collect=
FUNCTION, so that only the measured loop counts):

    valgrind --tool=callgrind --dump-instr=yes --toggle-collect=rdma_lat \\
        --callgrind-out-file=cg.out pmr-perf send_lat ... 127.0.0.1 ...
    cg_sets.py cg.out --min 15000

A line of code (64 bytes) is hot when one of its instructions ran at
least MIN times (the iterations, or a little fewer).  Each object's
addresses are as callgrind gives them, offsets in the object, which keep
their place modulo the 4 KiB page where the object is mapped; so the set
of a line, (address / 64) mod SETS, is the one it takes at run time.
Prints the hot lines of each object, how many sets hold how many of them,
and every set with more than WAYS (the cache misses on those every
iteration).

    cg_sets.py FILE [--min N] [--sets 64] [--ways 8] [--line 64]
"""
import argparse
import collections
import re
import sys


def fail(msg):
    print(f"cg_sets.py: {msg}", file=sys.stderr)
    sys.exit(2)


def parse(path):
    """{(object id, instruction address): times run}, {id: object name}"""
    names, cost = {}, collections.defaultdict(int)
    ob, addr, after_call = None, 0, False
    positions = None
    try:
        f = open(path)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    with f:
        for line in f:
            m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "ob":
                    ob = m.group(2)
                continue
            if line.startswith("positions:"):
                positions = line.split()[1:]
                continue
            if line.startswith("calls="):
                after_call = True      # the next line is the call's cost
                continue
            if not line or line[0] not in "0123456789+-*":
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a[0] in "+-":
                d = int(a[1:], 0)
                addr = addr + d if a[0] == "+" else addr - d
            if after_call:
                after_call = False
                continue
            if len(parts) >= 3:
                cost[(ob, addr)] += int(parts[2])
    if positions is None or positions[:1] != ["instr"]:
        fail(f"{path}: no instruction addresses (run callgrind with "
             f"--dump-instr=yes)")
    return cost, names


def main():
    ap = argparse.ArgumentParser(description="A hot path's code on the "
                                 "sets of an instruction cache, from "
                                 "callgrind --dump-instr=yes.")
    ap.add_argument("file")
    ap.add_argument("--min", type=int, default=15000)
    ap.add_argument("--sets", type=int, default=64)
    ap.add_argument("--ways", type=int, default=8)
    ap.add_argument("--line", type=int, default=64)
    a = ap.parse_args()
    for name in ("min", "sets", "ways", "line"):
        if getattr(a, name) < 1:
            fail(f"bad --{name} {getattr(a, name)}: at least 1")
    cost, names = parse(a.file)
    hot = collections.defaultdict(int)     # (object, line) -> most runs
    for (ob, addr), n in cost.items():
        k = (ob, addr // a.line)
        hot[k] = max(hot[k], n)
    lines = [k for k, n in hot.items() if n >= a.min]

    def name(ob):
        return names.get(ob, f"object {ob}").rsplit("/", 1)[-1]

    by_ob = collections.Counter(name(ob) for ob, _ in lines)
    print(f"{len(lines)} hot lines: " +
          ", ".join(f"{o} {n}" for o, n in by_ob.most_common()))
    sets = collections.defaultdict(list)
    for ob, ln in lines:
        sets[ln % a.sets].append(name(ob))
    hist = collections.Counter(len(v) for v in sets.values())
    print("sets holding n hot lines: " +
          ", ".join(f"{n}: {hist[n]}" for n in sorted(hist)))
    over = sorted(s for s in sets if len(sets[s]) > a.ways)
    print(f"sets over {a.ways}: {len(over)}")
    for s in over:
        print(f"  set {s}: {len(sets[s])}: " +
              ", ".join(f"{o} {n}" for o, n in
                        collections.Counter(sets[s]).most_common()))


if __name__ == "__main__":
    main()
