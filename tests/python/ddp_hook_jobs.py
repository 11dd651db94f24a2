"""The ranks' side of test_torch_ddp_hook.py: DDP trained with ringlab.torch.single_copy_hook.

    python3 -m torch.distributed.run --nproc_per_node 2 ddp_hook_jobs.py OUT_DIR

Every rank trains the same small model from the same start on its own data, once per variant
(backend, hook or none, bucket cap, gradient_as_bucket_view), and writes OUT_DIR/rankR.json:
per variant the parameters' bits, the sizes of the buckets the hook saw in the last step, whether
they lay in this rank's shared memory, and how many peer buffers the variant's transport mapped
(a peer's buffer is mapped the first time a message is read from it in place: single copy ran).
On 3 ranks gloo, tcp and the refused group are left out: from 3 ranks the order of a sum changes
its rounding, so there the hook is compared with ringlab's own path without it, bucket for bucket.
"""
import json
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import ringlab.torch  # registers the backend; new_group(transport), single_copy_hook
from shared_memory_maps import in_own_shared_memory, peer_buffers_mapped

STEPS = 4
# Bucket caps in MB. After the first step DDP rebuilds its buckets in the order gradients became
# ready: a first bucket up to 1 MiB (the 600 x 600 weight and the last layer: 362403 elements,
# 1.45 MB, whose messages go single copy), then buckets up to the cap. At 0.01 MB (2621 elements)
# the last bucket holds only the first layer's 35 weights, an odd count below every rank's share
# of a chunk; at DDP's default 25 MB the last bucket is the first two layers, 4835 elements.
SMALL_CAP, DEFAULT_CAP = 0.01, 25


def make_model(sparse=False):
    """The dense MLP, or with `sparse` an embedding whose gradients are sparse (each its own
    bucket, which DDP divides rather than multiplies) before a dense layer."""
    if sparse:
        return torch.nn.Sequential(torch.nn.Embedding(40, 6, sparse=True), torch.nn.Linear(6, 3))
    return torch.nn.Sequential(torch.nn.Linear(5, 7, bias=False), torch.nn.Tanh(),
                               torch.nn.Linear(7, 600), torch.nn.Tanh(),
                               torch.nn.Linear(600, 600), torch.nn.Tanh(),
                               torch.nn.Linear(600, 3))


def watched(buckets):
    """single_copy_hook, noting in `buckets` each bucket's size and whether it lies in shared
    memory after the hook has run (the last step's buckets are kept)."""
    def hook(group, bucket):
        if bucket.index() == 0:
            buckets.clear()
        future = ringlab.torch.single_copy_hook(group, bucket)
        buffer = bucket.buffer()
        buckets.append((buffer.numel(), not buffer.is_sparse and in_own_shared_memory(buffer)))
        return future
    return hook


def train(group, rank, hook=None, cap=SMALL_CAP, as_view=False, sparse=False):
    torch.manual_seed(0)  # the same initial model on every rank and variant
    model = make_model(sparse)
    ddp = DDP(model, process_group=group, bucket_cap_mb=cap, gradient_as_bucket_view=as_view)
    if hook is not None:
        ddp.register_comm_hook(group, hook)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05)
    for step in range(STEPS):
        generator = torch.Generator().manual_seed(1000 * step + rank)  # each rank its own data
        x = (torch.randint(0, 40, (16,), generator=generator) if sparse
             else torch.randn(16, 5, generator=generator))
        y = torch.randn(16, 3, generator=generator)
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(ddp(x), y).backward()
        optimizer.step()
    return [param.detach().flatten().view(torch.int32).tolist() for param in model.parameters()]


def variant(group, rank, **kwargs):
    """One training run on a group of its own: its parameters' bits, the hook's buckets, and the
    peer buffers its transport mapped."""
    before = peer_buffers_mapped()
    buckets = []
    bits = train(group, rank, hook=watched(buckets) if kwargs.pop("hook", False) else None,
                 **kwargs)
    return {"bits": bits, "buckets": buckets,
            "peer buffers mapped": peer_buffers_mapped() - before}


def refused_group(rank):
    """The hook given a gloo group: the error each rank raises from backward."""
    gloo = dist.new_group(backend="gloo")
    try:
        train(gloo, rank, hook=ringlab.torch.single_copy_hook)
    except RuntimeError as e:
        return str(e)
    return "no error"


def main(out_dir):
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, p = dist.get_rank(), dist.get_world_size()
    new_group = ringlab.torch.new_group  # each variant on a group of its own, on a transport
    results = {}
    if p == 2:
        results["gloo"] = variant(dist.new_group(backend="gloo"), rank)
    results["ringlab shm"] = variant(new_group("shm"), rank)
    results["ringlab shm hook"] = variant(new_group("shm"), rank, hook=True)
    results["ringlab shm hook, gradient as bucket view"] = variant(new_group("shm"), rank,
                                                                   hook=True, as_view=True)
    results["ringlab shm, default cap"] = variant(new_group("shm"), rank, cap=DEFAULT_CAP)
    results["ringlab shm hook, default cap"] = variant(new_group("shm"), rank, hook=True,
                                                       cap=DEFAULT_CAP)
    results["ringlab shm, sparse"] = variant(new_group("shm"), rank, sparse=True)
    results["ringlab shm hook, sparse"] = variant(new_group("shm"), rank, hook=True, sparse=True)
    if p == 2:
        results["gloo, sparse"] = variant(dist.new_group(backend="gloo"), rank, sparse=True)
        results["ringlab tcp hook"] = variant(new_group("tcp"), rank, hook=True)
        results["gloo group refused"] = refused_group(rank)
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.barrier()


if __name__ == "__main__":
    main(sys.argv[1])
