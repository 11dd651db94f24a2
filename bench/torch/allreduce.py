"""torch.distributed.all_reduce over the ringlab backend against gloo, in the same processes.

    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --redirects 1 --tee 1 \\
        --nproc_per_node 2 bench/torch/allreduce.py [--rounds 3] [-b 4] [-e 256M] [-f 4] [--no-tcp]
        [--shared]

(`--redirects 1 --tee 1`: Debian's torchrun fails on Python 3.11 with its default of 0.)
Every rank joins three process groups over all ranks: ringlab on shm, ringlab on tcp, and gloo.
Per round, per size (float32, sum, in place), the backends take turns, in an order that rotates
from round to round: warm-up calls, then back-to-back calls sized to about 0.15 s (at least 3);
per-call time = the slowest rank's. The table gives each backend's median over the rounds and
busbw = 2(p-1)/p x bytes / time (nccl-tests' convention). Each backend's result is checked
against the closed-form sum once per round and size. With --shared, ringlab on shm runs a second
time on a tensor from `ringlab.torch.empty` (the group's shared memory: single copy from 128 KiB
messages) beside the ordinary tensor.
"""
import argparse
import math
import statistics
import time

import torch
import torch.distributed as dist

import ringlab.torch  # registers the backend; new_group(transport)


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.upper().removesuffix("IB").removesuffix("B")
    suffix = text[-1] if text[-1] in units else ""
    return int(text[: len(text) - len(suffix)]) * units[suffix]



def slowest(seconds, control):
    t = torch.tensor([seconds], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=control)
    return t.item()


def time_calls(buffer, group, control):
    """Seconds per call on the slowest rank, after warm-up; the buffer holds zeros meanwhile."""
    for _ in range(2):
        dist.all_reduce(buffer, group=group)
    dist.barrier(group=control)
    start = time.perf_counter()
    dist.all_reduce(buffer, group=group)
    first = slowest(time.perf_counter() - start, control)
    calls = max(3, min(2000, math.ceil(0.15 / max(first, 1e-7))))
    dist.barrier(group=control)
    start = time.perf_counter()
    for _ in range(calls):
        dist.all_reduce(buffer, group=group)
    return slowest((time.perf_counter() - start) / calls, control)


def check_inputs(elements, rank, p):
    """Rank `rank`'s small-integer input and the sum over all ranks (exact in float32)."""
    i = torch.arange(elements)
    mine = ((i * 7 + rank * 13) % 31 - 15).to(torch.float32)
    total = sum((i * 7 + r * 13) % 31 - 15 for r in range(p)).to(torch.float32)
    return mine, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-b", "--minbytes", default="4")
    parser.add_argument("-e", "--maxbytes", default="256M")
    parser.add_argument("-f", "--stepfactor", type=int, default=4)
    parser.add_argument("--no-tcp", action="store_true", help="leave out ringlab on tcp")
    parser.add_argument("--shared", action="store_true",
                        help="also ringlab on shm with a shared tensor (ringlab.torch.empty)")
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank, p = dist.get_rank(), dist.get_world_size()
    control = dist.new_group(backend="gloo")  # timing reductions, off the measured groups
    groups = {"ringlab shm": ringlab.torch.new_group("shm")}
    if args.shared:  # the same group, its buffer from ringlab.torch.empty
        groups["ringlab shm shared"] = groups["ringlab shm"]
    if not args.no_tcp:
        groups["ringlab tcp"] = ringlab.torch.new_group("tcp")
    groups["gloo"] = dist.new_group(backend="gloo")
    sizes = []
    size = parse_size(args.minbytes)
    while size <= parse_size(args.maxbytes):
        sizes.append(size)
        size *= args.stepfactor
    times = {(name, s): [] for name in groups for s in sizes}
    wrong = 0
    names = list(groups)
    for round_ in range(args.rounds):
        for s in sizes:
            plain = torch.zeros(s // 4, dtype=torch.float32)
            shared = ringlab.torch.empty(s // 4, group=groups["ringlab shm"]) if args.shared else None
            mine, total = check_inputs(s // 4, rank, p)
            order = names[round_ % len(names):] + names[: round_ % len(names)]
            for name in order:
                buffer = shared if name == "ringlab shm shared" else plain
                buffer.zero_()
                times[(name, s)].append(time_calls(buffer, groups[name], control))
                buffer.copy_(mine)
                dist.all_reduce(buffer, group=groups[name])
                wrong += int((buffer != total).sum())
            del buffer, plain, shared, mine, total
        if rank == 0:
            print(f"round {round_ + 1} of {args.rounds} done", flush=True)
    wrong = int(slowest(wrong, control))
    if rank == 0:
        report(times, sizes, names, p, args.rounds, wrong)


def report(times, sizes, names, p, rounds, wrong):
    print(f"\np = {p}, float32 sum in place, medians of {rounds} interleaved rounds, "
          f"{wrong} wrong elements")
    head = "| size |" + "".join(f" {n} us | {n} busbw GB/s |" for n in names)
    head += "".join(f" {n} / gloo busbw |" for n in names if n != "gloo")
    shared = "ringlab shm shared" in names
    head += " shared / plain tensor busbw |" if shared else ""
    print(head)
    print("|" + "---|" * (1 + 2 * len(names) + len(names) - 1 + shared))
    for s in sizes:
        med = {n: statistics.median(times[(n, s)]) for n in names}
        busbw = {n: 2 * (p - 1) / p * s / med[n] / 1e9 for n in names}
        label = f"{s >> 20} MiB" if s >= 1 << 20 else f"{s >> 10} KiB" if s >= 1 << 10 else f"{s} B"
        row = f"| {label} |" + "".join(f" {med[n] * 1e6:.1f} | {busbw[n]:.3f} |" for n in names)
        row += "".join(f" {busbw[n] / busbw['gloo']:.2f}x |" for n in names if n != "gloo")
        row += f" {busbw['ringlab shm shared'] / busbw['ringlab shm']:.2f}x |" if shared else ""
        print(row)


if __name__ == "__main__":
    main()
