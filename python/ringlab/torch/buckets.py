"""A gradient bucket plan applied to a real training loop.

DDP takes only a bucket cap, and the planner's optimum (`ringlab plan`, docs/BUCKETS.md) is not a
cap: its buckets are any contiguous runs of gradients in ready order. `apply_plan(model, buckets)`
reduces a model's gradients in exactly the planned buckets, on any torch.distributed backend:

    timeline = ringlab.torch.timeline.record(model, make_batch, loss_fn)   # this run
    measured = ringlab.torch.timeline.measure_allreduce()                  # this group
    buckets, comparison = plan_buckets(timeline, dist.get_world_size(), measured=measured)
    applied = apply_plan(model, buckets)
    ... loss.backward(); optimizer.step()                                  # as with DDP

How, after Horovod's DistributedOptimizer (horovod/torch/optimizer.py, `_register_hooks`,
`_make_hook`, `synchronize`): a post-hook on each parameter's gradient accumulation node, found as
`p.expand_as(p).grad_fn.next_functions[0][0]` and kept referenced (a node lives only while
something holds it), fires once the gradient is in `p.grad`; asynchronous AllReduce handles are
kept and all waited for before the optimiser's step; a gradient produced twice before that step is
an error. What differs from Horovod: the hook copies the gradient into its planned bucket's flat
buffer (one per bucket, fixed at construction; on a ringlab group in its shared memory, so that
over shm a large bucket's AllReduce goes single copy) instead of handing each tensor to a
background fusion thread; a bucket's AllReduce (`torch.distributed.all_reduce(..., async_op=True)`) starts
when its last gradient is in and every earlier bucket has started, so buckets go out in the
planned order, the order the planner's execution model prices; and the wait is queued at the end
of the backward pass (as DDP's reducer does), so `loss.backward()` returns with the averaged
gradients in `.grad` and any optimiser and any code between backward and step (clipping) work
unchanged. Averaging is DDP's: each gradient is multiplied by 1/world_size while it is copied into
the bucket, the buckets are summed, and copied back into `.grad` (DDP's
`Reducer::mark_variable_ready_dense` and `finalize_bucket_dense`), so with the same buckets' sums
the result is DDP's to the last bit.
"""

import torch
import torch.distributed as dist

import ringlab

from ringlab.torch.timeline import hook_accumulate_grad


def plan_buckets(timeline, ranks, measured=None, profile=None, ddp_caps=()):
    """The optimal buckets for a recorded timeline at `ranks` processes, priced by a measured
    AllReduce (`timeline.measure_allreduce`'s record) or a calibrated profile (a file). Returns
    (buckets, comparison): buckets as lists of parameter names, in reduction order; comparison is
    the planner's JSON (`ringlab.plan_buckets`, the CLI's `plan --json`), with every plan's
    prediction, DDP's best cap (`ddp_bucket_cap_mb`) and DDP at each of `ddp_caps`
    (bucket_cap_mb values)."""
    model = {"profile": str(profile)} if profile is not None else {}
    comparison = ringlab.plan_buckets(timeline, ranks, measured=measured,
                                      ddp_caps=list(ddp_caps) or None, **model)
    return buckets_of(comparison, timeline), comparison


def buckets_of(comparison, timeline, plan="optimal"):
    """The buckets of one of the planner's plans (optimal, ddp-default, ddp-best-cap, ...) as lists
    of parameter names: the planner numbers tensors in the timeline's (ready) order."""
    chosen = next((p for p in comparison["plans"] if p["name"] == plan), None)
    if chosen is None:
        raise ValueError(f"bucket plan: no plan named '{plan}'; the planner made "
                         f"{', '.join(p['name'] for p in comparison['plans'])}")
    names = [t["name"] for t in timeline["tensors"]]
    return [[names[i] for i in b["tensors"]] for b in chosen["buckets"]]


def check_plan(named_parameters, buckets):
    """The plan's buckets as lists of (name, parameter), after checking that they cover every
    parameter that requires a gradient exactly once, and nothing else, with one datatype per
    bucket. Raises ValueError naming what is wrong."""
    params = {name: p for name, p in named_parameters if p.requires_grad}
    seen, out = set(), []
    for b, names in enumerate(buckets):
        if len(names) == 0:
            raise ValueError(f"bucket plan: bucket {b} is empty; every bucket needs at least one parameter")
        for name in names:
            if name not in params:
                raise ValueError(f"bucket plan: bucket {b} names '{name}', which is not a parameter of the model "
                                 "that requires a gradient")
            if name in seen:
                raise ValueError(f"bucket plan: parameter '{name}' is in more than one bucket (again in bucket {b}); "
                                 "each must be in exactly one")
            seen.add(name)
        dtypes = {params[n].dtype for n in names}
        if len(dtypes) > 1:
            raise ValueError(f"bucket plan: bucket {b} mixes datatypes {sorted(map(str, dtypes))}; "
                             "one datatype per bucket")
        out.append([(n, params[n]) for n in names])
    missing = [n for n in params if n not in seen]
    if missing:
        raise ValueError(f"bucket plan: {len(missing)} parameter(s) in no bucket: {', '.join(missing)}; "
                         "a plan must cover every parameter that requires a gradient")
    return out


_ATTRIBUTE = "_ringlab_bucket_plan"


