"""Helpers of bench/peers/run.sh, on the standard library only.

  report.py ringlab-rows BENCH.json [--variant NAME]
      prints CSV rows (no header) for one `ringlab bench --json` file: ringlab's out-of-place
      result as variant NAME (default: the transport), its in-place result as NAME/in-place,
      and, when the run had --peer-mpi, the MPI_Allreduce it timed on the same buffers.
  report.py table RESULTS.csv [--baseline OLD_RESULTS.csv] [--stat median|loop]
      prints, per p, a Markdown table of ringlab's variants against the best peer at each size,
      then every variant's time, then the ring (shm) against Open MPI per step of the algorithm
      Open MPI ran and against Open MPI's ring forced, then issue 18's goals judged by the worst
      round. Goals on the roofline read the `ringlab bench --json --roofline` files in json/
      beside RESULTS.csv; the busbw goal compares with ringlab's shm busbw in OLD_RESULTS.csv (a
      run of the ringlab before single copy), and says "no data" without one. Open MPI's
      algorithm per size comes from OPENMPI_ALLREDUCE_RULE below (its fixed decision rule). With a
      floor.csv beside RESULTS.csv (run.sh's `floor` family: a bare ring over loopback, bytes only),
      each tcp goal against Gloo is followed by the floor's line: Gloo's time over the floor's per
      round, what a ring that only moves the bytes reaches against the same reference.

CSV columns: peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,loop_us[,round]

Two statistics, as `ringlab bench --stats` names them, both measured by every program in the same
loop: time_us is `median`, the median over iterations of each iteration's slowest rank; loop_us is
`loop`, each rank's mean over its own iterations, the maximum over ranks (nccl-tests' time with its
-a 3). With more ranks than cores the ranks run out of phase, each iteration's slowest rank is
nearly always a slow one, and the two differ. `--stat loop` judges everything by loop_us (busbw
recomputed from it); a row without it (a results file from before the column) is left out.
A results file of several rounds (PEERS_ROUNDS) holds each variant once per round. A ratio is taken
within a round (the best peer of that round against ringlab in that round); the table gives the
worst and the median over rounds, the goals judge by the worst, times are medians over rounds, and
a cell wrong in any round is WRONG.

Ratios compare like with like: Gloo's variants and torch reduce in place (gloo_bench.cpp,
torch_bench.py), so against them ringlab's in-place row (NAME/in-place) counts; MPI_Allreduce in
mpi_allreduce_bench.c (and --peer-mpi) reduces out of place, so against MPI ringlab's out-of-place
row counts. Against several peers the best peer is the one with the lowest such ratio.
"""

import csv
import json
import os
import re
import statistics
import sys
from collections import defaultdict

COLUMNS = ["peer", "variant", "p", "size_bytes", "time_us", "busbw_GBps", "wrong", "version", "iterations", "note",
           "loop_us"]
STATISTICS = {"median": "median over iterations of the slowest rank's time",
              "loop": "each rank's mean over its own iterations, the slowest rank's (bench --stats loop)"}
RINGLAB = "ringlab"


def clean(text):
    """One CSV field without commas or line breaks."""
    return " ".join(str(text).replace(",", ";").split())


def short_library(text):
    """'Open MPI v4.1.4, package: ...' -> 'Open MPI v4.1.4'."""
    return clean(str(text).split(",")[0].split("\n")[0]).replace(" Version:", "")


def ringlab_rows(path, variant=None):
    with open(path) as f:
        doc = json.load(f)
    run = doc["run"]
    p = run["p"]
    variant = variant or run["transport"]
    version = clean(f"ringlab {run['ringlab_version']}")
    out = csv.writer(sys.stdout, lineterminator="\n")
    for row in doc["rows"]:
        results = [(RINGLAB, variant, row["out_of_place"], version),
                   (RINGLAB, variant + "/in-place", row["in_place"], version)]
        if row.get("peer_mpi"):
            peer = row["peer_mpi"]
            results.append(("openmpi", "MPI_Allreduce/in-ringlab-bench", peer, short_library(peer.get("library", ""))))
        for peer_name, name, result, ver in results:
            wrong = result.get("wrong")
            loop = result.get("loop_mean_us")
            out.writerow([peer_name, name, p, row["size_bytes"], f"{result['time_us']:.3f}",
                          f"{result['busbw_GBps']:.6g}", "unchecked" if wrong is None else wrong, ver,
                          result.get("iterations", ""), "", f"{loop:.3f}" if loop else ""])


