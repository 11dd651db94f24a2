#!/usr/bin/python3
"""Ground truth for `ringlab plan --trace` and the ddp-default row, on stock PyTorch models, in one
process (torch starts slowly):

1. For each model of tests/torch/stock_models.py, autograd hooks on the parameters
   (Tensor.register_hook, which fires as a leaf's gradient is ready) record the real ready order
   in the same iterations that torch.profiler traces with ringlab's gradient markers; ringlab's
   reading of that trace must put the same name and the same size at every ready position. The
   same iterations traced without markers must be refused, naming the positions it cannot tell.
2. DDP (gloo, one process) on the transformer with bucket_cap_mb 25 and 0.5: the buckets DDP
   really reduces from the second iteration on (read with a communication hook) must equal the
   planner's ddp-default and ddp-cap-0.5 rows on the timeline recorded from the same model.

Usage: plan_trace_truth_test.py RINGLAB [--keep DIR]   (PYTHONPATH must reach the ringlab package)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch"))
from stock_models import MODELS, TokenTransformer, loss_fn, traced_with_truth  # noqa: E402
from ringlab.torch.timeline import parameters_csv, record  # noqa: E402


def ringlab(binary, *args, fail=False):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if (r.returncode != 0) != fail:
        sys.exit(f"ringlab {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def check_trace_reader(binary, d):
    figures = {}
    for name, (build, make_batch) in MODELS.items():
        torch.manual_seed(0)
        model = build()
        sizes = {n: p.numel() for n, p in model.named_parameters()}
        params_csv = os.path.join(d, f"{name}_params.csv")
        with open(params_csv, "w") as f:
            f.write(parameters_csv(model))
        trace = os.path.join(d, f"{name}_trace.json")
        orders = traced_with_truth(model, make_batch, trace, marked=True)
        truth = orders[0]
        assert all(o == truth for o in orders), (name, orders)
        assert sorted(truth) == sorted(sizes), (name, truth)
        out = os.path.join(d, f"{name}_timeline.json")
        ringlab(binary, "plan", "--trace", trace, "--params", params_csv, "-p", "2", "--write-timeline", out)
        read = [t["name"] for t in json.load(open(out))["tensors"]]
        read_sizes = [t["count"] for t in json.load(open(out))["tensors"]]
        assert read == truth, (name, read, truth)
        assert read_sizes == [sizes[n] for n in truth], name
        # What reverse parameter order would have said: how many positions it gets wrong.
        reverse = list(reversed(list(sizes)))
        figures[name] = {"parameters": len(truth),
                         "reverse_order_wrong_names": sum(a != b for a, b in zip(reverse, truth)),
                         "reverse_order_wrong_sizes": sum(sizes[a] != sizes[b] for a, b in zip(reverse, truth))}
        # The same model traced without markers: this torch writes no shapes, so it is refused.
        bare = os.path.join(d, f"{name}_unmarked.json")
        traced_with_truth(model, make_batch, bare, marked=False)
        r = ringlab(binary, "plan", "--trace", bare, "--params", params_csv, "-p", "2", fail=True)
        assert "cannot tell which parameter each gradient is: ready positions 0," in r.stderr, r.stderr
        assert "mark_gradients" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert figures["transformer"]["parameters"] == 27
    assert figures["transformer"]["reverse_order_wrong_names"] > 0, figures  # the case is a real one
    return figures


def ddp_buckets(model, cap_mb, make_batch, iterations=3):
    """The buckets DDP reduces in its last iteration, as lists of parameter names."""
    names = {id(p): n for n, p in model.named_parameters()}
    ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap_mb)
    seen = []

    def hook(_, bucket):
        seen.append((bucket.index(), [names[id(p)] for p in bucket.parameters()]))
        fut = torch.futures.Future()
        fut.set_result(bucket.buffer())
        return fut

    ddp.register_comm_hook(None, hook)
    for _ in range(iterations):
        seen.clear()
        loss_fn(ddp, make_batch()).backward()
    return [b for _, b in sorted(seen)]


def check_ddp_rows(binary, d):
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    make_batch = lambda: torch.randint(0, 1000, (6, 3))  # noqa: E731
    torch.manual_seed(0)
    model = TokenTransformer(vocab=1000, d=256, ff=512)  # 5.3 MB of float32
    timeline = record(model, make_batch, loss_fn, iterations=2, warmup=1)
    path = os.path.join(d, "ddp_timeline.json")
    with open(path, "w") as f:
        json.dump(timeline, f)
    plan = json.loads(ringlab(binary, "plan", "--timeline", path, "-p", "2", "--ddp-caps", "0.5", "--json", "-").stdout)
    names = [t["name"] for t in timeline["tensors"]]
    rows = {p["name"]: [[names[i] for i in b["tensors"]] for b in p["buckets"]] for p in plan["plans"]}
    reverse = list(reversed([n for n, _ in model.named_parameters()]))
    assert names != reverse, "the ready order must differ from reverse parameter order for this test"
    out = {}
    for row, cap in (("ddp-default", 25), ("ddp-cap-0.5", 0.5)):
        real = ddp_buckets(model, cap, make_batch)
        assert rows[row] == real, (row, rows[row], real)
        out[row] = [len(b) for b in real]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ringlab")
    ap.add_argument("--keep", help="keep the traces, timelines and parameter lists in this folder")
    a = ap.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        d = a.keep or tmp
        os.makedirs(d, exist_ok=True)
        figures = check_trace_reader(a.ringlab, d)
        ddp = check_ddp_rows(a.ringlab, d)
    print("ok: trace reading equals hook ground truth;", json.dumps(figures))
    print("ok: ddp rows equal DDP's real buckets (parameters per bucket):", json.dumps(ddp))


if __name__ == "__main__":
    main()
