#!/usr/bin/python3
"""A reader of all_reduce_perf output written from nccl-tests' own documentation, not from
ringlab's parser, fed `ringlab bench`'s table and JSON: does bench speak nccl-tests?

What it takes from nccl-tests (README "Arguments", doc/PERFORMANCE.md, src/common.cu and
src/util.cu at NCCL_TESTS_VERSION 2.19.6):
  - the table: a header line "#  size count type redop [root] time algbw busbw #wrong time algbw
    busbw #wrong" (root in newer versions), out-of-place first, then in-place; a units line;
    one row per size; #wrong is a count, or N/A when checking is off (-c 0);
  - algbw = size / time (GB/s = 1e9 B/s, time in us); busbw = algbw * 2(n-1)/n for allreduce;
    count = size / sizeof(type);
  - -i: sizes min, min+i, min+2i, ... up to max (linear); -f: sizes multiplied (the two are
    alternatives);
  - -d all: types in the order int8 uint8 int32 uint32 int64 uint64 half float double bfloat16;
    -o all: ops in the order sum prod max min avg; every size of a type/op pair before the next,
    ops inner;
  - -a: each rank's time (its timed loop / iterations) over ranks 0 = rank 0, 1 = average,
    2 = min, 3 = max. ringlab applies -a to every iteration, and its `loop` statistic is
    nccl-tests' own: -a over the ranks' loop means.
ringlab's JSON (its own format) is read only for what ringlab documents there: rows with size_bytes,
dtype, op, and timings with median_us, min_us, max_us, mean_us, loop_mean_us, samples_us, rank_samples_us,
wrong.

Usage: nccl_tests_reader.py RINGLAB CHECK, CHECK one of average, linear, all, check.
Exit 0 when every check holds; otherwise a message per failure and exit 1.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

# nccl-tests' type names (and ringlab's names for the same types) -> element size in bytes.
TYPE_SIZES = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
              "half": 2, "float": 4, "double": 8, "bfloat16": 2,
              "char": 1, "int": 4, "float16": 2, "float32": 4, "float64": 8}
CANONICAL = {"half": "float16", "float": "float32", "double": "float64", "char": "int8",
             "int": "int32"}
ALL_TYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
             "bfloat16"]
ALL_OPS = ["sum", "prod", "max", "min", "avg"]
SIDE_COLUMNS = ["time", "algbw", "busbw", "#wrong"]
AVERAGE_NAMES = {0: "rank0", 1: "mean", 2: "min", 3: "max"}

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def canonical_type(name):
    return CANONICAL.get(name, name)


class Table:
    """The column header and the rows of an all_reduce_perf style table."""

    def __init__(self, text):
        self.preamble = []
        self.names = None
        self.rows = []
        for line in text.splitlines():
            if line.startswith("#"):
                words = line[1:].split()
                if self.names is None and words[:2] == ["size", "count"]:
                    self.names = words
                elif self.names is None:
                    self.preamble.append(line)
                continue
            if line.strip() and self.names is not None:
                self.rows.append(line.split())
        if self.names is None:
            raise SystemExit("no '#  size  count ...' column header in the output")
        self.has_root = "root" in self.names
        # Each side starts at its "time" column: out-of-place, then in-place.
        self.sides = [i for i, name in enumerate(self.names) if name == "time"][:2]

    def side(self, row, k):
        """Side k (0 out-of-place, 1 in-place) of a row: {column name: text}."""
        start = self.sides[k]
        end = self.sides[1] if k == 0 else len(self.names)
        return {self.names[i]: row[i] for i in range(start, min(end, len(row)))}

    def field(self, row, name):
        return row[self.names.index(name)]


def run_bench(ringlab, args):
    """bench's table (stdout) and JSON record."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        done = subprocess.run([ringlab, "bench", *args, "--json", path], capture_output=True,
                              text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"ringlab bench {' '.join(args)} failed ({done.returncode}): "
                             f"{done.stderr.strip()}")
        with open(path) as f:
            return Table(done.stdout), json.load(f)


