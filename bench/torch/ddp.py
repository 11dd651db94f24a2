"""DDP iteration time on a communication-heavy model: the ringlab backend against gloo.

    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 \\
        --nproc_per_node 2 bench/torch/ddp.py [--backends gloo shm-hook] [--bucket-view] [--rounds 5]

The model is an MLP of `--layers` square Linear layers of `--width` (12 x 2048: 50.4M
parameters, 201 MB of float32 gradients per step) on a batch of `--batch` (4): its forward and
backward passes cost little beside AllReducing its gradients, so the iteration time is mostly
the backend's (and the fixed costs of any backend: DDP's copies into and out of its buckets and
the SGD step, each a pass over 201 MB). Each rank builds one DDP replica per backend of
`--backends` (same initial weights, default 25 MB buckets; with `--bucket-view`, DDP's
gradient_as_bucket_view=True for every one) in the same processes:

    gloo       DDP on gloo
    shm        DDP on ringlab over shm (its buckets in ordinary memory: two copies per message)
    shm-hook   the same with ringlab.torch.single_copy_hook (its buckets in shared memory)
    tcp        DDP on ringlab over tcp
    floor      the gloo replica's step under DDP's no_sync(): no AllReduce, the floor all share

Every replica first takes two untimed steps (DDP rebuilds its buckets after the first, and the
hook moves the new ones into shared memory at the second). Then per round the backends take
turns in the order given (A B A B ...), each one warm-up step and `--iterations` timed ones
(forward, backward with DDP's overlapped AllReduce, SGD step). Iteration time = the slowest
rank's; the table gives each round's median, their median, and the ratio to gloo's median and
to gloo's time in the same round (per round and the largest), and the median CPU time all ranks'
threads spent per step (progress threads and spinning waits included), which a machine busy with
other work inflates less than the time. With the floor among the backends, a second table gives
what communication adds to each step: the time over the floor's in the same round, and that as a
share of what gloo's adds.
"""
import argparse
import statistics
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import ringlab.torch  # registers the backend; new_group(transport), single_copy_hook

BACKENDS = {"gloo": "gloo", "shm": "ringlab shm", "shm-hook": "ringlab shm + hook",
            "tcp": "ringlab tcp", "floor": "no AllReduce"}


def replica(group, args, hook=False):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(args.width, args.width)
                                  for _ in range(args.layers)])
    ddp = DDP(model, process_group=group, gradient_as_bucket_view=args.bucket_view)
    if hook:
        ddp.register_comm_hook(group, ringlab.torch.single_copy_hook)
    return ddp, torch.optim.SGD(ddp.parameters(), lr=1e-4)


def iteration(ddp, optimizer, x, communicate=True):
    optimizer.zero_grad(set_to_none=False)
    if communicate:
        ddp(x).square().mean().backward()
    else:
        with ddp.no_sync():  # the floor: the same step without any AllReduce
            ddp(x).square().mean().backward()
    optimizer.step()


def replicas_for(backends, args):
    """One DDP replica per backend named, each on a group of its own; the floor is the gloo
    replica run without its AllReduce."""
    made = {"gloo": replica(dist.new_group(backend="gloo"), args)}
    for key in backends:
        if key == "floor":
            made[key] = made["gloo"]
        elif key != "gloo":
            made[key] = replica(ringlab.torch.new_group("tcp" if key == "tcp" else "shm"), args,
                                hook=key == "shm-hook")
    return {key: made[key] for key in backends}


