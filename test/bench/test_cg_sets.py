#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/cg_sets.py on callgrind outputs made up here: hot lines counted
per object and per cache set from absolute and relative instruction
addresses, a call's cost line not taken for the calling instruction's,
lines run fewer than --min times left out, a set over --ways named; and
a clear error, status 2, for an output without instruction addresses, a
missing file and a bad option.

    test_cg_sets.py CG_SETS_PY
"""
import os
import subprocess
import sys
import tempfile

PY = sys.argv[1]
bad = 0


def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what)
    bad |= not ok


def run(text, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".out", delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([sys.executable, PY, f.name, *args],
                              capture_output=True, text=True)
    finally:
        os.unlink(f.name)


# liba: nine lines of 64 bytes, each at a multiple of 4 KiB, so all in
# set 0 of 64; the first written absolute, the others relative (+4096).
# libb: two lines in set 1 (0x40 and 0x1040), one of them run only 10
# times; a call whose cost line (5000000, at 0x1040) must not make that
# line hot.
lines = ["version: 1", "positions: instr line", "events: Ir",
         "ob=(1) /x/liba.so", "fn=(1) f", "0x0 0 20000"]
lines += ["+4096 0 20000"] * 8
lines += ["ob=(2) /x/libb.so", "fn=(2) g", "0x40 0 30000",
          "cob=(1)", "cfn=(1)", "calls=1 0x0 0", "+4096 0 5000000",
          "0x1040 0 10", "0x2080 0 10"]
r = run("\n".join(lines) + "\n", "--min", "15000")
out = r.stdout.splitlines()
check(r.returncode == 0, f"a good output is read ({r.stderr.strip()})")
check(out[:1] == ["10 hot lines: liba.so 9, libb.so 1"],
      f"hot lines by object: {out[:1]}")
check("sets holding n hot lines: 1: 1, 9: 1" in out,
      "lines per set, from absolute and relative addresses")
check("sets over 8: 1" in out and "  set 0: 9: liba.so 9" in out,
      "the set over 8 ways named")
r = run("\n".join(lines) + "\n", "--min", "10", "--ways", "9")
check(r.returncode == 0 and r.stdout.startswith("12 hot lines") and
      "sets over 9: 0" in r.stdout,
      "--min and --ways taken (the call's cost line still not counted)")

for what, text, args, msg in (
        ("no instruction addresses", "positions: line\nevents: Ir\n", (),
         "no instruction addresses"),
        ("bad --sets", "\n".join(lines) + "\n", ("--sets", "0"),
         "bad --sets 0")):
    r = run(text, *args)
    check(r.returncode == 2 and msg in r.stderr and r.stdout == "",
          f"{what}: refused ({r.stderr.strip()})")
r = subprocess.run([sys.executable, PY, "/nonexistent/cg.out"],
                   capture_output=True, text=True)
check(r.returncode == 2 and "No such file" in r.stderr,
      "a file that is not there: refused")
sys.exit(bad)
