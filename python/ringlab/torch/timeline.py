"""What one run tells the bucket planner: when each gradient is ready, and what an AllReduce costs.

`record(model, make_batch, loss_fn)` measures a model's gradient timeline in ringlab's format
(`ringlab-grad-timeline/1`, docs/BUCKETS.md), in the same process that trains it afterwards.
`mark_gradients(model)` names each gradient in a torch.profiler trace recorded meanwhile, so that
`ringlab plan --trace` reads the ready order and the names from the trace.
`measure_allreduce(group)` times the group's own AllReduce at every power of two, in the shape
`ringlab bench --json` writes, for the planner's `--measured` prices.

Method of `record`. A post-hook on each parameter's AccumulateGrad node (the node autograd runs
when the parameter's gradient has been accumulated into .grad, the same node DDP's reducer
hooks) stamps time.perf_counter() relative to the moment backward() was called; the backward's
end is when backward() returns. After warm-up iterations, each tensor's ready time is the median
over the recorded iterations, and tensors are listed in order of their median ready time (made
nondecreasing, as a median order can tie). The forward pass (forward + loss) and the optimiser
step (SGD unless one is given) are timed the same way and written as forward_us and
optimizer_step_us. copy_bandwidth_GBps is measured with torch's own tensor copy of a 64 MiB
buffer (bytes copied per second, median of repeats), the copy DDP makes into and out of a bucket.
Parameters that receive no gradient are left out (DDP would need find_unused_parameters for them).
"""

import contextlib
import statistics
import time

import torch
import torch.distributed as dist

FORMAT = "ringlab-grad-timeline/1"
# The name of the event mark_gradients writes into a torch.profiler trace, followed by the
# parameter's name: what `ringlab plan --trace` reads the ready order and the names from
# (kGradReadyMarker, include/ringlab/plan/chrome_trace.hpp).
GRAD_READY_MARKER = "ringlab.grad_ready: "
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def accumulate_grad_node(param):
    """The AccumulateGrad node of a leaf parameter (as DDP's reducer and Horovod find it)."""
    return param.expand_as(param).grad_fn.next_functions[0][0]


def hook_accumulate_grad(params, make_hook):
    """A post-hook on each (name, parameter)'s AccumulateGrad node: make_hook(name) is called once
    per parameter and returns the hook. Returns (node, handle) pairs: keep them while the hooks
    should run (a node lives only while referenced, and its hooks with it), then remove the
    handles."""
    hooks = []
    for name, p in params:
        node = accumulate_grad_node(p)
        hooks.append((node, node.register_hook(make_hook(name))))
    return hooks


@contextlib.contextmanager
def mark_gradients(model):
    """While active, each parameter's gradient writes an event named GRAD_READY_MARKER + its name
    into any torch.profiler trace being recorded, right after it is accumulated (the moment DDP's
    reducer hears of it): the trace then says which gradient became ready when, which an unmarked
    trace cannot say for parameters of the same size. Use it around your own profiling:

        with mark_gradients(model), torch.profiler.profile() as prof:
            loss_fn(model, batch).backward()
        prof.export_chrome_trace("trace.json")   # ringlab plan --trace trace.json --params ...
    """
    def make_hook(name):
        label = GRAD_READY_MARKER + name

        def hook(*_):
            with torch.autograd.profiler.record_function(label):
                pass
        return hook

    hooks = hook_accumulate_grad([(n, p) for n, p in model.named_parameters() if p.requires_grad],
                                 make_hook)
    try:
        yield
    finally:
        for _, h in hooks:
            h.remove()


