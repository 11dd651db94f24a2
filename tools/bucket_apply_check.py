#!/usr/bin/python3
"""The planner's optimal buckets applied in training, against DDP's default and DDP's best cap.

    PYTHONPATH=build/python /usr/bin/python3 tools/bucket_apply_check.py --out DIR \
        [--backend gloo|ringlab] [--backward-ms 60] [--rounds 20]

On the accelerator-like workload of the bucket check (tools/accel_workload.py: the backward sleeps,
so the AllReduce can overlap it), 2 processes, one backend for everything. Record, plan and train
in one program, as a user would (ringlab.torch.timeline, ringlab.torch.buckets):
 1. record: rank 0's gradient timeline of the workload -> timeline.json;
 2. measure: the backend's AllReduce at every power of two from 4 B to 32 MiB, sizes interleaved,
    mean per size -> allreduce.json;
 3. plan: `ringlab plan` priced by that measured AllReduce -> plan.json: the optimal buckets, DDP's
    best cap (the cap whose predicted iteration is closest to the optimum), and DDP at --caps;
 4. measure: one model copy per configuration, rounds of A B C ... interleaved: DDP's default
    (bucket_cap_mb 25), DDP at the planner's best cap, DDP at each of --caps (the best cap found
    by measurement), and the optimal plan applied (apply_plan). Per round and configuration one
    warm-up iteration and the median of --iterations; per configuration the median over rounds
    with a distribution-free 95% interval; the applied plan's time over each configuration's as
    the median of the per-round ratios (paired: the same round), with its 95% interval
    -> results.json.
The goal it checks: where the planner predicts the optimum at least 5% faster than DDP's best
cap, the measured gain is at least half of the predicted one.
"""

import argparse
import json
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accel_workload import build_model, loss_fn, make_batch_fn  # noqa: E402
from ddp_bucket_check import run_interleaved, spawn, summarise  # noqa: E402

try:
    from ringlab.torch.buckets import apply_plan, buckets_of, plan_buckets
    from ringlab.torch.timeline import measure_allreduce, record
except ImportError as e:
    sys.exit(f"bucket_apply_check.py: the ringlab package is not importable ({e}); build it and run with "
             "PYTHONPATH=build/python")


def rank_main(rank, init, args, out_dir):
    if args.backend == "ringlab":
        import ringlab.torch  # noqa: F401  registers the backend
    dist.init_process_group(args.backend, init_method=init, rank=rank, world_size=2)
    torch.set_num_threads(1)
    make_batch = make_batch_fn(args.batch)
    timeline = record(build_model(args.workload, args.backward_ms), make_batch, loss_fn, iterations=7, warmup=3)
    measured = measure_allreduce(max_bytes=32 << 20, rounds=args.calibration_rounds)
    shared = [None]
    if rank == 0:  # rank 0's timeline and plans for all: every rank must reduce the same buckets
        _, comparison = plan_buckets(timeline, 2, measured=measured, ddp_caps=args.caps)
        configs = configurations(comparison, args.caps)
        shared[0] = [(config, buckets_of(comparison, timeline, config[2]) if config[1] == "plan" else None)
                     for config in configs]
        for name, value in (("timeline", timeline), ("allreduce", measured), ("plan", comparison)):
            with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
                json.dump(value, f, indent=1)
    dist.broadcast_object_list(shared, src=0)
    models = []
    for (_, kind, value), buckets in shared[0]:
        model = build_model(args.workload, args.backward_ms)
        if kind == "ddp":
            models.append(torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=value))
        else:
            apply_plan(model, buckets)
            models.append(model)
    optimizers = [torch.optim.SGD(m.parameters(), lr=1e-6) for m in models]
    per_round, cpu = run_interleaved(models, optimizers, make_batch, args.rounds, args.iterations)
    if rank == 0:
        with open(os.path.join(out_dir, "raw.json"), "w") as f:
            json.dump({"configs": [config for config, _ in shared[0]], "per_round_s": per_round, "cpu_per_iteration_s": cpu}, f)
    dist.destroy_process_group()


def configurations(comparison, caps):
    """(name, kind, value) per configuration: DDP itself at a bucket_cap_mb ("ddp", cap), or one of
    the planner's plans applied by ringlab.torch.buckets ("plan", its name). DDP's own buckets
    applied the same way separate what the buckets gain from what the two implementations cost."""
    best = float(f"{comparison['ddp_bucket_cap_mb']:.4g}")
    out = [("ddp-default", "ddp", 25.0), ("ddp-best-cap", "ddp", best)]
    out += [(f"ddp-cap-{c:g}", "ddp", c) for c in caps if c not in (25.0, best)]
    return out + [("applied:ddp-default", "plan", "ddp-default"), ("applied:ddp-best-cap", "plan", "ddp-best-cap"),
                  ("applied:optimal", "plan", "optimal")]


def predicted_iteration(comparison, name, kind, value):
    """The planner's predicted iteration (s) for a configuration."""
    for p in comparison["plans"]:
        if kind == "plan":
            found = p["name"] == value
        elif name.startswith("ddp-cap-"):
            found = p["name"].startswith("ddp-cap-") and float(p["note"].split()[-1]) == value
        else:
            found = p["name"] == name
        if found:
            return p["iteration_us"] * 1e-6
    raise ValueError(f"no prediction for {name}")


