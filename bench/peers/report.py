"""Helpers of bench/peers/run.sh, on the standard library only.

  report.py ringlab-rows BENCH.json [--variant NAME]
      prints CSV rows (no header) for one `ringlab bench --json` file: ringlab's out-of-place
      result as variant NAME (default: the transport), its in-place result as NAME/in-place,
      and, when the run had --peer-mpi, the MPI_Allreduce it timed on the same buffers.
  report.py table RESULTS.csv
      prints, per p, a Markdown table of ringlab's variants against the best peer at each size,
      then every variant's time.

CSV columns: peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note[,round]
A results file of several rounds (PEERS_ROUNDS) holds each variant once per round. A ratio is taken
within a round (the best peer of that round against ringlab in that round); the table gives the
worst and the median over rounds, the goals judge by the worst, times are medians over rounds, and
a cell wrong in any round is WRONG.
"""

import csv
import json
import statistics
import sys
from collections import defaultdict

COLUMNS = ["peer", "variant", "p", "size_bytes", "time_us", "busbw_GBps", "wrong", "version", "iterations", "note"]
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
            out.writerow([peer_name, name, p, row["size_bytes"], f"{result['time_us']:.3f}",
                          f"{result['busbw_GBps']:.6g}", "unchecked" if wrong is None else wrong, ver,
                          result.get("iterations", ""), ""])


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


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


def round_ratios(reference_cells, ours):
    """Per round: the fastest right reference of that round / ringlab's time in that round."""
    ratios = []
    for rnd, row in sorted((ours or {}).items()):
        if not is_right(row):
            ratios.append(0.0)  # a wrong answer in any round is the worst round
            continue
        best = fastest([c.get(rnd) for c in reference_cells])
        ratio = ratio_text(best, row)
        if ratio == "-":
            return []  # a round without a right pair: no ratio claims for this size
        ratios.append(float(ratio))
    return ratios


def ratios_text(ratios):
    if not ratios:
        return "-", "-"
    return f"{min(ratios):.2f}", f"{statistics.median(ratios):.2f}"


def table(path):
    rows = read_rows(path)
    failed = [r for r in rows if not is_measured(r)]
    measured = [r for r in rows if is_measured(r)]
    rounds = len({round_of(r) for r in measured})
    by_p = defaultdict(list)
    for r in measured:
        by_p[int(r["p"])].append(r)
    versions = sorted({f"{r['peer']}: {r['version']}" for r in rows if r["version"]})
    print("Versions: " + "; ".join(versions))
    print()
    print("Time = median over iterations of the slowest rank's time (us). x = best peer's time / "
          "ringlab's time = ringlab busbw / best peer busbw: above 1, ringlab is faster. The best peer is "
          "the fastest non-ringlab variant whose every element was right; WRONG(n) marks n wrong elements.")
    print()
    print(f"Rounds: {rounds}. x worst and x median are over rounds, each round's ringlab time against that "
          "round's best peer; times are medians over rounds; a cell wrong in any round is WRONG.")
    for p in sorted(by_p):
        cells = cell_map(by_p[p], lambda r: (int(r["size_bytes"]), label(r)))
        sizes = sorted({int(r["size_bytes"]) for r in by_p[p]})
        ringlab_all = sorted({label(r) for r in by_p[p] if r["peer"] == RINGLAB}, key=ringlab_order)
        ours = [v for v in ringlab_all if "/in-place" not in v]
        peers = sorted({label(r) for r in by_p[p] if r["peer"] != RINGLAB})
        print()
        print(f"### p = {p}: ringlab (out of place) against the best peer")
        print()
        head = ["size", "best peer", "peer us"] + [f"{v.split(':')[1]} us | x worst | x median" for v in ours]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * (3 + 3 * len(ours)))
        for size in sizes:
            peer_cells = [cells[(size, v)] for v in peers if (size, v) in cells]
            best = fastest([merged(c) for c in peer_cells])
            line = [size_text(size), label(best) if best else "none right", time_text(best) if best else "-"]
            for v in ours:
                line += [time_text(merged(cells.get((size, v)))), *ratios_text(round_ratios(peer_cells, cells.get((size, v))))]
            print("| " + " | ".join(line) + " |")
        print()
        print(f"### p = {p}: every variant, time (us)")
        print()
        variants = ringlab_all + peers
        print("| size | " + " | ".join(variants) + " |")
        print("|" + "---|" * (1 + len(variants)))
        for size in sizes:
            print("| " + " | ".join([size_text(size)] + [time_text(merged(cells.get((size, v)))) for v in variants]) + " |")
    goals(measured)
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