def read_rows(path, stat="median"):
    """The rows of a results file, their time_us (and busbw) the statistic `stat` names."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if stat == "median":
        return rows
    by_stat = []
    for row in rows:
        if not is_measured(row):
            by_stat.append(row)
        elif row.get("loop_us"):
            loop, time_us = float(row["loop_us"]), float(row["time_us"])
            busbw = float(row["busbw_GBps"]) * time_us / loop if loop > 0 else 0.0
            by_stat.append(dict(row, time_us=row["loop_us"], busbw_GBps=f"{busbw:.6g}"))
    return by_stat


def label(row):
    return f"{row['peer']}:{row['variant']}"


def is_measured(row):
    return row["time_us"] not in ("", None) and row["size_bytes"] not in ("", None)


def is_right(row):
    return row["wrong"] == "0"


def size_text(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def time_text(row):
    if row is None:
        return "missing"
    text = f"{float(row['time_us']):.1f}"
    return text if is_right(row) else f"{text} WRONG({row['wrong']})"


TRANSPORTS = ["inproc", "shm", "tcp", "mpi"]


def ringlab_order(label):
    variant = label.split(":", 1)[1]
    base, _, place = variant.partition("/")
    return (place != "", TRANSPORTS.index(base) if base in TRANSPORTS else len(TRANSPORTS), variant)


def round_of(row):
    return int(row.get("round") or 1)


def cell_map(rows, key):
    """key(row) -> {round: row}."""
    cells = defaultdict(dict)
    for r in rows:
        cells[key(r)][round_of(r)] = r
    return cells


def merged(by_round):
    """The rounds of one cell as one row: the median time, wrong when any round was wrong."""
    if not by_round:
        return None
    rows = list(by_round.values())
    wrong = next((r["wrong"] for r in rows if not is_right(r)), "0")
    return dict(rows[0], time_us=statistics.median(float(r["time_us"]) for r in rows), wrong=wrong)


def fastest(rows):
    right = [r for r in rows if r is not None and is_right(r)]
    return min(right, key=lambda r: float(r["time_us"])) if right else None


# Peers whose benchmark reduces in place; the others (MPI) reduce out of place.
IN_PLACE_PEERS = ("gloo", "torch")


def reduces_in_place(peer_label):
    return peer_label.split(":", 1)[0] in IN_PLACE_PEERS


def like_for_like(variant, peer_label):
    """ringlab's variant in the mode the peer reduces in: 'tcp/in-place' against Gloo, 'tcp' against MPI."""
    return f"{variant}/in-place" if reduces_in_place(peer_label) else variant


def mode_text(peer_label):
    return "in place" if reduces_in_place(peer_label) else "out of place"


def round_ratios(references, ours):
    """references: peer label -> {round: row}; ours: peer label -> {round: ringlab's row in that peer's mode}.
    Per round, (the lowest of right peer's time / ringlab's time, the peer that sets it): the best peer
    like for like. A wrong ringlab row in a round makes that round 0."""
    rounds = sorted({rnd for by_round in ours.values() for rnd in by_round})
    ratios = []
    for rnd in rounds:
        pairs = []
        for peer, by_round in references.items():
            theirs, mine = by_round.get(rnd), ours.get(peer, {}).get(rnd)
            if theirs is None or mine is None or not is_right(theirs):
                continue
            if not is_right(mine):
                pairs.append((0.0, peer))  # a wrong answer in any round is the worst round
            elif float(mine["time_us"]) > 0:
                pairs.append((float(theirs["time_us"]) / float(mine["time_us"]), peer))
        if not pairs:
            return []  # a round without a right pair: no ratio claims for this size
        ratios.append(min(pairs))
    return ratios


def ratios_text(ratios):
    if not ratios:
        return "-", "-"
    values = [r for r, _ in ratios]
    return f"{min(values):.2f}", f"{statistics.median(values):.2f}"


