"""The ranks' side of test_torch_faults.py: DDP training on the "ringlab" backend in which one rank
kills (SIGKILL) or stops (SIGSTOP) itself in the middle of a backward pass.

    python3 -m torch.distributed.run --nproc_per_node 3 torch_fault_jobs.py \\
        kill|stop VICTIM TIMEOUT_S OUT_DIR

The victim signals itself from a gradient hook of the model's first layer, the last gradient the
backward computes: by then DDP has launched the later layers' buckets, so the fault lands with
collectives in flight. Every rank writes OUT_DIR/rank<r>.json before the fault (its pid and the
/dev/shm names it maps) and each survivor again when its exception comes: its type, its message,
and how long the call that raised had run. A survivor then ends as a training script does: it
destroys the process group (in a `finally`, as PyTorch's DDP tutorial's cleanup) and exits
non-zero by the exception.
"""
import json
import os
import signal
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import ringlab.torch  # noqa: F401  (registers the backend)

STEPS_BEFORE_FAULT = 3
SIGNALS = {"kill": signal.SIGKILL, "stop": signal.SIGSTOP}


def shm_names_mapped():
    """The /dev/shm names this process maps (the shm transport unlinks its segments once every
    rank has mapped them, so they show as "(deleted)" here and must be gone from /dev/shm)."""
    names = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and fields[5].startswith("/dev/shm/"):
                names.add(fields[5][len("/dev/shm/"):])
    return sorted(names)


def write(out_dir, rank, record):
    path = os.path.join(out_dir, f"rank{rank}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(record, f)
    os.replace(path + ".tmp", path)


def main(fault, victim, timeout_s, out_dir):
    # torchrun sends SIGTERM to the ranks still running once one has failed. A survivor blocked
    # in a collective would die of it before it could report its exception (and a survivor that
    # hangs would be hidden): here SIGTERM is noted and ignored, so every survivor must end by the
    # exception the backend raises, and one that hangs is left for torchrun's SIGKILL (30 s
    # later, or the test's shorter grace), which torchrun reports and the test refuses.
    signal.signal(signal.SIGTERM, lambda *_: None)
    dist.init_process_group("ringlab", timeout=timedelta(seconds=timeout_s))
    try:
        train(fault, victim, out_dir)
    finally:
        # As PyTorch's DDP tutorial's cleanup() does: after a failure too, so it must not hang.
        dist.destroy_process_group()


def train(fault, victim, out_dir):
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.Tanh(),
                                torch.nn.Linear(256, 256), torch.nn.Tanh(),
                                torch.nn.Linear(256, 8))
    # Buckets of about 50 KB: the layers above go in several, launched as their gradients come.
    ddp = DDP(model, bucket_cap_mb=0.05)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    record = {"rank": rank, "pid": os.getpid(), "shm names": shm_names_mapped()}
    write(out_dir, rank, record)

    step = 0
    if rank == victim:
        def fault_at_last_gradient(grad):
            if step == STEPS_BEFORE_FAULT:
                write(out_dir, rank, dict(record, fault=fault, step=step))
                os.kill(os.getpid(), SIGNALS[fault])
            return grad
        model[0].weight.register_hook(fault_at_last_gradient)

    for step in range(STEPS_BEFORE_FAULT + 2):
        generator = torch.Generator().manual_seed(1000 * step + rank)
        x = torch.randn(32, 64, generator=generator)
        start = time.monotonic()
        try:
            loss = ddp(x).square().mean()
            optimizer.zero_grad()
            start = time.monotonic()
            loss.backward()
        except Exception as e:
            write(out_dir, rank, dict(record, step=step, exception=type(e).__name__,
                                      message=str(e), seconds=time.monotonic() - start))
            raise
        optimizer.step()
    write(out_dir, rank, dict(record, step=step, exception=None))


if __name__ == "__main__":
    fault, victim, timeout_s, out_dir = sys.argv[1:]
    main(fault, int(victim), float(timeout_s), out_dir)
