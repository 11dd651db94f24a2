"""DDP's average of a bucket over ringlab shm: scaling the bucket by 1/p and then summing it, against
the premultiplied sum that scales as it sums (PREMUL_SUM, what `single_copy_hook` asks for), on a
tensor in the group's shared memory (single copy), in the same processes.

    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 \\
        --nproc_per_node 2 bench/torch/average.py [--rounds 5] [--sizes 1M,4M,16M,64M]

Per round and size the two variants take turns (A B, then B A in the next round): warm-up calls,
then back-to-back calls sized to about 0.1 s (at least 3); per-call time = the slowest rank's.
The table gives each variant's median over the rounds, and the median and the range of the
per-round ratio premultiplied / scaled-then-summed. Both results are checked, once per round and
size, against the closed form (small integers times 1/p, exact at p = 2 and 4) and against each
other bit for bit.
"""
import argparse
import statistics

import torch
import torch.distributed as dist

import ringlab.torch  # registers the backend; new_group(transport), empty(...)
from rooted_ops import parse_size, seconds_per_call, slowest  # this folder's timing and units


def scaled_then_summed(bucket, group, p):
    bucket.mul_(1.0 / p)
    dist.all_reduce(bucket, group=group)


def premultiplied(bucket, group, p):
    dist.all_reduce(bucket, op=dist._make_nccl_premul_sum(1.0 / p), group=group)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default="1M,4M,16M,64M")
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank, p = dist.get_rank(), dist.get_world_size()
    control = dist.new_group(backend="gloo")  # timing reductions, off the measured group
    group = ringlab.torch.new_group("shm")
    variants = {"scale, then sum": scaled_then_summed, "premultiplied sum": premultiplied}
    names = list(variants)
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    times = {(name, s): [] for name in names for s in sizes}
    wrong = 0
    for round_ in range(args.rounds):
        for s in sizes:
            bucket = ringlab.torch.empty(s // 4, group=group)
            i = torch.arange(s // 4)
            mine = ((i * 7 + rank * 13) % 31 - 15).to(torch.float32)
            total = sum((i * 7 + r * 13) % 31 - 15 for r in range(p)).to(torch.float32) / p
            results = []
            for name in names if round_ % 2 == 0 else reversed(names):
                bucket.zero_()
                times[(name, s)].append(seconds_per_call(
                    lambda average=variants[name], b=bucket: average(b, group, p), control))
                bucket.copy_(mine)
                variants[name](bucket, group, p)
                results.append(bucket.clone())
            wrong += int((results[0] != total).sum()) + int((results[0] != results[1]).sum())
            del bucket
        if rank == 0:
            print(f"round {round_ + 1} of {args.rounds} done", flush=True)
    wrong = int(slowest(wrong, control))
    if rank == 0:
        print(f"\np = {p}, float32, a bucket in the group's shared memory, medians of "
              f"{args.rounds} interleaved rounds, {wrong} wrong elements")
        print("| size | scale, then sum us | premultiplied sum us | premultiplied / scaled, "
              "median of rounds | range over rounds |")
        print("|---|---|---|---|---|")
        for s in sizes:
            a, b = times[(names[0], s)], times[(names[1], s)]
            ratios = sorted(y / x for x, y in zip(a, b))
            print(f"| {s >> 20} MiB | {statistics.median(a) * 1e6:.0f} | "
                  f"{statistics.median(b) * 1e6:.0f} | {statistics.median(ratios):.2f} | "
                  f"{ratios[0]:.2f}-{ratios[-1]:.2f} |")


if __name__ == "__main__":
    main()
