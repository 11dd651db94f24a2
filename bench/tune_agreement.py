#!/usr/bin/env python3
"""Whether `ringlab tune` gives the same table twice in a row on this machine.

Runs `ringlab tune` RUNS times back to back with the same arguments and prints, for each run and
the next, the share of sizes whose chosen algorithm agrees, their median and minimum, and per size
the choice of every run (so that a size that flips, and between what, can be read). A table that
a second run reverses is one a user cannot act on; docs/algorithms.md records the results.

usage: bench/tune_agreement.py RINGLAB [RUNS] [-- tune arguments...]
       bench/tune_agreement.py build/ringlab 8 -- --transport shm
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if not args:
        sys.exit(__doc__)
    binary, runs = args[0], int(args[1]) if len(args) > 1 else 8
    if runs < 2:
        sys.exit(f"RUNS = {runs}: two runs at least, to compare one with the next")
    tables = []
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(runs):
            out = os.path.join(scratch, f"tune{i}.json")
            subprocess.run([binary, "tune", "--json", out, *extra], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out) as f:
                tables.append({m["bytes"]: m["chosen"] for m in json.load(f)["measured"]})
    agreement = [sum(a[s] == b[s] for s in a) / len(a) for a, b in zip(tables, tables[1:])]
    print(f"# ringlab tune {' '.join(extra)}: {runs} runs back to back")
    print("# share of sizes the next run chose alike:", " ".join(f"{x:.2f}" for x in agreement))
    print(f"# median {statistics.median(agreement):.2f}, min {min(agreement):.2f}")
    for size in sorted(tables[0]):
        print(f"{size:>12}", " ".join(f"{t[size]:<18}" for t in tables))


if __name__ == "__main__":
    main()
