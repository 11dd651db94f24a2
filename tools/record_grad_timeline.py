#!/usr/bin/python3
"""Record the gradient timeline of a PyTorch model's backward pass in ringlab's format.

The recorder is the package's (`ringlab.torch.timeline.record`, where the method is described);
this is its command line, on a model built by any importable function:

    PYTHONPATH=build/python /usr/bin/python3 tools/record_grad_timeline.py \
        --model mypkg.models:build --batch 32,784 --iterations 5 --out timeline.json \
        [--params-out params.csv] [--trace-out trace.json]

The model's input: --batch SHAPE gives random normal float32 input of that shape; with
--input-dtype long (or int) and --vocab N, random token ids in [0, N) of that shape (an
embedding or language model's input); --inputs mypkg.data:batch names a function that returns
one batch (a tensor, or a tuple of tensors passed as positional arguments) and is called once
per iteration, for anything else. The loss is the mean square of the model's output (its first
element when the model returns a tuple).

--params-out writes name,count,dtype per parameter in model.parameters() order, which
`ringlab plan --trace` needs with a torch.profiler trace; --trace-out records iterations of the
same model with torch.profiler, each gradient marked with its name (mark_gradients), and exports
the Chrome trace.
"""

import argparse
import importlib
import json
import sys

# The input dtypes, by torch's attribute names; torch itself is imported once the options are
# checked, so that a wrong option is answered at once.
INPUT_DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16",
                "long": "long", "int": "int32"}


def load(spec, what, ap):
    module, _, function = spec.partition(":")
    if not function:
        ap.error(f"{what} '{spec}': expected module:function")
    return getattr(importlib.import_module(module), function)


def check_inputs(a, ap):
    """The input options, checked before torch is imported; returns the --batch shape or None."""
    if (a.inputs is None) == (a.batch is None):
        ap.error("give one of --batch SHAPE (with --input-dtype, --vocab) or --inputs module:function")
    if a.inputs:
        if ":" not in a.inputs:
            ap.error(f"--inputs '{a.inputs}': expected module:function")
        return None
    try:
        shape = [int(x) for x in a.batch.split(",")]
    except ValueError:
        shape = []
    if not shape or min(shape) < 1:
        ap.error(f"--batch '{a.batch}': expected a shape of positive integers, e.g. 32,784")
    tokens = a.input_dtype in ("long", "int")
    if not tokens and a.vocab is not None:
        ap.error(f"--vocab {a.vocab}: only with --input-dtype long or int (token ids)")
    if tokens and (a.vocab is None or a.vocab < 1):
        ap.error(f"--input-dtype {a.input_dtype}: give --vocab N >= 1, the number of token ids")
    return shape


def batch_maker(a, ap, shape):
    """The function that makes one batch, from --inputs or --batch/--input-dtype/--vocab."""
    torch.manual_seed(0)
    if a.inputs:
        return load(a.inputs, "--inputs", ap)
    dtype = getattr(torch, INPUT_DTYPES[a.input_dtype])
    if dtype.is_floating_point:
        return lambda: torch.randn(*shape, dtype=dtype)
    return lambda: torch.randint(0, a.vocab, shape, dtype=dtype)


def loss_fn(m, batch):
    out = m(*batch) if isinstance(batch, tuple) else m(batch)
    if isinstance(out, (tuple, list)):
        out = out[0]
    return out.float().pow(2).mean()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="module:function that returns a torch.nn.Module")
    ap.add_argument("--batch", help="input shape, e.g. 32,784 (random normal float32 unless --input-dtype)")
    ap.add_argument("--input-dtype", default="float32", choices=sorted(INPUT_DTYPES),
                    help="dtype of the --batch input; long/int: token ids in [0, --vocab)")
    ap.add_argument("--vocab", type=int, help="with --input-dtype long/int: ids are drawn from [0, VOCAB)")
    ap.add_argument("--inputs", help="module:function that returns one batch (a tensor or a tuple of tensors)")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: leave)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--params-out")
    ap.add_argument("--trace-out")
    a = ap.parse_args()
    shape = check_inputs(a, ap)
    global torch, export_trace, parameters_csv, record
    import torch
    try:
        from ringlab.torch.timeline import export_trace, parameters_csv, record
    except ImportError as e:
        sys.exit(f"record_grad_timeline.py: the ringlab package is not importable ({e}); build it and run "
                 "with PYTHONPATH=build/python")
    if a.threads:
        torch.set_num_threads(a.threads)
    model = load(a.model, "--model", ap)()
    make_batch = batch_maker(a, ap, shape)
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
