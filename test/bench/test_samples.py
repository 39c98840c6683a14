#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/samples.py on files made up here: percentiles as pmr-perf takes
them, the split by iteration number modulo the period (a loop that does
not start at iteration 0 included) with the slowest iterations counted
on the residue that holds them, and a clear error, exit status 2, for
every kind of bad file.

    test_samples.py SAMPLES_PY
"""
import os
import subprocess
import sys
import tempfile

PY = sys.argv[1]
HEADER = "mode,bytes,iteration,usec\n"
bad = 0


def check(ok, what):
    global bad
    if not ok:
        print(f"FAIL: {what}")
        bad = 1
    else:
        print(f"ok: {what}")


def run(text, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    try:
        p = subprocess.run([sys.executable, PY, f.name, *args],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return p.returncode, p.stdout, p.stderr


def loop(mode, size, first, values):
    return "".join(f"{mode},{size},{first + i},{v:.6f}\n"
                   for i, v in enumerate(values))


# rdma: 1000 iterations numbered from 2010 (a warm-up of 2010), 1.0 us
# each except those whose number mod 8 is 7: 2.0 us, and the three
# slowest, 9.0, 8.0 and 7.0 us, on residue 3.  n 1000: the median is the
# 501st (sorted[500]), 99% the 990th, 99.9% the 999th.
vals = []
for i in range(1000):
    it = 2010 + i
    vals.append(2.0 if it % 8 == 7 else 1.0)
slow = [i for i in range(1000) if (2010 + i) % 8 == 3][:3]
for i, v in zip(slow, (9.0, 8.0, 7.0)):
    vals[i] = v
raw = [0.5 + (i % 10) / 100 for i in range(400)]
text = HEADER + loop("raw", 64, 0, raw) + loop("rdma", 64, 2010, vals)
rc, out, err = run(text)
lines = out.splitlines()
check(rc == 0, f"a good file is read (status {rc}, {err.strip()})")
# raw: 400 values 0.50 .. 0.59, 40 of each; sorted[200] 0.55, 99%:
# the 396th (sorted[395]) 0.59, 99.9% the 400th 0.59
check("raw 64 B: 400 iterations, t_typical 0.550 99% 0.590 99.9% 0.590 usec"
      in lines, "raw: percentiles as pmr-perf's")
# rdma: 125 at 2.0 (minus none: residue 3 is not 7), three slow ones;
# sorted[500] 1.0, sorted[989] 2.0, sorted[998] 8.0
check("rdma 64 B: 1000 iterations, t_typical 1.000 99% 2.000 99.9% 8.000 usec"
      in lines, "rdma: percentiles as pmr-perf's")
# the slowest 0.2 %: 2 iterations, both on residue 3; residue 7's
# median 2.0, residue 3's 99% among its three slow values
res = {}
seen = False
for ln in lines:
    if ln.startswith("rdma"):
        seen = True
    elif seen and ln.startswith("   "):
        f = ln.split()
        res[int(f[0])] = f[1:]
check(sorted(res) == list(range(8)), "rdma: eight residues")
check(res.get(7, [None, None])[1] == "2.000" and
      res.get(0, [None, None])[1] == "1.000",
      "rdma: residue 7 by its iteration number, not its place in the file")
check(res.get(3, [None] * 4)[3] == "2" and
      sum(int(v[3]) for v in res.values()) == 2,
      "rdma: the slowest 0.2 % counted on residue 3")
check(res.get(3, ["0"])[0] == "125", "rdma: 125 iterations a residue")
rc, out, err = run(text, "--period", "4", "--tail", "1")
check(rc == 0 and "iteration mod 4: n, t_typical, 99%, of the slowest 10 "
      "(share 2.5)" in out, "--period 4 --tail 1")

# bad files and options: status 2, a message naming the fault
for what, text, args, msg in (
        ("no header", "raw,64,0,1.0\n", (), "not a pmr-perf --samples file"),
        ("three fields", HEADER + "raw,64,0\n", (), "3 fields, expected 4"),
        ("usec not a number", HEADER + "raw,64,0,x\n", (), "must be whole"),
        ("negative usec", HEADER + "raw,64,0,-1\n", (), "out of range"),
        ("usec nan", HEADER + "raw,64,0,nan\n", (), "out of range"),
        ("iteration skipped", HEADER + "raw,64,0,1\nraw,64,2,1\n", (),
         "iteration 2 of raw 64 B out of order"),
        ("no samples", HEADER, (), "no samples"),
        ("bad period", HEADER + "raw,64,0,1\n", ("--period", "0"),
         "bad --period 0"),
        ("bad tail", HEADER + "raw,64,0,1\n", ("--tail", "0"), "bad --tail")):
    rc, out, err = run(text, *args)
    check(rc == 2 and msg in err and out == "",
          f"{what}: refused ({rc}, {err.strip()})")
p = subprocess.run([sys.executable, PY, "/nonexistent/s.csv"],
                   capture_output=True, text=True)
check(p.returncode == 2 and "No such file" in p.stderr,
      "a file that is not there: refused")
sys.exit(bad)
