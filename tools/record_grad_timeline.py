#!/usr/bin/python3
"""Record the gradient timeline of a PyTorch model's backward pass in ringlab's format.

The recorder is the package's (`ringlab.torch.timeline.record`, where the method is described);
this is its command line, on a model built by any importable function:

    PYTHONPATH=build/python /usr/bin/python3 tools/record_grad_timeline.py \
        --model mypkg.models:build --batch 32,784 --iterations 5 --out timeline.json \
        [--params-out params.csv] [--trace-out trace.json]

--params-out writes name,count,dtype per parameter in model.parameters() order, which
`ringlab plan --trace` needs to map a torch.profiler trace to parameters; --trace-out records
the same iterations with torch.profiler and exports the Chrome trace.
"""

import argparse
import importlib
import json
import sys

import torch

try:
    from ringlab.torch.timeline import export_trace, parameters_csv, record
except ImportError as e:
    sys.exit(f"record_grad_timeline.py: the ringlab package is not importable ({e}); build it and run with "
             "PYTHONPATH=build/python")


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