def compared(variant, references, cells_of):
    """ringlab's variant against references (peer label -> {round: row}) like for like: (the best peer,
    the one with the lowest ratio over median times, or None; the per-round ratios; ringlab's cells in the
    best peer's mode)."""
    ours = {peer: cells_of(like_for_like(variant, peer)) or {} for peer in references}
    ratios = round_ratios(references, ours)

    def median_ratio(peer):  # a wrong ringlab cell still names its peer; its ratios are 0
        theirs, mine = merged(references[peer]), merged(ours[peer])
        if theirs is None or mine is None or not is_right(theirs) or float(mine["time_us"]) <= 0:
            return None
        return float(theirs["time_us"]) / float(mine["time_us"])

    medians = [(ratio, peer) for peer in references if (ratio := median_ratio(peer)) is not None]
    best = min(medians)[1] if ratios and medians else None
    return best, ratios, ours[best] if best else None


def table(path, baseline=None, stat="median"):
    rows = read_rows(path, stat)
    failed = [r for r in rows if not is_measured(r)]
    measured = [r for r in rows if is_measured(r)]
    rounds = len({round_of(r) for r in measured})
    by_p = defaultdict(list)
    for r in measured:
        by_p[int(r["p"])].append(r)
    versions = sorted({f"{r['peer']}: {r['version']}" for r in rows if r["version"]})
    print("Versions: " + "; ".join(versions))
    print()
    print(f"Statistic: {stat}. Time = {STATISTICS[stat]} (us). x = best peer's time / "
          "ringlab's time = ringlab busbw / best peer busbw: above 1, ringlab is faster. The best peer is "
          "the fastest non-ringlab variant whose every element was right (Open MPI's forced ring, there to compare "
          "ring with ring, aside); WRONG(n) marks n wrong elements.")
    print()
    print(f"Rounds: {rounds}. x worst and x median are over rounds, each round's ringlab time against that "
          "round's best peer; times are medians over rounds; a cell wrong in any round is WRONG.")
    print()
    print("Like for like: Gloo and torch reduce in place, so against them ringlab's in-place time counts; MPI "
          "reduces out of place, so against it ringlab's out-of-place time counts. `against` names the best "
          "peer like for like (the lowest ratio over median times) and the mode compared; ringlab's time is "
          "the one in that mode.")
    for p in sorted(by_p):
        cells = cell_map(by_p[p], lambda r: (int(r["size_bytes"]), label(r)))
        sizes = sorted({int(r["size_bytes"]) for r in by_p[p]})
        ringlab_all = sorted({label(r) for r in by_p[p] if r["peer"] == RINGLAB}, key=ringlab_order)
        ours = [v for v in ringlab_all if "/in-place" not in v]
        peers = sorted({label(r) for r in by_p[p] if r["peer"] != RINGLAB})
        print()
        print(f"### p = {p}: ringlab against the best peer, like for like")
        print()
        head = ["size", "best peer", "peer us"] + [f"{v.split(':')[1]} us | x worst | x median | against"
                                                   for v in ours]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * (3 + 4 * len(ours)))
        for size in sizes:
            references = {v: cells[(size, v)] for v in peers if (size, v) in cells and v != OPENMPI_RING}
            best = fastest([merged(c) for c in references.values()])
            line = [size_text(size), label(best) if best else "none right", time_text(best) if best else "-"]
            for v in ours:
                peer, ratios, mine = compared(v, references, lambda name: cells.get((size, name)))
                if peer is None:  # no ratio: show the out-of-place time
                    line += [time_text(merged(cells.get((size, v)))), "-", "-", "-"]
                else:
                    line += [time_text(merged(mine)), *ratios_text(ratios), f"{peer}, {mode_text(peer)}"]
            print("| " + " | ".join(line) + " |")
        print()
        print(f"### p = {p}: every variant, time (us)")
        print()
        variants = ringlab_all + peers
        print("| size | " + " | ".join(variants) + " |")
        print("|" + "---|" * (1 + len(variants)))
        for size in sizes:
            print("| " + " | ".join([size_text(size)] + [time_text(merged(cells.get((size, v)))) for v in variants]) + " |")
        if RINGLAB_RING in ringlab_all and (OPENMPI_DEFAULT in peers or OPENMPI_RING in peers):
            per_step_table(p, cells, sizes)
    goals(measured, os.path.dirname(os.path.abspath(path)), baseline, stat)
    if failed:
        print()
        print("### Runs that failed")
        print()
        for r in failed:
            print(f"- {label(r)} p = {r['p']}{'' if rounds == 1 else ' round ' + str(round_of(r))}: {r['note']}")


