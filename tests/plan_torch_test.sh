#!/bin/sh
# The recorder and the trace reader on a real (tiny) PyTorch model: record_grad_timeline.py writes
# ringlab's timeline, the parameter list and a torch.profiler trace; `ringlab plan` must read both
# the timeline and the trace, find the same six tensors in the same order, and plan them.
# Usage: plan_torch_test.sh RINGLAB PYTHON SOURCE_DIR
set -eu
ringlab=$1 python=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
PYTHONPATH="$src/tests/data${PYTHONPATH:+:$PYTHONPATH}" "$python" "$src/tools/record_grad_timeline.py" --model plan_tiny_model:build \
  --batch 8,16 --iterations 3 --warmup 1 --threads 1 --out "$dir/t.json" --params-out "$dir/p.csv" --trace-out "$dir/trace.json"
"$ringlab" plan --timeline "$dir/t.json" -p 2 --json - > "$dir/from_timeline.json"
"$ringlab" plan --trace "$dir/trace.json" --params "$dir/p.csv" -p 2 --write-timeline "$dir/t2.json" > /dev/null
"$python" - "$dir/t.json" "$dir/t2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
names_a = [t["name"] for t in a["tensors"]]
names_b = [t["name"] for t in b["tensors"]]
assert len(names_a) == 6, names_a
assert names_a == names_b, (names_a, names_b)
assert names_a[0] == "4.bias" and names_a[-1] == "0.weight", names_a
print("ok: hooks and trace agree on the order", names_a)
PY
