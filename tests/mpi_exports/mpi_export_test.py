#!/usr/bin/env python3
"""The MPI exports of `ringlab tune` change what the installed MPI library does.

A decision table (ours, p = 4, one algorithm per size band) is exported with `ringlab tune
--tuned`; allreduce_probe then runs one MPI_Allreduce per band under the library, with the file
and without it, and what the library sent inside each call is read from the library's own
accounting and matched against each allreduce algorithm's message pattern:

  openmpi  Open MPI's pml monitoring (--mca pml_monitoring_enable 2: the "I" lines, messages the
           library sent for its collectives, per peer, at MPI_Finalize); one run per band.
  mpich    the messages MPICH hands to UCX, counted per endpoint by ucx_send_counter (LD_PRELOAD)
           from just before each call to just after it; MPIR_CVAR_NOLOCAL=1 makes the one host
           several nodes to MPICH, so its allreduce takes the selection file's path, not its
           shared-memory one.

Each band must run the algorithm the file names, and without the file another one. The launch
line ringlab prints must refuse a file that is not there (the libraries do not).

Usage: mpi_export_test.py openmpi RINGLAB PROBE MPIRUN
       mpi_export_test.py mpich RINGLAB PROBE MPIEXEC COUNTER
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

P = 4
FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def table(bands):
    """A ringlab-tune/1 decision table whose rules are `bands` [(from_bytes, algorithm)]: each
    band's algorithm measured fastest at its first size."""
    names = sorted({a for _, a in bands})
    measured = [{"bytes": max(b, 8), "time_us": {n: (1.0 if n == a else 2.0) for n in names}}
                for b, a in bands]
    return {"format": "ringlab-tune/1", "p": P, "transport": "test", "dtype": "float32",
            "host": "test", "ringlab_version": "test", "date": "test", "rules": [],
            "measured": measured}


