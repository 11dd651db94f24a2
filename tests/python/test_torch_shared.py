"""ringlab.torch.empty: tensors in a ringlab group's shared memory. Across processes (p = 2 and 3,
torchrun), the `shared` job of torch_backend_jobs.py; in this process, one-rank groups: where
the memory comes from, its reuse, its lifetime, and bad input."""
import gc
import os
import re
import sys
from datetime import timedelta

import pytest
import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchrun_jobs  # noqa: E402
from shared_memory_maps import in_own_shared_memory  # noqa: E402

import ringlab.torch  # noqa: E402
from ringlab.torch import backend  # noqa: E402


def assert_every_rank_passed(output, ranks):
    for rank in range(ranks):
        assert re.search(rf"rank {rank}: \d+ checks passed", output), output[-4000:]


@pytest.mark.parametrize("ranks", [2, 3])
def test_allreduce_of_shared_tensors_over_shm(ranks):
    assert_every_rank_passed(torchrun_jobs.torchrun("shared", ranks), ranks)


def test_shared_tensors_where_peers_may_not_map_them():
    # A seccomp filter refuses pidfd_getfd (tests/refuse_pidfd_getfd.cpp): messages go through
    # the slots, right in every element, and the group says that none go single copy.
    refuse = os.environ.get("RINGLAB_REFUSE_PIDFD_GETFD")
    if not refuse:
        pytest.skip("tests/refuse_pidfd_getfd is not built")
    output = torchrun_jobs.torchrun("shared", 2, "refused", wrapper=[refuse])
    assert_every_rank_passed(output, 2)
    assert "(Operation not permitted); large messages between processes take the two-copy path" \
        in output, output[-4000:]


def one_rank_group(monkeypatch, transport="shm"):
    monkeypatch.setenv("RINGLAB_TORCH_TRANSPORT", transport)
    return backend.create_process_group(dist.HashStore(), 0, 1, timedelta(seconds=10))


def test_shape_dtype_and_memory(monkeypatch):
    group = one_rank_group(monkeypatch)
    t = ringlab.torch.empty(1001, group=group)
    assert t.shape == (1001,) and t.dtype == torch.float32 and t.device.type == "cpu"
    assert in_own_shared_memory(t)
    m = ringlab.torch.empty(torch.Size([4, 0, 3]), torch.bfloat16, group)
    assert m.shape == (4, 0, 3) and m.dtype == torch.bfloat16
    big = ringlab.torch.empty((3, 700_001), torch.int64, group)  # larger than the first region
    assert big.shape == (3, 700_001) and in_own_shared_memory(big)
    big.copy_(torch.arange(3 * 700_001).view(3, 700_001))
    assert torch.equal(big.flatten(), torch.arange(3 * 700_001))


def test_freed_memory_is_reused_and_merged(monkeypatch):
    group = one_rank_group(monkeypatch)
    a = ringlab.torch.empty(100, torch.uint8, group)  # 128 B with alignment
    b = ringlab.torch.empty(64, torch.uint8, group)
    start = a.data_ptr()
    assert b.data_ptr() == start + 128  # cache-line aligned, next to a
    del a, b
    merged = ringlab.torch.empty(192, torch.uint8, group)  # a's and b's blocks, joined again
    assert merged.data_ptr() == start


def test_a_tensor_outlives_its_group(monkeypatch):
    group = one_rank_group(monkeypatch)
    t = ringlab.torch.empty(300_001, torch.int32, group)
    t.copy_(torch.arange(300_001, dtype=torch.int32))
    del group
    gc.collect()
    # Were the memory unmapped with the group, these would crash the test process.
    assert torch.equal(t, torch.arange(300_001, dtype=torch.int32))
    t.mul_(-1)
    assert torch.equal(t, -torch.arange(300_001, dtype=torch.int32))


def test_tcp_gives_an_ordinary_tensor(monkeypatch):
    group = one_rank_group(monkeypatch, "tcp")
    assert group.single_copy_bytes is None
    t = ringlab.torch.empty(5000, torch.float64, group)
    assert t.shape == (5000,) and not in_own_shared_memory(t)


@pytest.mark.parametrize("size, message", [
    (-1, r"^ringlab: empty: size -1 in shape \[-1\] is negative; sizes must be at least 0"),
    ((2, -3), r"^ringlab: empty: size -3 in shape \[2, -3\] is negative; sizes must be at least 0"),
])
def test_negative_size_is_refused(monkeypatch, size, message):
    with pytest.raises(RuntimeError, match=message):
        ringlab.torch.empty(size, group=one_rank_group(monkeypatch))


@pytest.mark.parametrize("size", [2.5, "7", (3, 1.5)])
def test_a_size_that_is_no_size_is_refused(monkeypatch, size):
    with pytest.raises(TypeError, match=rf"^ringlab: empty: size {re.escape(repr(size))} is "
                                        r"neither a number of elements nor a shape \(a tuple of "
                                        r"them\)$"):
        ringlab.torch.empty(size, group=one_rank_group(monkeypatch))


def test_unsupported_dtype_is_refused(monkeypatch):
    with pytest.raises(RuntimeError, match=r"^ringlab: empty: dtype Bool is not supported; valid "
                                           r"are int8, uint8, int32, int64, float16, bfloat16, "
                                           r"float32, float64"):
        ringlab.torch.empty(3, torch.bool, one_rank_group(monkeypatch))


def test_a_dtype_that_is_no_dtype_is_refused(monkeypatch):
    with pytest.raises(TypeError, match=r"^ringlab: empty: dtype 'float32' is not a "
                                        r"torch.dtype$"):
        ringlab.torch.empty(3, "float32", one_rank_group(monkeypatch))


def test_a_group_of_another_backend_is_refused():
    gloo = dist.ProcessGroupGloo(dist.HashStore(), 0, 1)
    with pytest.raises(TypeError, match=r"^ringlab: empty: group is a ProcessGroupGloo, not a "
                                        r"ringlab process group; pass one made with "
                                        r"backend=\"ringlab\", or None for the default group$"):
        ringlab.torch.empty(3, group=gloo)
