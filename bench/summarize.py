#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise bench/run.sh results (pmr-perf --json lines, one per result).

Medians over the repetitions; every ratio to the raw port is taken within
one run (raw phase and RDMA phase of the same process pair) and then the
median of the per-run ratios is shown.  The 1024-QP checks take each
run's ratio to one QP alone measured in the same run (pmr-perf
--one-qp-compare) and their median; results without it fall back to the
median t_typical of the 1024-QP case divided by that of the one-QP case
(separate runs).  They need the memory of the 1024 QPs reported (pmr-perf's
"mode":"qp_mem" line) in every run, the same each time.  Prints a table
and the targets, met or missed; then what is shown but not a target: a
stream against raw frames as long as pmrdma's, and latency with more QPs
than 1024.  A result that reports page faults in its measured run
(pmr-perf's "page_faults", latency and bandwidth alike) is named below the
table: a fault takes a microsecond or more, so a latency result's 99th and
99.9th percentiles carry them, and a bandwidth result's rate is lower.
"""
import json
import statistics as st
import sys
from collections import defaultdict


def med(xs):
    return st.median(xs) if xs else float("nan")


def rng(xs):
    return f"{min(xs):.2f}..{max(xs):.2f}" if xs else "-"


def main(path):
    runs = defaultdict(lambda: defaultdict(dict))   # case -> rep -> mode -> obj
    loads = []
    devargs = set()
    casedev = defaultdict(set)      # case -> its own device arguments
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            o = json.loads(line)
            runs[o["case"]][o["rep"]][o["mode"]] = o
            loads.append(o.get("load", 0))
            devargs.add(o.get("devargs", ""))
            if o.get("case_devargs"):
                casedev[o["case"]].add(o["case_devargs"])
    rows, checks = [], []
    summ = {}
    for case, reps in runs.items():
        r = [v for v in reps.values() if "rdma" in v]
        if not r:
            continue
        if "t_typical" in r[0]["rdma"]:
            typ = [v["rdma"]["t_typical"] for v in r]
            p999 = [v["rdma"]["p99_9"] for v in r]
            rtyp = [v["raw"]["t_typical"] for v in r if "raw" in v]
            rp999 = [v["raw"]["p99_9"] for v in r if "raw" in v]
            ratio = [v["rdma"]["t_typical"] / v["raw"]["t_typical"] for v in r if "raw" in v]
            ratio9 = [v["rdma"]["p99_9"] / v["raw"]["p99_9"] for v in r if "raw" in v]
            summ[case] = dict(typ=med(typ), ratio=med(ratio), ratio9=med(ratio9))
            rows.append((case, len(r), f"{med(typ):.2f} ({rng(typ)})", f"{med(p999):.2f}",
                         f"{med(rtyp):.2f}", f"{med(rp999):.2f}",
                         f"x{med(ratio):.2f} ({rng(ratio)})", f"x{med(ratio9):.2f}"))
        else:
            bw = [v["rdma"]["bw_avg"] for v in r]
            mpps = [v["rdma"]["msg_rate_mpps"] for v in r]
            rbw = [v["raw"]["bw_avg"] for v in r if "raw" in v]
            rmpps = [v["raw"]["msg_rate_mpps"] for v in r if "raw" in v]
            rb = sorted({v["raw"].get("raw_burst", 32) for v in r if "raw" in v})
            pad = sorted({v["raw"].get("raw_pad", 0) for v in r if "raw" in v})
            ratio = [v["rdma"]["bw_avg"] / v["raw"]["bw_avg"] for v in r
                     if "raw" in v and v["raw"]["bw_avg"] > 0]
            summ[case] = dict(bw=med(bw), mpps=med(mpps), ratio=med(ratio), pad=pad)
            rows.append((case, len(r), f"{med(bw):.1f} MB/s {med(mpps):.3f} Mpps",
                         f"({rng(mpps)})",
                         f"{med(rbw):.1f} MB/s" +
                         ("" if rb in ([], [32]) else
                          f" ({'/'.join(map(str, rb))} frames a burst)") +
                         ("" if pad in ([], [0]) else
                          f" (frames +{'/'.join(map(str, pad))} B)"),
                         f"{med(rmpps):.3f} Mpps",
                         f"x{med(ratio):.3f} ({rng(ratio)})", ""))
        summ[case]["runs"] = r

    hdr = ("case", "runs", "pmrdma t_typical / BW", "99.9% / range", "raw t_typical / BW",
           "raw 99.9% / rate", "ratio (median of runs)", "99.9% ratio")
    w = [max(len(str(x[i])) for x in rows + [hdr]) for i in range(len(hdr))]
    print()
    print("  ".join(str(h).ljust(w[i]) for i, h in enumerate(hdr)))
    for row in rows:
        print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(row)))
    print(f"\n(latency in usec: send/write half round trip, read/atomic round trip; "
          f"load average during the runs {min(loads, default=0):.2f}..{max(loads, default=0):.2f})")
    # page faults in the measured runs (pmr-perf reports them; older
    # results do not): the tail percentiles, or the rate, carry them
    faults = []
    for case, reps in sorted(runs.items()):
        for rep, modes in sorted(reps.items()):
            for mode, o in sorted(modes.items()):
                if o.get("page_faults", 0) > 0:
                    faults.append(f"{case} run {rep} {mode}: {o['page_faults']}")
    if faults:
        print("page faults in the measured runs (in a latency result's 99% and 99.9%, "
              "in a bandwidth result's rate): " +
              "; ".join(faults))
    print("device arguments added: " +
          (" / ".join(sorted(d or "none" for d in devargs)) or "none") +
          (" (runs with different ones are mixed here)" if len(devargs) > 1 else ""))
    for case in sorted(casedev):
        print(f"  {case}: also {' / '.join(sorted(casedev[case]))} (its own)")
    print()

    def check(name, ok, text):
        checks.append(ok)
        print(f"  [{'met   ' if ok else 'MISSED'}] {name}: {text}")

    print("targets:")
    for c in ("send_lat_2", "send_lat_64", "write_lat_2", "write_lat_64"):
        if c in summ:
            s = summ[c]
            check(c, s["ratio"] <= 1.25 and s["ratio9"] <= 2.0,
                  f"t_typical x{s['ratio']:.2f} raw (<= 1.25), 99.9% x{s['ratio9']:.2f} raw (<= 2)")
    for c in ("read_lat_64", "atomic_lat"):
        if c in summ:
            s = summ[c]
            check(c, s["ratio"] <= 1.3, f"t_typical x{s['ratio']:.2f} raw RTT (<= 1.3)")
    if "write_bw_64k" in summ:
        s = summ["write_bw_64k"]
        check("write_bw_64k", s["ratio"] >= 0.6,
              f"{s['ratio'] * 100:.0f}% of raw memif streaming with 4 KiB frames (>= 60%)")
    # one WR per post (-l 1), 32 per post (-l 32, perftest's post list),
    # one per post with manual progress and one per post with tx_batch=32:
    # each checked on its own
    for c in ("send_bw_64", "send_bw_64_l32", "send_bw_64_manual", "send_bw_64_batch"):
        if c in summ:
            s = summ[c]
            check(c, s["mpps"] >= 15, f"{s['mpps']:.3f} M msg/s (>= 15)")
    # the memory half of the 1024-QP target: what pmr_query_qp_mem
    # reported (pmr-perf's "qp_mem" line), the same in every run
    for many, one in (("send_lat_64_q1024", "send_lat_64"), ("write_lat_64_q1024", "write_lat_64")):
        withrdma = summ[many]["runs"] if many in summ else []
        # each run's own ratio to one QP alone (--one-qp-compare: the
        # same pair, a moment later); else the medians of two cases
        inrun = [v["qps_ratio"]["t_typical_ratio"] for v in withrdma if "qps_ratio" in v]
        if withrdma and len(inrun) == len(withrdma):
            x = med(inrun)
            how = f"median of each run's ratio to one QP alone in that run ({rng(inrun)})"
            if one in summ:
                how += f"; the medians of the two cases: x{summ[many]['typ'] / summ[one]['typ']:.2f}"
        elif withrdma and one in summ:
            x = summ[many]["typ"] / summ[one]["typ"]
            how = f"the medians of {many} and {one}, separate runs"
        else:
            x = None
        if x is not None:
            mem = [v["qp_mem"] for v in withrdma if "qp_mem" in v]
            if mem and len(mem) == len(withrdma):
                m = mem[0]
                mem_ok = all(v["total"] == m["total"] and v["qps"] == 1024 for v in mem)
                memtext = (f"; QP memory reported: {m['qps']} QPs {m['total'] / 2**20:.2f} MiB, "
                           f"{m['per_qp_max']} bytes a QP" +
                           ("" if mem_ok else " (NOT for 1024 QPs with the same total in every run)"))
            else:
                mem_ok = False
                memtext = f"; QP memory NOT reported (in {len(mem)} of {len(withrdma)} runs)"
            check(many, x <= 1.5 and mem_ok,
                  f"t_typical x{x:.2f} of one QP (<= 1.5; {how}){memtext}")
    if "afp_send_lat_64" in summ:
        s = summ["afp_send_lat_64"]
        check("afp_send_lat_64", s["ratio"] <= 1.1, f"t_typical x{s['ratio']:.2f} raw af_packet (<= 1.1)")
    if "afp_write_bw_64k" in summ:
        s = summ["afp_write_bw_64k"]
        check("afp_write_bw_64k", s["ratio"] > 0 and 1 / s["ratio"] <= 1.1,
              f"{s['ratio'] * 100:.0f}% of raw af_packet (overhead <= 1.1x)")
    print(f"\n{sum(checks)} of {len(checks)} targets met")
    # not targets: a stream measured against raw frames padded to the
    # length of pmrdma's (--raw-pad), to show what that length costs
    for c in sorted(summ):
        if summ[c].get("pad") not in (None, [], [0]):
            print(f"  (not a target) {c}: {summ[c]['ratio'] * 100:.0f}% of a raw stream "
                  f"whose frames are {'/'.join(map(str, summ[c]['pad']))} bytes longer")
    # nor is a latency case with more QPs than the target's 1024: it shows
    # how the latency and its tail grow with the count (each run's ratio
    # to one QP alone in that run; median percentiles, and one QP's)
    for c in sorted(summ):
        rr = summ[c]["runs"]
        nq = {v["rdma"].get("qps", 1) for v in rr}
        if "t_typical" not in rr[0]["rdma"] or len(nq) != 1 or min(nq) <= 1024:
            continue
        inrun = [v["qps_ratio"]["t_typical_ratio"] for v in rr if "qps_ratio" in v]
        p99 = [v["rdma"]["p99"] for v in rr if "p99" in v["rdma"]]
        p999 = [v["rdma"]["p99_9"] for v in rr]
        one99 = [v["one_qp"]["p99"] for v in rr if "one_qp" in v]
        one999 = [v["one_qp"]["p99_9"] for v in rr if "one_qp" in v]
        print(f"  (not a target) {c}: {min(nq)} QPs, t_typical x{med(inrun):.2f} of one QP "
              f"({rng(inrun)}), 99% {med(p99):.2f} us, 99.9% {med(p999):.2f} us "
              f"(one QP alone: {med(one99):.2f} and {med(one999):.2f} us)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results.jsonl")
