"""The collectives on torch CPU tensors, bfloat16 included (numpy has none): closed forms, every
dtype torch shares with ringlab, the result in the tensor's own memory."""

import pytest

torch = pytest.importorskip("torch")

import ringlab  # noqa: E402

TORCH_TYPES = [torch.int8, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
               torch.float32, torch.float64]


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "avg"])
def test_every_torch_dtype_in_place_and_out_of_place(op):
    ranks, count = 3, 13

    def contribution(rank, dtype):
        i = torch.arange(count)
        values = {"prod": 1 + (rank + i) % 2, "min": (rank * 7 + i) % 11,
                  "max": (rank * 7 + i) % 11}.get(op, (rank + 1) + i % 5)
        return values.to(dtype)

    def body(comm):
        results = {}
        for dtype in TORCH_TYPES:
            t = contribution(comm.rank, dtype)
            address = t.data_ptr()
            out = torch.empty_like(t)
            assert comm.allreduce(t, out, op=op) is out
            assert comm.allreduce(t, op=op) is t and t.data_ptr() == address
            results[dtype] = (out, t)
        return results

    per_rank = ringlab.run_threads(ranks, body)
    for dtype in TORCH_TYPES:
        stacked = torch.stack([contribution(r, torch.float64) for r in range(ranks)])
        want = {"sum": stacked.sum(0), "prod": stacked.prod(0), "min": stacked.min(0).values,
                "max": stacked.max(0).values}.get(op)
        if want is None:  # avg: the sum divided once by p, truncated for integers
            want = stacked.sum(0) / ranks
            if not dtype.is_floating_point:
                want = want.trunc()
        for out, t in (r[dtype] for r in per_rank):
            assert out.dtype == dtype and torch.equal(out, want.to(dtype)), (dtype, op)
            assert torch.equal(t, out)


def test_bfloat16_reduce_scatter_and_allgather_and_parameters():
    def body(comm):
        send = torch.arange(8, dtype=torch.bfloat16) + comm.rank
        block = comm.reduce_scatter(send)
        gathered = comm.allgather(block)
        weight = torch.nn.Parameter(torch.ones(5))  # a leaf that requires grad: its memory
        comm.allreduce(weight.data)
        return block, gathered, weight

    for r, (block, gathered, weight) in enumerate(ringlab.run_threads(2, body)):
        assert block.dtype == torch.bfloat16
        assert block.tolist() == [2.0 * i + 1 for i in range(4 * r, 4 * r + 4)]
        assert gathered.tolist() == [2.0 * i + 1 for i in range(8)]
        assert weight.tolist() == [2.0] * 5


def test_bad_tensors():
    def raised(send):
        with pytest.raises(ringlab.InvalidArgumentError) as info:
            ringlab.run_threads(2, lambda comm: comm.allreduce(send))
        return str(info.value)

    assert raised(torch.zeros(4, 4).t()) == (
        "send: a non-contiguous float32 tensor; ringlab needs contiguous memory (.contiguous())")
    assert raised(torch.zeros(4, dtype=torch.bool)).startswith(
        "send: dtype bool is not one ringlab reduces; valid: int8")
    assert raised(torch.zeros(4, dtype=torch.int16)).startswith("send: dtype int16 is not")
