#!/usr/bin/python3
"""Check `ringlab plan` against real PyTorch DDP (gloo backend, 2 processes on one host).

    /usr/bin/python3 tools/ddp_bucket_check.py --workload accel --ringlab build/ringlab --out DIR
    /usr/bin/python3 tools/ddp_bucket_check.py --workload cpu   --ringlab build/ringlab --out DIR

Steps (everything lands in DIR):
 1. model: a stack of Linear layers of varied widths built here (>= 50 parameter tensors);
 2. timeline: tools/record_grad_timeline.py's record() on one process, without DDP -> timeline.json;
 3. calibrate: alpha and beta from gloo point-to-point ping-pong (dist.send/recv) between the two
    processes, the best one-way time per size fitted by least squares on relative error as
    `ringlab calibrate` does; gamma from torch's in-place add; -> profile.json (with "ranks": 2,
    since two processes on one host are what it measured);
 4. plan: `ringlab plan --timeline timeline.json --profile profile.json -p 2 --json --ddp-caps ...`
    -> plan.json, with the planner's cap and a prediction for every cap measured;
 5. measure: DDP with each cap, one model copy per cap, caps interleaved (A B C ... A B C ...) for
    --rounds rounds; per round and cap the median of --iterations iterations after warm-up;
    per cap the median over rounds with a 95% distribution-free confidence interval (order
    statistics of the binomial) -> results.json.

Workloads: `accel`, each layer's backward is an autograd Function that sleeps for its share of
--backward-ms and returns precomputed gradients, so the backward takes time without using the CPU,
as an accelerator's kernels would, and gloo's AllReduce can overlap it for real; `cpu`, real Linear
layers whose CPU backward competes with gloo for the same cores (torch threads: 1 per process).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_grad_timeline  # noqa: E402

# Output widths of the 26 layers (52 parameter tensors), varied on purpose: large and tiny
# tensors side by side, as in real models.
WIDTHS = [512, 1024, 256, 1536, 128, 1024, 64, 768, 512, 2048, 256, 32, 1024, 512, 1280, 96, 640, 1024, 384,
          1792, 48, 512, 896, 256, 1024, 10]
INPUT = 784


class SleepLinearFn(torch.autograd.Function):
    """y = a fixed tensor; backward sleeps (no CPU) and returns precomputed gradients."""

    @staticmethod
    def forward(ctx, x, weight, bias, layer):
        ctx.layer = layer
        return layer.out_template.expand(x.shape[0], -1).clone()

    @staticmethod
    def backward(ctx, grad_out):
        layer = ctx.layer
        time.sleep(layer.backward_s)
        return layer.grad_x.expand(grad_out.shape[0], -1), layer.grad_w, layer.grad_b, None


class SleepLinear(torch.nn.Module):
    def __init__(self, fan_in, fan_out, backward_s):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(fan_out, fan_in))
        self.bias = torch.nn.Parameter(torch.zeros(fan_out))
        self.backward_s = backward_s
        self.out_template = torch.zeros(1, fan_out)
        self.grad_x = torch.full((1, fan_in), 1e-3)
        self.grad_w = torch.full((fan_out, fan_in), 1e-3)
        self.grad_b = torch.full((fan_out,), 1e-3)

    def forward(self, x):
        return SleepLinearFn.apply(x, self.weight, self.bias, self)


def build_model(workload, backward_ms):
    torch.manual_seed(0)
    layers, fan_in = [], INPUT
    sizes = []
    for w in WIDTHS:
        sizes.append(fan_in * w)
        fan_in = w
    total = sum(sizes)
    fan_in = INPUT
    for w, s in zip(WIDTHS, sizes):
        if workload == "accel":
            # Backward time proportional to the layer's size, with a floor (kernel launch).
            layers.append(SleepLinear(fan_in, w, max(2e-4, backward_ms * 1e-3 * s / total)))
        else:
            layers.append(torch.nn.Linear(fan_in, w))
            layers.append(torch.nn.ReLU())
        fan_in = w
    return torch.nn.Sequential(*layers)


def loss_fn(model, x):
    return model(x).float().pow(2).mean()


def make_batch_fn(args):
    gen = torch.Generator().manual_seed(1)

    def make_batch():
        return torch.randn(args.batch, INPUT, generator=gen)
    return make_batch


# ---------------------------------------------------------------- calibration (2 processes)

def fit_relative(xs, ys):
    """Least squares on relative error: minimise sum(((y - a - b x) / y)^2)."""
    w = [1 / (y * y) for y in ys]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, xs))
    sy = sum(wi * y for wi, y in zip(w, ys))
    sxx = sum(wi * x * x for wi, x in zip(w, xs))
    sxy = sum(wi * x * y for wi, x, y in zip(w, xs, ys))
    b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    a = (sy - b * sx) / sw
    return a, b


def calibrate_rank(rank, init, out, iterations):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    torch.set_num_threads(1)
    sizes = [4 << k for k in range(0, 24, 2)]  # 4 B .. 32 MiB
    best = []
    buf = torch.ones(sizes[-1] // 4)
    for nbytes in sizes:
        view = buf[: nbytes // 4]
        times = []
        for _ in range(iterations):
            dist.barrier()
            t0 = time.perf_counter()
            if rank == 0:
                dist.send(view, 1)
                dist.recv(view, 1)
            else:
                dist.recv(view, 0)
                dist.send(view, 0)
            times.append((time.perf_counter() - t0) / 2)
        best.append(min(times))
    # The same AllReduce sizes, for the record (a check of the model, never fitted).
    allreduce = []
    for nbytes in sizes:
        view = buf[: nbytes // 4]
        times = []
        for _ in range(iterations):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(view)
            times.append(time.perf_counter() - t0)
        allreduce.append(statistics.median(times))
    if rank == 0:
        a = torch.rand(sizes[-1] // 4)
        b = torch.rand(sizes[-1] // 4)
        adds = []
        for _ in range(iterations):
            t0 = time.perf_counter()
            a.add_(b)
            adds.append(time.perf_counter() - t0)
        alpha, beta = fit_relative(sizes, best)
        profile = {"format": "ringlab-profile/1", "alpha_s": max(alpha, 0.0), "beta_s_per_byte": beta,
                   "gamma_s_per_byte": min(adds) / sizes[-1], "concurrent_transfers": 0, "cache_bytes": 0,
                   "beta_mem_s_per_byte": 0, "gamma_mem_s_per_byte": 0, "units": {},
                   "transport": "gloo point-to-point (torch.distributed send/recv), 2 processes on one host",
                   "host": os.uname().nodename, "ringlab_version": "tools/ddp_bucket_check.py",
                   "date": time.strftime("%Y-%m-%d"), "link_fit_r2": 0, "reduce_fit_r2": 0, "ranks": 2,
                   "pingpong_one_way_best_s": dict(zip(map(str, sizes), best)),
                   "allreduce_median_s": dict(zip(map(str, sizes), allreduce))}
        with open(out, "w") as f:
            json.dump(profile, f, indent=1)
        # p = 2 ring: T = 2 alpha + n beta + (n / 2) gamma, so alpha = c0 / 2, beta = c1 - gamma / 2.
        c0, c1 = fit_relative(sizes, allreduce)
        effective = dict(profile, alpha_s=max(c0 / 2, 0.0), beta_s_per_byte=max(c1 - profile["gamma_s_per_byte"] / 2, 1e-12),
                         transport="effective gloo AllReduce (alpha, beta fitted to torch.distributed.all_reduce times), "
                                   "2 processes on one host")
        with open(out.replace(".json", "_allreduce.json"), "w") as f:
            json.dump(effective, f, indent=1)
    dist.destroy_process_group()


# ---------------------------------------------------------------- DDP runs (2 processes)

def ddp_rank(rank, init, args, caps, out):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    torch.set_num_threads(1)
    make_batch = make_batch_fn(args)
    models, optimizers = [], []
    for cap in caps:
        ddp = torch.nn.parallel.DistributedDataParallel(build_model(args.workload, args.backward_ms), bucket_cap_mb=cap)
        models.append(ddp)
        optimizers.append(torch.optim.SGD(ddp.parameters(), lr=1e-6))

    cpu = [[] for _ in caps]  # this process's CPU seconds (all its threads, gloo's too) per iteration

    def step(i):
        optimizers[i].zero_grad(set_to_none=False)
        t0, c0 = time.perf_counter(), time.process_time()
        loss_fn(models[i], make_batch()).backward()
        optimizers[i].step()
        cpu[i].append(time.process_time() - c0)
        return time.perf_counter() - t0

    for i in range(len(caps)):  # first iterations: DDP rebuilds its buckets in ready order
        for _ in range(3):
            step(i)
    per_round = [[] for _ in caps]
    for _ in range(args.rounds):
        for i in range(len(caps)):
            step(i)  # warm-up after the switch
            times = [step(i) for _ in range(args.iterations)]
            per_round[i].append(statistics.median(times))
    if rank == 0:
        with open(out, "w") as f:
            json.dump({"caps": caps, "per_round_s": per_round,
                       "cpu_per_iteration_s": [statistics.median(c) for c in cpu]}, f)
    dist.destroy_process_group()


def spawn(fn, *fn_args):
    with tempfile.TemporaryDirectory() as tmp:
        init = "file://" + os.path.join(tmp, "rendezvous")
        mp.spawn(fn, args=(init,) + fn_args, nprocs=2, join=True)


def median_ci_indices(n, level=0.95):
    """0-based indices of the order statistics that bound a distribution-free CI of the median:
    with X ~ Binomial(n, 1/2), the l smallest and l largest samples are left out, l the largest
    count with P(X <= l - 1) <= (1 - level) / 2. Too few samples: the whole range."""
    tail, cdf, l = (1 - level) / 2, 0.0, 0
    while l < n and cdf + math.comb(n, l) / 2 ** n <= tail:
        cdf += math.comb(n, l) / 2 ** n
        l += 1
    return (0, n - 1) if l == 0 else (l - 1, n - l)


def summarise(samples):
    xs = sorted(samples)
    lo, hi = median_ci_indices(len(xs))
    return {"median_s": statistics.median(xs), "ci95_s": [xs[lo], xs[hi]], "rounds": len(xs)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", choices=["accel", "cpu"], required=True)
    ap.add_argument("--ringlab", required=True, help="the ringlab binary")
    ap.add_argument("--out", required=True)
    ap.add_argument("--backward-ms", type=float, default=60, help="accel: total backward time")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--calibration-iterations", type=int, default=20)
    ap.add_argument("--caps", default="0.1,0.5,1,2,5,10,25,1000", help="bucket_cap_mb values besides the planner's")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = lambda name: os.path.join(a.out, name)  # noqa: E731

    torch.set_num_threads(1)
    model = build_model(a.workload, a.backward_ms)
    print(f"# {len(list(model.parameters()))} parameter tensors, "
          f"{sum(p.numel() for p in model.parameters()) * 4 / 2**20:.1f} MiB float32", flush=True)
    timeline = record_grad_timeline.record(model, make_batch_fn(a), loss_fn, iterations=7, warmup=3)
    with open(path("timeline.json"), "w") as f:
        json.dump(timeline, f, indent=1)
    print(f"# timeline: backward {timeline['backward_end_us']:.0f} us, forward {timeline['forward_us']:.0f} us, "
          f"step {timeline['optimizer_step_us']:.0f} us, copy {timeline['copy_bandwidth_GBps']:.2f} GB/s", flush=True)

    spawn(calibrate_rank, path("profile.json"), a.calibration_iterations)
    prof = json.load(open(path("profile.json")))
    print(f"# gloo: alpha {prof['alpha_s'] * 1e6:.1f} us, {1e-9 / prof['beta_s_per_byte']:.2f} GB/s per direction, "
          f"gamma {prof['gamma_s_per_byte'] * 1e9:.3f} ns/B", flush=True)

    caps = [float(c) for c in a.caps.split(",")]

    def run_plan(profile, caps):
        return json.loads(subprocess.check_output(
            [a.ringlab, "plan", "--timeline", path("timeline.json"), "--profile", profile, "-p", "2", "--json",
             "--ddp-caps", ",".join(f"{c:g}" for c in caps)]))

    plan = run_plan(path("profile.json"), caps)
    planner_cap = float(f"{plan['ddp_bucket_cap_mb']:.4g}")
    caps.append(planner_cap)
    plan = run_plan(path("profile.json"), caps)
    plan_effective = run_plan(path("profile_allreduce.json"), caps)
    effective_cap = float(f"{plan_effective['ddp_bucket_cap_mb']:.4g}")
    if effective_cap not in caps:
        caps.append(effective_cap)
        plan = run_plan(path("profile.json"), caps)
        plan_effective = run_plan(path("profile_allreduce.json"), caps)
    subprocess.check_call([a.ringlab, "plan", "--timeline", path("timeline.json"), "--profile", path("profile.json"),
                           "-p", "2", "--gantt", path("gantt.svg")], stdout=subprocess.DEVNULL)
    with open(path("plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    with open(path("plan_allreduce.json"), "w") as f:
        json.dump(plan_effective, f, indent=1)

    def predictions(plan, serial=False):
        # serial: the contention term at its limit, no communication hidden under the backward
        # (iteration + communication - exposed), for a CPU that has no idle core to overlap with.
        return {float(p["note"].split()[-1]): (p["iteration_us"] + (p["communication_us"] - p["exposed_us"] if serial else 0)) * 1e-6
                for p in plan["plans"] if p["name"].startswith("ddp-cap-")}
    predicted, predicted_effective = predictions(plan), predictions(plan_effective)
    predicted_serial = predictions(plan_effective, serial=True)
    print(f"# planner's cap: {planner_cap} MiB (link profile), {effective_cap} MiB (AllReduce-fitted profile); "
          f"optimal iteration {plan['plans'][0]['iteration_us']:.0f} us", flush=True)

    spawn(ddp_rank, a, caps, path("ddp_raw.json"))
    raw = json.load(open(path("ddp_raw.json")))
    rows = []
    for cap, samples in zip(raw["caps"], raw["per_round_s"]):
        s = summarise(samples)
        pred, eff = predicted.get(cap), predicted_effective.get(cap)
        s["predicted_allreduce_fit_serial_s"] = predicted_serial.get(cap)
        s["cpu_per_iteration_s"] = raw["cpu_per_iteration_s"][len(rows)]
        s.update({"cap_mb": cap, "predicted_s": pred, "predicted_allreduce_fit_s": eff, "planner": cap == planner_cap,
                  "planner_allreduce_fit": cap == effective_cap,
                  "error": (pred / s["median_s"] - 1) if pred else None,
                  "error_allreduce_fit": (eff / s["median_s"] - 1) if eff else None})
        rows.append(s)
    best = min(rows, key=lambda r: r["median_s"])
    result = {"workload": a.workload, "planner_cap_mb": planner_cap, "planner_cap_allreduce_fit_mb": effective_cap,
              "rows": rows, "best_cap_mb": best["cap_mb"], "args": vars(a), "torch": torch.__version__}
    with open(path("results.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"# {'cap_mb':>8} {'median_ms':>10} {'ci95_ms':>17} {'pred_link':>10} {'err':>7} {'pred_arfit':>10} {'err':>7}"
          f" {'serial':>8} {'cpu_ms':>7}")
    for r in rows:
        fmt = lambda v: f"{v * 1e3:.2f}" if v else "-"  # noqa: E731
        pct = lambda v: f"{100 * v:+.1f}%" if v is not None else "-"  # noqa: E731
        mark = ("  <- planner (link)" if r["planner"] else "") + ("  <- planner (AllReduce fit)" if r["planner_allreduce_fit"] else "")
        print(f"  {r['cap_mb']:8.4g} {r['median_s'] * 1e3:10.2f} [{r['ci95_s'][0] * 1e3:7.2f},{r['ci95_s'][1] * 1e3:7.2f}]"
              f" {fmt(r['predicted_s']):>10} {pct(r['error']):>7} {fmt(r['predicted_allreduce_fit_s']):>10}"
              f" {pct(r['error_allreduce_fit']):>7} {fmt(r['predicted_allreduce_fit_serial_s']):>8}"
              f" {r['cpu_per_iteration_s'] * 1e3:7.1f}{mark}")


if __name__ == "__main__":
    main()
