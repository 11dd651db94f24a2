#!/usr/bin/python3
"""Check `ringlab plan` against real PyTorch DDP (gloo backend, 2 processes on one host).

    PYTHONPATH=build/python /usr/bin/python3 tools/ddp_bucket_check.py --workload accel --ringlab build/ringlab --out DIR
    PYTHONPATH=build/python /usr/bin/python3 tools/ddp_bucket_check.py --workload cpu   --ringlab build/ringlab --out DIR

Steps (everything lands in DIR):
 1. model: tools/accel_workload.py's stack of Linear layers of varied widths (52 parameter tensors);
 2. timeline: ringlab.torch.timeline.record() on one process, without DDP -> timeline.json;
 3. calibrate: alpha and beta from gloo point-to-point ping-pong (dist.send/recv) between the two
    processes, the best one-way time per size fitted by least squares on relative error as
    `ringlab calibrate` does; gamma from torch's in-place add; -> profile.json (with "ranks": 2,
    since two processes on one host are what it measured). gloo's own AllReduce at every power of
    two from 4 B to 32 MiB, sizes interleaved, mean per size -> allreduce_gloo.json, in the shape
    `ringlab bench --json` writes, for `ringlab plan --measured`;
 4. DDP without communication: interleaved rounds of the plain model and of DDP with a no-op
    communication hook, with and without gradient_as_bucket_view: DDP's per-iteration bookkeeping
    and the rate of its bucket copies, each applied where its 95% interval excludes zero ->
    timeline_ddp.json (the timeline as DDP runs it) and bookkeeping.json;
 5. plan: `ringlab plan --timeline timeline_ddp.json -p 2 --json - --ddp-caps ...` with the measured
    AllReduce (the prediction) and with the link profile (the model from point-to-point numbers)
    -> plan_measured.json, plan_link.json, gantt.svg, each planner's cap;
 6. measure: DDP with each cap, one model copy per cap, caps interleaved (A B C ... A B C ...) for
    --rounds rounds; per round and cap the median of --iterations iterations after warm-up;
    per cap the median over rounds with a 95% distribution-free confidence interval (order
    statistics of the binomial) -> results.json, with the contention term c that would reconcile
    the overlap prediction with each median.

Workloads: `accel`, each layer's backward is an autograd Function that sleeps for its share of
--backward-ms and returns precomputed gradients, so the backward takes time without using the CPU,
as an accelerator's kernels would, and gloo's AllReduce can overlap it for real; `cpu`, real Linear
layers whose CPU backward competes with gloo for the same cores (torch threads: 1 per process).
"""

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accel_workload import build_model, loss_fn, make_batch_fn  # noqa: E402

try:
    from ringlab.torch.timeline import measure_allreduce, record
except ImportError as e:
    sys.exit(f"ddp_bucket_check.py: the ringlab package is not importable ({e}); build it and run with "
             "PYTHONPATH=build/python")

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


def calibrate_rank(rank, init, out_dir, iterations):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    torch.set_num_threads(1)
    sizes = [4 << k for k in range(0, 24)]  # 4 B .. 32 MiB, every power of two
    buf = torch.ones(sizes[-1] // 4)
    # Point-to-point: the best one-way time per size, for the link profile.
    best = []
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
    # gloo's own AllReduce at the same sizes, for `ringlab plan --measured`.
    allreduce = measure_allreduce(max_bytes=sizes[-1], rounds=iterations)
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
                   "pingpong_one_way_best_s": dict(zip(map(str, sizes), best))}
        with open(os.path.join(out_dir, "profile.json"), "w") as f:
            json.dump(profile, f, indent=1)
        with open(os.path.join(out_dir, "allreduce_gloo.json"), "w") as f:
            json.dump(allreduce, f, indent=1)
    dist.destroy_process_group()


# ---------------------------------------------------------------- DDP's own cost (2 processes)

