"""The collectives across processes: shm and tcp ranks started by `ringlab launch`, mpi ranks by
mpirun (where ringlab was built with MPI), each running rank_script.py. Every rank must hold the
closed form, bitwise the same as every other rank."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ringlab_cli

SCRIPT = os.path.join(os.path.dirname(__file__), "rank_script.py")


def check(folder, ranks, transport):
    per_rank = [np.load(os.path.join(folder, f"rank{r}.npz")) for r in range(ranks)]
    for r, saved in enumerate(per_rank):
        assert list(saved["rank_and_size"]) == [r, ranks, 1]
        for name in saved.files:
            if name not in ("rank_and_size", "reduce_scatter", "alltoall"):
                assert saved[name].tobytes() == per_rank[0][name].tobytes(), (transport, name)
        block = np.arange(r * 5, r * 5 + 5)
        assert np.array_equal(saved["reduce_scatter"], ranks * block + ranks * (ranks - 1) / 2)
        assert np.array_equal(saved["allgather"], np.repeat(np.arange(ranks), 3))
        reduced = ranks * np.arange(7) + ranks * (ranks - 1) // 2
        assert np.array_equal(saved["reduce_at_root"], reduced)
        for root in range(ranks):
            assert np.array_equal(saved[f"broadcast_from_{root}"], np.full(13, root * 11))
        # Block s (2 elements) comes from rank s's block r: 100 s + 2 r + (0, 1).
        assert np.array_equal(saved["alltoall"],
                              [100 * s + 2 * r + j for s in range(ranks) for j in range(2)])
    i = np.arange(1000) % 5
    sums = ranks * (ranks + 1) // 2 + ranks * i
    big = np.arange(300001) % 5
    assert np.array_equal(per_rank[0]["allreduce_shared_300001"],
                          ranks * (ranks + 1) // 2 + ranks * big)
    for dtype in ("int8", "uint32", "int64", "float16", "float32", "float64"):
        got = per_rank[0]
        assert np.array_equal(got[f"allreduce_{dtype}_sum_1000"], sums)
        assert np.array_equal(got[f"allreduce_{dtype}_max_1000"], ranks + i)
        assert np.array_equal(got[f"allreduce_{dtype}_min_1000"], 1 + i)
        mean = (ranks + 1) / 2 + i
        want = np.trunc(mean) if dtype.startswith(("int", "uint")) else mean
        assert np.array_equal(got[f"allreduce_{dtype}_avg_1000"], want)
        odd = [sum(1 for r in range(ranks) if (r + k) % 2) for k in range(2)]
        assert np.array_equal(got[f"allreduce_{dtype}_prod_7"],
                              [2 ** odd[k % 2] for k in range(7)])


@pytest.mark.parametrize("transport,ranks", [("shm", 3), ("tcp", 3), ("tcp", 2)])
def test_launched_ranks(transport, ranks, tmp_path):
    done = ringlab_cli.launch(ranks, SCRIPT, transport, str(tmp_path))
    assert done.returncode == 0, done.stderr
    check(str(tmp_path), ranks, transport)


def test_a_script_outside_a_job_is_told_how_to_launch():
    done = subprocess.run([sys.executable, SCRIPT, "tcp", "."], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items()
                               if not k.startswith("RINGLAB_") or k == "RINGLAB_BINARY"})
    assert done.returncode != 0
    assert "ringlab.errors.InvalidArgumentError" in done.stderr and "launch" in done.stderr


@pytest.mark.skipif(not os.environ.get("RINGLAB_MPIEXEC"), reason="built without MPI")
def test_mpi_ranks_under_mpirun(tmp_path):
    # The options and environment tests/mpi_tests.cmake uses for Open MPI (root, oversubscribed,
    # no single-copy shared memory in containers).
    environment = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                       OMPI_MCA_btl_vader_single_copy_mechanism="none")
    done = subprocess.run([os.environ["RINGLAB_MPIEXEC"], "-np", "2", "--oversubscribe",
                           "--bind-to", "none", sys.executable, SCRIPT, "mpi", str(tmp_path)],
                          capture_output=True, text=True, env=environment, timeout=120)
    assert done.returncode == 0, done.stderr
    check(str(tmp_path), 2, "mpi")