def ratio_text(reference, row):
    """reference time / row time, where both ran and were right."""
    if reference is None or row is None or not is_right(reference) or not is_right(row):
        return "-"
    return f"{float(reference['time_us']) / float(row['time_us']):.2f}" if float(row["time_us"]) > 0 else "-"


def roofline_fractions(results_dir):
    """(variant, p, size) -> {round: row time's share of its roofline}, from the `ringlab bench --json
    --roofline` files that run.sh keeps in json/ (ringlab-VARIANT-pP[-rN].json)."""
    fractions = defaultdict(dict)
    folder = os.path.join(results_dir, "json")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        match = re.fullmatch(r"ringlab-(.+)-p(\d+)(?:-r(\d+))?\.json", name)
        if not match:
            continue
        with open(os.path.join(folder, name)) as f:
            roofline = json.load(f).get("roofline")
        for row in (roofline or {}).get("rows", []):
            key = (match.group(1), int(match.group(2)), int(row["size_bytes"]))
            fractions[key][int(match.group(3) or 1)] = float(row["of_roofline"])
    return fractions


def floor_times(results_dir):
    """{(p, size): {round: time_us}} from floor.csv (run.sh's `floor` family), if it is there."""
    path = os.path.join(results_dir, "floor.csv")
    if not os.path.exists(path):
        return {}
    floors = defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            floors[(int(r["p"]), int(r["size_bytes"]))][int(r["round"])] = float(r["time_us"])
    return floors


def busbw_by_size(path, variant, p):
    """size -> ringlab's busbw (median over rounds) of one variant at one p, from a results.csv."""
    rows = [r for r in read_rows(path) if is_measured(r) and is_right(r) and r["peer"] == RINGLAB
            and r["variant"] == variant and int(r["p"]) == p]
    sizes = defaultdict(list)
    for r in rows:
        sizes[int(r["size_bytes"])].append(float(r["busbw_GBps"]))
    return {size: statistics.median(values) for size, values in sizes.items()}


# ---- Open MPI's own algorithm, for the ring's time per step ------------------------------------
# Which allreduce algorithm Open MPI 4.1.x runs on one host, and its steps. There coll/tuned takes
# MPI_Allreduce (priority 30; coll/han disqualifies itself when every process is local, coll/sm and
# coll/adapt have priority 0: `mpirun --mca coll_base_verbose 100` shows the choice), and without
# dynamic rules it picks by ompi_coll_tuned_allreduce_intra_dec_fixed in
# ompi/mca/coll/tuned/coll_tuned_decision_fixed.c. For a commutative op (MPI_SUM): per communicator
# size below a bound, the algorithm for each message size (bytes) below a bound (None: all larger).
OPENMPI_ALLREDUCE_RULE = [
    (4, [(8, "ring"), (4096, "recursive doubling"), (8192, "ring"), (16384, "recursive doubling"),
         (65536, "ring"), (262144, "segmented ring"), (None, "Rabenseifner")]),
    (8, [(16, "ring"), (8192, "recursive doubling"), (None, "Rabenseifner")]),
]
# Steps (rounds of messages) of each algorithm at p a power of two: recursive doubling exchanges the
# whole vector with rank ^ 2^k, log2 p times; the ring sends a p-th to rank + 1, 2(p-1) times;
# Rabenseifner (ompi_coll_base_allreduce_intra_redscat_allgather) halves recursively, then gathers
# by recursive doubling, 2 log2 p. Observed: pml monitoring (--mca pml_monitoring_enable 2) counts
# each size's messages per peer, and they match openmpi_algorithm() at p = 2 and 4, 4 B to 4 MiB
# (docs/BENCHMARKS.md).
OPENMPI_STEPS = {
    "recursive doubling": lambda p: p.bit_length() - 1,
    "ring": lambda p: 2 * (p - 1),
    "Rabenseifner": lambda p: 2 * (p.bit_length() - 1),
}
OPENMPI_DEFAULT = "openmpi:MPI_Allreduce"
# coll/tuned's ring forced (run.sh), there to compare ring with ring: it is no configuration a user
# of Open MPI runs by default, so it never stands as the best peer.
OPENMPI_RING = "openmpi:MPI_Allreduce+ring"
RINGLAB_RING = f"{RINGLAB}:shm"  # ringlab's ring within a host, where Open MPI uses shared memory too