def noop_comm_hook(state, bucket):
    """A DDP communication hook that communicates nothing: DDP's bookkeeping and copies alone."""
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def bookkeeping_rank(rank, init, args, out):
    """Interleaved rounds of the plain model, DDP with a no-op communication hook, and the same
    with gradient_as_bucket_view=True: DDP's per-iteration bookkeeping (views minus plain) and its
    bucket copies (copies minus views), measured without any communication."""
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    torch.set_num_threads(1)
    make_batch = make_batch_fn(args.batch)
    models = [build_model(args.workload, args.backward_ms)]
    for views in (False, True):
        ddp = torch.nn.parallel.DistributedDataParallel(build_model(args.workload, args.backward_ms),
                                                        gradient_as_bucket_view=views)
        ddp.register_comm_hook(None, noop_comm_hook)
        models.append(ddp)
    optimizers = [torch.optim.SGD(m.parameters(), lr=1e-6) for m in models]
    per_round = run_interleaved(models, optimizers, make_batch, args.calibration_rounds, args.iterations)[0]
    if rank == 0:
        with open(out, "w") as f:
            json.dump({"configs": ["plain", "ddp_noop_copies", "ddp_noop_views"], "per_round_s": per_round}, f)
    dist.destroy_process_group()


# ---------------------------------------------------------------- DDP runs (2 processes)

def run_interleaved(models, optimizers, make_batch, rounds, iterations):
    """Rounds of A B C ...: per round and model, one warm-up iteration and the median of
    `iterations`. Returns per model the per-round medians, and this process's CPU seconds per
    iteration (all its threads, gloo's too)."""
    cpu = [[] for _ in models]

    def step(i):
        optimizers[i].zero_grad(set_to_none=False)
        t0, c0 = time.perf_counter(), time.process_time()
        loss_fn(models[i], make_batch()).backward()
        optimizers[i].step()
        cpu[i].append(time.process_time() - c0)
        return time.perf_counter() - t0

    for i in range(len(models)):  # first iterations: DDP rebuilds its buckets in ready order
        for _ in range(3):
            step(i)
    per_round = [[] for _ in models]
    for _ in range(rounds):
        for i in range(len(models)):
            step(i)  # warm-up after the switch
            per_round[i].append(statistics.median([step(i) for _ in range(iterations)]))
    return per_round, [statistics.median(c) for c in cpu]


def ddp_rank(rank, init, args, caps, out):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    torch.set_num_threads(1)
    models = [torch.nn.parallel.DistributedDataParallel(build_model(args.workload, args.backward_ms), bucket_cap_mb=cap)
              for cap in caps]
    optimizers = [torch.optim.SGD(m.parameters(), lr=1e-6) for m in models]
    per_round, cpu = run_interleaved(models, optimizers, make_batch_fn(args.batch), args.rounds, args.iterations)
    if rank == 0:
        with open(out, "w") as f:
            json.dump({"caps": caps, "per_round_s": per_round, "cpu_per_iteration_s": cpu}, f)
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


def ddp_timeline(timeline, bookkeeping, total_bytes):
    """The recorded timeline as DDP runs it: DDP's bookkeeping (no-op hook with views, minus the
    plain model, paired by round) added to the forward as a per-iteration constant, and the copy
    rate DDP's own bucket copies achieved (no-op hook with copies, minus views: one copy in and
    one out). Each is applied only when its 95% interval excludes zero; otherwise the data do not
    support it, and the recorded timeline stands."""
    plain, copies, views = (summarise(r)["median_s"] for r in bookkeeping["per_round_s"])
    paired = lambda x, y: summarise([a - b for a, b in zip(x, y)])  # noqa: E731
    extra = paired(bookkeeping["per_round_s"][2], bookkeeping["per_round_s"][0])
    copy = paired(bookkeeping["per_round_s"][1], bookkeeping["per_round_s"][2])
    extra["applied"] = extra["ci95_s"][0] > 0
    copy["applied"] = copy["ci95_s"][0] > 0
    out = dict(timeline)
    if extra["applied"]:
        out["forward_us"] = timeline["forward_us"] + extra["median_s"] * 1e6
    if copy["applied"]:
        out["copy_bandwidth_GBps"] = 2 * total_bytes / copy["median_s"] / 1e9
    note = {"plain_s": plain, "ddp_noop_copies_s": copies, "ddp_noop_views_s": views,
            "bookkeeping": extra, "copies": copy,
            "copy_bandwidth_GBps_recorded": timeline["copy_bandwidth_GBps"],
            "copy_bandwidth_GBps_used": out["copy_bandwidth_GBps"]}
    return out, note