def check_columns(table, label):
    """nccl-tests' column names, in its order (root optional, further statistics after #wrong)."""
    lead = ["size", "count", "type", "redop"] + (["root"] if table.has_root else [])
    check(table.names[:len(lead)] == lead, f"{label}: leading columns {table.names[:len(lead)]}")
    check(len(table.sides) == 2, f"{label}: not two sides of time columns: {table.names}")
    for k in range(len(table.sides)):
        names = table.names[table.sides[k]:table.sides[k] + 4]
        check(names == SIDE_COLUMNS, f"{label}: side {k} columns {names}")


def check_row_arithmetic(table, row, ranks, label):
    """count = size / sizeof(type); algbw = size / time; busbw = algbw 2(n-1)/n (PERFORMANCE.md)."""
    size, count = int(row[0]), int(row[1])
    dtype = table.field(row, "type")
    check(dtype in TYPE_SIZES, f"{label}: unknown type {dtype}")
    check(count * TYPE_SIZES.get(dtype, 1) == size, f"{label}: count {count} x {dtype} != {size}")
    for k in range(2):
        s = table.side(row, k)
        time = float(s["time"])
        if time < 1.0:
            continue  # printed with one decimal: too coarse to hold algbw against
        lo, hi = size / ((time + 0.05) * 1e3), size / (max(time - 0.05, 1e-9) * 1e3)
        algbw = float(s["algbw"])
        check(lo - 0.005 <= algbw <= hi + 0.005,
              f"{label}: algbw {algbw} is not size / time = {size} B / {time} us")
        factor = 2 * (ranks - 1) / ranks
        check(abs(float(s["busbw"]) - algbw * factor) <= 0.01 + 0.01 * algbw * factor,
              f"{label}: busbw {s['busbw']} != algbw {algbw} x 2(n-1)/n")


def check_average(ringlab):
    """-a 0..3: the reported per-iteration times are the chosen reduction of each rank's times,
    and over the same iterations rank 0 lies within min <= mean <= max."""
    ranks = 4
    for a in range(4):
        table, record = run_bench(ringlab, ["-p", str(ranks), "-b", "1K", "-e", "64K", "-f", "8",
                                            "-n", "5", "-w", "1", "-a", str(a), "--samples",
                                            "--stats", "median,min,max,mean,loop"])
        label = f"-a {a}"
        check_columns(table, label)
        check(any(f"(-a {a})" in line for line in table.preamble),
              f"{label}: the header does not state -a {a}")
        check(record.get("over_ranks") == AVERAGE_NAMES[a],
              f"{label}: JSON over_ranks {record.get('over_ranks')}")
        check(len(table.rows) == len(record["rows"]) == 3, f"{label}: not 3 rows")
        for row, jrow in zip(table.rows, record["rows"]):
            check_row_arithmetic(table, row, ranks, label)
            for k, key in enumerate(["out_of_place", "in_place"]):
                check_timing(table.side(row, k), jrow[key], a, ranks,
                             f"{label} {jrow['size_bytes']} B {key}")


def check_timing(side, t, a, ranks, label):
    per_rank = t.get("rank_samples_us")
    if not check(per_rank and len(per_rank) == ranks, f"{label}: no rank_samples_us per rank"):
        return
    samples = t["samples_us"]
    by_mode = {0: per_rank[0]}
    for i in range(len(samples)):
        values = [r[i] for r in per_rank]
        by_mode.setdefault(1, []).append(sum(values) / ranks)
        by_mode.setdefault(2, []).append(min(values))
        by_mode.setdefault(3, []).append(max(values))
        lo, mean, hi, r0 = by_mode[2][i], by_mode[1][i], by_mode[3][i], by_mode[0][i]
        check(lo <= mean <= hi and lo <= r0 <= hi,
              f"{label}: iteration {i}: min {lo} mean {mean} max {hi} rank0 {r0} out of order")
    expected = by_mode[a]
    check(all(abs(x - y) <= 1e-9 * max(1.0, abs(y)) for x, y in zip(samples, expected))
          and len(samples) == len(expected),
          f"{label}: samples_us {samples} are not -a {a} of the ranks' {expected}")
    # loop: each rank's mean over its own iterations, then -a over ranks (nccl-tests' time).
    rank_means = [sum(r) / len(r) for r in per_rank]
    loop = {0: rank_means[0], 1: sum(rank_means) / ranks, 2: min(rank_means),
            3: max(rank_means)}[a]
    stats = {"median_us": statistics.median(samples), "min_us": min(samples),
             "max_us": max(samples), "mean_us": sum(samples) / len(samples), "loop_mean_us": loop}
    for key, value in stats.items():
        check(abs(t[key] - value) <= 1e-6 * max(1.0, value), f"{label}: {key} {t[key]} != {value}")
    # The table: time is the median (first --stats), then min, max, mean, loop after #wrong.
    for column, key in [("time", "median_us"), ("min", "min_us"), ("max", "max_us"),
                        ("mean", "mean_us"), ("loop", "loop_mean_us")]:
        check(column in side and abs(float(side[column]) - t[key]) <= 0.051,
              f"{label}: table {column} {side.get(column)} != JSON {key} {t[key]}")


