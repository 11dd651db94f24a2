"""The ranks' side of test_torch_operations.py: the operations gloo offers beyond AllReduce,
AllGather, ReduceScatter and broadcast (reduce, gather, scatter, all_to_all, send and recv,
all_gather_coalesced, monitored_barrier, sparse all_reduce, bool and the bitwise ops, a subgroup
of any ranks, all_reduce's premultiplied sum), each against closed-form values and against gloo in the same job, at sizes that hit
the edges: no elements, fewer elements than ranks, counts p does not divide.

    python3 -m torch.distributed.run --nproc_per_node 3 torch_operations_jobs.py

Every rank checks what it can and exits non-zero with the list of what differed.
"""
from datetime import timedelta

import torch
import torch.distributed as dist

import ringlab.torch  # noqa: F401 (registers the backend)
from torch_backend_jobs import Checks

SIZES = (0, 1, 2, 7, 1001)  # 1 and 2: fewer elements than ranks at p = 3
DTYPES = (torch.int32, torch.float64, torch.float16, torch.uint8)


def value(rank, n, dtype, shift=0):
    """Rank r's tensor: b + r + 1 + shift with b = 0..4 repeating; small integers, exact."""
    return (torch.arange(n) % 5 + rank + 1 + shift).to(dtype)


def both(checks, name, run, groups):
    """run(group) on ringlab and on gloo: the result must match gloo's exactly."""
    mine = run(groups[0])
    theirs = run(groups[1])
    for i, (a, b) in enumerate(zip(mine, theirs)):
        checks.equal(f"{name} [{i}] (gloo)", a, b)
    return mine


def check_reduce_gather_scatter(checks, groups, rank, p):
    for n in SIZES:
        for dtype in DTYPES:
            what = f"{n} x {dtype}"
            b = torch.arange(n) % 5
            for root in range(p):
                def reduce(group):
                    t = value(rank, n, dtype)
                    dist.reduce(t, root, group=group)
                    return [t] if rank == root else []  # gloo's others hold partial sums
                both(checks, f"reduce to {root} {what}", reduce, groups)
                # sum over r of b + r + 1 = p b + p (p + 1) / 2; ringlab's others keep theirs.
                t = value(rank, n, dtype)
                dist.reduce(t, root, group=groups[0])
                expected = (p * b + p * (p + 1) // 2).to(dtype) if rank == root else value(
                    rank, n, dtype)
                checks.equal(f"reduce to {root} {what}", t, expected)

                def gather(group):
                    outs = [torch.full((n,), -1).to(dtype) for _ in range(p)]
                    dist.gather(value(rank, n, dtype), outs if rank == root else None, root,
                                group=group)
                    return outs if rank == root else []
                outs = both(checks, f"gather to {root} {what}", gather, groups)
                for q, out in enumerate(outs):
                    checks.equal(f"gather to {root} {what} block {q}", out, value(q, n, dtype))

                def scatter(group):
                    out = torch.full((n,), -1).to(dtype)
                    ins = [value(q, n, dtype, shift=10) for q in range(p)]
                    dist.scatter(out, ins if rank == root else None, root, group=group)
                    return [out]
                out, = both(checks, f"scatter from {root} {what}", scatter, groups)
                checks.equal(f"scatter from {root} {what}", out, value(rank, n, dtype, shift=10))


def check_all_to_all(checks, groups, rank, p):
    # Rank r sends (r + d) % 3 rows of 2 to rank d, each row 100 r + d: some blocks are empty.
    def single(group):
        ins = torch.cat([torch.full(((rank + d) % 3, 2), 100 * rank + d, dtype=torch.int64)
                         for d in range(p)])
        out = torch.full((sum((s + rank) % 3 for s in range(p)), 2), -1, dtype=torch.int64)
        dist.all_to_all_single(out, ins, [(s + rank) % 3 for s in range(p)],
                               [(rank + d) % 3 for d in range(p)], group=group)
        return [out]
    out, = both(checks, "all_to_all_single uneven", single, groups)
    expected = torch.cat([torch.full(((s + rank) % 3, 2), 100 * s + rank, dtype=torch.int64)
                          for s in range(p)])
    checks.equal("all_to_all_single uneven", out, expected)

    def equal_split(group):
        ins = torch.arange(3 * p, dtype=torch.float32) + 1000 * rank
        out = torch.empty(3 * p, dtype=torch.float32)
        dist.all_to_all_single(out, ins, group=group)
        return [out]
    out, = both(checks, "all_to_all_single", equal_split, groups)
    checks.equal("all_to_all_single", out, torch.cat(
        [torch.arange(3 * rank, 3 * rank + 3, dtype=torch.float32) + 1000 * s for s in range(p)]))

    # The list form (gloo has none on CPU): rank r sends d + 1 elements 10 r + d to rank d.
    ins = [torch.full((d + 1,), 10 * rank + d, dtype=torch.int32) for d in range(p)]
    outs = [torch.empty(rank + 1, dtype=torch.int32) for _ in range(p)]
    dist.all_to_all(outs, ins, group=groups[0])
    for s in range(p):
        checks.equal(f"all_to_all from {s}", outs[s],
                     torch.full((rank + 1,), 10 * s + rank, dtype=torch.int32))