def _bucket_buffer(numel, like, group):
    """A bucket's flat buffer. On a ringlab group, in its shared memory (`ringlab.torch.empty`):
    over shm the bucket's AllReduce then goes single copy. Elsewhere (other backends, other
    devices, dtypes ringlab does not reduce, the extension not built) an ordinary tensor."""
    try:
        from ringlab.torch.backend import ProcessGroupRinglab, empty
    except ImportError:  # the backend's extension is not built here
        return torch.empty(numel, dtype=like.dtype, device=like.device)
    process_group = group if group is not None else dist.distributed_c10d._get_default_group()
    # Gradients are floating point, and ringlab reduces every floating dtype torch has on CPU.
    if (isinstance(process_group, ProcessGroupRinglab) and like.device.type == "cpu"
            and like.dtype.is_floating_point):
        return empty(numel, like.dtype, process_group)
    return torch.empty(numel, dtype=like.dtype, device=like.device)


class _Bucket:
    """One planned bucket: a flat buffer, and per parameter its view into it."""

    def __init__(self, members, group):
        self.params = [p for _, p in members]
        self.names = [n for n, _ in members]
        self.buffer = _bucket_buffer(sum(p.numel() for p in self.params), self.params[0], group)
        self.views, offset = [], 0
        for p in self.params:
            self.views.append(self.buffer[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
        self.pending = len(self.params)


class AppliedPlan:
    """A model whose gradients are averaged over the process group in the planned buckets.
    Made by `apply_plan`; `launches` lists, for the last backward pass, each bucket's index in the
    order its AllReduce started and how many of the model's gradients were ready at that moment."""

    def __init__(self, model, buckets, group=None, broadcast=True):
        if getattr(model, _ATTRIBUTE, None) is not None:
            raise ValueError("bucket plan: this model already has a plan applied; remove() it first")
        self._buckets = [_Bucket(members, group) for members in check_plan(model.named_parameters(), buckets)]
        self.group = group
        self.world = dist.get_world_size(group)
        self._where = {}
        for b, bucket in enumerate(self._buckets):
            for k, p in enumerate(bucket.params):
                self._where[p] = (b, k)
        if broadcast:
            _broadcast_state(model, group)
        # The accumulation nodes with their hooks' handles, the nodes kept alive (as Horovod does).
        self._hooks = hook_accumulate_grad(((p, p) for p in self._where), self._make_hook)
        self.launches = []
        self._reset()
        # The model holds the plan: nothing else outside the hooks' own cycle (plan -> nodes ->
        # hooks -> plan) does, and the collector would take the hooks with it.
        self._model = model
        setattr(model, _ATTRIBUTE, self)

    def _reset(self):
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
        self._ready = set()
        self._next = 0
        self._works = []
        self._queued = False

    def _make_hook(self, p):
        def hook(*_):
            self._gradient_ready(p)
        return hook

    def _gradient_ready(self, p):
        if not self._queued:  # the first gradient of this backward pass
            self._queued = True
            self.launches = []
            torch.autograd.Variable._execution_engine.queue_callback(self.synchronize)
        b, k = self._where[p]
        if p in self._ready:
            raise RuntimeError(f"bucket plan: the gradient of '{self._buckets[b].names[k]}' was produced twice in one "
                               "backward pass; each parameter must be used in one backward per step")
        self._ready.add(p)
        bucket = self._buckets[b]
        torch.mul(p.grad, 1.0 / self.world, out=bucket.views[k])  # DDP's division, while copying
        bucket.pending -= 1
        while self._next < len(self._buckets) and self._buckets[self._next].pending == 0:
            work = dist.all_reduce(self._buckets[self._next].buffer, group=self.group, async_op=True)
            self._works.append(work)
            self.launches.append((self._next, len(self._ready)))
            self._next += 1

    def synchronize(self):
        """Waits for every bucket's AllReduce and copies the averages back into the gradients.
        Runs by itself at the end of each backward pass."""
        if not self._queued:
            return
        try:
            if self._next < len(self._buckets):
                missing = [n for bucket in self._buckets for n, p in zip(bucket.names, bucket.params)
                           if p not in self._ready]
                raise RuntimeError(f"bucket plan: the backward pass produced no gradient for {', '.join(missing)}; "
                                   "buckets from the first one holding them were never reduced")
            for work in self._works:
                work.wait()
            for bucket in self._buckets:
                for p, view in zip(bucket.params, bucket.views):
                    p.grad.copy_(view)
        finally:
            self._reset()

    def remove(self):
        """Takes the hooks off: the model's gradients are local again."""
        for _, handle in self._hooks:
            handle.remove()
        self._hooks = []
        setattr(self._model, _ATTRIBUTE, None)


def _broadcast_state(model, group):
    """Parameters and buffers from the group's first rank, as DDP does when it wraps a model:
    detached (same storage), since a backend may work on them off this thread, where this
    thread's no_grad does not reach."""
    root = dist.get_global_rank(group, 0) if group is not None else 0
    for t in list(model.parameters()) + list(model.buffers()):
        dist.broadcast(t.detach(), root, group=group)


def apply_plan(model, buckets, group=None, broadcast=True):
    """Reduces the model's gradients in the planned buckets from the next backward pass on.
    `buckets`: lists of parameter names (as `model.named_parameters()` names them) in reduction
    order, e.g. from `plan_buckets`; they must cover every parameter that requires a gradient
    exactly once. With `broadcast`, the parameters and buffers are first made the group's first
    rank's, as DDP does. Every rank of the group must apply the same plan."""
    return AppliedPlan(model, buckets, group, broadcast)
