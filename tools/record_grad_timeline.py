#!/usr/bin/python3
"""Record the gradient timeline of a PyTorch model's backward pass in ringlab's format.

Use it as a library, `record(model, make_batch, loss_fn)`, or from the command line on a model
built by any importable function:

    /usr/bin/python3 tools/record_grad_timeline.py --model mypkg.models:build --batch 32,784 \
        --iterations 5 --out timeline.json [--params-out params.csv] [--trace-out trace.json]

Method. A post-hook on each parameter's AccumulateGrad node (the node autograd runs when the
parameter's gradient has been accumulated into .grad, the same node DDP's reducer hooks) stamps
time.perf_counter() relative to the moment backward() was called; the backward's end is when
backward() returns. After warm-up iterations, each tensor's ready time is the median over the
recorded iterations, and tensors are listed in order of their median ready time (made
nondecreasing, as a median order can tie). The forward pass (forward + loss) and the optimiser
step (SGD unless one is given) are timed the same way and written as forward_us and
optimizer_step_us. copy_bandwidth_GBps is measured with torch's own tensor copy of a 64 MiB
buffer (bytes copied per second, median of repeats), the copy DDP makes into and out of a bucket.

Parameters that receive no gradient are left out (DDP would need find_unused_parameters for them).

--params-out writes name,count,dtype per parameter in model.parameters() order, which
`ringlab plan --trace` needs to map a torch.profiler trace to parameters; --trace-out records
the same iterations with torch.profiler and exports the Chrome trace.
"""

import argparse
import importlib
import json
import statistics
import time

import torch

FORMAT = "ringlab-grad-timeline/1"
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def accumulate_grad_node(param):
    """The AccumulateGrad node of a leaf parameter (as DDP's reducer finds it)."""
    return param.expand_as(param).grad_fn.next_functions[0][0]


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
    """Returns the timeline as a dict in ringlab's JSON format."""
    params = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    optimizer = optimizer or torch.optim.SGD([p for _, p in params], lr=1e-3)
    stamps = {}
    origin = [0.0]
    keep = []  # the nodes must outlive the hooks
    for index, (name, p) in enumerate(params):
        node = accumulate_grad_node(p)
        keep.append(node)
        node.register_hook(lambda *_, name=name: stamps.__setitem__(name, time.perf_counter() - origin[0]))
    ready = {name: [] for name, _ in params}
    ends, forwards, steps = [], [], []
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


def parameters_csv(model):
    lines = ["name,count,dtype"]
    lines += [f"{n},{p.numel()},{DTYPES[p.dtype]}" for n, p in model.named_parameters() if p.requires_grad]
    return "\n".join(lines) + "\n"


def export_trace(model, make_batch, loss_fn, path, iterations=3):
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        for _ in range(iterations):
            model.zero_grad(set_to_none=False)
            loss_fn(model, make_batch()).backward()
    prof.export_chrome_trace(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="module:function that returns a torch.nn.Module")
    ap.add_argument("--batch", required=True, help="input shape, e.g. 32,784 (random normal input)")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: leave)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--params-out")
    ap.add_argument("--trace-out")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    module, _, function = a.model.partition(":")
    model = getattr(importlib.import_module(module), function)()
    shape = [int(x) for x in a.batch.split(",")]
    torch.manual_seed(0)

    def make_batch():
        return torch.randn(*shape)

    def loss_fn(m, x):
        return m(x).float().pow(2).mean()

    timeline = record(model, make_batch, loss_fn, a.iterations, a.warmup)
    with open(a.out, "w") as f:
        json.dump(timeline, f, indent=1)
    if a.params_out:
        with open(a.params_out, "w") as f:
            f.write(parameters_csv(model))
    if a.trace_out:
        export_trace(model, make_batch, loss_fn, a.trace_out)


if __name__ == "__main__":
    main()
