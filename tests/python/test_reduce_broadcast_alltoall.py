"""reduce, broadcast and alltoall on ranks as threads of this process (inproc): closed forms at
p = 2, 3, 4 from every root, awkward sizes (0, 1, counts p does not divide), in place and out of
place, and bad input as one-line errors. test_processes.py runs them across processes."""

import numpy as np
import pytest

import ringlab
from test_collectives import contribution, expected

RANKS = [2, 3, 4]
COUNTS = [0, 1, 7, 13, 1000]  # none, one, and counts that 2, 3 and 4 do not all divide
DTYPES = [np.int32, np.float32, np.float64]


@pytest.mark.parametrize("ranks", RANKS)
def test_reduce_from_every_root_in_and_out_of_place(ranks):
    def body(comm):
        results = {}
        for root in range(ranks):
            for dtype in DTYPES:
                for op in ("sum", "prod", "max"):
                    for count in COUNTS:
                        send = contribution(op, comm.rank, count).astype(dtype)
                        kept = send.copy()
                        out = np.full(count, -1, dtype=dtype)
                        assert comm.reduce(send, out, root=root, op=op) is out
                        assert np.array_equal(send, kept)  # out of place leaves send alone
                        inplace = send.copy()
                        assert comm.reduce(inplace, root=root, op=op) is inplace
                        results[(root, dtype, op, count)] = (out, inplace)
        return results

    per_rank = ringlab.run_threads(ranks, body)
    for rank, results in enumerate(per_rank):
        for (root, dtype, op, count), (out, inplace) in results.items():
            if rank == root:
                want = expected(op, ranks, count, np.issubdtype(dtype, np.integer)).astype(dtype)
                assert np.array_equal(out, want) and np.array_equal(inplace, want), \
                    (root, dtype, op, count)
            else:  # neither out nor the in-place send is written off the root
                assert np.all(out == -1), (rank, root, dtype, op, count)
                assert np.array_equal(inplace, contribution(op, rank, count).astype(dtype))


@pytest.mark.parametrize("ranks", RANKS)
def test_broadcast_from_every_root_bit_for_bit(ranks):
    def body(comm):
        results = {}
        for root in range(ranks):
            for count in COUNTS:
                # The root's float32 bits include -0.0 and a NaN with a payload: they must
                # arrive as they are, not as arithmetic would leave them.
                bits = (np.arange(count, dtype=np.uint32) * 2654435761 + root).astype(np.uint32)
                bits[: min(count, 2)] = [0x80000000, 0x7FC12345][: min(count, 2)]
                buffer = bits.view(np.float32) if comm.rank == root else np.zeros(
                    count, np.float32)
                assert comm.broadcast(buffer, root=root) is buffer
                results[(root, count)] = buffer.view(np.uint32).copy()
                integers = np.full(count, comm.rank * 10 + 1, dtype=np.int64)
                results[(root, count, "int64")] = comm.broadcast(integers, root=root)
        return results

    for results in ringlab.run_threads(ranks, body):
        for key, got in results.items():
            root, count = key[0], key[1]
            if len(key) == 3:
                assert np.array_equal(got, np.full(count, root * 10 + 1)), key
                continue
            want = (np.arange(count, dtype=np.uint32) * 2654435761 + root).astype(np.uint32)
            want[: min(count, 2)] = [0x80000000, 0x7FC12345][: min(count, 2)]
            assert np.array_equal(got, want), key


def blocks_sent(rank, ranks, block):
    """Rank r's send: block d (for rank d) holds 1000 r + 100 d + j, j = 0..block-1."""
    return np.concatenate([1000 * rank + 100 * d + np.arange(block) for d in range(ranks)])


@pytest.mark.parametrize("ranks", RANKS)
def test_alltoall_in_and_out_of_place(ranks):
    def body(comm):
        results = {}
        for block in (0, 1, 5):
            send = blocks_sent(comm.rank, ranks, block).astype(np.int64)
            kept = send.copy()
            results[(block, "new")] = comm.alltoall(send)
            out = np.empty_like(send)
            assert comm.alltoall(send, out) is out and np.array_equal(send, kept)
            results[(block, "out")] = out
            assert comm.alltoall(send, send) is send
            results[(block, "in place")] = send
        return results

    for rank, results in enumerate(ringlab.run_threads(ranks, body)):
        for (block, how), got in results.items():
            # Block s of rank r's result is block r of rank s's send.
            want = np.concatenate([1000 * s + 100 * rank + np.arange(block)
                                   for s in range(ranks)])
            assert got.dtype == np.int64 and np.array_equal(got, want), (rank, block, how)


