#!/usr/bin/env python3
"""The rankfile and machinefile `ringlab topo search` exports, with the user's hosts, are taken by
the installed launchers and place the ranks as written.

One node with two slots (this host, "localhost slots=2" in a hostfile) and the ring order 1,0:
the rankfile renumbers the ranks so that rank 0 sits on slot 1 and rank 1 on slot 0. Under
`mpirun --rankfile` each rank of where_probe reports the CPUs it was bound to; by default
(`--bind-to core`, no rankfile) Open MPI binds them the other way round. The machinefile, with
`--hosts n0=localhost`, is taken by MPICH's mpiexec -f, every rank on the named host.

Usage: rank_placement_test.py RINGLAB OPENMPI_PROBE MPIRUN [MPICH_PROBE MPIEXEC]
Exits 77 (skipped) on a machine with fewer than two CPUs to bind to.
"""
import os
import re
import subprocess
import sys
import tempfile

FAILURES = []
OPENMPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_btl_vader_single_copy_mechanism="none")


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def run(command, env=None):
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    return done.returncode, done.stdout + done.stderr


def where(output):
    """{rank: (host, cpus)} from where_probe's lines."""
    return {int(m[1]): (m[2], m[3]) for m in
            re.finditer(r"^rank (\d+) host (\S+) cpus (\S*)$", output, re.MULTILINE)}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ringlab, probe, mpirun = sys.argv[1:4]
    if len(os.sched_getaffinity(0)) < 2:
        print("skipped: fewer than two CPUs to bind ranks to")
        sys.exit(77)
    cpus = sorted(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory() as workdir:
        hostfile = os.path.join(workdir, "hosts")
        with open(hostfile, "w") as f:
            f.write("# this machine\nlocalhost slots=2\n")
        rankfile = os.path.join(workdir, "ring.rankfile")
        rc, out = run([ringlab, "topo", "search", "--topo", "nodes=1,ranks=2", "--placement",
                       "block", "--order", "1,0", "--export", "rankfile", "--export-file",
                       rankfile, "--hostfile", hostfile])
        check(rc == 0, "ringlab exports the rankfile: " + out.strip())
        with open(rankfile) as f:
            text = f.read()
        check("rank 0=localhost slot=1\nrank 1=localhost slot=0\n" in text,
              "the rankfile names the host and puts ring position i at rank i: " + text)

        launch = [mpirun, "-np", "2"]
        rc, out = run(launch + ["--rankfile", rankfile, "--report-bindings", probe],
                      OPENMPI_ENV)
        placed = where(out)
        print(out.strip())
        check(rc == 0 and placed.get(0, ("", ""))[1] == str(cpus[1])
              and placed.get(1, ("", ""))[1] == str(cpus[0]),
              f"mpirun --rankfile: rank 0 on CPU {cpus[1]}, rank 1 on CPU {cpus[0]}: {placed}")
        rc, out = run(launch + ["--bind-to", "core", probe], OPENMPI_ENV)
        default = where(out)
        check(rc == 0 and default.get(0, ("", ""))[1] == str(cpus[0]),
              f"without it Open MPI binds rank 0 to CPU {cpus[0]}: {default}")

        if len(sys.argv) >= 6:
            mpich_probe, mpiexec = sys.argv[4:6]
            machinefile = os.path.join(workdir, "ring.hosts")
            rc, out = run([ringlab, "topo", "search", "--topo", "nodes=1,ranks=2", "--placement",
                           "block", "--order", "1,0", "--export", "machinefile", "--export-file",
                           machinefile, "--hosts", "n0=localhost"])
            with open(machinefile) as f:
                text = f.read()
            check(rc == 0 and text.endswith("localhost:1\nlocalhost:1\n"),
                  "the machinefile names the host: " + text)
            rc, out = run([mpiexec, "-f", machinefile, "-n", "2", mpich_probe])
            ranks = where(out)
            check(rc == 0 and sorted(ranks) == [0, 1],
                  f"mpiexec -f takes the machinefile and runs both ranks: {ranks}")
    if FAILURES:
        sys.exit(f"{len(FAILURES)} check(s) failed")


if __name__ == "__main__":
    main()
