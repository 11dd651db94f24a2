"""Which allreduce algorithm Open MPI runs on this host, observed, against report.py's table.

For each p and size, one MPI_Allreduce (one_allreduce.c) runs under Open MPI's pml monitoring
(--mca pml_monitoring_enable 2): once as Open MPI chooses, and once with each of coll/tuned's
algorithms forced (recursive doubling, ring, Rabenseifner). Rank 0's messages per peer (bytes and
count) are an algorithm's signature; the forced algorithms whose signature equals the default's are
what Open MPI ran, and report.py's OPENMPI_ALLREDUCE_RULE must name one of them. The coll
components enabled on MPI_COMM_WORLD come first (coll_base_verbose): the highest priority that
implements MPI_Allreduce takes it.

Usage: /usr/bin/python3 bench/peers/openmpi_algorithm.py [--p "2 4"] [--sizes "4 16 64K 1M"]
Prints a Markdown table; exit status 1 when the table and the observation disagree."""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (the decision rule and the size names)

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "..", "build-peers")
# coll/tuned's numbers for its allreduce algorithms (`ompi_info --param coll tuned --level 5`,
# coll_tuned_allreduce_algorithm); the segmented ring is left out: with the segment size 0 that
# the fixed rule gives it, it runs the plain ring.
FORCED = {"recursive doubling": 3, "ring": 4, "Rabenseifner": 6}
SIZES = "4 16 64 256 1K 4K 8K 16K 64K 256K 1M 4M"


def size_bytes(text):
    match = re.fullmatch(r"(\d+)([KM]?)", text)
    if not match:
        sys.exit(f"openmpi_algorithm.py: size {text!r}: give bytes, with K or M for KiB or MiB")
    return int(match.group(1)) << {"": 0, "K": 10, "M": 20}[match.group(2)]


def program():
    """build-peers/one_allreduce_openmpi, rebuilt when its source is newer."""
    source, target = os.path.join(HERE, "one_allreduce.c"), os.path.join(BUILD, "one_allreduce_openmpi")
    if not os.path.exists(target) or os.path.getmtime(source) > os.path.getmtime(target):
        os.makedirs(BUILD, exist_ok=True)
        subprocess.run(["mpicc.openmpi", "-O2", "-Wall", "-o", target, source], check=True)
    return target


def mpirun(p, *args):
    command = ["mpirun.openmpi", "--oversubscribe", "-np", str(p)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    result = subprocess.run(command + list(args), capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        sys.exit(f"openmpi_algorithm.py: {' '.join(command + list(args))} failed:\n{result.stderr[-2000:]}")
    return result.stdout + result.stderr


def components(p, binary):
    """The coll components enabled on MPI_COMM_WORLD, with their priorities, highest first."""
    text = mpirun(p, "--mca", "coll_base_verbose", "100", binary, "4")
    first_rank = re.search(r"^\[([^\]]+)\]", text, re.M).group(1)
    enabled, in_world = [], False
    for line in text.splitlines():
        if not line.startswith(f"[{first_rank}]"):
            continue
        if "new communicator:" in line:
            in_world = "MPI_COMM_WORLD" in line
        match = re.search(r"selecting\s+(\w+), priority\s+(-?\d+), Enabled", line)
        if in_world and match:
            enabled.append((int(match.group(2)), match.group(1)))
    return [f"{name} ({priority})" for priority, name in sorted(enabled, reverse=True)]


def signature(p, binary, size, forced=None):
    """Rank 0's messages in one allreduce: ((peer, bytes, messages), ...)."""
    extra = [] if forced is None else ["--mca", "coll_tuned_use_dynamic_rules", "1",
                                       "--mca", "coll_tuned_allreduce_algorithm", str(forced)]
    text = mpirun(p, "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "1",
                  *extra, binary, str(size))
    rows = re.findall(r"^I\t0\t(\d+)\t(\d+) bytes\t(\d+) msgs sent", text, re.M)
    return tuple(sorted((int(peer), int(n), int(count)) for peer, n, count in rows))


def signature_text(sig):
    return ", ".join(f"to {peer}: {n} B in {count}" for peer, n, count in sig) or "none"


def main(argv):
    ps, sizes = "2 4", SIZES
    for flag, value in zip(argv[::2], argv[1::2]):
        if flag == "--p":
            ps = value
        elif flag == "--sizes":
            sizes = value
        else:
            sys.exit(__doc__)
    if len(argv) % 2:
        sys.exit(__doc__)
    binary = program()
    disagreements = 0
    for p in [int(x) for x in ps.split()]:
        print(f"p = {p}: coll components enabled on MPI_COMM_WORLD (priority): {', '.join(components(p, binary))}")
        print()
        print("| p | size | Open MPI's choice: rank 0's messages | forced algorithms with the same messages | "
              "report.py's rule (steps) | verdict |")
        print("|---|---|---|---|---|---|")
        for size in [size_bytes(s) for s in sizes.split()]:
            chosen = signature(p, binary, size)
            same = [name for name, number in FORCED.items() if signature(p, binary, size, number) == chosen]
            rule = report.openmpi_algorithm(p, size)
            agrees = rule is not None and rule[0] in same
            disagreements += not agrees
            print(f"| {p} | {report.size_text(size)} | {signature_text(chosen)} | {', '.join(same) or 'none'} | "
                  f"{f'{rule[0]} ({rule[1]})' if rule else 'not in the table'} | {'ok' if agrees else 'DIFFERS'} |")
        print()
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
