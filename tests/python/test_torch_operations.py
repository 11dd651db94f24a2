"""The "ringlab" backend's operations beyond the collectives ringlab has (reduce, gather,
scatter, all_to_all, send/recv with tags and from any source, batch_isend_irecv,
all_gather_coalesced, monitored_barrier, sparse all_reduce, bool and bitwise reductions, a
subgroup of any ranks, all_reduce's premultiplied sum): closed forms and gloo's results in one job at p = 2 and at odd p = 3
(torch_operations_jobs.py), and each refusal of bad input with its one-line message."""
import os
import re
import sys
from datetime import timedelta

import pytest
import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchrun_jobs  # noqa: E402

from ringlab.torch import backend  # noqa: E402

JOBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_operations_jobs.py")


@pytest.mark.parametrize("ranks", [2, 3])
def test_operations_match_closed_forms_and_gloo(ranks):
    output = torchrun_jobs.torchrun(None, ranks, script=JOBS)
    for rank in range(ranks):
        assert re.search(rf"rank {rank}: \d+ checks passed", output), output[-4000:]


@pytest.fixture(name="group")
def one_rank_group():
    return backend.create_process_group(dist.HashStore(), 0, 1, timedelta(seconds=10))


def refused(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_rooted_operations_refuse_a_root_outside_the_group(group):
    opts = dist.ReduceOptions()
    opts.rootRank = 1
    refused(lambda: group.reduce([torch.ones(3)], opts),
            r"ringlab: reduce: root rank 1 is not in this group of 1 ranks; valid are 0 to 0")


def test_gather_and_scatter_refuse_lists_of_the_wrong_length(group):
    refused(lambda: group.gather([[torch.ones(2), torch.ones(2)]], [torch.ones(2)],
                                 dist.GatherOptions()),
            r"ringlab: gather: 2 output tensors on the root for a group of 1 ranks")
    refused(lambda: group.scatter([torch.ones(2)], [[torch.ones(3)]], dist.ScatterOptions()),
            r"ringlab: scatter: a tensor of 3 x Float where 2 x Float is needed")


def test_all_to_all_refuses_splits_that_do_not_add_up(group):
    refused(lambda: group.alltoall_base(torch.empty(4), torch.empty(4), [4], [3],
                                        dist.AllToAllOptions()),
            r"ringlab: alltoall: the input split sizes add up to 3, not to the input tensor's 4")


def test_bitwise_ops_refuse_floats_and_bool_refuses_avg(group):
    opts = dist.AllreduceOptions()
    opts.reduceOp = dist.ReduceOp.BXOR
    refused(lambda: group.allreduce([torch.ones(2)], opts),
            r"ringlab: allreduce: a bitwise reduce op on Float; BAND, BOR and BXOR take integer")
    opts.reduceOp = dist.ReduceOp.AVG
    refused(lambda: group.allreduce([torch.ones(2, dtype=torch.bool)], opts),
            r"ringlab: allreduce: reduce op .* on bool; valid on bool are SUM, PRODUCT, MIN, MAX")


def test_send_to_a_rank_outside_the_group_is_refused(group):
    refused(lambda: group.send([torch.ones(2)], 3, 0),
            r"ringlab: send: destination rank 3 is not in this group of 1 ranks")



def test_premultiplied_sum_refuses_integers_tensor_factors_and_other_collectives(group):
    opts = dist.AllreduceOptions()
    opts.reduceOp = dist._make_nccl_premul_sum(0.5)
    refused(lambda: group.allreduce([torch.ones(3, dtype=torch.int32)], opts),
            r"ringlab: allreduce: PREMUL_SUM on Int; its factor multiplies float16, bfloat16, "
            r"float32 and float64 tensors")
    opts.reduceOp = dist._make_nccl_premul_sum([torch.tensor([0.5])])
    refused(lambda: group.allreduce([torch.ones(3)], opts),
            r"ringlab: allreduce: PREMUL_SUM with a tensor factor; give the factor as a float")
    reduce_opts = dist.ReduceOptions()
    reduce_opts.reduceOp = dist._make_nccl_premul_sum(0.5)
    refused(lambda: group.reduce([torch.ones(3)], reduce_opts),
            r"ringlab: reduce: reduce op 8 is not supported; valid are SUM, AVG, PRODUCT, MIN, MAX")