def test_named_algorithms_and_torch_tensors():
    torch = pytest.importorskip("torch")

    def body(comm):
        total = comm.reduce(np.full(9, comm.rank + 1.0), root=2, algo="binomial_tree")
        given = comm.broadcast(torch.arange(5) * (comm.rank == 1), root=1, algo="binomial_tree")
        swapped = comm.alltoall(torch.full((6,), comm.rank), algo="pairwise_exchange")
        return total, given, swapped

    for rank, (total, given, swapped) in enumerate(ringlab.run_threads(3, body)):
        if rank == 2:
            assert np.array_equal(total, np.full(9, 6.0))
        assert given.tolist() == [0, 1, 2, 3, 4]
        assert swapped.tolist() == [0, 0, 1, 1, 2, 2]


def raised(ranks, fn):
    with pytest.raises(ringlab.Error) as info:
        ringlab.run_threads(ranks, fn, timeout=20)
    message = str(info.value)
    assert "\n" not in message, message
    return info.value


@pytest.mark.parametrize("root", [-1, 3])
def test_root_out_of_range(root):
    want = f"root {root}: this communicator has ranks 0..2"
    assert str(raised(3, lambda c: c.reduce(np.zeros(4), root=root))) == want
    assert str(raised(3, lambda c: c.broadcast(np.zeros(4), root=root))) == want


def test_wrong_buffers_and_counts():
    e = raised(2, lambda c: c.reduce(np.zeros(8, np.float32), np.zeros(7, np.float32)))
    assert isinstance(e, ringlab.InvalidArgumentError)
    assert str(e) == ("send float32[8] array and out float32[7] array at p = 2: need the same "
                      "count")
    e = raised(2, lambda c: c.reduce(np.zeros(8, np.float32), np.zeros(8, np.float64)))
    assert "send and out must have the same dtype" in str(e)
    e = raised(3, lambda c: c.alltoall(np.zeros(7, np.int32)))
    assert str(e) == ("send int32[7] array and out int32[7] array at p = 3: need a count that "
                      "is a multiple of p")
    e = raised(2, lambda c: c.alltoall(np.zeros(8, np.int32), np.zeros(6, np.int32)))
    assert "need the same count" in str(e)
    e = raised(2, lambda c: c.alltoall(np.zeros(8, np.int32), np.zeros(8, np.int64)))
    assert "send and out must have the same dtype" in str(e)
    frozen = np.zeros(4, np.float32)
    frozen.setflags(write=False)
    assert str(raised(2, lambda c: c.broadcast(frozen))) == (
        "buffer: a read-only float32[4] array; the result is written into it (pass a writable "
        "array)")
    e = raised(2, lambda c: c.reduce(np.zeros(4, np.float32), root=0, op="mean"))
    assert "mean" in str(e) and "sum" in str(e)


def test_an_algorithm_that_does_not_build_the_collective_names_those_that_do():
    e = raised(2, lambda c: c.reduce(np.zeros(4), algo="recursive_doubling"))
    assert "'recursive_doubling' builds allreduce only, not reduce" in str(e)
    assert "binomial_tree" in str(e)
    e = raised(2, lambda c: c.alltoall(np.zeros(4), algo="binomial_tree"))
    assert "not alltoall" in str(e) and "pairwise_exchange" in str(e)
    # The ring is refused like any other name: it once ran reduce's default instead, silently.
    e = raised(2, lambda c: c.reduce(np.zeros(4), algo="ring"))
    assert "'ring'" in str(e) and "not reduce" in str(e) and "binomial_tree" in str(e)
    e = raised(2, lambda c: c.broadcast(np.zeros(4), algo="ring"))
    assert "'ring'" in str(e) and "not broadcast" in str(e)