def ring_steps(p):
    return 2 * (p - 1)


def openmpi_algorithm(p, size_bytes, element_bytes=4):
    """(name, steps) of the algorithm Open MPI 4.1.x runs for a float32 MPI_SUM allreduce of size_bytes
    over p ranks on one host; None where the rule above has no step count (p >= 8 or not a power of two,
    basic linear)."""
    rule = next((sizes for below, sizes in OPENMPI_ALLREDUCE_RULE if p < below), None)
    if rule is None or p < 2 or p & (p - 1):
        return None
    name = next(algorithm for below, algorithm in rule if below is None or size_bytes < below)
    count = size_bytes // element_bytes
    # Fallbacks inside ompi/mca/coll/base/coll_base_allreduce.c: the fixed rule gives the segmented
    # ring segment size 0, one segment, which runs the plain ring; the ring with fewer elements than
    # ranks runs recursive doubling; Rabenseifner with fewer elements than ranks (p a power of two)
    # runs basic linear (a reduce then a broadcast, not counted in steps here).
    if name == "segmented ring":
        name = "ring"
    if name == "ring" and count < p:
        name = "recursive doubling"
    if name == "Rabenseifner" and count < p:
        return None
    return name, OPENMPI_STEPS[name](p)


def per_step_ratios(ours, theirs, steps, p):
    """Per round, Open MPI's time per step / ringlab's ring's time per step: the time ratio times
    2(p-1) / Open MPI's steps (0 in a round where ringlab was wrong)."""
    return [(ratio * ring_steps(p) / steps, peer) for ratio, peer in round_ratios({OPENMPI_DEFAULT: theirs},
                                                                                  {OPENMPI_DEFAULT: ours})]


def per_step_table(p, cells, sizes):
    """The ring (shm) against Open MPI per step of the algorithm Open MPI ran, and against Open MPI's
    ring forced, ring to ring."""
    print()
    print(f"### p = {p}: the ring against Open MPI, per step of its algorithm and ring to ring")
    print()
    print(f"x per step = (Open MPI's time / its steps) / (ringlab's ring's time / {ring_steps(p)} steps); "
          f"x ring = {OPENMPI_RING}'s time / ringlab's ring's time. Algorithms: Open MPI 4.1.x's fixed rule "
          "(report.py, OPENMPI_ALLREDUCE_RULE).")
    print()
    print(f"| size | Open MPI's algorithm (steps) | {OPENMPI_DEFAULT} us | {RINGLAB_RING} us | x per step worst | "
          f"x per step median | {OPENMPI_RING} us | x ring worst | x ring median |")
    print("|" + "---|" * 9)
    for size in sizes:
        ours = cells.get((size, RINGLAB_RING))
        theirs, forced = cells.get((size, OPENMPI_DEFAULT)), cells.get((size, OPENMPI_RING))
        algorithm = openmpi_algorithm(p, size)
        by_step = per_step_ratios(ours, theirs, algorithm[1], p) if ours and theirs and algorithm else []
        by_ring = round_ratios({OPENMPI_RING: forced}, {OPENMPI_RING: ours}) if ours and forced else []
        print("| " + " | ".join([size_text(size), f"{algorithm[0]} ({algorithm[1]})" if algorithm else "-",
                                 time_text(merged(theirs)) if theirs else "-", time_text(merged(ours)) if ours else "-",
                                 *ratios_text(by_step), time_text(merged(forced)) if forced else "-",
                                 *ratios_text(by_ring)]) + " |")


GOALS_TITLE = ("### Goals of issues 18 and 35 by the {stat} statistic (worst round; x = the goal's figure in the "
               "worst round, wanted = what the goal asks for)")