def goals(rows):
    """The goals of the issue that asked for this benchmark, judged by the worst round."""
    cell = cell_map(rows, lambda r: (int(r["p"]), int(r["size_bytes"]), label(r)))

    def refs(p, size, labels):
        return [cell[(p, size, v)] for v in labels if (p, size, v) in cell]

    mpi = ["openmpi:MPI_Allreduce", "mpich:MPI_Allreduce"]
    mpi_tuned = ["openmpi:MPI_Allreduce+malloc-tunables", "mpich:MPI_Allreduce+malloc-tunables"]
    gloo = ["gloo:ring", "gloo:ring_chunked", "gloo:allreduce"]
    checks = []  # (goal, p, size, ours, reference cells, wanted ratio of reference time / our time)
    sizes = sorted({int(r["size_bytes"]) for r in rows})
    for size in sizes:
        if size <= 4 << 10:
            checks.append(("shm p=2, <= 4 KiB: no slower than 2x Open MPI", 2, size, "ringlab:shm",
                           refs(2, size, mpi[:1]), 0.5))
        if 64 << 10 <= size <= 16 << 20:
            checks.append(("shm p=2, 64 KiB..16 MiB: >= 1.0x the faster MPI", 2, size, "ringlab:shm",
                           refs(2, size, mpi), 1.0))
        if size >= 64 << 20:
            checks.append(("shm p=2, >= 64 MiB: >= 1.5x the faster MPI with malloc tunables", 2, size, "ringlab:shm",
                           refs(2, size, mpi_tuned), 1.5))
            checks.append(("(same, against the faster MPI without tunables)", 2, size, "ringlab:shm",
                           refs(2, size, mpi), 1.5))
        checks.append(("shm p=4: >= 1.0x Open MPI", 4, size, "ringlab:shm", refs(4, size, mpi[:1]), 1.0))
        if size >= 1 << 20:
            checks.append(("tcp p=2, >= 1 MiB: >= 1.5x the best Gloo variant", 2, size, "ringlab:tcp",
                           refs(2, size, gloo), 1.5))
        if size == 4:
            checks.append(("tcp p=2, 4 B: latency <= 0.7x Gloo ring", 2, size, "ringlab:tcp",
                           refs(2, size, gloo[:1]), 1 / 0.7))
    order = ["shm p=2, <= 4 KiB", "shm p=2, 64 KiB", "shm p=2, >= 64 MiB", "(same", "shm p=4", "tcp p=2, >= 1 MiB",
             "tcp p=2, 4 B"]
    checks.sort(key=lambda c: (next(k for k, prefix in enumerate(order) if c[0].startswith(prefix)), c[2]))
    lines = []
    for goal, p, size, ours, reference_cells, wanted in checks:
        reference = fastest([merged(c) for c in reference_cells])
        # The default ring, and `--algo auto` where it was run, each judged on its own.
        for variant in (ours, ours + "+auto"):
            row = cell.get((p, size, variant))
            if row is None and (reference is None or variant != ours):
                continue
            worst, _ = ratios_text(round_ratios(reference_cells, row))
            verdict = "no data" if worst == "-" else ("met" if float(worst) >= wanted else "MISSED")
            lines.append(f"| {goal} | {variant.split(':', 1)[1]} | {size_text(size)} | {time_text(merged(row))} | "
                         f"{label(reference) + ' ' + time_text(reference) if reference else 'missing'} | {worst} | "
                         f"{wanted:.2f} | {verdict} |")
    if lines:
        print()
        print("### Goals (x = reference time / ringlab time in the worst round; wanted = the ratio the goal asks for)")
        print()
        print("| goal | ringlab | size | ringlab us | reference us | x worst | wanted | verdict |")
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(lines))


def main(argv):
    if len(argv) >= 2 and argv[0] == "ringlab-rows":
        variant = argv[argv.index("--variant") + 1] if "--variant" in argv else None
        ringlab_rows(argv[1], variant)
    elif len(argv) == 2 and argv[0] == "table":
        table(argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
