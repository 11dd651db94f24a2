"""torch.distributed.all_reduce (gloo backend) timed the way `ringlab bench` times its own.

Run with the interpreter that has Debian's python3-torch (/usr/bin/python3). It starts p rank
processes itself (torch.multiprocessing, spawn), which meet through a file:// init method in a
temporary directory; the gloo backend then talks TCP over the loopback interface.

Method, per size (float32, sum, in place as torch does it): a buffer for the largest size is
allocated and touched once; warm-up calls; one timed call whose slowest rank's time sizes the run
to about T seconds (3 to 100000 iterations); barrier; back-to-back timed calls; per-iteration
time = maximum over ranks (an all_reduce MAX of the time array); the median iteration is
reported, and beside it the loop statistic of `ringlab bench --stats loop` (each rank's mean over
its own iterations, the maximum over ranks). Check: the buffer is refilled with small-integer inputs, one more call, every element
compared with the closed-form sum (exact in float32). While timing, the buffer holds zeros, so
repeated in-place sums cannot grow into infinities.

Output: one CSV row per size on rank 0's stdout:
  peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,loop_us
Exit status 1 when an element was wrong, 2 when a rank failed.
"""

import argparse
import math
import os
import re
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

MAX_ITERATIONS = 100000


def parse_size(text):
    """4, 64K, 16M, 1G, 64KiB: K/M/G are powers of 1024, as for ringlab."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGkmg]?)(?:i?B)?", text.strip())
    value = int(float(match.group(1)) * (1 << {"": 0, "K": 10, "M": 20, "G": 30}[match.group(2).upper()])) if match else 0
    if value <= 0 or value % 4:
        raise SystemExit(f"torch_bench: size {text}: must be a positive multiple of 4 bytes (4, 64K, 16M)")
    return value


def sweep_sizes(lo, hi, factor):
    sizes = []
    size = lo
    while size <= hi:
        sizes.append(size)
        size *= factor
    return sizes


CHUNK = 1 << 22  # elements per step of filling and checking, to keep temporaries small


def fill_pattern(data, rank):
    """Rank r's input at element i: ((7 i + 13 r) mod 31) - 15."""
    for start in range(0, data.numel(), CHUNK):
        i = torch.arange(start, min(start + CHUNK, data.numel()), dtype=torch.int64)
        data[start:start + i.numel()].copy_((i * 7 + rank * 13) % 31 - 15)


def count_wrong(data, p):
    """Elements that differ from the closed-form sum over p ranks (exact in float32)."""
    wrong = 0
    for start in range(0, data.numel(), CHUNK):
        i = torch.arange(start, min(start + CHUNK, data.numel()), dtype=torch.int64)
        total = torch.zeros_like(i)
        for r in range(p):
            total += (i * 7 + r * 13) % 31 - 15
        wrong += int((data[start:start + i.numel()] != total.to(torch.float32)).sum().item())
    return wrong


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def rank_main(rank, args, init_file):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=args.p)
    p = args.p
    buffer = torch.zeros(args.max_bytes // 4, dtype=torch.float32)
    times = torch.zeros(MAX_ITERATIONS, dtype=torch.float64)
    all_right = True
    for size in sweep_sizes(args.min_bytes, args.max_bytes, args.factor):
        count = size // 4
        data = buffer[:count]
        data.zero_()
        for _ in range(args.warmup):
            dist.all_reduce(data)

        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(data)
        first = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        dist.all_reduce(first, op=dist.ReduceOp.MAX)
        iterations = int(min(max(math.ceil(args.seconds / max(first.item(), 1e-9)), 3), MAX_ITERATIONS))

        stamps = [0.0] * iterations
        dist.barrier()
        last = time.perf_counter()
        for k in range(iterations):
            dist.all_reduce(data)
            now = time.perf_counter()
            stamps[k] = now - last
            last = now
        # Each rank's mean over its own loop, the maximum over ranks: `ringlab bench --stats loop`.
        loop = torch.tensor([sum(stamps) / iterations], dtype=torch.float64)
        dist.all_reduce(loop, op=dist.ReduceOp.MAX)
        slowest = times[:iterations]
        slowest.copy_(torch.tensor(stamps, dtype=torch.float64))
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        time_us = median(slowest.tolist()) * 1e6

        fill_pattern(data, rank)
        dist.all_reduce(data)
        wrong = torch.tensor([count_wrong(data, p)], dtype=torch.int64)
        dist.all_reduce(wrong)
        all_right &= wrong.item() == 0

        if rank == 0:
            busbw = size / (time_us * 1e3) * (2.0 * (p - 1) / p if p > 1 else 0.0)
            print(f"torch,all_reduce,{p},{size},{time_us:.3f},{busbw:.6g},{wrong.item()},{args.version},{iterations},"
                  f",{loop.item() * 1e6:.3f}", flush=True)
    dist.destroy_process_group()
    if not all_right:
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-p", type=int, default=2)
    parser.add_argument("-b", dest="min_bytes", default="4")
    parser.add_argument("-e", dest="max_bytes", default="256M")
    parser.add_argument("-f", dest="factor", type=int, default=4)
    parser.add_argument("-T", dest="seconds", type=float, default=0.3)
    parser.add_argument("-w", dest="warmup", type=int, default=2)
    parser.add_argument("--package", default="", help="the Debian package version, recorded beside torch's")
    args = parser.parse_args()
    args.min_bytes = parse_size(args.min_bytes)
    args.max_bytes = parse_size(args.max_bytes)
    if args.p < 1 or args.factor < 2 or args.min_bytes > args.max_bytes or args.warmup < 0 or args.seconds <= 0:
        raise SystemExit("torch_bench: need -p >= 1, -f >= 2, -b <= -e, -w >= 0, -T > 0")
    args.version = f"torch {torch.__version__}" + (f" (python3-torch {args.package})" if args.package else "")
    args.version = args.version.replace(",", ";")
    with tempfile.TemporaryDirectory(prefix="torch_bench.") as tmp:
        context = mp.spawn(rank_main, args=(args, os.path.join(tmp, "init")), nprocs=args.p, join=False)
        try:
            while not context.join():
                pass
        except mp.ProcessExitedException as e:
            print(f"torch_bench: {e}", file=sys.stderr)
            sys.exit(1 if e.exit_code == 1 else 2)
        except Exception as e:  # a rank raised: spawn reports it with its traceback
            print(f"torch_bench: {e}", file=sys.stderr)
            sys.exit(2)


if __name__ == "__main__":
    main()
