"""Helpers of bench/peers/run.sh, on the standard library only.

  report.py ringlab-rows BENCH.json [--variant NAME]
      prints CSV rows (no header) for one `ringlab bench --json` file: ringlab's out-of-place
      result as variant NAME (default: the transport), its in-place result as NAME/in-place,
      and, when the run had --peer-mpi, the MPI_Allreduce it timed on the same buffers.
  report.py table RESULTS.csv
      prints, per p, a Markdown table of ringlab's variants against the best peer at each size,
      then every variant's time.

CSV columns: peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note
"""

import csv
import json
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


def table(path):
    rows = read_rows(path)
    failed = [r for r in rows if not is_measured(r)]
    measured = [r for r in rows if is_measured(r)]
    by_p = defaultdict(list)
    for r in measured:
        by_p[int(r["p"])].append(r)
    versions = sorted({f"{r['peer']}: {r['version']}" for r in rows if r["version"]})
    print("Versions: " + "; ".join(versions))
    print()
    print("Time = median over iterations of the slowest rank's time (us). x = best peer's time / "
          "ringlab's time = ringlab busbw / best peer busbw: above 1, ringlab is faster. The best peer is "
          "the fastest non-ringlab variant whose every element was right; WRONG(n) marks n wrong elements.")
    for p in sorted(by_p):
        cells = {(int(r["size_bytes"]), label(r)): r for r in by_p[p]}
        sizes = sorted({int(r["size_bytes"]) for r in by_p[p]})
        ringlab_all = sorted({label(r) for r in by_p[p] if r["peer"] == RINGLAB}, key=ringlab_order)
        ours = [v for v in ringlab_all if "/in-place" not in v]
        peers = sorted({label(r) for r in by_p[p] if r["peer"] != RINGLAB})
        print()
        print(f"### p = {p}: ringlab (out of place) against the best peer")
        print()
        head = ["size", "best peer", "peer us"] + [f"{v.split(':')[1]} us | x" for v in ours]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * (3 + 2 * len(ours)))
        for size in sizes:
            candidates = [cells[(size, v)] for v in peers if (size, v) in cells and is_right(cells[(size, v)])]
            best = min(candidates, key=lambda r: float(r["time_us"])) if candidates else None
            line = [size_text(size), label(best) if best else "none right", time_text(best) if best else "-"]
            for v in ours:
                r = cells.get((size, v))
                line += [time_text(r), ratio_text(best, r)]
            print("| " + " | ".join(line) + " |")
        print()
        print(f"### p = {p}: every variant, time (us)")
        print()
        variants = ringlab_all + peers
        print("| size | " + " | ".join(variants) + " |")
        print("|" + "---|" * (1 + len(variants)))
        for size in sizes:
            print("| " + " | ".join([size_text(size)] + [time_text(cells.get((size, v))) for v in variants]) + " |")
    goals(measured)
    if failed:
        print()
        print("### Runs that failed")
        print()
        for r in failed:
            print(f"- {label(r)} p = {r['p']}: {r['note']}")


def ratio_text(reference, row):
    """reference time / row time, where both ran and were right."""
    if reference is None or row is None or not is_right(reference) or not is_right(row):
        return "-"
    return f"{float(reference['time_us']) / float(row['time_us']):.2f}" if float(row["time_us"]) > 0 else "-"


def goals(rows):
    """The goals of the issue that asked for this benchmark, as ratios from this one run."""
    cell = {(int(r["p"]), int(r["size_bytes"]), label(r)): r for r in rows}

    def fastest(p, size, labels):
        found = [cell[(p, size, v)] for v in labels if (p, size, v) in cell and is_right(cell[(p, size, v)])]
        return min(found, key=lambda r: float(r["time_us"])) if found else None

    mpi = ["openmpi:MPI_Allreduce", "mpich:MPI_Allreduce"]
    mpi_tuned = ["openmpi:MPI_Allreduce+malloc-tunables", "mpich:MPI_Allreduce+malloc-tunables"]
    gloo = ["gloo:ring", "gloo:ring_chunked", "gloo:allreduce"]
    checks = []  # (goal, p, size, ours, reference, wanted ratio of reference time / our time)
    sizes = sorted({int(r["size_bytes"]) for r in rows})
    for size in sizes:
        if size <= 4 << 10:
            checks.append(("shm p=2, <= 4 KiB: no slower than 2x Open MPI", 2, size, "ringlab:shm",
                           fastest(2, size, mpi[:1]), 0.5))
        if 64 << 10 <= size <= 16 << 20:
            checks.append(("shm p=2, 64 KiB..16 MiB: >= 1.0x the faster MPI", 2, size, "ringlab:shm",
                           fastest(2, size, mpi), 1.0))
        if size >= 64 << 20:
            checks.append(("shm p=2, >= 64 MiB: >= 1.5x the faster MPI with malloc tunables", 2, size, "ringlab:shm",
                           fastest(2, size, mpi_tuned), 1.5))
            checks.append(("(same, against the faster MPI without tunables)", 2, size, "ringlab:shm",
                           fastest(2, size, mpi), 1.5))
        checks.append(("shm p=4: >= 1.0x Open MPI", 4, size, "ringlab:shm", fastest(4, size, mpi[:1]), 1.0))
        if size >= 1 << 20:
            checks.append(("tcp p=2, >= 1 MiB: >= 1.5x the best Gloo variant", 2, size, "ringlab:tcp",
                           fastest(2, size, gloo), 1.5))
        if size == 4:
            checks.append(("tcp p=2, 4 B: latency <= 0.7x Gloo ring", 2, size, "ringlab:tcp",
                           fastest(2, size, gloo[:1]), 1 / 0.7))
    order = ["shm p=2, <= 4 KiB", "shm p=2, 64 KiB", "shm p=2, >= 64 MiB", "(same", "shm p=4", "tcp p=2, >= 1 MiB",
             "tcp p=2, 4 B"]
    checks.sort(key=lambda c: (next(k for k, prefix in enumerate(order) if c[0].startswith(prefix)), c[2]))
    lines = []
    for goal, p, size, ours, reference, wanted in checks:
        # The default ring, and `--algo auto` where it was run, each judged on its own.
        for variant in (ours, ours + "+auto"):
            row = cell.get((p, size, variant))
            if row is None and (reference is None or variant != ours):
                continue
            ratio = ratio_text(reference, row)
            verdict = "no data" if ratio == "-" else ("met" if float(ratio) >= wanted else "MISSED")
            lines.append(f"| {goal} | {variant.split(':', 1)[1]} | {size_text(size)} | {time_text(row)} | "
                         f"{label(reference) + ' ' + time_text(reference) if reference else 'missing'} | {ratio} | "
                         f"{wanted:.2f} | {verdict} |")
    if lines:
        print()
        print("### Goals (x = reference time / ringlab time; wanted = the ratio the goal asks for)")
        print()
        print("| goal | ringlab | size | ringlab us | reference us | x | wanted | verdict |")
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
