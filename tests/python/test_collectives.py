"""The collectives on ranks as threads of this process (inproc): every dtype and op against closed
forms, bitwise equality across ranks, awkward sizes, in place and out of place, and the result in
the caller's own memory (no copy)."""

import json
import threading

import numpy as np
import pytest

import ringlab

NUMPY_TYPES = [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64, np.float16,
               np.float32, np.float64]
OPS = ["sum", "prod", "min", "max", "avg"]
SIZES = [1, 7, 13, 1000, 4099]  # one element, primes, and counts p does not divide


def contribution(op, rank, count):
    """What rank r puts in: small integers, exact in every dtype (bfloat16 included)."""
    i = np.arange(count)
    if op == "prod":
        return 1 + (rank + i) % 2               # 1 or 2
    if op in ("min", "max"):
        return (rank * 7 + i) % 11
    return (rank + 1) + i % 5                   # sum, avg


def expected(op, ranks, count, integer):
    """The closed form of the reduction over p ranks, in exact integers (or halves for avg)."""
    i = np.arange(count)
    if op == "sum":
        return ranks * (ranks + 1) // 2 + ranks * (i % 5)
    if op == "prod":
        odd = np.array([sum(1 for r in range(ranks) if (r + k) % 2) for k in range(2)])
        return 2 ** odd[i % 2]
    if op == "min":
        return np.min([(r * 7 + i) % 11 for r in range(ranks)], axis=0)
    if op == "max":
        return np.max([(r * 7 + i) % 11 for r in range(ranks)], axis=0)
    # avg: the sum divided once by p, truncated toward zero for integers (NCCL's ncclAvg).
    mean = (ranks + 1) / 2 + i % 5
    return np.trunc(mean) if integer else mean


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_allreduce_every_numpy_dtype_and_op_in_and_out_of_place(ranks):
    def body(comm):
        results = {}
        for dtype in NUMPY_TYPES:
            for op in OPS:
                for count in SIZES:
                    send = contribution(op, comm.rank, count).astype(dtype)
                    kept = send.copy()
                    out = np.empty_like(send)
                    assert comm.allreduce(send, out, op=op) is out
                    assert np.array_equal(send, kept)  # out of place leaves send alone
                    inplace = send.copy()
                    assert comm.allreduce(inplace, op=op) is inplace
                    results[(dtype, op, count)] = (out, inplace)
        return results

    per_rank = ringlab.run_threads(ranks, body)
    for (dtype, op, count), (out, inplace) in per_rank[0].items():
        integer = np.issubdtype(dtype, np.integer)
        want = expected(op, ranks, count, integer).astype(dtype)
        assert out.dtype == dtype and np.array_equal(out, want), (dtype, op, count)
        for rank in per_rank:
            assert rank[(dtype, op, count)][0].tobytes() == out.tobytes()
            assert rank[(dtype, op, count)][1].tobytes() == out.tobytes()


def test_allreduce_results_are_bitwise_equal_across_ranks_on_rounding_floats():
    # Values whose sum rounds differently in different orders: every rank must still hold the
    # same bits (one reduction order, then copies).
    def body(comm):
        rng = np.random.default_rng(comm.rank)
        x = rng.standard_normal(1009).astype(np.float32) * 10.0 ** rng.integers(-6, 6, 1009)
        results = []
        for algo in ("ring", "auto"):
            y = x.copy()
            comm.allreduce(y, op="sum", algo=algo)
            results.append(y.tobytes())
        return results

    per_rank = ringlab.run_threads(5, body)
    assert all(r == per_rank[0] for r in per_rank)


