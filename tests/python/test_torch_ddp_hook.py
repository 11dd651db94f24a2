"""ringlab.torch.single_copy_hook: DDP's own buckets reduced single copy over shm.

Across processes (torchrun, ddp_hook_jobs.py): at p = 2, DDP with the hook ends bitwise where DDP
on gloo ends (every element of an averaged bucket is the sum of two float32 numbers, each scaled by
an exact 1/2, so the algorithm that moves them cannot change a bit); at p = 2 and 3, bitwise where
ringlab without the hook ends on the same buckets (the same sums in the same order: only the
averaging could differ, and it must be the reducer's multiplication by 1/p, which at p = 3 differs
from a division by 3 in the last bit of some elements). The hook's buckets lie in the group's shared
memory and their AllReduce reads the peer's buffer in place; without the hook it does not.
In this process, on one-rank groups: moving a tensor's storage into shared memory.
"""
import json
import os
import re
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchrun_jobs  # noqa: E402
from ddp_hook_jobs import make_model  # noqa: E402
from shared_memory_maps import in_own_shared_memory  # noqa: E402
from test_torch_shared import one_rank_group  # noqa: E402

import ringlab.torch  # noqa: E402
from ringlab import _torch_backend  # noqa: E402

JOBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddp_hook_jobs.py")
HOOKED = ["ringlab shm hook", "ringlab shm hook, gradient as bucket view",
          "ringlab shm hook, default cap"]
# Each hooked variant and ringlab's own path without the hook on the same buckets.
WITHOUT_HOOK = {"ringlab shm hook": "ringlab shm",
                "ringlab shm hook, gradient as bucket view": "ringlab shm",
                "ringlab shm hook, default cap": "ringlab shm, default cap"}


@pytest.fixture(scope="module", params=[2, 3], ids=["p2", "p3"])
def job(request, tmp_path_factory):
    p = request.param
    out = tmp_path_factory.mktemp(f"ddp_hook_p{p}")
    torchrun_jobs.torchrun(None, p, out, script=JOBS)
    return p, [json.loads((out / f"rank{r}.json").read_text()) for r in range(p)]


def assert_same_bits(ranks, variant, reference):
    for rank, result in enumerate(ranks):
        got, expected = result[variant]["bits"], result[reference]["bits"]
        assert len(got) == len(expected) == 7
        for i, (a, b) in enumerate(zip(got, expected)):
            assert a == b, f"rank {rank}, parameter {i}: {variant} differs from {reference}"


@pytest.mark.parametrize("variant", HOOKED + ["ringlab tcp hook"])
def test_hook_trains_bitwise_equal_to_gloo(job, variant):
    p, ranks = job
    if p != 2:
        pytest.skip("bitwise against gloo holds at p = 2 (the job trains no gloo model at p = 3)")
    assert_same_bits(ranks, variant, "gloo")


@pytest.mark.parametrize("variant", HOOKED)
def test_hook_trains_bitwise_equal_to_ringlab_without_it(job, variant):
    _, ranks = job
    assert_same_bits(ranks, variant, WITHOUT_HOOK[variant])
    # The ranks hold one model, and it moved: the comparisons are not of untouched models.
    assert all(r[variant]["bits"] == ranks[0][variant]["bits"] for r in ranks)
    torch.manual_seed(0)
    initial = [p.detach().flatten().view(torch.int32).tolist()
               for p in make_model().parameters()]
    assert all(a != b for a, b in zip(ranks[0][variant]["bits"], initial))


@pytest.mark.parametrize("reference", ["gloo, sparse", "ringlab shm, sparse"])
def test_hook_on_sparse_gradients(job, reference):
    # An embedding's sparse gradient is a bucket of its own, which the hook divides as the reducer
    # does and reduces where it is (sparse all_reduce); the dense layer's bucket is moved.
    p, ranks = job
    if reference.startswith("gloo") and p != 2:
        pytest.skip("bitwise against gloo holds at p = 2 (the job trains no gloo model at p = 3)")
    for rank, result in enumerate(ranks):
        got, expected = result["ringlab shm hook, sparse"]["bits"], result[reference]["bits"]
        assert got == expected, f"rank {rank}: the hook differs from {reference}"
        assert sorted(result["ringlab shm hook, sparse"]["buckets"]) == [[21, True], [240, False]]


