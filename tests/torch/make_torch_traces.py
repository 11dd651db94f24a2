#!/usr/bin/python3
"""Writes the torch traces kept in tests/data/torch_traces (see tests/data/README.md): for stock
models (stock_models.py), a torch.profiler Chrome trace of real backward passes with ringlab's
gradient markers, the same without markers, the parameter list `ringlab plan --params` reads, and
the ready order autograd's tensor hooks saw in the same iterations (one name a line).

Usage: PYTHONPATH=build/python /usr/bin/python3 tests/torch/make_torch_traces.py OUT_DIR
"""
import os
import sys

import torch

from stock_models import MODELS, traced_with_truth
from ringlab.torch.timeline import parameters_csv

# model -> iterations traced (the transformer's trace is the largest: one iteration)
KEPT = {"transformer": 1, "conv_bn": 2, "tied_embedding": 2}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    for name, iterations in KEPT.items():
        build, make_batch = MODELS[name]
        torch.manual_seed(0)
        model = build()
        with open(os.path.join(out, f"{name}_params.csv"), "w") as f:
            f.write(parameters_csv(model))
        orders = traced_with_truth(model, make_batch, os.path.join(out, f"{name}_marked.json"), True, iterations)
        assert all(o == orders[0] for o in orders), orders
        with open(os.path.join(out, f"{name}_ready_order.txt"), "w") as f:
            f.write("\n".join(orders[0]) + "\n")
        if name == "conv_bn":
            traced_with_truth(model, make_batch, os.path.join(out, f"{name}_unmarked.json"), False, iterations)


if __name__ == "__main__":
    main()
