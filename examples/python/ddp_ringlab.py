#!/usr/bin/python3
"""DistributedDataParallel training on ringlab's torch.distributed backend.

    PYTHONPATH=build/python torchrun --standalone --nproc_per_node 2 -r 1 -t 1 \
        examples/python/ddp_ringlab.py [--steps 20] [--width 512] [--backend ringlab|gloo]

`import ringlab.torch` registers the backend "ringlab" with torch.distributed; after that,
`dist.init_process_group("ringlab")` is all it takes: ranks meet through the store torchrun
hands every backend, and DDP's gradient AllReduce runs on ringlab's collectives. Where the
backend was not built, the script says so and stops before starting anything.
(`-r 1 -t 1`: Debian's torch 1.13 torchrun fails on Python 3.11 with its default redirects,
"'NoneType' object has no attribute 'get'"; redirecting stdout and teeing it avoids that.)
"""

import argparse
import importlib.util
import statistics
import sys
import time

import torch
import torch.distributed as dist
from example_checks import same_parameters_on_all_ranks


def backend_problem(backend):
    """Why `backend` cannot be used here, or None."""
    if backend != "ringlab":
        return None
    if importlib.util.find_spec("ringlab") is None:
        return "the ringlab package is not importable: build it and run with PYTHONPATH=build/python"
    if importlib.util.find_spec("ringlab._torch_backend") is None:
        return ("ringlab's torch.distributed backend is not built (ringlab._torch_backend is missing; it is built "
                "where libtorch-dev is installed, see scripts/install-deps); --backend gloo runs this without it")
    import ringlab.torch  # noqa: F401  registers "ringlab" with torch.distributed
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="ringlab", help="torch.distributed backend (default ringlab)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--width", type=int, default=512)
    a = ap.parse_args()
    problem = backend_problem(a.backend)
    if problem:
        sys.exit(f"ddp_ringlab.py: {problem}")
    dist.init_process_group(a.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, a.width), torch.nn.ReLU(), torch.nn.Linear(a.width, a.width),
                                torch.nn.ReLU(), torch.nn.Linear(a.width, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(rank)  # each rank its own shard of the data
    data = [(torch.randn(32, 64, generator=gen), torch.randn(32, 10, generator=gen)) for _ in range(4)]
    times, losses = [], []
    for step in range(a.steps):
        x, y = data[step % len(data)]
        t0 = time.perf_counter()
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()  # DDP averages the gradients over the ranks, on the backend
        optimizer.step()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    same = same_parameters_on_all_ranks(model)
    dist.destroy_process_group()
    if rank == 0:
        print(f"DDP on {a.backend}, p = {world}: {a.steps} steps, mean loss over the 4 batches "
              f"{statistics.fmean(losses[:4]):.4f} -> {statistics.fmean(losses[-4:]):.4f}, "
              f"iteration median {statistics.median(times) * 1e3:.2f} ms")
        print(f"parameters identical on all {world} ranks: {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