@pytest.mark.parametrize("variant, sizes", [
    # The first bucket (362403 elements, 1.45 MB) goes single copy; the small cap's last bucket
    # is the first layer's 35 weights, the default cap's the first two layers.
    ("ringlab shm hook", [362403, 4800, 35]),
    ("ringlab shm hook, gradient as bucket view", [362403, 4800, 35]),
    ("ringlab shm hook, default cap", [362403, 4835]),
])
def test_hook_buckets_lie_in_shared_memory_and_go_single_copy(job, variant, sizes):
    _, ranks = job
    for rank, result in enumerate(ranks):
        buckets = result[variant]["buckets"]
        assert [n for n, _ in buckets] == sizes, f"rank {rank}"
        assert all(shared for _, shared in buckets), f"rank {rank}: {buckets}"
        assert result[variant]["peer buffers mapped"] >= 1, f"rank {rank}"
        # Without the hook, DDP's buckets are ordinary memory: no message was read in place.
        assert result[WITHOUT_HOOK[variant]]["peer buffers mapped"] == 0, f"rank {rank}"


def test_hook_on_tcp_reduces_the_bucket_where_it_is(job):
    p, ranks = job
    if p != 2:
        pytest.skip("the job runs tcp at p = 2 only")
    for result in ranks:
        assert [shared for _, shared in result["ringlab tcp hook"]["buckets"]] == [False] * 3


def test_hook_refuses_a_group_that_is_not_ringlab(job):
    p, ranks = job
    if p != 2:
        pytest.skip("the job tries a gloo group at p = 2 only")
    # The hook's TypeError reaches the caller of backward() as DDP's reducer raises it: a
    # RuntimeError whose first line is the hook's error (then torch's own traceback lines).
    for result in ranks:
        assert result["gloo group refused"].splitlines()[0] == (
            "TypeError: ringlab: single_copy_hook: group is a ProcessGroupGloo, not a ringlab "
            "process group; pass one made with backend=\"ringlab\", or None for the default "
            "group")


def test_moving_keeps_values_and_views_follow(monkeypatch):
    group = one_rank_group(monkeypatch)
    flat = torch.arange(70_001, dtype=torch.float32)
    view = flat[10:20].view(2, 5)  # a view made before the move, as DDP's bucket views are
    assert not in_own_shared_memory(flat)
    assert _torch_backend.move_to_shared_memory(group, flat)
    assert in_own_shared_memory(flat) and in_own_shared_memory(view)
    assert torch.equal(flat, torch.arange(70_001, dtype=torch.float32))
    view.fill_(-1)  # writes through the view land in the moved storage
    assert torch.equal(flat[10:20], torch.full((10,), -1.0))
    moved_to = flat.data_ptr()
    assert _torch_backend.move_to_shared_memory(group, flat)  # already there: not moved again
    assert flat.data_ptr() == moved_to


def test_moved_memory_returns_to_the_pool(monkeypatch):
    group = one_rank_group(monkeypatch)
    t = torch.ones(1000, dtype=torch.float64)
    _torch_backend.move_to_shared_memory(group, t)
    where = t.data_ptr()
    del t
    assert ringlab.torch.empty(1000, torch.float64, group).data_ptr() == where


def test_nothing_moves_without_shared_memory(monkeypatch):
    # tcp has no shared memory; an empty tensor has no bytes to move.
    t = torch.arange(5000.0)
    where = t.data_ptr()
    assert not _torch_backend.move_to_shared_memory(one_rank_group(monkeypatch, "tcp"), t)
    assert t.data_ptr() == where and torch.equal(t, torch.arange(5000.0))
    assert not _torch_backend.move_to_shared_memory(one_rank_group(monkeypatch), torch.empty(0))


def test_a_sparse_tensor_is_refused(monkeypatch):
    sparse = torch.eye(3).to_sparse()
    with pytest.raises(RuntimeError, match=re.escape(
            "ringlab: moving a tensor into shared memory: tensor on cpu with layout Sparse; "
            "the ringlab backend takes dense CPU tensors")):
        _torch_backend.move_to_shared_memory(one_rank_group(monkeypatch), sparse)
