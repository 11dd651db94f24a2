"""Bad input raises ringlab's exceptions with its one-line message and code; a failing rank stops
the others instead of leaving them waiting."""

import numpy as np
import pytest

import ringlab


def one_rank(fn):
    """fn(communicator) at p = 2, on the rank that fails first."""
    return ringlab.run_threads(2, fn, timeout=20)


def raised(fn):
    with pytest.raises(ringlab.Error) as info:
        fn()
    return info.value


def test_wrong_dtype_names_it_and_the_valid_ones():
    e = raised(lambda: one_rank(lambda c: c.allreduce(np.zeros(4, dtype=np.int16))))
    assert isinstance(e, ringlab.InvalidArgumentError) and isinstance(e, ValueError)
    assert e.code == ringlab.ErrorCode.InvalidArgument
    assert str(e).startswith("send: dtype int16 is not one ringlab reduces; valid: int8 uint8")
    e = raised(lambda: one_rank(lambda c: c.allreduce(np.zeros(4, dtype=bool))))
    assert "dtype bool" in str(e)


def test_non_contiguous_array_is_refused():
    e = raised(lambda: one_rank(lambda c: c.allreduce(np.zeros(8, dtype=np.float32)[::2])))
    assert str(e) == ("send: a non-contiguous float32[4] array; ringlab needs C-contiguous "
                      "memory (numpy.ascontiguousarray)")


def test_read_only_array_cannot_take_the_result_but_can_be_sent():
    def in_place(comm):
        x = np.ones(4, dtype=np.float32)
        x.setflags(write=False)
        comm.allreduce(x)

    e = raised(lambda: one_rank(in_place))
    assert str(e) == ("out: a read-only float32[4] array; the result is written into it (pass a "
                      "writable array, or out=)")

    def out_of_place(comm):
        x = np.ones(4, dtype=np.float32)
        x.setflags(write=False)
        return comm.allreduce(x, np.empty(4, dtype=np.float32))

    assert [list(r) for r in one_rank(out_of_place)] == [[2.0] * 4] * 2


def test_size_and_dtype_mismatches_between_send_and_out():
    e = raised(lambda: one_rank(
        lambda c: c.allreduce(np.zeros(8, np.float32), np.zeros(7, np.float32))))
    assert str(e) == ("send float32[8] array and out float32[7] array at p = 2: need the same "
                      "count")
    e = raised(lambda: one_rank(
        lambda c: c.reduce_scatter(np.zeros(9, np.float32), np.zeros(4, np.float32))))
    assert "need send = p x out elements" in str(e)
    e = raised(lambda: one_rank(
        lambda c: c.allgather(np.zeros(3, np.int32), np.zeros(7, np.int32))))
    assert "need out = p x send elements" in str(e)
    e = raised(lambda: one_rank(
        lambda c: c.allreduce(np.zeros(8, np.float32), np.zeros(8, np.float64))))
    assert "send and out must have the same dtype" in str(e)


def test_overlapping_buffers_that_are_not_in_place():
    def body(comm):
        x = np.zeros(16, np.float32)
        comm.allreduce(x[:8], x[4:12])

    assert "overlap without being the in-place layout" in str(raised(lambda: one_rank(body)))


def test_unknown_op_and_algorithm_and_non_buffers():
    e = raised(lambda: one_rank(lambda c: c.allreduce(np.zeros(4, np.float32), op="mean")))
    assert "mean" in str(e) and "sum" in str(e) and "avg" in str(e)
    e = raised(lambda: one_rank(lambda c: c.allreduce(np.zeros(4, np.float32), algo="nope")))
    assert "nope" in str(e) and "ring" in str(e)
    e = raised(lambda: one_rank(lambda c: c.allreduce([1.0, 2.0])))
    assert str(e).startswith("send: a list; ringlab takes numpy arrays")


def test_ranks_that_disagree_fail_with_mismatch():
    def body(comm):
        comm.allreduce(np.zeros(8 + comm.rank, np.float32))

    e = raised(lambda: one_rank(body))
    assert isinstance(e, ringlab.MismatchError) and e.code == ringlab.ErrorCode.Mismatch


def test_a_rank_that_raises_stops_the_others():
    def body(comm):
        if comm.rank == 1:
            raise RuntimeError("rank 1 gives up")
        comm.allreduce(np.zeros(4, np.float32))  # would wait for rank 1 until the timeout

    with pytest.raises(RuntimeError, match="rank 1 gives up"):
        ringlab.run_threads(3, body, timeout=600)


def test_bad_world_arguments():
    assert isinstance(raised(lambda: ringlab.run_threads(2, lambda c: None, timeout="5parsecs")),
                      ringlab.InvalidArgumentError)
    e = raised(lambda: ringlab.InprocWorld(2).communicator(2))
    assert "rank 2" in str(e)
    e = raised(lambda: ringlab.connect("carrier-pigeon"))
    assert "carrier-pigeon" in str(e)