def timed(ddp, optimizer, x, communicate, iterations, control):
    """Medians over `iterations` steps of the slowest rank's time and of the CPU time all ranks'
    threads spent (the work, which a busy machine inflates less than the time)."""
    times, cpu = [], []
    for _ in range(iterations):
        dist.barrier(group=control)
        start, start_cpu = time.perf_counter(), time.process_time()
        iteration(ddp, optimizer, x, communicate)
        t = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        c = torch.tensor([time.process_time() - start_cpu], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=control)
        dist.all_reduce(c, group=control)
        times.append(t.item())
        cpu.append(c.item())
    return statistics.median(times), statistics.median(cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", nargs="+", choices=list(BACKENDS),
                        default=["gloo", "shm", "shm-hook", "tcp", "floor"],
                        help="replicas, run in this order each round (default: all)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--bucket-view", action="store_true",
                        help="every replica's DDP with gradient_as_bucket_view=True")
    args = parser.parse_args()
    backends = list(dict.fromkeys(args.backends))
    if "gloo" not in backends:
        parser.error("--backends must include gloo: every ratio is to gloo's time")
    dist.init_process_group("gloo")
    rank, p = dist.get_rank(), dist.get_world_size()
    control = dist.new_group(backend="gloo")
    replicas = replicas_for(backends, args)
    params = sum(q.numel() for q in replicas["gloo"][0].parameters())
    x = torch.randn(args.batch, args.width, generator=torch.Generator().manual_seed(rank))
    for key in backends:  # DDP's bucket rebuild, and the hook's move, happen here
        for _ in range(2):
            iteration(*replicas[key], x, key != "floor")
    medians = {key: [] for key in backends}
    cpu = {key: [] for key in backends}
    for _ in range(args.rounds):
        for key in backends:
            ddp, optimizer = replicas[key]
            iteration(ddp, optimizer, x, key != "floor")
            wall, work = timed(ddp, optimizer, x, key != "floor", args.iterations, control)
            medians[key].append(wall)
            cpu[key].append(work)
    if rank == 0:
        print(f"p = {p}, MLP {args.layers} x {args.width} ({params / 1e6:.1f}M parameters), "
              f"batch {args.batch}, {args.iterations} timed iterations per round, "
              f"{args.rounds} rounds, backends in turn: {' '.join(backends)}"
              f"{', gradient_as_bucket_view' if args.bucket_view else ''}")
        print("| backend | iteration ms, per round | median ms | / gloo | / gloo, per round "
              "| largest / gloo in a round | CPU ms, all ranks (median) |")
        print("|---|---|---|---|---|---|---|")
        gloo = medians["gloo"]
        for key in backends:
            ratios = [t / g for t, g in zip(medians[key], gloo)]
            print(f"| {BACKENDS[key]} | {', '.join(f'{t * 1e3:.0f}' for t in medians[key])} | "
                  f"{statistics.median(medians[key]) * 1e3:.0f} | "
                  f"{statistics.median(medians[key]) / statistics.median(gloo):.2f}x | "
                  f"{', '.join(f'{r:.2f}' for r in ratios)} | {max(ratios):.2f}x | "
                  f"{statistics.median(cpu[key]) * 1e3:.0f} |")
        if "floor" in backends:
            print_over_the_floor(backends, medians)


def print_over_the_floor(backends, medians):
    """What communication adds to a step: each backend's time over the floor's in the same round,
    and that as a share of what gloo adds. The host's state moves the whole step (the floor
    itself took 0.60x to 0.93x of gloo's step over the rounds of one run here), which a ratio of
    whole steps inherits and this measure mostly does not."""
    floor, gloo = medians["floor"], medians["gloo"]
    print("| backend | ms over the floor, per round | median ms | / gloo's, per round | median |")
    print("|---|---|---|---|---|")
    for key in backends:
        if key == "floor":
            continue
        over = [t - f for t, f in zip(medians[key], floor)]
        shares = [o / (g - f) for o, g, f in zip(over, gloo, floor) if g > f]
        share = f"{statistics.median(shares):.2f}x" if shares else "-"
        print(f"| {BACKENDS[key]} | {', '.join(f'{o * 1e3:.0f}' for o in over)} | "
              f"{statistics.median(over) * 1e3:.0f} | {', '.join(f'{r:.2f}' for r in shares)} | "
              f"{share} |")


if __name__ == "__main__":
    main()
