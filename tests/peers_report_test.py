"""bench/peers/report.py on a small synthetic results directory of three rounds: ratios within
each round, the worst and the median over rounds, a wrong round marked, and issue 18's goals
judged by the worst round, one met and one missed of each kind (against peers, busbw against a
baseline, share of the roofline read from the bench JSON, right in every round); ratios like for like
(ringlab's in-place row against Gloo and torch, which reduce in place; its out-of-place row against
MPI); the ring's time per step against Open MPI's per step of its own algorithm (met and missed, p = 4
and 2) and against Open MPI's forced ring; Open MPI's algorithm per size as observed; and a
results.csv of the format before rounds (one round, no round column); and both statistics (the
median of each iteration's slowest rank, and each rank's loop mean, `--stat loop`) judging issue 35's
goals at p = 4, a row without the loop column left out of the loop table, and what a floor.csv
(a bare ring over loopback) reaches against the same Gloo under each tcp goal, met or missed.

Usage: peers_report_test.py REPORT_PY"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HEADER = "peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,round"
KIB, MIB = 1 << 10, 1 << 20


def row(peer, variant, size, time, rnd, wrong=0, p=2, busbw=1):
    return f"{peer},{variant},{p},{size},{time},{busbw},{wrong},v,3,,{rnd}"


def each_round(peer, variant, size, time, **kw):
    return [row(peer, variant, size, time, rnd, **kw) for rnd in (1, 2, 3)]


ROWS = [
    # 64 KiB: shm's ratios against the faster MPI of each round are 100/50, 80/100, 90/60.
    row("openmpi", "MPI_Allreduce", 64 * KIB, 100, 1), row("mpich", "MPI_Allreduce", 64 * KIB, 120, 1),
    row("ringlab", "shm", 64 * KIB, 50, 1),
    row("openmpi", "MPI_Allreduce", 64 * KIB, 100, 2), row("mpich", "MPI_Allreduce", 64 * KIB, 80, 2),
    row("ringlab", "shm", 64 * KIB, 100, 2),
    row("openmpi", "MPI_Allreduce", 64 * KIB, 90, 3), row("mpich", "MPI_Allreduce", 64 * KIB, 200, 3),
    row("ringlab", "shm", 64 * KIB, 60, 3),
    # 16 MiB: tcp 3x and 2x Gloo, then wrong in round 3.
    row("gloo", "ring", 16 * MIB, 3000, 1), row("ringlab", "tcp", 16 * MIB, 1000, 1),
    row("gloo", "ring", 16 * MIB, 2000, 2), row("ringlab", "tcp", 16 * MIB, 1000, 2),
    row("gloo", "ring", 16 * MIB, 1800, 3), row("ringlab", "tcp", 16 * MIB, 1000, 3, wrong=5),
]
GOAL_ROWS = (
    # shm p=2 ring against the faster MPI: 2.0 at 256 KiB; auto against the best peer: 100/50, 80/50,
    # 90/50 (1.60) at 64 KiB, 100/200 at 256 KiB.
    each_round("openmpi", "MPI_Allreduce", 256 * KIB, 100) + each_round("ringlab", "shm", 256 * KIB, 50)
    + each_round("ringlab", "shm+auto", 64 * KIB, 50) + each_round("ringlab", "shm+auto", 256 * KIB, 200)
    # shm p=4 auto against Open MPI: 10/8 at 1 KiB, 10/20 at 4 KiB.
    + each_round("openmpi", "MPI_Allreduce", KIB, 10, p=4) + each_round("ringlab", "shm+auto", KIB, 8, p=4)
    + each_round("openmpi", "MPI_Allreduce", 4 * KIB, 10, p=4)
    + each_round("ringlab", "shm+auto", 4 * KIB, 20, p=4)
    # shm p=2 busbw: 8 then 7 GB/s at 32 MiB against 4 in the baseline; 5 at 64 MiB.
    + [row("ringlab", "shm", 32 * MIB, 100, 1, busbw=8), row("ringlab", "shm", 32 * MIB, 100, 2, busbw=7),
       row("ringlab", "shm", 32 * MIB, 100, 3, busbw=8)]
    + each_round("ringlab", "shm", 64 * MIB, 400, busbw=5)
    # tcp p=2 against Gloo: 3x at 4 MiB.
    + each_round("gloo", "ring_chunked", 4 * MIB, 3000) + each_round("ringlab", "tcp", 4 * MIB, 1000)
    + each_round("ringlab", "tcp", 64 * MIB, 9000) + each_round("ringlab", "tcp", 64 * MIB, 9000, p=4)
)
# ringlab's in-place rows: here the same times as its tcp rows (so that the ratios against Gloo stay).
IN_PLACE_ROWS = [r.replace("ringlab,tcp,", "ringlab,tcp/in-place,") for r in ROWS + GOAL_ROWS
                 if r.startswith("ringlab,tcp,")]
# Like for like, with in-place and out-of-place times apart at 1 MiB, p = 2: against Gloo (in place)
# tcp/in-place 900/450 = 2.0 (out of place would be 900/500 = 1.8); shm against MPI (out of place)
# 1200/1000 = 1.2 (in place would be 3.0); shm+auto against both: MPI 1200/960 = 1.25, Gloo 900/750
# = 1.2, so Gloo in place is the best peer (out of place it would be 900/960 = 0.94, MISSED).
LIKE_FOR_LIKE = (
    each_round("gloo", "allreduce", MIB, 900) + each_round("openmpi", "MPI_Allreduce", MIB, 1200)
    + each_round("ringlab", "tcp", MIB, 500) + each_round("ringlab", "tcp/in-place", MIB, 450)
    + each_round("ringlab", "shm", MIB, 1000) + each_round("ringlab", "shm/in-place", MIB, 400)
    + each_round("ringlab", "shm+auto", MIB, 960) + each_round("ringlab", "shm+auto/in-place", MIB, 750)
)
# The ring's time per step against Open MPI's per step of the algorithm Open MPI runs, p = 4 (ring:
# 6 steps): at 1 KiB recursive doubling (2 steps), 10/2 against 24/6: 1.25 in every round; at 4 KiB
# recursive doubling, 10/2 against 40/6, 40/6, 30/6: 0.75, 0.75, 1.00; at 64 KiB Rabenseifner (4 steps),
# 100/4 against 120/6: 1.25. p = 2 (ring: 2 steps) at 256 KiB, Rabenseifner (2 steps): 100/2 against
# 50/2 (GOAL_ROWS): 2.00. Ring to ring: Open MPI's forced ring 30 at 1 KiB against 24: 1.25; 50 at 64 KiB
# against 120: 0.42, where it is faster than Open MPI's default but never the best peer.
PER_STEP = (
    each_round("ringlab", "shm", KIB, 24, p=4) + each_round("openmpi", "MPI_Allreduce+ring", KIB, 30, p=4)
    + [row("ringlab", "shm", 4 * KIB, 40, 1, p=4), row("ringlab", "shm", 4 * KIB, 40, 2, p=4),
       row("ringlab", "shm", 4 * KIB, 30, 3, p=4)]
    + each_round("openmpi", "MPI_Allreduce", 64 * KIB, 100, p=4) + each_round("ringlab", "shm", 64 * KIB, 120, p=4)
    + each_round("openmpi", "MPI_Allreduce+ring", 64 * KIB, 50, p=4)
)
BASELINE = [row("ringlab", "shm", 32 * MIB, 200, 1, busbw=4), row("ringlab", "shm", 64 * MIB, 800, 1, busbw=4)]
# Each bench JSON's share of the roofline, per size, by (variant, p, round).
ROOFLINES = {
    ("shm", 2, 1): {32 * MIB: 0.8, 64 * MIB: 0.7}, ("shm", 2, 2): {32 * MIB: 0.9, 64 * MIB: 0.9},
    ("shm", 2, 3): {32 * MIB: 0.85, 64 * MIB: 0.9},
    ("tcp", 2, 1): {64 * MIB: 0.75}, ("tcp", 2, 2): {64 * MIB: 0.8}, ("tcp", 2, 3): {64 * MIB: 0.72},
    ("tcp", 4, 1): {64 * MIB: 0.5}, ("tcp", 4, 2): {64 * MIB: 0.9}, ("tcp", 4, 3): {64 * MIB: 0.9},
}


# What Open MPI 4.1.4 ran on one host, observed with pml monitoring (rank 0's messages per peer in one
# MPI_Allreduce, float32 sum): recursive doubling sends the whole vector once to each of log2 p peers,
# the ring 2(p-1) p-ths to rank + 1, Rabenseifner halves to rank ^ 1, rank ^ 2 and back. At p = 2 the
# ring and Rabenseifner send the same two halves; both have 2 steps.
RD, RING, RABENSEIFNER = ("recursive doubling", 1), ("ring", 2), ("Rabenseifner", 2)
OBSERVED = {
    2: {4: RD, 16: RD, 64: RD, 256: RD, KIB: RD, 4 * KIB: RING, 8 * KIB: RD, 16 * KIB: RING, 64 * KIB: RING,
        256 * KIB: RABENSEIFNER, MIB: RABENSEIFNER, 4 * MIB: RABENSEIFNER},
    4: {4: ("recursive doubling", 2), 16: ("recursive doubling", 2), 4 * KIB: ("recursive doubling", 2),
        8 * KIB: ("Rabenseifner", 4), 64 * KIB: ("Rabenseifner", 4), 4 * MIB: ("Rabenseifner", 4)},
}


def load(report):
    """report.py as a module, to call its functions directly."""
    spec = importlib.util.spec_from_file_location("report", report)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_openmpi_rule(report):
    module = load(report)
    for p, sizes in OBSERVED.items():
        for size, expected in sizes.items():
            got = module.openmpi_algorithm(p, size)
            if got != expected:
                sys.exit(f"FAIL: openmpi_algorithm({p}, {size}) = {got}, observed {expected}")
    # Outside the table (p not a power of two, p >= 8): no step count, so no judgement.
    for p in (3, 8):
        if module.openmpi_algorithm(p, MIB) is not None:
            sys.exit(f"FAIL: openmpi_algorithm({p}, 1 MiB) should be None")


LOOP_HEADER = "peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,loop_us,round"


def loop_rows(peer, variant, size, time, loop, p=4, busbw=1):
    return [f"{peer},{variant},{p},{size},{time},{busbw},0,v,3,,{loop},{rnd}" for rnd in (1, 2, 3)]


# p = 4 on two cores, where the statistics differ: at 1 KiB Open MPI takes 20 us by the median and 12 by
# the loop, ringlab's auto 25 and 10: 0.80 (MISSED) by the median, 1.20 (met) by the loop. tcp in place
# against Gloo: at 16 MiB 3000/2000 = 1.50 and 2400/1600 = 1.50; at 64 MiB 10000/8000 = 1.25 and
# 9000/7000 = 1.29, both MISSED. MPICH's row has no loop column: out of the loop table.
BY_STATISTIC = (
    loop_rows("openmpi", "MPI_Allreduce", KIB, 20, 12) + loop_rows("ringlab", "shm+auto", KIB, 25, 10)
    + [f"mpich,MPI_Allreduce,4,{KIB},5,1,0,v,3,,,1"]
    + loop_rows("gloo", "ring", 16 * MIB, 3000, 2400, busbw=8)
    + loop_rows("ringlab", "tcp/in-place", 16 * MIB, 2000, 1600, busbw=12)
    + loop_rows("gloo", "ring", 64 * MIB, 10000, 9000) + loop_rows("ringlab", "tcp/in-place", 64 * MIB, 8000, 7000)
)


# The floor (run.sh's floor.csv: a bare ring over loopback, bytes only) at p = 4: 1800, 1900 and 2100 us at
# 16 MiB against Gloo's 3000 (median): 1.67, 1.58, 1.43, so the floor meets 1.4; by the loop statistic,
# against Gloo's 2400, 1.14 at worst: the floor misses it. 7500 at 64 MiB: 10000/7500 = 1.33, missed.
FLOOR = [f"4,{16 * MIB},{t},1,{rnd}" for rnd, t in ((1, 1800), (2, 1900), (3, 2100))] + \
        [f"4,{64 * MIB},7500,1,{rnd}" for rnd in (1, 2, 3)]


def check_statistics(report):
    median = table(report, [LOOP_HEADER] + BY_STATISTIC, floor=FLOOR)
    expect(median, "Statistic: median.")
    expect(median, "| shm p=4: auto >= 1.0x Open MPI | shm+auto | 1 KiB | 25.0 | openmpi:MPI_Allreduce 20.0 | 0.80 | "
                   "1.00 | MISSED |")
    goal = "| tcp p=4, 4-64 MiB: >= 1.4x the best Gloo variant | tcp/in-place |"
    expect(median, goal + " 16 MiB | 2000.0 | gloo:ring 3000.0 | 1.50 | 1.40 | met |")
    expect(median, goal + " 64 MiB | 8000.0 | gloo:ring 10000.0 | 1.25 | 1.40 | MISSED |")
    floor = "| the floor against the same reference | floor (bare ring) |"
    expect(median, floor + " 16 MiB | 1900.0 | gloo:ring 3000.0 | 1.43 | 1.40 | the floor meets it |")
    expect(median, floor + " 64 MiB | 7500.0 | gloo:ring 10000.0 | 1.33 | 1.40 | THE FLOOR MISSES IT |")
    if "the floor against" in table(report, [LOOP_HEADER] + BY_STATISTIC):
        sys.exit("FAIL: a floor line without a floor.csv")
    loop = table(report, [LOOP_HEADER] + BY_STATISTIC, extra=["--stat", "loop"], floor=FLOOR)
    expect(loop, "Statistic: loop.")
    expect(loop, "Goals of issues 18 and 35 by the loop statistic")
    expect(loop, "| shm p=4: auto >= 1.0x Open MPI | shm+auto | 1 KiB | 10.0 | openmpi:MPI_Allreduce 12.0 | 1.20 | "
                 "1.00 | met |")
    expect(loop, goal + " 16 MiB | 1600.0 | gloo:ring 2400.0 | 1.50 | 1.40 | met |")
    expect(loop, goal + " 64 MiB | 7000.0 | gloo:ring 9000.0 | 1.29 | 1.40 | MISSED |")
    expect(loop, floor + " 16 MiB | 1900.0 | gloo:ring 2400.0 | 1.14 | 1.40 | THE FLOOR MISSES IT |")
    if "mpich" in loop:
        sys.exit(f"FAIL: a row without loop_us in the loop table:\n{loop}")
    # busbw follows the statistic: 12 GB/s at 2000 us is 15 GB/s at 1600 us.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "results.csv")
        with open(path, "w") as f:
            f.write("\n".join([LOOP_HEADER] + BY_STATISTIC) + "\n")
        rows = str([r["busbw_GBps"] for r in load(report).read_rows(path, "loop")
                    if r["variant"] == "tcp/in-place" and r["size_bytes"] == str(16 << 20)])
    expect(rows, "['15', '15', '15']")


def table(report, lines, roofline=None, baseline=None, extra=None, floor=None):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "results.csv")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        if floor:
            with open(os.path.join(d, "floor.csv"), "w") as f:
                f.write("\n".join(["p,size_bytes,time_us,rate_GBps,round"] + floor) + "\n")
        os.mkdir(os.path.join(d, "json"))
        for (variant, p, rnd), shares in (roofline or {}).items():
            doc = {"run": {"p": p}, "roofline": {"rows": [{"size_bytes": s, "of_roofline": x}
                                                          for s, x in shares.items()]}}
            with open(os.path.join(d, "json", f"ringlab-{variant}-p{p}-r{rnd}.json"), "w") as f:
                json.dump(doc, f)
        extra = list(extra or [])
        if baseline:
            extra += ["--baseline", os.path.join(d, "baseline.csv")]
            with open(extra[-1], "w") as f:
                f.write("\n".join([HEADER] + baseline) + "\n")
        return subprocess.run([sys.executable, report, "table", path] + extra, check=True, capture_output=True,
                              text=True).stdout


def expect(text, needle):
    if needle not in text:
        sys.exit(f"FAIL: missing {needle!r} in:\n{text}")


def main(report):
    check_openmpi_rule(report)
    check_statistics(report)
    out = table(report, [HEADER] + ROWS + GOAL_ROWS + IN_PLACE_ROWS + PER_STEP, ROOFLINES, BASELINE)
    expect(out, "Rounds: 3.")
    # size | best peer | peer us (median over rounds) | shm us | x worst | x median | against | tcp ...
    expect(out, "| 64 KiB | openmpi:MPI_Allreduce | 100.0 | 60.0 | 0.80 | 1.50 | "
                "openmpi:MPI_Allreduce, out of place | missing | - | - | - |")
    expect(out, "| 16 MiB | gloo:ring | 2000.0 | missing | - | - | - | 1000.0 WRONG(5) | 0.00 | 2.00 | "
                "gloo:ring, in place |")
    # goal | ringlab | size | ringlab | reference | x worst | wanted | verdict
    goal = "| shm p=2, >= 64 KiB: ring >= 1.0x the faster MPI | shm |"
    expect(out, goal + " 64 KiB | 60.0 | openmpi:MPI_Allreduce 100.0 | 0.80 | 1.00 | MISSED |")
    expect(out, goal + " 256 KiB | 50.0 | openmpi:MPI_Allreduce 100.0 | 2.00 | 1.00 | met |")
    goal = "| shm p=2: auto >= 1.0x the best peer | shm+auto |"
    expect(out, goal + " 64 KiB | 50.0 | openmpi:MPI_Allreduce 100.0 | 1.60 | 1.00 | met |")
    expect(out, goal + " 256 KiB | 200.0 | openmpi:MPI_Allreduce 100.0 | 0.50 | 1.00 | MISSED |")
    goal = "| shm p=4: auto >= 1.0x Open MPI | shm+auto |"
    expect(out, goal + " 1 KiB | 8.0 | openmpi:MPI_Allreduce 10.0 | 1.25 | 1.00 | met |")
    expect(out, goal + " 4 KiB | 20.0 | openmpi:MPI_Allreduce 10.0 | 0.50 | 1.00 | MISSED |")
    goal = "| shm p=4: ring per step >= Open MPI per step of its algorithm | shm |"
    expect(out, goal + " 1 KiB | 24.0 / 6 | openmpi:MPI_Allreduce 10.0 / 2 (recursive doubling) | 1.25 | 1.00 | met |")
    expect(out, goal + " 4 KiB | 40.0 / 6 | openmpi:MPI_Allreduce 10.0 / 2 (recursive doubling) | 0.75 | 1.00 | "
                       "MISSED |")
    expect(out, goal + " 64 KiB | 120.0 / 6 | openmpi:MPI_Allreduce 100.0 / 4 (Rabenseifner) | 1.25 | 1.00 | met |")
    expect(out, "| shm p=2: ring per step >= Open MPI per step of its algorithm | shm | 256 KiB | 50.0 / 2 | "
                "openmpi:MPI_Allreduce 100.0 / 2 (Rabenseifner) | 2.00 | 1.00 | met |")
    # size | its algorithm | its us | ring us | x per step worst, median | forced ring us | x ring worst, median
    expect(out, "| 1 KiB | recursive doubling (2) | 10.0 | 24.0 | 1.25 | 1.25 | 30.0 | 1.25 | 1.25 |")
    expect(out, "| 4 KiB | recursive doubling (2) | 10.0 | 40.0 | 0.75 | 0.75 | - | - | - |")
    expect(out, "| 64 KiB | Rabenseifner (4) | 100.0 | 120.0 | 1.25 | 1.25 | 50.0 | 0.42 | 0.42 |")
    expect(out, "| 64 KiB | openmpi:MPI_Allreduce | 100.0 | 120.0 | 0.83 | 0.83 | "
                "openmpi:MPI_Allreduce, out of place |")
    goal = "| shm p=2, >= 16 MiB: busbw >= 1.6x the baseline's | shm |"
    expect(out, goal + " 32 MiB | 7.00 GB/s | baseline 4.00 GB/s | 1.75 | 1.60 | met |")
    expect(out, goal + " 64 MiB | 5.00 GB/s | baseline 4.00 GB/s | 1.25 | 1.60 | MISSED |")
    goal = "| shm p=2, >= 16 MiB: >= 75% of the roofline | shm |"
    expect(out, goal + " 32 MiB | 100.0 | roofline (bench --roofline) | 0.80 | 0.75 | met |")
    expect(out, goal + " 64 MiB | 400.0 | roofline (bench --roofline) | 0.70 | 0.75 | MISSED |")
    goal = "| tcp p=2, >= 1 MiB: >= 1.5x the best Gloo variant | tcp/in-place |"
    expect(out, goal + " 4 MiB | 1000.0 | gloo:ring_chunked 3000.0 | 3.00 | 1.50 | met |")
    expect(out, goal + " 16 MiB | 1000.0 WRONG(5) | gloo:ring 2000.0 | 0.00 | 1.50 | MISSED |")
    expect(out, "| tcp p=2, >= 64 MiB: >= 70% of the loopback roofline | tcp | 64 MiB | 9000.0 | "
                "roofline (bench --roofline) | 0.72 | 0.70 | met |")
    expect(out, "| tcp p=4, >= 64 MiB: >= 70% of the loopback roofline | tcp | 64 MiB | 9000.0 | "
                "roofline (bench --roofline) | 0.50 | 0.70 | MISSED |")
    expect(out, "| every ringlab transport right in every round | all | all sizes | "
                "tcp p=2 16 MiB wrong in round(s) 3 of 3; tcp/in-place p=2 16 MiB wrong in round(s) 3 of 3 | "
                "every element checked | 2 wrong | 0 | MISSED |")
    # Like for like: each ratio takes ringlab's row in the mode its peer reduces in.
    same = table(report, [HEADER] + LIKE_FOR_LIKE)
    expect(same, "| 1 MiB | gloo:allreduce | 900.0 | 1000.0 | 1.20 | 1.20 | openmpi:MPI_Allreduce, out of place | "
                 "450.0 | 2.00 | 2.00 | gloo:allreduce, in place | 750.0 | 1.20 | 1.20 | gloo:allreduce, in place |")
    expect(same, "| tcp p=2, >= 1 MiB: >= 1.5x the best Gloo variant | tcp/in-place | 1 MiB | 450.0 | "
                 "gloo:allreduce 900.0 | 2.00 | 1.50 | met |")
    expect(same, "| shm p=2, >= 64 KiB: ring >= 1.0x the faster MPI | shm | 1 MiB | 1000.0 | "
                 "openmpi:MPI_Allreduce 1200.0 | 1.20 | 1.00 | met |")
    expect(same, "| shm p=2: auto >= 1.0x the best peer | shm+auto/in-place | 1 MiB | 750.0 | "
                 "gloo:allreduce 900.0 | 1.20 | 1.00 | met |")
    # Without a baseline the busbw goal has no data, and says how to give one.
    expect(table(report, [HEADER] + GOAL_ROWS), "| 32 MiB | 7.00 GB/s | no baseline")
    # Before rounds: ten columns, one round, the same ratio twice; every cell right.
    old = table(report, [HEADER.rsplit(",", 1)[0]] + [r.rsplit(",", 1)[0] for r in ROWS[:3]])
    expect(old, "Rounds: 1.")
    expect(old, "| 64 KiB | openmpi:MPI_Allreduce | 100.0 | 50.0 | 2.00 | 2.00 |")
    expect(old, "| shm p=2, >= 64 KiB: ring >= 1.0x the faster MPI | shm | 64 KiB | 50.0 | "
                "openmpi:MPI_Allreduce 100.0 | 2.00 | 1.00 | met |")
    expect(old, "| every ringlab transport right in every round | all | all sizes | 1 cells right | "
                "every element checked | 0 wrong | 0 | met |")
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