def export(ringlab, workdir, bands, option, name, *extra):
    """Runs `ringlab tune --tuned` and returns (the file, ringlab's text)."""
    tuned = os.path.join(workdir, "tune.json")
    with open(tuned, "w") as f:
        json.dump(table(bands), f)
    path = os.path.join(workdir, name)
    done = subprocess.run([ringlab, "tune", "--tuned", tuned, option, path, *extra],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        sys.exit("ringlab tune --tuned failed: " + done.stderr)
    return path, done.stdout


def use_line(text):
    """The launch line ringlab printed ("#   test -r FILE && ..."), without its comment mark and
    its trailing "..."."""
    for line in text.splitlines():
        if line.startswith("#   test -r "):
            return line[4:].removesuffix(" ...")
    sys.exit("no launch line in ringlab's output:\n" + text)


def classify(traffic, n):
    """The algorithms whose message pattern at p = 4 is exactly `traffic` {(src, dst): (messages,
    bytes)} for an allreduce of n bytes (Open MPI's implementations,
    ompi/mca/coll/base/coll_base_allreduce.c)."""
    partners = [(r, r ^ d) for r in range(P) for d in (1, 2)]
    found = []
    if traffic == {(r, (r + 1) % P): (2 * (P - 1), 2 * (P - 1) * n // P) for r in range(P)}:
        found.append("ring")  # reduce-scatter then allgather around the ring, p - 1 steps each
    if traffic == {(r, q): (1, n) for r, q in partners}:
        found.append("recursive_doubling")  # the whole vector to r^1, then to r^2
    if traffic == {(r, q): (2, n // (r ^ q)) for r, q in partners}:
        found.append("rabenseifner")  # halves to r^1, quarters to r^2, and back
    if (sum(m for m, _ in traffic.values()) == 2 * (P - 1)
            and all(b == m * n for m, b in traffic.values())
            and {s for s, _ in traffic} | {d for _, d in traffic} == set(range(P))):
        found.append("binomial_tree")  # nonoverlapping: reduce to rank 0, then broadcast
    return found


OPENMPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_btl_vader_single_copy_mechanism="none")


def openmpi_command(mpirun, probe, size, rules):
    command = [mpirun, "-np", str(P), "--oversubscribe", "--bind-to", "none",
               "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "1"]
    if rules:
        command += ["--mca", "coll_tuned_use_dynamic_rules", "1",
                    "--mca", "coll_tuned_dynamic_rules_filename", rules]
    return command + [probe, str(size)]


def openmpi_traffic(command, shell=False):
    """(exit status, {(src, dst): (messages, bytes)}) of the collectives' messages in one run."""
    done = subprocess.run(command, shell=shell, capture_output=True, text=True, timeout=120,
                          env=OPENMPI_ENV)
    traffic = {}
    for line in (done.stdout + done.stderr).splitlines():
        m = re.match(r"I\t(\d+)\t(\d+)\t(\d+) bytes\t(\d+) msgs sent", line)
        if m:
            src, dst, size, count = map(int, m.groups())
            traffic[(src, dst)] = (count, size)
    return done.returncode, traffic


def test_openmpi(ringlab, probe, mpirun):
    bands = [(0, "rabenseifner"), (16384, "ring"), (262144, "recursive_doubling"),
             (4194304, "binomial_tree")]
    sizes = {1024: "rabenseifner", 65536: "ring", 1048576: "recursive_doubling",
             8388608: "binomial_tree"}
    with tempfile.TemporaryDirectory() as workdir:
        rules, said = export(ringlab, workdir, bands, "--ompi-rules", "rules.conf")
        installed = re.search(r"for Open MPI (\S+)\)", said).group(1)
        version = tuple(int(x) for x in re.findall(r"\d+", installed)[:3])
        versioned = version >= (5, 0, 7) or (4, 1, 8) <= version < (5, 0, 0)
        with open(rules) as f:
            first = f.readline()
        check(first.startswith("rule-file-version-2") == versioned,
              f"the file for Open MPI {installed} is in its format (first line: {first.strip()})")
        defaults = {}
        for size, algorithm in sizes.items():
            _, without = openmpi_traffic(openmpi_command(mpirun, probe, size, None))
            rc, with_file = openmpi_traffic(openmpi_command(mpirun, probe, size, rules))
            defaults[size] = classify(without, size)
            check(rc == 0 and classify(with_file, size) == [algorithm],
                  f"{size} B with the file: {classify(with_file, size)} (the file names "
                  f"{algorithm}); sent {sorted(with_file.items())}")
            check(algorithm not in defaults[size] and without,
                  f"{size} B without the file: {defaults[size]}; sent {sorted(without.items())}")

        if not versioned:  # the other format is ignored without a word, as the issue found
            other, _ = export(ringlab, workdir, bands, "--ompi-rules", "v2.conf",
                              "--ompi-version", "4.1.8")
            _, traffic = openmpi_traffic(openmpi_command(mpirun, probe, 1024, other))
            check(classify(traffic, 1024) == defaults[1024],
                  f"Open MPI {installed} ignores a rule-file-version-2 file: 1024 B runs "
                  f"{classify(traffic, 1024)}, its own choice")

        # A path that is not there: Open MPI keeps its defaults without a word; the line ringlab
        # prints stops before mpirun starts.
        line = use_line(said)
        os.remove(rules)
        launch = shlex.join(openmpi_command(mpirun, probe, 1024, rules))
        rc, traffic = openmpi_traffic(launch, shell=True)
        check(rc == 0 and classify(traffic, 1024) == defaults[1024],
              "Open MPI given a missing rules file: exit 0, its own choice "
              f"{classify(traffic, 1024)}")
        launcher = shlex.join(openmpi_command(mpirun, probe, 1024, None)[:-2])
        printed = line.replace("mpirun ", launcher + " ", 1) + f" {shlex.quote(probe)} 1024"
        rc, traffic = openmpi_traffic(printed, shell=True)
        check(rc != 0 and not traffic,
              f"ringlab's launch line with the file missing: exit {rc}, nothing run")


def mpich_traffic(mpiexec, probe, counter, sizes, selection):
    """{size: {rank: sorted [(messages, bytes)] per endpoint}} of one run over every size."""
    env = dict(os.environ, MPIR_CVAR_NOLOCAL="1")
    env.pop("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", None)
    if selection:
        env["MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"] = selection
    done = subprocess.run([mpiexec, "-n", str(P), "-env", "LD_PRELOAD", counter, probe,
                           *map(str, sizes)], capture_output=True, text=True, timeout=120,
                          env=env)
    if done.returncode != 0:
        sys.exit("the MPICH run failed:\n" + done.stdout + done.stderr)
    traffic = {}
    for m in re.finditer(r"size (\d+) rank (\d+) ep \d+ msgs (\d+) bytes (\d+)", done.stdout):
        size, rank, count, total = map(int, m.groups())
        traffic.setdefault(size, {}).setdefault(rank, []).append((count, total))
    return {s: {r: sorted(v) for r, v in ranks.items()} for s, ranks in traffic.items()}


def classify_mpich(ranks, n):
    """MPICH's algorithms at p = 4 (src/mpi/coll/allreduce/), by what each rank sent to each of
    its peers: recursive doubling the whole vector once to each of two; reduce_scatter_allgather
    (Rabenseifner) two messages to each, halves to one and quarters to the other."""
    if len(ranks) != P:
        return []
    patterns = {"recursive_doubling": [(1, n), (1, n)],
                "rabenseifner": [(2, n // 2), (2, n)]}
    return [name for name, sent in patterns.items() if all(v == sent for v in ranks.values())]


def test_mpich(ringlab, probe, mpiexec, counter):
    bands = [(0, "recursive_doubling"), (16384, "rabenseifner"), (262144, "recursive_doubling")]
    sizes = {1024: "recursive_doubling", 65536: "rabenseifner", 1048576: "recursive_doubling"}
    with tempfile.TemporaryDirectory() as workdir:
        selection, said = export(ringlab, workdir, bands, "--mpich-json", "selection.json")
        with_file = mpich_traffic(mpiexec, probe, counter, sizes, selection)
        without = mpich_traffic(mpiexec, probe, counter, sizes, None)
        for size, algorithm in sizes.items():
            found = classify_mpich(with_file.get(size, {}), size)
            check(found == [algorithm],
                  f"{size} B with the file: {found} (the file names {algorithm}); rank 0 sent "
                  f"{with_file.get(size, {}).get(0)}")
            default = classify_mpich(without.get(size, {}), size)
            check(len(default) == 1, f"{size} B without the file: MPICH's own choice {default}; "
                  f"rank 0 sent {without.get(size, {}).get(0)}")
        changed = [s for s, a in sizes.items() if classify_mpich(without.get(s, {}), s) != [a]]
        check(changed, f"the file changes what MPICH runs at {changed} B")

        # A path that is not there: MPICH crashes; the printed line stops before it starts.
        line = use_line(said)
        os.remove(selection)
        env = dict(os.environ, MPIR_CVAR_NOLOCAL="1",
                   MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=selection)
        done = subprocess.run([mpiexec, "-n", "2", probe, "8"], capture_output=True, text=True,
                              timeout=120, env=env)
        check(done.returncode != 0, f"MPICH given a missing selection file: exit {done.returncode}")
        printed = line.replace("mpiexec", shlex.quote(mpiexec) + " -n 2 " + shlex.quote(probe), 1)
        done = subprocess.run(printed + " 8", shell=True, capture_output=True, text=True,
                              timeout=120)
        check(done.returncode != 0 and "wrong" not in done.stdout,
              f"ringlab's launch line with the file missing: exit {done.returncode}, nothing run")


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "openmpi":
        test_openmpi(*sys.argv[2:5])
    elif len(sys.argv) >= 6 and sys.argv[1] == "mpich":
        test_mpich(*sys.argv[2:6])
    else:
        sys.exit(__doc__)
    if FAILURES:
        sys.exit(f"{len(FAILURES)} check(s) failed")


if __name__ == "__main__":
    main()
