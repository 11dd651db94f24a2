"""reduce, broadcast and all_to_all_single on the ringlab backend (binomial trees, pairwise
exchange) against what the backend composed them of before (an AllReduce; an AllReduce of the
bytes with max; an AllGather of every rank's whole input) and against gloo, in the same processes.

    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 \\
        --nproc_per_node 2 bench/torch/rooted_ops.py [--rounds 5] [--sizes 64K,4M,64M]

Every rank joins a ringlab group (shm) and a gloo group. Per round, per size (float32 bytes per
rank) and operation, the three ways take turns in an order that rotates from round to round:
two warm-up calls, then back-to-back calls sized to about 0.1 s (at least 3); per-call time = the
slowest rank's. The table gives each way's median over the rounds in microseconds and the
medians of the per-round ratios to the composed way and to gloo. (The composed all_to_all here is
its AllGather alone; the backend also gathered the block sizes first, as it still does.)
"""
import argparse
import math
import statistics
import time

import torch
import torch.distributed as dist

import ringlab.torch  # noqa: F401  registers the backend


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.upper().removesuffix("IB").removesuffix("B")
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def slowest(seconds, control):
    t = torch.tensor([seconds], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=control)
    return t.item()


def seconds_per_call(call, control):
    for _ in range(2):
        call()
    dist.barrier(group=control)
    start = time.perf_counter()
    call()
    first = slowest(time.perf_counter() - start, control)
    calls = max(3, min(2000, math.ceil(0.1 / max(first, 1e-7))))
    dist.barrier(group=control)
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return slowest((time.perf_counter() - start) / calls, control)


def ways(op, elements, rank, p, ringlab, gloo):
    """The three ways of one operation, as calls on buffers made once."""
    data = torch.arange(elements, dtype=torch.float32) % 97
    out = torch.empty_like(data)
    if op == "reduce":
        scratch = data.clone()
        own = lambda group: lambda: dist.reduce(data, 0, group=group)  # noqa: E731
        # Before: an AllReduce, on a copy at every rank but the root.
        composed = lambda: dist.all_reduce(data if rank == 0 else scratch, group=ringlab)  # noqa: E731
    elif op == "broadcast":
        own = lambda group: lambda: dist.broadcast(data, 0, group=group)  # noqa: E731
        as_bytes = data.view(torch.uint8)

        def composed():  # before: the bytes' AllReduce with max, the others giving zeros
            if rank != 0:
                as_bytes.zero_()
            dist.all_reduce(as_bytes, op=dist.ReduceOp.MAX, group=ringlab)
    else:
        own = lambda group: lambda: dist.all_to_all_single(out, data, group=group)  # noqa: E731
        rows = [torch.empty_like(data) for _ in range(p)]
        # Before: every rank's whole input to every rank, of which each kept its blocks.
        composed = lambda: dist.all_gather(rows, data, group=ringlab)  # noqa: E731
    return {"ringlab": own(ringlab), "composed": composed, "gloo": own(gloo)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default="64K,4M,64M")
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank, p = dist.get_rank(), dist.get_world_size()
    control = dist.group.WORLD
    ringlab = dist.new_group(backend="ringlab")
    gloo = dist.new_group(backend="gloo")
    names = ["ringlab", "composed", "gloo"]
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    times = {}
    for r in range(args.rounds):
        for size in sizes:
            for op in ["reduce", "broadcast", "all_to_all"]:
                calls = ways(op, size // 4 // p * p, rank, p, ringlab, gloo)
                order = names[r % 3:] + names[:r % 3]
                for name in order:
                    times.setdefault((op, size, name), []).append(
                        seconds_per_call(calls[name], control))
    if rank == 0:
        print(f"# p = {p}, {args.rounds} rounds, float32, shm; us per call (median over rounds),"
              " ratio = median of per-round ratios")
        print(f"{'op':>10} {'bytes':>10} {'ringlab':>10} {'composed':>10} {'gloo':>10}"
              f" {'/composed':>10} {'/gloo':>8}")
        for size in sizes:
            for op in ["reduce", "broadcast", "all_to_all"]:
                t = {n: times[(op, size, n)] for n in names}
                med = {n: statistics.median(t[n]) * 1e6 for n in names}
                vs = lambda other: statistics.median(  # noqa: E731
                    a / b for a, b in zip(t["ringlab"], t[other]))
                print(f"{op:>10} {size:>10} {med['ringlab']:>10.1f} {med['composed']:>10.1f}"
                      f" {med['gloo']:>10.1f} {vs('composed'):>10.2f} {vs('gloo'):>8.2f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