def check_point_to_point(checks, group, rank, p):
    after, before = (rank + 1) % p, (rank - 1) % p
    # Two tags, received in the other order than sent: tags match, not posting order.
    dist.send(value(rank, 7, torch.int64), after, group=group, tag=7)
    dist.send(value(rank, 0, torch.int64), after, group=group, tag=3)
    empty = torch.empty(0, dtype=torch.int64)
    dist.recv(empty, before, group=group, tag=3)
    got = torch.empty(7, dtype=torch.int64)
    dist.recv(got, before, group=group, tag=7)
    checks.equal("recv tag 7 after tag 3", got, value(before, 7, torch.int64))
    # isend/irecv and batch_isend_irecv around the ring, receives posted first.
    got = torch.empty(5, dtype=torch.float64)
    work = dist.irecv(got, before, group=group)
    dist.isend(value(rank, 5, torch.float64), after, group=group).wait()
    work.wait()
    checks.equal("irecv", got, value(before, 5, torch.float64))
    got = torch.empty(3, dtype=torch.bool)
    ops = [dist.P2POp(dist.irecv, got, before, group), dist.P2POp(
        dist.isend, torch.tensor([True, before % 2 == 0, False]), after, group)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    checks.equal("batch_isend_irecv", got, torch.tensor([True, (before - 1) % p % 2 == 0, False]))
    # Any source: every other rank sends to rank 0 its rank, rank 0 learns who sent what.
    if rank == 0:
        senders = set()
        for _ in range(p - 1):
            got = torch.empty(4, dtype=torch.int32)
            sender = dist.recv(got, group=group)
            senders.add(sender)
            checks.equal(f"recv from any source ({sender})", got,
                         torch.full((4,), sender, dtype=torch.int32))
        checks.equal("any-source senders", torch.tensor(sorted(senders)), torch.arange(1, p))
    else:
        dist.send(torch.full((4,), rank, dtype=torch.int32), 0, group=group)
    checks.raises("recv of the wrong size", "sent 8 bytes where the receiving tensor holds 4",
                  lambda: exchange_wrong_size(rank, p, group))


def exchange_wrong_size(rank, p, group):
    dist.send(torch.zeros(2, dtype=torch.int32), (rank + 1) % p, group=group, tag=99)
    dist.recv(torch.zeros(1, dtype=torch.int32), (rank - 1) % p, group=group, tag=99)


def check_reductions_ringlab_lacks(checks, groups, rank, p):
    for n in (0, 2, 9):
        bits = ((torch.arange(n) + rank) % 3 == 0)
        for op, fold in ((dist.ReduceOp.SUM, "any"), (dist.ReduceOp.MAX, "any"),
                         (dist.ReduceOp.PRODUCT, "all"), (dist.ReduceOp.MIN, "all")):
            def reduce_bool(group):
                t = bits.clone()
                dist.all_reduce(t, op, group=group)
                return [t]
            t, = reduce_bool(groups[0])  # gloo's all_reduce has no bool
            every = torch.stack([(torch.arange(n) + r) % 3 == 0 for r in range(p)])
            checks.equal(f"bool {op} {n}", t, every.any(0) if fold == "any" else every.all(0))
        word = torch.full((n,), (1 << rank) | 1, dtype=torch.int64)
        for op, expected in ((dist.ReduceOp.BOR, (1 << p) - 1), (dist.ReduceOp.BAND, 1),
                             (dist.ReduceOp.BXOR, ((1 << p) - 1) ^ (p % 2 == 0))):
            def reduce_bits(group):
                t = word.clone()
                dist.all_reduce(t, op, group=group)
                return [t]
            t, = both(checks, f"{op} {n}", reduce_bits, groups)
            checks.equal(f"{op} {n}", t, torch.full((n,), expected, dtype=torch.int64))
    checks.raises("BAND on float", "BAND, BOR and BXOR take integer or bool tensors",
                  lambda: dist.all_reduce(torch.ones(3), dist.ReduceOp.BAND, group=groups[0]))


def check_sparse_and_coalesced(checks, groups, rank, p):
    # Rank r holds 1 at (0, 0) and r + 1 at (r, 1) of a 4 x 2 matrix.
    def sparse(group):
        t = torch.sparse_coo_tensor([[0, rank], [0, 1]], [1.0, rank + 1.0], (4, 2))
        dist.all_reduce(t, group=group)
        return [t.to_dense()]
    t, = both(checks, "sparse all_reduce", sparse, groups)
    expected = torch.zeros(4, 2)
    expected[0, 0] = p
    for r in range(p):
        expected[r, 1] = r + 1
    checks.equal("sparse all_reduce", t, expected)

    def coalesced(group):
        ins = [torch.full((3,), rank, dtype=torch.float64), torch.empty(0, dtype=torch.float64),
               torch.full((2, 2), rank + 0.5, dtype=torch.float64)]
        outs = [[torch.empty_like(t) for t in ins] for _ in range(p)]
        dist.all_gather_coalesced(outs, ins, group=group)
        return [t for out in outs for t in out]
    outs = both(checks, "all_gather_coalesced", coalesced, groups)
    for q in range(p):
        checks.equal(f"all_gather_coalesced {q}", outs[3 * q],
                     torch.full((3,), q, dtype=torch.float64))
        checks.equal(f"all_gather_coalesced {q} (2 x 2)", outs[3 * q + 2],
                     torch.full((2, 2), q + 0.5, dtype=torch.float64))


def check_subgroup_and_barriers(checks, rank, p):
    # Ranks in an order of their own, the last and the first: group rank 0 is world rank p - 1.
    members = [p - 1, 0]
    sub = dist.new_group(members, backend="ringlab")
    if rank in members:
        t = torch.full((5,), rank + 1, dtype=torch.int64)
        dist.all_reduce(t, group=sub)
        checks.equal("subgroup all_reduce", t, torch.full((5,), p + 1, dtype=torch.int64))
        got = torch.empty(2, dtype=torch.int64)
        if rank == 0:
            dist.send(torch.tensor([7, 8]), p - 1, group=sub)
        else:
            dist.recv(got, 0, group=sub)
            checks.equal("subgroup recv", got, torch.tensor([7, 8]))
    dist.monitored_barrier(timeout=timedelta(seconds=30))
    dist.monitored_barrier(timeout=timedelta(seconds=30), wait_all_ranks=True)
    dist.barrier()


def check_premultiplied_sum(checks, groups, rank, p):
    """all_reduce with PREMUL_SUM (torch.distributed._make_nccl_premul_sum, as NCCL has it): the
    bits of multiplying each rank's tensor by the factor first and summing after, in every floating
    dtype; against gloo's sum of the scaled tensors where two terms leave no order to differ."""
    for factor in (1.0 / p, 0.37):
        for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            for n in SIZES:
                what = f"premul_sum x {factor:.4g} of {n} x {dtype}"
                t = (torch.sin(torch.arange(n, dtype=torch.float64) * 0.7 + rank) * 3).to(dtype)
                scaled = t.mul(factor)
                summed = scaled.clone()
                dist.all_reduce(summed, group=groups[0])
                got = t.clone()
                dist.all_reduce(got, op=dist._make_nccl_premul_sum(factor), group=groups[0])
                checks.equal(what, got, summed)
                if p == 2 and dtype in (torch.float32, torch.float64):
                    dist.all_reduce(scaled, group=groups[1])
                    checks.equal(f"{what} (gloo)", got, scaled)
    # Closed form: small integers times a quarter are exact; the sum is p (p + 1) / 2 + p b.
    t = value(rank, 1001, torch.float32)
    dist.all_reduce(t, op=dist._make_nccl_premul_sum(0.25), group=groups[0])
    b = torch.arange(1001) % 5
    checks.equal("premul_sum x 0.25 closed form", t, ((p * b + p * (p + 1) // 2) * 0.25).float())


def main():
    dist.init_process_group("ringlab", timeout=timedelta(seconds=60))
    rank, p = dist.get_rank(), dist.get_world_size()
    groups = (dist.group.WORLD, dist.new_group(backend="gloo"))
    checks = Checks()
    check_reduce_gather_scatter(checks, groups, rank, p)
    check_all_to_all(checks, groups, rank, p)
    check_point_to_point(checks, groups[0], rank, p)
    check_reductions_ringlab_lacks(checks, groups, rank, p)
    check_sparse_and_coalesced(checks, groups, rank, p)
    check_subgroup_and_barriers(checks, rank, p)
    check_premultiplied_sum(checks, groups, rank, p)
    checks.finish(rank)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