def test_reduce_scatter_and_allgather_closed_forms_in_and_out_of_place():
    ranks, block = 3, 7

    def body(comm):
        r = comm.rank
        send = (np.arange(ranks * block) + r).astype(np.float64)
        out = comm.reduce_scatter(send)  # new buffer
        mine = slice(r * block, (r + 1) * block)
        inplace = send.copy()
        view = inplace[mine]
        assert comm.reduce_scatter(inplace, view) is view
        gathered = comm.allgather(np.full(block, r, dtype=np.int32))
        full = np.zeros(ranks * block, dtype=np.int32)
        full[mine] = r
        assert comm.allgather(full[mine], full) is full
        return out, view.copy(), gathered, full

    for r, (out, view, gathered, full) in enumerate(ringlab.run_threads(ranks, body)):
        i = np.arange(r * block, (r + 1) * block)
        assert np.array_equal(out, ranks * i + ranks * (ranks - 1) / 2)
        assert np.array_equal(view, out)
        want = np.repeat(np.arange(ranks), block).astype(np.int32)
        assert np.array_equal(gathered, want) and np.array_equal(full, want)


def test_results_land_in_the_callers_memory():
    def body(comm):
        x = np.ones((4, 5), dtype=np.float32)  # 2-D and C-contiguous: reduced as 20 elements
        address = x.ctypes.data
        y = comm.allreduce(x)
        out = np.empty(20, dtype=np.float32)
        z = comm.allreduce(x, out)
        return y is x and np.shares_memory(y, x) and x.ctypes.data == address, \
            z is out and not np.shares_memory(z, x), float(x[3, 4]), float(out[0])

    for in_place, out_of_place, x, out in ringlab.run_threads(2, body):
        assert in_place and out_of_place
        assert (x, out) == (2.0, 4.0)


@pytest.mark.parametrize("algo", ringlab.algorithms() + ["auto"])
def test_every_registered_algorithm_and_auto(algo):
    extra = {"multi_ring": {"channels": 2}, "hierarchical": {"ranks_per_node": 2}}.get(algo, {})

    def body(comm):
        x = np.arange(1000, dtype=np.int64) * (comm.rank + 1)
        comm.allreduce(x, algo=algo, **extra)
        return x

    for x in ringlab.run_threads(4, body):
        assert np.array_equal(x, np.arange(1000) * 10)


def test_ring_order_and_segment_size_as_the_cli_takes_them():
    def body(comm):
        x = np.full(100003, comm.rank, dtype=np.float64)
        comm.allreduce(x, ring_order=[0, 2, 1, 3])
        comm.allreduce(x, ring_stride=3)
        return x

    for x in ringlab.run_threads(4, body, segment_size="4K"):
        assert np.all(x == 6 * 4)


def test_a_world_for_threads_the_caller_runs_and_empty_buffers():
    world = ringlab.InprocWorld(3)
    results = [None] * 3

    def rank(r):
        comm = world.communicator(r)
        x = np.full(5, r, dtype=np.int32)
        comm.allreduce(x)
        results[r] = (comm.rank, comm.size, comm.transport, x.tolist(),
                      comm.allreduce(np.zeros(0, dtype=np.float32)).size)

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [(r, 3, "inproc", [3] * 5, 0) for r in range(3)]


def test_auto_follows_a_tuned_decision_table(tmp_path):
    # A table (as `ringlab tune` writes) saying binomial_tree is fastest at every size: auto must
    # then reduce in the tree's order, which rounds these floats differently from the ring's.
    table = {"format": "ringlab-tune/1", "p": 4, "transport": "inproc", "dtype": "float32",
             "host": "h", "ringlab_version": "v", "date": "d", "rules": [],
             "measured": [{"bytes": 8, "time_us": {"ring": 9.0, "binomial_tree": 1.0}}]}
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table))

    def body(comm):
        rng = np.random.default_rng(comm.rank)
        x = (rng.standard_normal(4001) * 10.0 ** rng.integers(-5, 5, 4001)).astype(np.float32)
        return [comm.allreduce(x, np.empty_like(x), algo=algo).tobytes()
                for algo in ("auto", "binomial_tree", "ring")]

    auto, tree, ring = ringlab.run_threads(4, body, tuned=str(path))[0]
    assert auto == tree and tree != ring
    with pytest.raises(ringlab.InvalidArgumentError, match="missing.json"):
        ringlab.run_threads(2, body, profile=str(tmp_path / "missing.json"))
