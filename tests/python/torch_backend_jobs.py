"""The ranks' side of the torch backend's tests (test_torch_backend*.py start them).

    python3 -m torch.distributed.run --nproc_per_node 2 torch_backend_jobs.py collectives
    RINGLAB_TORCH_ALGORITHM=rabenseifner python3 -m torch.distributed.run --nproc_per_node 3 \
        torch_backend_jobs.py named_algorithm
    python3 -m torch.distributed.run --nproc_per_node 2 torch_backend_jobs.py ddp OUT_DIR
    RANK=.. WORLD_SIZE=.. MASTER_ADDR=.. MASTER_PORT=.. python3 torch_backend_jobs.py failure N
    python3 -m torch.distributed.run --nproc_per_node 3 torch_backend_jobs.py shared [refused]

Every rank checks what it can and exits non-zero with the list of what differed.
"""
import gc
import json
import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

import ringlab.torch  # registers the backend; new_group(transport)
from shared_memory_maps import in_own_shared_memory, peer_buffers_mapped

DTYPES = [torch.int8, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64]
OPS = {"sum": dist.ReduceOp.SUM, "product": dist.ReduceOp.PRODUCT, "min": dist.ReduceOp.MIN,
       "max": dist.ReduceOp.MAX, "avg": dist.ReduceOp.AVG}



def contribution(rank, n, dtype):
    """Rank r's tensor: (r + 1) * b with b = 1..7 repeating; small integers, exact in every
    dtype, so every op has a closed form (below) that rounding cannot blur."""
    return ((torch.arange(n) % 7 + 1) * (rank + 1)).to(dtype)


