"""bench/peers/report.py on a small synthetic results.csv of three rounds: ratios within each
round, the worst and the median over rounds, goals judged by the worst round, a wrong round
marked; and a results.csv of the format before rounds (one round, no round column).

Usage: peers_report_test.py REPORT_PY"""

import os
import subprocess
import sys
import tempfile

HEADER = "peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,round"
KIB64, MIB16 = 64 << 10, 16 << 20


def row(peer, variant, size, time, rnd, wrong=0):
    return f"{peer},{variant},2,{size},{time},1,{wrong},v,3,,{rnd}"


ROWS = [
    # 64 KiB: shm's ratios against the faster MPI of each round are 100/50, 80/100, 90/60.
    row("openmpi", "MPI_Allreduce", KIB64, 100, 1), row("mpich", "MPI_Allreduce", KIB64, 120, 1),
    row("ringlab", "shm", KIB64, 50, 1),
    row("openmpi", "MPI_Allreduce", KIB64, 100, 2), row("mpich", "MPI_Allreduce", KIB64, 80, 2),
    row("ringlab", "shm", KIB64, 100, 2),
    row("openmpi", "MPI_Allreduce", KIB64, 90, 3), row("mpich", "MPI_Allreduce", KIB64, 200, 3),
    row("ringlab", "shm", KIB64, 60, 3),
    # 16 MiB: tcp 3x and 2x Gloo, then wrong in round 3.
    row("gloo", "ring", MIB16, 3000, 1), row("ringlab", "tcp", MIB16, 1000, 1),
    row("gloo", "ring", MIB16, 2000, 2), row("ringlab", "tcp", MIB16, 1000, 2),
    row("gloo", "ring", MIB16, 1800, 3), row("ringlab", "tcp", MIB16, 1000, 3, wrong=5),
]


def table(report, lines):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "results.csv")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return subprocess.run([sys.executable, report, "table", path], check=True, capture_output=True,
                              text=True).stdout


def expect(text, needle):
    if needle not in text:
        sys.exit(f"FAIL: missing {needle!r} in:\n{text}")


def main(report):
    out = table(report, [HEADER] + ROWS)
    expect(out, "Rounds: 3.")
    # size | best peer | peer us (median over rounds) | shm us | x worst | x median | tcp ...
    expect(out, "| 64 KiB | openmpi:MPI_Allreduce | 100.0 | 60.0 | 0.80 | 1.50 | missing | - | - |")
    expect(out, "| 16 MiB | gloo:ring | 2000.0 | missing | - | - | 1000.0 WRONG(5) | 0.00 | 2.00 |")
    expect(out, "| shm p=2, 64 KiB..16 MiB: >= 1.0x the faster MPI | shm | 64 KiB | 60.0 | "
                "openmpi:MPI_Allreduce 100.0 | 0.80 | 1.00 | MISSED |")
    expect(out, "| tcp p=2, >= 1 MiB: >= 1.5x the best Gloo variant | tcp | 16 MiB | 1000.0 WRONG(5) | "
                "gloo:ring 2000.0 | 0.00 | 1.50 | MISSED |")
    # Before rounds: ten columns, one round, the same ratio twice.
    old = table(report, [HEADER.rsplit(",", 1)[0]] + [r.rsplit(",", 1)[0] for r in ROWS[:3]])
    expect(old, "Rounds: 1.")
    expect(old, "| 64 KiB | openmpi:MPI_Allreduce | 100.0 | 50.0 | 2.00 | 2.00 |")
    expect(old, "| shm p=2, 64 KiB..16 MiB: >= 1.0x the faster MPI | shm | 64 KiB | 50.0 | "
                "openmpi:MPI_Allreduce 100.0 | 2.00 | 1.00 | met |")
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