def summarise_runs(raw, comparison):
    """Per configuration: median and 95% interval over rounds, the prediction and its error, and
    the optimal plan applied over this configuration as the median of per-round ratios."""
    optimal = raw["per_round_s"][-1]
    rows = []
    for (name, kind, value), samples, cpu in zip(raw["configs"], raw["per_round_s"], raw["cpu_per_iteration_s"]):
        row = summarise(samples)
        ratio = summarise([a / b for a, b in zip(optimal, samples)])  # summarise's keys say _s: ratios here
        row.update({"config": name, "kind": kind, "cap_mb": value if kind == "ddp" else None,
                    "predicted_s": predicted_iteration(comparison, name, kind, value),
                    "cpu_per_iteration_s": cpu, "optimal_ratio": ratio["median_s"], "optimal_ratio_ci95": ratio["ci95_s"]})
        row["error"] = row["predicted_s"] / row["median_s"] - 1
        rows.append(row)
    by_name = {r["config"]: r for r in rows}
    predicted_gain = 1 - by_name["applied:optimal"]["predicted_s"] / by_name["applied:ddp-best-cap"]["predicted_s"]
    same_machinery = by_name["applied:ddp-best-cap"]
    best_ddp = min((r for r in rows if r["kind"] == "ddp"), key=lambda r: r["median_s"])
    goal = {"predicted_gain_over_best_cap": predicted_gain,
            "measured_gain_over_best_cap_applied": 1 - same_machinery["optimal_ratio"],
            "measured_gain_ci95": [1 - same_machinery["optimal_ratio_ci95"][1], 1 - same_machinery["optimal_ratio_ci95"][0]],
            "measured_gain_over_ddp_best_cap": 1 - by_name["ddp-best-cap"]["optimal_ratio"],
            "measured_gain_over_best_measured_ddp": 1 - best_ddp["optimal_ratio"],
            "best_measured_ddp_cap_mb": best_ddp["cap_mb"], "applies": predicted_gain >= 0.05}
    goal["met"] = goal["measured_gain_over_best_cap_applied"] >= predicted_gain / 2 if goal["applies"] else None
    return rows, goal


def print_table(rows, goal, comparison):
    optimal = next(p for p in comparison["plans"] if p["name"] == "optimal")
    print(f"# optimal plan: {optimal['bucket_count']} buckets; DDP's best cap (planner): "
          f"{comparison['ddp_bucket_cap_mb']:.4g} MiB; ratio: the optimal plan applied over the configuration, "
          "median of per-round ratios")
    print(f"# {'config':<21} {'median_ms':>9} {'ci95_ms':>17} {'predicted':>9} {'err':>7} {'ratio':>6} {'ci95':>14} "
          f"{'cpu_ms':>7}")
    for r in rows:
        lo, hi = r["optimal_ratio_ci95"]
        print(f"  {r['config']:<21} {r['median_s'] * 1e3:9.2f} [{r['ci95_s'][0] * 1e3:7.2f},{r['ci95_s'][1] * 1e3:7.2f}]"
              f" {r['predicted_s'] * 1e3:9.2f} {100 * r['error']:+6.1f}% {r['optimal_ratio']:6.3f} [{lo:.3f}, {hi:.3f}]"
              f" {r['cpu_per_iteration_s'] * 1e3:7.1f}")
    g = goal
    verdict = "not applicable (predicted gain under 5%)" if not g["applies"] else ("met" if g["met"] else "NOT met")
    print(f"# optimum over DDP's best cap, both applied the same way: predicted gain "
          f"{100 * g['predicted_gain_over_best_cap']:.1f}%, measured {100 * g['measured_gain_over_best_cap_applied']:.1f}% "
          f"[{100 * g['measured_gain_ci95'][0]:.1f}, {100 * g['measured_gain_ci95'][1]:.1f}]; goal (at least half): {verdict}")
    print(f"# optimum applied against DDP itself: gain {100 * g['measured_gain_over_ddp_best_cap']:.1f}% over DDP at the "
          f"planner's best cap, {100 * g['measured_gain_over_best_measured_ddp']:.1f}% over DDP's best measured cap "
          f"({g['best_measured_ddp_cap_mb']:g} MiB) (gain = 1 - ratio)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--backend", default="gloo", help="torch.distributed backend for everything (gloo, ringlab)")
    ap.add_argument("--workload", choices=["accel", "two-phase"], default="accel",
                    help="tools/accel_workload.py's accelerator-like model, or its two-phase variant")
    ap.add_argument("--backward-ms", type=float, default=60, help="the workload's total backward time")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--calibration-rounds", type=int, default=20, help="rounds of the AllReduce measurement")
    ap.add_argument("--caps", default="1,2,5,10", help="more bucket_cap_mb values, to find DDP's best cap by measurement")
    a = ap.parse_args()
    a.caps = [float(c) for c in a.caps.split(",")] if a.caps else []
    os.makedirs(a.out, exist_ok=True)
    spawn(rank_main, a, a.out)
    comparison = json.load(open(os.path.join(a.out, "plan.json")))
    rows, goal = summarise_runs(json.load(open(os.path.join(a.out, "raw.json"))), comparison)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"workload": a.workload, "backend": a.backend, "args": vars(a), "torch": torch.__version__,
                   "rows": rows, "goal": goal}, f, indent=1)
    print_table(rows, goal, comparison)


if __name__ == "__main__":
    main()