def goals(rows, results_dir, baseline=None, stat="median"):
    """Issue 18's goals (p = 2, and the roofline's) and issue 35's (more ranks than cores), each judged by the
    worst round: met or MISSED with the figure."""
    cell = cell_map(rows, lambda r: (int(r["p"]), int(r["size_bytes"]), label(r)))
    roofs = roofline_fractions(results_dir)
    floors = floor_times(results_dir)
    mpi = ["openmpi:MPI_Allreduce", "mpich:MPI_Allreduce"]
    gloo = ["gloo:ring", "gloo:ring_chunked", "gloo:allreduce"]
    sizes = sorted({int(r["size_bytes"]) for r in rows})
    lines = []

    def line(goal, variant, size, figure, reference, worst, wanted):
        verdict = "no data" if worst is None else ("met" if worst >= wanted else "MISSED")
        lines.append(f"| {goal} | {variant} | {size_text(size)} | {figure} | {reference} | "
                     f"{'-' if worst is None else f'{worst:.2f}'} | {wanted:.2f} | {verdict} |")

    def against(goal, p, size, variant, references, wanted):
        """ringlab's variant against the best right reference of each round, like for like: the ringlab
        column names the mode compared (NAME/in-place against peers that reduce in place). Returns the
        reference compared with, if any."""
        modes = {variant} | {like_for_like(variant, v) for v in references}
        if not any((p, size, f"{RINGLAB}:{name}") in cell for name in modes):
            return None  # not run at this size (PEERS_ONLY, the sweep); a failed run is listed below
        present = {v: cell[(p, size, v)] for v in references if (p, size, v) in cell}
        peer, ratios, mine = compared(variant, present, lambda name: cell.get((p, size, f"{RINGLAB}:{name}")))
        if peer is None:
            line(goal, variant, size, time_text(merged(cell.get((p, size, f"{RINGLAB}:{variant}")))),
                 "missing", None, wanted)
            return None
        line(goal, like_for_like(variant, peer), size, time_text(merged(mine)),
             f"{peer} {time_text(merged(present[peer]))}", min(ratios)[0], wanted)
        return peer

    def floor_line(p, size, peer, wanted):
        """What the floor (a bare ring over loopback, moving the same bytes with no reduction) reaches against
        the same reference, per round: a goal the floor misses asks ringlab to move its bytes faster than a
        ring that does nothing else, while it also reduces them."""
        by_round = floors.get((p, size))
        if peer is None or not by_round:
            return
        theirs = {round_of(r): float(r["time_us"]) for r in cell[(p, size, peer)].values() if is_right(r)}
        ratios = [theirs[k] / by_round[k] for k in sorted(theirs.keys() & by_round.keys())]
        if not ratios:
            return
        worst = min(ratios)
        lines.append(f"| the floor against the same reference | floor (bare ring) | "
                     f"{size_text(size)} | {statistics.median(by_round.values()):.1f} | "
                     f"{peer} {time_text(merged(cell[(p, size, peer)]))} | {worst:.2f} | {wanted:.2f} | "
                     f"{'the floor meets it' if worst >= wanted else 'THE FLOOR MISSES IT'} |")

    def of_roofline(goal, p, size, variant, wanted):
        ours = cell.get((p, size, f"{RINGLAB}:{variant}"))
        by_round = roofs.get((variant, p, size))
        if ours is None:
            return
        line(goal, variant, size, time_text(merged(ours)), "roofline (bench --roofline)",
             min(by_round.values()) if by_round else None, wanted)

    def per_step(goal, p, size):
        """ringlab's ring against Open MPI's default per step, each time divided by its algorithm's steps."""
        ours = cell.get((p, size, RINGLAB_RING))
        if ours is None:
            return
        theirs, algorithm = cell.get((p, size, OPENMPI_DEFAULT)), openmpi_algorithm(p, size)
        mine = f"{time_text(merged(ours))} / {ring_steps(p)}"
        if theirs is None or algorithm is None:
            reference = "missing" if theirs is None else "Open MPI's algorithm not in report.py's table"
            line(goal, "shm", size, mine, reference, None, 1.0)
            return
        ratios = per_step_ratios(ours, theirs, algorithm[1], p)
        line(goal, "shm", size, mine, f"{OPENMPI_DEFAULT} {time_text(merged(theirs))} / {algorithm[1]} "
             f"({algorithm[0]})", min(ratios)[0] if ratios else None, 1.0)

    all_peers = sorted({label(r) for r in rows if r["peer"] != RINGLAB} - {OPENMPI_RING})
    for size in sizes:
        if size >= 64 << 10:
            against("shm p=2, >= 64 KiB: ring >= 1.0x the faster MPI", 2, size, "shm", mpi, 1.0)
    for size in sizes:
        against("shm p=2: auto >= 1.0x the best peer", 2, size, "shm+auto", all_peers, 1.0)
    for size in sizes:
        against("shm p=4: auto >= 1.0x Open MPI", 4, size, "shm+auto", mpi[:1], 1.0)
    for p in (4, 2):  # the issue asks it at p = 4; p = 2 costs nothing more
        for size in sizes:
            per_step(f"shm p={p}: ring per step >= Open MPI per step of its algorithm", p, size)
    # Busbw against the baseline (the results.csv of the ringlab before single copy), 16 MiB and up.
    now = {}
    for (p, size, variant), by_round in cell.items():
        if p == 2 and variant == f"{RINGLAB}:shm" and size >= 16 << 20:
            now[size] = [float(r["busbw_GBps"]) if is_right(r) else 0.0 for r in by_round.values()]
    before = busbw_by_size(baseline, "shm", 2) if baseline else {}
    for size in sorted(now):
        old = before.get(size)
        line("shm p=2, >= 16 MiB: busbw >= 1.6x the baseline's", "shm", size, f"{min(now[size]):.2f} GB/s",
             f"baseline {old:.2f} GB/s" if old else "no baseline (report.py table ... --baseline FILE)",
             min(now[size]) / old if old else None, 1.6)
    for size in sizes:
        if size >= 16 << 20:
            of_roofline("shm p=2, >= 16 MiB: >= 75% of the roofline", 2, size, "shm", 0.75)
    for p in (2, 4):
        for size in sizes:
            if size >= 1 << 20:
                peer = against(f"tcp p={p}, >= 1 MiB: >= 1.5x the best Gloo variant", p, size, "tcp", gloo, 1.5)
                floor_line(p, size, peer, 1.5)
        if p == 4:  # issue 35: in place against Gloo's in-place AllReduce, with two ranks to a core
            for size in sizes:
                if 4 << 20 <= size <= 64 << 20:
                    peer = against("tcp p=4, 4-64 MiB: >= 1.4x the best Gloo variant", 4, size, "tcp", gloo, 1.4)
                    floor_line(4, size, peer, 1.4)
        for size in sizes:
            if size >= 64 << 20:
                of_roofline(f"tcp p={p}, >= 64 MiB: >= 70% of the loopback roofline", p, size, "tcp", 0.70)
    # Right in every round: every ringlab cell, every element checked.
    mixed = []
    for (p, size, variant), by_round in sorted(cell.items()):
        if variant.startswith(RINGLAB + ":"):
            wrong = sorted(rnd for rnd, r in by_round.items() if not is_right(r))
            if wrong:
                mixed.append(f"{variant.split(':', 1)[1]} p={p} {size_text(size)} wrong in round(s) "
                             f"{', '.join(map(str, wrong))} of {len(by_round)}")
    checked = sum(len(v) for k, v in cell.items() if k[2].startswith(RINGLAB + ":"))
    lines.append(f"| every ringlab transport right in every round | all | all sizes | "
                 f"{'; '.join(mixed) if mixed else f'{checked} cells right'} | every element checked | "
                 f"{len(mixed)} wrong | 0 | {'MISSED' if mixed else 'met'} |")
    print()
    print(GOALS_TITLE.format(stat=stat))
    print()
    print("| goal | ringlab | size | ringlab | reference | x worst | wanted | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))


def main(argv):
    if len(argv) >= 2 and argv[0] == "ringlab-rows":
        variant = argv[argv.index("--variant") + 1] if "--variant" in argv else None
        ringlab_rows(argv[1], variant)
    elif len(argv) >= 2 and argv[0] == "table":
        options = dict(zip(argv[2::2], argv[3::2]))
        if len(argv) % 2 or set(options) - {"--baseline", "--stat"} or options.get("--stat", "median") not in STATISTICS:
            sys.exit(__doc__)
        table(argv[1], options.get("--baseline"), options.get("--stat", "median"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
