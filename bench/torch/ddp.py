"""DDP iteration time on a communication-heavy model: the ringlab backend against gloo.

    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 \\
        --nproc_per_node 2 bench/torch/ddp.py [--rounds 3] [--iterations 5] [--batch 4]

The model is an MLP of `--layers` square Linear layers of `--width` (12 x 2048: 50.4M
parameters, 201 MB of float32 gradients per step) on a batch of `--batch` (4): its forward and
backward passes cost little beside AllReducing its gradients, so the iteration time is mostly
the backend's (and the fixed costs of any backend: DDP's copies into and out of its buckets and
the SGD step, each a pass over 201 MB). Each rank
builds one DDP replica per backend (gloo, ringlab shm, ringlab tcp; same initial weights, default
25 MB buckets) in the same processes; per round the backends take turns in a rotating order, one
warm-up iteration, then `--iterations` timed ones (forward, backward with DDP's overlapped
AllReduce, SGD step); "no AllReduce" is the gloo replica's step under DDP's no_sync(), the floor
every backend shares. Iteration time = the slowest rank's; the table gives the median per round
and the median over rounds.
"""
import argparse
import statistics
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import ringlab.torch  # registers the backend; new_group(transport)



def replica(group, width, layers):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(layers)])
    ddp = DDP(model, process_group=group)
    return ddp, torch.optim.SGD(ddp.parameters(), lr=1e-4)


def iteration(ddp, optimizer, x, communicate=True):
    optimizer.zero_grad(set_to_none=False)
    if communicate:
        ddp(x).square().mean().backward()
    else:
        with ddp.no_sync():  # the floor: the same step without any AllReduce
            ddp(x).square().mean().backward()
    optimizer.step()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--batch", type=int, default=4)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank, p = dist.get_rank(), dist.get_world_size()
    control = dist.new_group(backend="gloo")
    groups = {"gloo": dist.new_group(backend="gloo"),
              "ringlab shm": ringlab.torch.new_group("shm"),
              "ringlab tcp": ringlab.torch.new_group("tcp")}
    replicas = {name: replica(g, args.width, args.layers) for name, g in groups.items()}
    params = sum(q.numel() for q in replicas["gloo"][0].parameters())
    x = torch.randn(args.batch, args.width, generator=torch.Generator().manual_seed(rank))
    replicas["no AllReduce"] = replicas["gloo"]
    names = list(replicas)
    medians = {name: [] for name in names}
    for round_ in range(args.rounds):
        for name in names[round_ % len(names):] + names[: round_ % len(names)]:
            ddp, optimizer = replicas[name]
            communicate = name != "no AllReduce"
            iteration(ddp, optimizer, x, communicate)
            times = []
            for _ in range(args.iterations):
                dist.barrier(group=control)
                start = time.perf_counter()
                iteration(ddp, optimizer, x, communicate)
                t = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
                dist.all_reduce(t, op=dist.ReduceOp.MAX, group=control)
                times.append(t.item())
            medians[name].append(statistics.median(times))
    if rank == 0:
        print(f"p = {p}, MLP {args.layers} x {args.width} ({params / 1e6:.1f}M parameters), "
              f"batch {args.batch}, {args.iterations} timed iterations per round, "
              f"{args.rounds} rounds")
        print("| backend | iteration ms, per round | median ms | / gloo |")
        print("|---|---|---|---|")
        gloo = statistics.median(medians["gloo"])
        for name in names:
            m = statistics.median(medians[name])
            rounds = ", ".join(f"{t * 1e3:.0f}" for t in medians[name])
            print(f"| {name} | {rounds} | {m * 1e3:.0f} | {m / gloo:.2f}x |")


if __name__ == "__main__":
    main()
