"""torch.distributed as PyTorch's documentation uses it (torch_public_patterns.py: DDP's
no_sync, static graph and unused parameters, the fp16 and PowerSGD communication hooks,
ZeroRedundancyOptimizer, Join, the object collectives, DistributedSampler, subgroups, uneven
all_to_all_single, reduce, gather, send/recv, barriers), run at p = 2 on gloo and on ringlab:
every rank ends with the same bits on both. PowerSGD's hook waits, inside a Future's callback,
for an AllReduce it queued; with one progress thread that wait never ended."""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchrun_jobs  # noqa: E402

JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_public_patterns.py")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    by_backend = {}
    for backend in ("gloo", "ringlab"):
        out = tmp_path_factory.mktemp(backend)
        torchrun_jobs.torchrun(None, 2, backend, out, script=JOB, timeout=120)
        by_backend[backend] = [torch.load(out / f"rank{r}.pt") for r in range(2)]
    return by_backend


def test_every_pattern_ends_bitwise_as_on_gloo(results):
    for rank in range(2):
        gloo, ringlab = results["gloo"][rank], results["ringlab"][rank]
        assert sorted(ringlab) == sorted(gloo)
        for name, expected in gloo.items():
            got = ringlab[name]
            assert got.dtype == expected.dtype and got.shape == expected.shape, (rank, name)
            assert torch.equal(got, expected), f"rank {rank}, {name}: {got} != gloo's {expected}"


def test_the_patterns_did_something(results):
    # Not untouched models or zeros: the trained parameters moved, and the collectives carried
    # what the ranks sent.
    first = results["gloo"][0]
    assert not torch.equal(first["powerSGD_hook"], first["no_sync"])
    assert first["all_to_all_single uneven"].tolist() == [0.0, 100.0]
    assert first["gather"].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert results["gloo"][1]["send recv"].tolist() == [0.0, 1.0, 2.0, 3.0]