def expected_allreduce(op, p, n, dtype):
    b = (torch.arange(n) % 7 + 1).to(torch.float64)
    total = b * (p * (p + 1) // 2)
    if op == "sum":
        return total.to(dtype)
    if op == "product":
        return (b ** p * torch.arange(1, p + 1).prod()).to(dtype)
    if op == "min":
        return b.to(dtype)
    if op == "max":
        return (b * p).to(dtype)
    # avg: the sum divided once by p; integers truncate (ringlab's and NCCL's definition).
    if dtype.is_floating_point:
        return (total / p).to(dtype)
    return torch.div(total.to(torch.int64), p, rounding_mode="trunc").to(dtype)


class Checks:
    def __init__(self):
        self.failures = []
        self.count = 0

    def equal(self, name, got, expected):
        self.count += 1
        if got.dtype != expected.dtype or not torch.equal(got, expected):
            self.failures.append(f"{name}: got {got.flatten()[:6].tolist()} ({got.dtype}), "
                                 f"expected {expected.flatten()[:6].tolist()} ({expected.dtype})")

    def raises(self, name, needle, call):
        self.count += 1
        try:
            call()
        except (RuntimeError, ValueError) as e:
            if needle not in str(e):
                self.failures.append(f"{name}: message {str(e)!r} lacks {needle!r}")
            return
        self.failures.append(f"{name}: no error raised")

    def finish(self, rank):
        if self.failures:
            sys.exit(f"rank {rank}: {len(self.failures)} of {self.count} checks failed:\n" +
                     "\n".join(self.failures))
        print(f"rank {rank}: {self.count} checks passed")


def check_allreduce(checks, group, gloo, name, rank, p):
    for dtype in DTYPES:
        for n in (13, 100_003):
            for op_name, op in OPS.items():
                what = f"{name} allreduce {op_name} {n} x {dtype}"
                mine = contribution(rank, n, dtype)
                dist.all_reduce(mine, op=op, group=group)
                checks.equal(what, mine, expected_allreduce(op_name, p, n, dtype))
                if op_name == "avg":
                    continue  # gloo has no avg
                theirs = contribution(rank, n, dtype)
                try:
                    dist.all_reduce(theirs, op=op, group=gloo)
                except RuntimeError:
                    continue  # a dtype gloo lacks
                checks.equal(what + " (gloo)", mine, theirs)


def check_others(checks, group, gloo, name, rank, p):
    for dtype in DTYPES:
        n = 1001
        what = f"{name} {n} x {dtype}"
        root = p - 1
        t = contribution(rank, n, dtype) if rank == root else torch.full((n,), -1).to(dtype)
        dist.broadcast(t, root, group=group)
        checks.equal(what + " broadcast", t, contribution(root, n, dtype))
        outs = [torch.empty(n, dtype=dtype) for _ in range(p)]
        dist.all_gather(outs, contribution(rank, n, dtype), group=group)
        for q in range(p):
            checks.equal(f"{what} allgather block {q}", outs[q], contribution(q, n, dtype))
        flat = torch.empty(n * p, dtype=dtype)
        dist.all_gather_into_tensor(flat, contribution(rank, n, dtype), group=group)
        checks.equal(what + " allgather_into_tensor",
                     flat, torch.cat([contribution(q, n, dtype) for q in range(p)]))
        # Rank r gives block q the tensor (r + 1) * b + q: block q sums to b p(p+1)/2 + p q.
        blocks = [contribution(rank, n, dtype) + q for q in range(p)]
        out = torch.empty(n, dtype=dtype)
        dist.reduce_scatter(out, blocks, group=group)
        expected = expected_allreduce("sum", p, n, dtype) + p * rank
        checks.equal(what + " reduce_scatter", out, expected)
        out = torch.empty(n, dtype=dtype)
        dist.reduce_scatter_tensor(out, torch.cat(blocks), group=group)
        checks.equal(what + " reduce_scatter_tensor", out, expected)
        gloo_out = [torch.empty(n, dtype=dtype) for _ in range(p)]
        try:
            dist.all_gather(gloo_out, contribution(rank, n, dtype), group=gloo)
        except RuntimeError:
            continue
        for q in range(p):
            checks.equal(f"{what} allgather block {q} (gloo)", outs[q], gloo_out[q])
    dist.barrier(group=group)


def check_async(checks, group, name, rank, p):
    # Queued in order, waited for out of order; a Work's future holds the output.
    tensors = [contribution(rank, 5000 + k, torch.float32) for k in range(6)]
    works = [dist.all_reduce(t, group=group, async_op=True) for t in tensors]
    for k in reversed(range(6)):
        works[k].wait()
        checks.equal(f"{name} async {k}", tensors[k],
                     expected_allreduce("sum", p, 5000 + k, torch.float32))
    work = dist.all_reduce(contribution(rank, 7, torch.int64), group=group, async_op=True)
    checks.equal(f"{name} future", work.get_future().wait()[0],
                 expected_allreduce("sum", p, 7, torch.int64))
    # Coalesced: two shapes, one AllReduce of their concatenation.
    pair = [contribution(rank, 6, torch.int32).view(2, 3), contribution(rank, 5, torch.int32)]
    dist.all_reduce_coalesced(pair, group=group)
    checks.equal(f"{name} coalesced", torch.cat([pair[0].flatten(), pair[1]]),
                 torch.cat([expected_allreduce("sum", p, n, torch.int32) for n in (6, 5)]))
    # torch hands complex tensors over as float pairs.
    z = torch.complex(contribution(rank, 11, torch.float32), -contribution(rank, 11, torch.float32))
    dist.all_reduce(z, group=group)
    total = expected_allreduce("sum", p, 11, torch.float32)
    checks.equal(f"{name} complex", z, torch.complex(total, -total))
    # Non-contiguous tensors: a column of a matrix.
    m = torch.stack([contribution(rank, 9, torch.float64)] * 3, dim=1)
    column = m[:, 1]
    dist.all_reduce(column, group=group)
    checks.equal(f"{name} strided", m[:, 1], expected_allreduce("sum", p, 9, torch.float64))
    checks.equal(f"{name} strided neighbour", m[:, 0], contribution(rank, 9, torch.float64))


def check_wait_timeout(checks, group, rank, p):
    # Rank p-1 comes 3 s late: elsewhere a wait of 1 s raises, and a later wait still gets the
    # result (the collective goes on within the group's timeout).
    t = contribution(rank, 10, torch.float32)
    if rank == p - 1:
        time.sleep(3)
        dist.all_reduce(t, group=group)
    else:
        work = dist.all_reduce(t, group=group, async_op=True)
        checks.raises("wait timeout", "ringlab: work ALLREDUCE on rank",
                      lambda: work.wait(timeout=timedelta(seconds=1)))
        work.wait()
    checks.equal("after a wait timeout", t, expected_allreduce("sum", p, 10, torch.float32))


def check_bad_input(checks, group):
    checks.raises("int16 dtype", "dtype Short is not supported; valid are bool, int8, uint8",
                  lambda: dist.all_reduce(torch.ones(3, dtype=torch.int16), group=group))
    checks.raises("bitwise op on floats", "BAND, BOR and BXOR take integer or bool tensors",
                  lambda: dist.all_reduce(torch.ones(3), group=group, op=dist.ReduceOp.BAND))
    checks.raises("allgather shapes", "where 4 x Float is needed",
                  lambda: dist.all_gather([torch.empty(4), torch.empty(5)], torch.ones(4),
                                          group=group))


def collectives():
    dist.init_process_group("ringlab", timeout=timedelta(seconds=60))
    rank, p = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    groups = {"shm": ringlab.torch.new_group("shm"), "tcp": ringlab.torch.new_group("tcp")}
    checks = Checks()
    default = dist.distributed_c10d._get_default_group()
    checks.equal("auto chooses shm on one host", torch.tensor(default.transport == "shm"),
                 torch.tensor(True))
    for name, group in groups.items():
        check_allreduce(checks, group, gloo, name, rank, p)
        check_others(checks, group, gloo, name, rank, p)
        check_async(checks, group, name, rank, p)
    check_wait_timeout(checks, groups["shm"], rank, p)
    check_bad_input(checks, groups["shm"])
    dist.barrier()
    checks.finish(rank)


def named_algorithm():
    """Every collective on a group whose RINGLAB_TORCH_ALGORITHM builds AllReduce only: the
    others run their own default algorithm."""
    dist.init_process_group("ringlab", timeout=timedelta(seconds=60))
    rank, p = dist.get_rank(), dist.get_world_size()
    checks = Checks()
    default = dist.distributed_c10d._get_default_group()
    checks.equal("the group's algorithm", torch.tensor(default.algorithm == os.environ.get(
        "RINGLAB_TORCH_ALGORITHM")), torch.tensor(True))
    n = 10
    t = contribution(rank, n, torch.int32)
    dist.all_reduce(t)
    checks.equal("all_reduce", t, expected_allreduce("sum", p, n, torch.int32))
    flags = torch.tensor([rank == 0, False, True])  # bool: folded from an AllGather of bytes
    dist.all_reduce(flags, op=dist.ReduceOp.MAX)
    checks.equal("bool all_reduce", flags, torch.tensor([True, False, True]))
    check_others(checks, None, dist.new_group(backend="gloo"), "named", rank, p)
    root = p - 1
    t = contribution(rank, n, torch.float64)
    dist.reduce(t, root)
    want = expected_allreduce("sum", p, n, torch.float64) if rank == root else \
        contribution(rank, n, torch.float64)
    checks.equal("reduce", t, want)
    gathered = [torch.empty(n) for _ in range(p)] if rank == root else None
    dist.gather(contribution(rank, n, torch.float32), gathered, dst=root)
    for q in range(p if rank == root else 0):
        checks.equal(f"gather block {q}", gathered[q], contribution(q, n, torch.float32))
    out = torch.empty(n)
    pieces = [contribution(q, n, torch.float32) for q in range(p)]
    dist.scatter(out, pieces if rank == 0 else None)
    checks.equal("scatter", out, contribution(rank, n, torch.float32))
    out = torch.empty(2 * p, dtype=torch.int64)
    dist.all_to_all_single(out, torch.arange(2 * p) + 100 * rank)
    checks.equal("all_to_all_single", out,
                 torch.tensor([100 * s + 2 * rank + j for s in range(p) for j in range(2)]))
    dist.barrier()
    checks.finish(rank)


def shared_allreduce(checks, name, rank, p, n, dtype, ops, group=None):
    """Every op of `ops` on a shared tensor of n elements, checked in full."""
    for op_name in ops:
        t = ringlab.torch.empty(n, dtype, group)
        checks.equal(f"{name} {n} x {dtype} in shared memory", torch.tensor(in_own_shared_memory(t)),
                     torch.tensor(True))
        t.copy_(contribution(rank, n, dtype))
        dist.all_reduce(t, op=OPS[op_name], group=group)
        checks.equal(f"{name} {n} x {dtype} {op_name}", t, expected_allreduce(op_name, p, n, dtype))


def shared(refused):
    """Shared tensors (ringlab.torch.empty) over shm: allreduce below and above the single-copy
    size with odd counts, in every dtype; single copy ran exactly where it should (a peer's buffer
    is mapped only after a large message of a shared tensor), and nowhere when the ranks may not
    map each other's memory (`refused`: pidfd_getfd refused); a tensor outlives its group."""
    dist.init_process_group("ringlab", timeout=timedelta(seconds=60))
    rank, p = dist.get_rank(), dist.get_world_size()
    checks = Checks()
    default = dist.distributed_c10d._get_default_group()
    checks.equal("single copy from", torch.tensor(default.single_copy_bytes or -1),
                 torch.tensor(-1 if refused else 128 * 1024))
    # Every message below 128 KiB (16383 x 8 B is just under it): through the slots.
    for dtype in DTYPES:
        for n in (1, 13, 1001, 16_383):
            shared_allreduce(checks, "small", rank, p, n, dtype, ("sum", "max"))
    plain = contribution(rank, 1_000_003, torch.float32)
    dist.all_reduce(plain)
    checks.equal("ordinary 1000003 x float32", plain,
                 expected_allreduce("sum", p, 1_000_003, torch.float32))
    checks.equal("no peer buffer read in place yet", torch.tensor(peer_buffers_mapped()),
                 torch.tensor(0))
    # Messages of 128 KiB and more: read in place from the sender's shared tensor.
    for dtype in DTYPES:
        ops = OPS if dtype == torch.float32 else ("sum", "max")
        for n in (65_537, 1_000_003):
            shared_allreduce(checks, "large", rank, p, n, dtype, ops)
    checks.equal("a peer's buffer read in place", torch.tensor(peer_buffers_mapped() >= 1),
                 torch.tensor(not refused))
    shaped = ringlab.torch.empty((3, 5, 7), torch.float64)
    checks.equal("shape", torch.tensor(shaped.shape), torch.tensor([3, 5, 7]))
    shaped.copy_(contribution(rank, 105, torch.float64).view(3, 5, 7))
    dist.all_reduce(shaped)
    checks.equal("shaped", shaped, expected_allreduce("sum", p, 105, torch.float64).view(3, 5, 7))
    # The tensor outlives its group: still its memory, readable and writable, and usable (as
    # ordinary memory) by another group.
    group = ringlab.torch.new_group("shm")
    n = 300_001
    kept = ringlab.torch.empty(n, torch.int32, group)
    kept.copy_(contribution(rank, n, torch.int32))
    dist.all_reduce(kept, group=group)
    dist.destroy_process_group(group)
    del group
    gc.collect()
    checks.equal("after its group is gone", kept, expected_allreduce("sum", p, n, torch.int32))
    kept.copy_(contribution(rank, n, torch.int32))
    dist.all_reduce(kept)
    checks.equal("after its group is gone, on another group", kept,
                 expected_allreduce("sum", p, n, torch.int32))
    check_plan_on_shared_buckets(checks, rank, p, refused)
    dist.barrier()
    checks.finish(rank)


def check_plan_on_shared_buckets(checks, rank, p, refused):
    """apply_plan's bucket of a 512 x 512 weight (1 MiB) lies in its group's shared memory, and
    its AllReduce goes single copy: the new group's transport maps a peer's buffer. The loss
    sum(x W^T) with x = rank + 1 in both rows has the gradient 2 (rank + 1) in every element,
    whose average over the ranks is p + 1."""
    from ringlab.torch.buckets import apply_plan
    group = ringlab.torch.new_group("shm")
    model = torch.nn.Linear(512, 512, bias=False)
    applied = apply_plan(model, [["weight"]], group=group)
    bucket = applied._buckets[0].buffer
    checks.equal("bucket in shared memory", torch.tensor(in_own_shared_memory(bucket)),
                 torch.tensor(True))
    mapped = peer_buffers_mapped()
    model(torch.full((2, 512), rank + 1.0)).sum().backward()
    checks.equal("planned bucket's average", model.weight.grad, torch.full((512, 512), p + 1.0))
    checks.equal("planned bucket read in place", torch.tensor(peer_buffers_mapped() > mapped),
                 torch.tensor(not refused))


def integer_mlp():
    """An MLP whose weights, inputs and gradients are small dyadic numbers: every sum of
    gradients is exact, in any order."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.randint(-4, 5, param.shape) / 8)
    return model


def float_mlp():
    return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32),
                               torch.nn.Tanh(), torch.nn.Linear(32, 4))


def train(group, make_model, integer_valued, rank, steps=6):
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.manual_seed(0)  # the same initial model on every rank and backend
    model = make_model()
    # A small bucket cap: several buckets, so that DDP overlaps them as it does on big models.
    ddp = DDP(model, process_group=group, bucket_cap_mb=0.001)
    lr = 1 / 64 if integer_valued else 0.05
    optimizer = torch.optim.SGD(ddp.parameters(), lr=lr)
    for step in range(steps):
        generator = torch.Generator().manual_seed(1000 * step + rank)  # each rank its own data
        if integer_valued:
            x = torch.randint(-3, 4, (16, 8), generator=generator).float()
            weights = torch.randint(-2, 3, (16, 4), generator=generator).float()
            loss = (ddp(x) * weights).sum()
        else:
            x = torch.randn(16, 8, generator=generator)
            y = torch.randn(16, 4, generator=generator)
            loss = torch.nn.functional.mse_loss(ddp(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return [param.detach().clone() for param in model.parameters()]


def ddp(out_dir):
    dist.init_process_group("ringlab", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    groups = {"gloo": dist.new_group(backend="gloo"),
              "ringlab shm": ringlab.torch.new_group("shm"),
              "ringlab tcp": ringlab.torch.new_group("tcp")}
    results = {}
    for model_name, make_model, integer_valued in (("float", float_mlp, False),
                                                    ("integer", integer_mlp, True)):
        torch.manual_seed(0)
        results[f"{model_name} initial"] = [p.flatten().tolist() for p in make_model().parameters()]
        for group_name, group in groups.items():
            params = train(group, make_model, integer_valued, rank)
            results[f"{model_name} {group_name}"] = [p.flatten().tolist() for p in params]
            # The parameters' bits, for a bitwise comparison.
            results[f"{model_name} {group_name} bits"] = [
                p.flatten().view(torch.int32).tolist() for p in params]
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.barrier()


def failure(victim):
    """Rank `victim` dies before the second collective; the others must raise from it."""
    dist.init_process_group("ringlab", timeout=timedelta(seconds=8))
    rank = dist.get_rank()
    t = torch.ones(1000)
    dist.all_reduce(t)
    if rank == victim:
        os._exit(3)
    start = time.monotonic()
    try:
        dist.all_reduce(t)
    except RuntimeError as e:
        print(f"rank {rank}: raised after {time.monotonic() - start:.1f} s: {e}", flush=True)
        # The group is unusable afterwards: the next collective fails at once, saying why.
        try:
            dist.all_reduce(t)
        except RuntimeError as again:
            print(f"rank {rank}: then: {again}", flush=True)
            os._exit(0)
        os._exit(5)
    print(f"rank {rank}: no error", flush=True)
    os._exit(4)


if __name__ == "__main__":
    job = sys.argv[1]
    if job == "named_algorithm":
        named_algorithm()
    elif job == "collectives":
        collectives()
    elif job == "ddp":
        ddp(sys.argv[2])
    elif job == "failure":
        failure(int(sys.argv[2]))
    elif job == "shared":
        shared(sys.argv[2:] == ["refused"])
    else:
        sys.exit(f"unknown job {job}: valid are collectives, ddp, failure, shared")