def measure_copy_bandwidth(nbytes=64 << 20, repeats=7):
    src = torch.ones(nbytes // 4)
    dst = torch.empty_like(src)
    dst.copy_(src)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        dst.copy_(src)
        times.append(time.perf_counter() - t0)
    return nbytes / statistics.median(times)


def record(model, make_batch, loss_fn, iterations=5, warmup=2, optimizer=None):
    """Returns the timeline as a dict in ringlab's JSON format. The model's parameters move by
    the optimiser's steps (SGD, lr 1e-3, unless one is given), as in training."""
    params = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    optimizer = optimizer or torch.optim.SGD([p for _, p in params], lr=1e-3)
    stamps = {}
    origin = [0.0]
    hooks = hook_accumulate_grad(
        params, lambda name: lambda *_: stamps.__setitem__(name, time.perf_counter() - origin[0]))
    ready = {name: [] for name, _ in params}
    ends, forwards, steps = [], [], []
    try:
        for it in range(warmup + iterations):
            batch = make_batch()
            optimizer.zero_grad(set_to_none=False)
            stamps.clear()
            t0 = time.perf_counter()
            loss = loss_fn(model, batch)
            t1 = time.perf_counter()
            origin[0] = t1
            loss.backward()
            t2 = time.perf_counter()
            optimizer.step()
            t3 = time.perf_counter()
            if it < warmup:
                continue
            forwards.append(t1 - t0)
            ends.append(t2 - t1)
            steps.append(t3 - t2)
            for name in stamps:
                ready[name].append(stamps[name])
    finally:
        for _, h in hooks:  # the model trains on without the recorder's hooks
            h.remove()
    return _timeline(params, ready, ends, forwards, steps)


def _timeline(params, ready, ends, forwards, steps):
    index_of = {name: i for i, (name, _) in enumerate(params)}
    rows = []
    for name, p in params:
        if not ready[name]:
            continue  # no gradient: not reduced
        rows.append({"name": name, "count": p.numel(), "dtype": DTYPES[p.dtype],
                     "ready_us": statistics.median(ready[name]) * 1e6, "param_index": index_of[name]})
    rows.sort(key=lambda r: r["ready_us"])
    end_us = statistics.median(ends) * 1e6
    latest = 0.0
    for r in rows:
        latest = max(latest, r["ready_us"])
        r["ready_us"] = min(latest, end_us)
    return {"format": FORMAT, "backward_end_us": end_us, "forward_us": statistics.median(forwards) * 1e6,
            "optimizer_step_us": statistics.median(steps) * 1e6,
            "copy_bandwidth_GBps": measure_copy_bandwidth() / 1e9, "tensors": rows}


def measure_allreduce(group=None, max_bytes=32 << 20, rounds=20):
    """The group's own AllReduce (torch.distributed.all_reduce of float32, any backend) at every
    power of two from 4 B to max_bytes, the sizes interleaved (every size once per round, so that
    a slow stretch of the machine lands on all of them alike), each call after a barrier. Every
    rank of the group must call it. Returns, on every rank, a record in the shape `ringlab bench
    --json` writes: per size the mean over the rounds, since an iteration's communication is a
    sum of many AllReduce calls, which follows their mean (gloo's small calls have a long tail)."""
    sizes = [4 << k for k in range(max(1, (max_bytes // 4).bit_length()))]
    buf = torch.ones(sizes[-1] // 4)
    times = [[] for _ in sizes]
    for _ in range(rounds):
        for k, nbytes in enumerate(sizes):
            view = buf[: nbytes // 4]
            dist.barrier(group=group)
            t0 = time.perf_counter()
            dist.all_reduce(view, group=group)
            times[k].append(time.perf_counter() - t0)
    backend = dist.get_backend(group)
    rows = [{"size_bytes": n, "in_place": {"time_us": statistics.fmean(t) * 1e6,
                                           "median_us": statistics.median(t) * 1e6, "calls": len(t)}}
            for n, t in zip(sizes, times)]
    return {"run": {"p": dist.get_world_size(group), "transport": f"{backend} (torch.distributed.all_reduce)",
                    "time": "mean over calls, sizes interleaved"}, "rows": rows}


def parameters_csv(model):
    """name,count,dtype per parameter in model.parameters() order: what `ringlab plan --trace`
    needs to map a torch.profiler trace to parameters."""
    lines = ["name,count,dtype"]
    lines += [f"{n},{p.numel()},{DTYPES[p.dtype]}" for n, p in model.named_parameters() if p.requires_grad]
    return "\n".join(lines) + "\n"


def export_trace(model, make_batch, loss_fn, path, iterations=3):
    """Records `iterations` backward passes with torch.profiler, the gradients marked
    (mark_gradients), and exports the Chrome trace."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    with mark_gradients(model), torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        for _ in range(iterations):
            model.zero_grad(set_to_none=False)
            loss_fn(model, make_batch()).backward()
    prof.export_chrome_trace(path)