def check_linear(ringlab):
    """-i: sizes min, min+i, ... up to max, in the table and the JSON."""
    table, record = run_bench(ringlab, ["-p", "2", "-b", "1000", "-e", "5500", "-i", "1500",
                                        "-n", "1", "-w", "0"])
    check_columns(table, "-i")
    sizes = [int(row[0]) for row in table.rows]
    check(sizes == [1000, 2500, 4000, 5500], f"-i 1500 from 1000 to 5500: table sizes {sizes}")
    check([r["size_bytes"] for r in record["rows"]] == sizes, "-i: JSON sizes differ")
    for row in table.rows:
        check_row_arithmetic(table, row, 2, "-i")


def check_all(ringlab):
    """-d all -o all: every type and op, nccl-tests' order, each row named in table and JSON."""
    sizes = [8, 16]
    table, record = run_bench(ringlab, ["-p", "3", "-b", "8", "-e", "16", "-n", "1", "-w", "0",
                                        "-d", "all", "-o", "all"])
    check_columns(table, "-d all -o all")
    expected = [(canonical_type(t), o, s) for t in ALL_TYPES for o in ALL_OPS for s in sizes]
    got = [(canonical_type(table.field(r, "type")), table.field(r, "redop"), int(r[0]))
           for r in table.rows]
    check(got == expected, f"-d all -o all: table rows {got[:12]}... not nccl-tests' order")
    jgot = [(canonical_type(r["dtype"]), r["op"], r["size_bytes"]) for r in record["rows"]]
    check(jgot == expected, f"-d all -o all: JSON rows {jgot[:12]}... not nccl-tests' order")
    for row in table.rows:
        check_row_arithmetic(table, row, 3, "-d all -o all")
        for k in range(2):
            check(table.side(row, k)["#wrong"] == "0", f"-d all -o all: #wrong in {row}")


def check_check(ringlab):
    """-c N: #wrong counts wrong elements (0 here); -c 0: N/A, as nccl-tests prints it."""
    for c, shown, stored in [(0, "N/A", None), (1, "0", 0), (3, "0", 0)]:
        table, record = run_bench(ringlab, ["-p", "2", "-b", "8", "-e", "64", "-n", "1",
                                            "-c", str(c)])
        check_columns(table, f"-c {c}")
        for row, jrow in zip(table.rows, record["rows"]):
            for k, key in enumerate(["out_of_place", "in_place"]):
                check(table.side(row, k)["#wrong"] == shown, f"-c {c}: #wrong in {row}")
                check(jrow[key]["wrong"] == stored, f"-c {c}: JSON wrong {jrow[key]['wrong']}")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in CHECKS:
        raise SystemExit(f"usage: {sys.argv[0]} RINGLAB {'|'.join(CHECKS)}")
    CHECKS[sys.argv[2]](sys.argv[1])
    for message in failures:
        print("FAIL:", message)
    print(f"{sys.argv[2]}: {'ok' if not failures else f'{len(failures)} failures'}")
    sys.exit(1 if failures else 0)


CHECKS = {"average": check_average, "linear": check_linear, "all": check_all,
          "check": check_check}

if __name__ == "__main__":
    main()