def pooled_contention(per_round, overlap, serial, resamples=2000):
    """The contention term c fitted over all caps at once: measured - overlap = c x (serial -
    overlap), least squares through the origin on the per-cap medians. Its 95% interval resamples
    whole rounds (the caps ran interleaved, so a round's slow stretch hits every cap alike)."""
    def fit(medians):
        num = sum((t - o) * (s - o) for t, o, s in zip(medians, overlap, serial))
        den = sum((s - o) ** 2 for o, s in zip(overlap, serial))
        return num / den if den > 0 else None
    rounds = len(per_round[0])
    estimate = fit([statistics.median(r) for r in per_round])
    rng = random.Random(7)
    boot = []
    for _ in range(resamples):
        pick = [rng.randrange(rounds) for _ in range(rounds)]
        boot.append(fit([statistics.median(r[i] for i in pick) for r in per_round]))
    boot.sort()
    return {"c": estimate, "ci95": [boot[int(0.025 * resamples)], boot[int(0.975 * resamples) - 1]],
            "method": "least squares over caps of (measured - overlap) on (serial - overlap), medians; "
                      "CI: bootstrap over rounds"}


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
    ap.add_argument("--calibration-rounds", type=int, default=8, help="rounds of the DDP bookkeeping measurement")
    ap.add_argument("--caps", default="0.1,0.5,1,2,5,10,25,1000", help="bucket_cap_mb values besides the planner's")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = lambda name: os.path.join(a.out, name)  # noqa: E731

    torch.set_num_threads(1)
    model = build_model(a.workload, a.backward_ms)
    total_bytes = sum(p.numel() for p in model.parameters()) * 4
    print(f"# {len(list(model.parameters()))} parameter tensors, {total_bytes / 2**20:.1f} MiB float32", flush=True)
    timeline = record(model, make_batch_fn(a.batch), loss_fn, iterations=7, warmup=3)
    with open(path("timeline.json"), "w") as f:
        json.dump(timeline, f, indent=1)
    print(f"# timeline: backward {timeline['backward_end_us']:.0f} us, forward {timeline['forward_us']:.0f} us, "
          f"step {timeline['optimizer_step_us']:.0f} us, copy {timeline['copy_bandwidth_GBps']:.2f} GB/s", flush=True)

    spawn(calibrate_rank, a.out, a.calibration_iterations)
    prof = json.load(open(path("profile.json")))
    print(f"# gloo point-to-point: alpha {prof['alpha_s'] * 1e6:.1f} us, {1e-9 / prof['beta_s_per_byte']:.2f} GB/s "
          f"per direction, gamma {prof['gamma_s_per_byte'] * 1e9:.3f} ns/B", flush=True)

    spawn(bookkeeping_rank, a, path("bookkeeping_raw.json"))
    timeline_ddp, bookkeeping = ddp_timeline(timeline, json.load(open(path("bookkeeping_raw.json"))), total_bytes)
    with open(path("timeline_ddp.json"), "w") as f:
        json.dump(timeline_ddp, f, indent=1)
    with open(path("bookkeeping.json"), "w") as f:
        json.dump(bookkeeping, f, indent=1)
    ms = lambda v: f"{v['median_s'] * 1e3:.2f} ms [{v['ci95_s'][0] * 1e3:.2f}, {v['ci95_s'][1] * 1e3:.2f}]" + (  # noqa: E731
        "" if v["applied"] else " (interval holds 0: not applied)")
    print(f"# DDP without communication: bookkeeping {ms(bookkeeping['bookkeeping'])} per iteration, bucket copies "
          f"{ms(bookkeeping['copies'])}; copy rate used {timeline_ddp['copy_bandwidth_GBps']:.2f} GB/s", flush=True)

    caps = [float(c) for c in a.caps.split(",")]
    # The link profile was measured over gloo, which plan's --transport cannot name: used knowingly.
    estimates = {"measured": ["--measured", path("allreduce_gloo.json")],
                 "link": ["--profile", path("profile.json"), "--profile-any-transport"]}

    def run_plan(cost_args, caps, extra=()):
        return subprocess.check_output(
            [a.ringlab, "plan", "--timeline", path("timeline_ddp.json"), "-p", "2", *cost_args,
             "--ddp-caps", ",".join(f"{c:g}" for c in caps), *extra])

    planner_caps = {}
    for name, cost_args in estimates.items():
        planner_caps[name] = float(f"{json.loads(run_plan(cost_args, caps, ['--json', '-']))['ddp_bucket_cap_mb']:.4g}")
    for cap in planner_caps.values():
        if cap not in caps:
            caps.append(cap)
    plans = {name: json.loads(run_plan(cost_args, caps, ["--json", "-"])) for name, cost_args in estimates.items()}
    for name, plan in plans.items():
        with open(path(f"plan_{name}.json"), "w") as f:
            json.dump(plan, f, indent=1)
    run_plan(estimates["measured"], caps, ["--svg", path("gantt.svg")])

    def predictions(plan, serial=False):
        # serial: the contention term at its limit, no communication hidden under the backward
        # (iteration + communication - exposed), for a CPU that has no idle core to overlap with.
        return {float(p["note"].split()[-1]): (p["iteration_us"] + (p["communication_us"] - p["exposed_us"] if serial else 0)) * 1e-6
                for p in plan["plans"] if p["name"].startswith("ddp-cap-")}
    predicted, predicted_link = predictions(plans["measured"]), predictions(plans["link"])
    predicted_serial = predictions(plans["measured"], serial=True)
    print(f"# planner's cap: {planner_caps['measured']} MiB (measured AllReduce), {planner_caps['link']} MiB (link "
          f"profile); optimal iteration {plans['measured']['plans'][0]['iteration_us']:.0f} us", flush=True)

    spawn(ddp_rank, a, caps, path("ddp_raw.json"))
    raw = json.load(open(path("ddp_raw.json")))
    rows = []
    for k, (cap, samples) in enumerate(zip(raw["caps"], raw["per_round_s"])):
        s = summarise(samples)
        overlap, serial = predicted[cap], predicted_serial[cap]
        # The contention term c that would make the prediction meet the median (and the interval):
        # measured = overlap + c x (serial - overlap).
        c_of = lambda t: (t - overlap) / (serial - overlap) if serial - overlap > 1e-9 else None  # noqa: E731
        s.update({"cap_mb": cap, "predicted_s": overlap, "predicted_link_s": predicted_link[cap],
                  "predicted_serial_s": serial, "cpu_per_iteration_s": raw["cpu_per_iteration_s"][k],
                  "planner": cap == planner_caps["measured"], "planner_link": cap == planner_caps["link"],
                  "error": overlap / s["median_s"] - 1, "error_link": predicted_link[cap] / s["median_s"] - 1,
                  "contention_c": c_of(s["median_s"]), "contention_c_ci95": [c_of(s["ci95_s"][0]), c_of(s["ci95_s"][1])]})
        rows.append(s)
    best = min(rows, key=lambda r: r["median_s"])
    contention = pooled_contention(raw["per_round_s"], [predicted[c] for c in raw["caps"]],
                                   [predicted_serial[c] for c in raw["caps"]])
    result = {"workload": a.workload, "planner_cap_mb": planner_caps["measured"], "planner_cap_link_mb": planner_caps["link"],
              "bookkeeping": bookkeeping, "contention": contention, "rows": rows, "best_cap_mb": best["cap_mb"], "args": vars(a),
              "torch": torch.__version__}
    with open(path("results.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"# {'cap_mb':>8} {'median_ms':>10} {'ci95_ms':>17} {'predicted':>10} {'err':>7} {'pred_link':>10} {'err':>7}"
          f" {'serial':>8} {'c':>6} {'cpu_ms':>7}")
    for r in rows:
        c = f"{r['contention_c']:.2f}" if r["contention_c"] is not None else "-"
        mark = ("  <- planner (measured)" if r["planner"] else "") + ("  <- planner (link)" if r["planner_link"] else "")
        print(f"  {r['cap_mb']:8.4g} {r['median_s'] * 1e3:10.2f} [{r['ci95_s'][0] * 1e3:7.2f},{r['ci95_s'][1] * 1e3:7.2f}]"
              f" {r['predicted_s'] * 1e3:10.2f} {100 * r['error']:+6.1f}% {r['predicted_link_s'] * 1e3:10.2f}"
              f" {100 * r['error_link']:+6.1f}% {r['predicted_serial_s'] * 1e3:8.2f} {c:>6}"
              f" {r['cpu_per_iteration_s'] * 1e3:7.1f}{mark}")
    print(f"# best measured cap {best['cap_mb']:g} MiB ({best['median_s'] * 1e3:.2f} ms); contention term over all "
          f"caps c = {contention['c']:.2f} [{contention['ci95'][0]:.2f}, {contention['ci95'][1]:.2f}]")


if __name__ == "__main__":
    main()
