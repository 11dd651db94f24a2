"""The "ringlab" torch.distributed backend: every collective against closed-form values and
against gloo in the same job (shm and tcp), asynchronous Work, bad input, and a rank that dies
becoming an exception on every other rank."""
import os
import subprocess
import sys
from datetime import timedelta

import pytest
import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchrun_jobs  # noqa: E402

import ringlab.torch  # noqa: E402
from ringlab.torch import backend  # noqa: E402


def test_collectives_match_closed_forms_and_gloo():
    output = torchrun_jobs.torchrun("collectives", 2)
    for rank in range(2):
        assert f"rank {rank}: {424 if rank == 0 else 423} checks passed" in output, output[-4000:]


def test_registered_once():
    assert dist.Backend.RINGLAB == "RINGLAB"
    assert "RINGLAB" in dist.Backend._plugins
    ringlab.torch.register()  # a second registration is a no-op, not torch's assertion


def test_one_rank_group_in_process():
    group = backend.create_process_group(dist.HashStore(), 0, 1, timedelta(seconds=10))
    assert isinstance(group, dist.ProcessGroup)
    assert (group.getBackendName() if hasattr(group, "getBackendName") else "ringlab")
    assert group.transport == "shm" and group.algorithm == "auto"
    assert group.rank() == 0 and group.size() == 1


def test_bad_transport_is_refused(monkeypatch):
    monkeypatch.setenv("RINGLAB_TORCH_TRANSPORT", "ib")
    with pytest.raises(ValueError, match=r"^RINGLAB_TORCH_TRANSPORT=ib: valid are auto, shm, tcp$"):
        backend.create_process_group(dist.HashStore(), 0, 1, timedelta(seconds=10))


def test_bad_transport_of_a_new_group_is_refused():
    with pytest.raises(ValueError, match=r"^transport=ib: valid are auto, shm, tcp$"):
        ringlab.torch.new_group("ib")


def test_bad_algorithm_is_refused(monkeypatch):
    monkeypatch.setenv("RINGLAB_TORCH_ALGORITHM", "ringg")
    # The package's exception for ringlab's code (errors.py), also a ValueError.
    with pytest.raises(ringlab.errors.InvalidArgumentError, match=r"ringg.*ring"):
        backend.create_process_group(dist.HashStore(), 0, 1, timedelta(seconds=10))


@pytest.mark.parametrize("name,message", [
    ("pairwise_exchange", "algorithm 'pairwise_exchange' builds alltoall only, not allreduce: "
                          "use ring or recursive_doubling"),
    ("hierarchical", "hierarchical needs ranks per node"),
])
def test_an_algorithm_that_runs_no_allreduce_from_its_name_is_refused(monkeypatch, name, message):
    monkeypatch.setenv("RINGLAB_TORCH_ALGORITHM", name)
    with pytest.raises(ringlab.errors.InvalidArgumentError) as info:
        backend.create_process_group(dist.HashStore(), 0, 1, timedelta(seconds=10))
    assert str(info.value).startswith(f"RINGLAB_TORCH_ALGORITHM={name}: {message}")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["recursive_doubling", "rabenseifner", "binomial_tree",
                                  "multi_ring"])
def test_every_collective_runs_whatever_allreduce_algorithm_is_named(monkeypatch, name):
    # One rank in this process: each collective builds its schedule as at any p, so one that
    # the named algorithm cannot build would fail (recursive_doubling builds no allgather).
    monkeypatch.setenv("RINGLAB_TORCH_ALGORITHM", name)
    group = backend.create_process_group(dist.HashStore(), 0, 1, timedelta(seconds=10))
    assert group.algorithm == name
    x = torch.arange(5.0)
    outs = [torch.empty(5)]
    group.allgather([outs], [x]).wait()
    group.reduce_scatter([out := torch.empty(5)], [[x]]).wait()
    group.broadcast([b := x.clone()], dist.BroadcastOptions()).wait()
    group.reduce([r := x.clone()], dist.ReduceOptions()).wait()
    group.alltoall_base(a := torch.empty(5), x, [], [], dist.AllToAllOptions()).wait()
    group.allreduce([s := x.clone()]).wait()
    group.barrier().wait()
    for got in (outs[0], out, b, r, a, s):
        assert torch.equal(got, x)


def test_a_named_allreduce_algorithm_leaves_the_other_collectives_their_own():
    # rabenseifner builds AllReduce only; p = 3 is no power of two.
    output = torchrun_jobs.torchrun("named_algorithm", 3,
                                    env={"RINGLAB_TORCH_ALGORITHM": "rabenseifner"})
    for rank in range(3):
        assert f"rank {rank}: {86 if rank == 2 else 83} checks passed" in output, output[-4000:]


def test_missing_ranks_time_out_naming_the_store_key():
    # Rank 0 of 2 alone: the rendezvous waits for rank 1's key, then says so.
    with pytest.raises(ringlab.errors.TimeoutError, match=r"not set within 1000 ms; are all ranks"):
        backend.create_process_group(dist.HashStore(), 0, 2, timedelta(seconds=1))


@pytest.mark.parametrize("transport", ["shm", "tcp"])
def test_dead_rank_is_an_exception_on_every_other_rank(transport):
    # 3 ranks, rank 1 exits before the second collective; the group timeout is 8 s.
    processes = torchrun_jobs.start_ranks("failure", 3, 1,
                                          env={"RINGLAB_TORCH_TRANSPORT": transport})
    outputs = []
    for process in processes:
        try:
            out, _ = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
        outputs.append((process.returncode, out))
    assert outputs[1][0] == 3, outputs[1][1]
    for rank in (0, 2):
        code, out = outputs[rank]
        assert code == 0, f"rank {rank} exited {code}:\n{out}"
        assert f"rank {rank}: raised after" in out
        # Whichever rank noticed first, the message names the dead one.
        assert f"ringlab: rank {rank} of 3 ({transport}): allreduce failed (" in out, out
        assert "rank 1" in out
        assert "not run: the process group failed earlier" in out
