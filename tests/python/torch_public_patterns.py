"""One rank of a job that runs torch.distributed the ways PyTorch's own documentation shows it,
each on the default group of the backend argv[1]; it saves what each gave into argv[2]/rankR.pt
(test_torch_public_patterns.py runs it on gloo and on ringlab and compares them bit for bit).

    python3 -m torch.distributed.run --nproc_per_node 2 torch_public_patterns.py ringlab OUT

DDP: gradient accumulation under no_sync(), static_graph, find_unused_parameters; the
communication hooks torch ships (fp16_compress_hook; powerSGD_hook, whose callback queues an
AllReduce and waits for it); ZeroRedundancyOptimizer; the Join context manager with uneven inputs.
Then the object collectives, DistributedSampler, a subgroup, all_to_all_single with uneven splits,
reduce, gather, send/recv, barrier and monitored_barrier.
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
from torch.distributed.algorithms.join import Join
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DistributedSampler

import ringlab.torch  # noqa: F401  (registers the backend)


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))


def batch(step, rank):
    g = torch.Generator().manual_seed(100 * step + rank)
    return torch.randn(8, 20, generator=g), torch.randn(8, 5, generator=g)


def parameters(module):
    return torch.cat([p.detach().flatten() for p in module.parameters()])


def train(ddp, optimizer, rank, steps=4, accumulate=1):
    """`steps` batches; the gradients of `accumulate` batches at a time, synchronised on the last
    (DDP's no_sync() for the others)."""
    for step in range(steps):
        x, y = batch(step, rank)
        if step % accumulate != accumulate - 1:
            with ddp.no_sync():
                nn.functional.mse_loss(ddp(x), y).backward()
            continue
        nn.functional.mse_loss(ddp(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
    return parameters(ddp)


def sgd(ddp):
    return torch.optim.SGD(ddp.parameters(), lr=0.1)


def ddp_patterns(rank):
    out = {}
    m = DDP(model())
    out["no_sync"] = train(m, sgd(m), rank, steps=6, accumulate=3)
    m = DDP(model(), static_graph=True)
    out["static_graph"] = train(m, sgd(m), rank)
    m = DDP(model(), find_unused_parameters=True)
    out["find_unused_parameters"] = train(m, sgd(m), rank)
    m = DDP(model())
    m.register_comm_hook(None, default_hooks.fp16_compress_hook)
    out["fp16_compress_hook"] = train(m, sgd(m), rank)
    m = DDP(model())
    state = powerSGD_hook.PowerSGDState(process_group=None, matrix_approximation_rank=1,
                                        start_powerSGD_iter=2)
    m.register_comm_hook(state, powerSGD_hook.powerSGD_hook)
    out["powerSGD_hook"] = train(m, sgd(m), rank, steps=5)
    m = DDP(model())
    zero = ZeroRedundancyOptimizer(m.parameters(), optimizer_class=torch.optim.Adam, lr=0.01)
    out["ZeroRedundancyOptimizer"] = train(m, zero, rank)
    zero.consolidate_state_dict(to=0)
    m = DDP(model())
    optimizer = sgd(m)
    with Join([m]):  # rank r has 3 + r batches
        for step in range(3 + rank):
            x, y = batch(step, rank)
            nn.functional.mse_loss(m(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
    out["Join"] = parameters(m)
    return out


def collective_patterns(rank, world):
    out = {}
    objects = [None] * world
    dist.all_gather_object(objects, {"rank": rank, "text": "x" * rank})
    out["all_gather_object"] = torch.tensor([len(o["text"]) + 10 * o["rank"] for o in objects])
    sent = [{"a": 1}, 2] if rank == 0 else [None, None]
    dist.broadcast_object_list(sent, src=0)
    out["broadcast_object_list"] = torch.tensor([sent[0]["a"], sent[1]])
    got = [None]
    dist.scatter_object_list(got, [10 * i for i in range(world)] if rank == 0 else None, src=0)
    out["scatter_object_list"] = torch.tensor([got[0]])
    out["DistributedSampler"] = torch.tensor(list(DistributedSampler(range(11), seed=3)))
    group = dist.new_group(list(range(world)))
    t = torch.ones(3) * (rank + 1)
    dist.all_reduce(t, group=group)
    out["subgroup all_reduce"] = t
    # Rank r sends 1 element to every rank but the last, which gets the rest (r + 1 of them).
    send = torch.arange(world + rank, dtype=torch.float32) + 100 * rank
    send_splits = [1] * (world - 1) + [len(send) - (world - 1)]
    sizes = [torch.zeros(world, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(sizes, torch.tensor(send_splits))
    receive_splits = [int(sizes[s][rank]) for s in range(world)]
    received = torch.empty(sum(receive_splits))
    dist.all_to_all_single(received, send, receive_splits, send_splits)
    out["all_to_all_single uneven"] = received
    t = torch.arange(5.0) + rank
    dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
    out["reduce"] = t if rank == 0 else torch.zeros(5)
    gathered = [torch.zeros(2) for _ in range(world)] if rank == 0 else None
    dist.gather(torch.ones(2) * rank, gathered, dst=0)
    out["gather"] = torch.cat(gathered) if rank == 0 else torch.zeros(2 * world)
    t = torch.zeros(4)
    if rank == 0:
        dist.send(torch.arange(4.0), dst=1)
        dist.recv(t, src=1)
    elif rank == 1:
        dist.recv(t, src=0)
        dist.send(t * 2, dst=0)
    out["send recv"] = t
    dist.barrier()
    dist.monitored_barrier()
    return out


def main(backend, folder):
    dist.init_process_group(backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    results = ddp_patterns(rank)
    results.update(collective_patterns(rank, world))
    torch.save(results, os.path.join(folder, f"rank{rank}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
