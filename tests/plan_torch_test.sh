#!/bin/sh
# The recorder and the trace reader on a real (tiny) PyTorch model: record_grad_timeline.py writes
# ringlab's timeline, the parameter list and a torch.profiler trace; `ringlab plan` must read both
# the timeline and the trace, find the same six tensors in the same order, and plan them. A token
# model (embedding + stock TransformerEncoder) records from integer token ids, given by shape and
# vocabulary or by a function; bad input options are refused with one line.
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

tok="$src/tests/torch${PYTHONPATH:+:$PYTHONPATH}"
PYTHONPATH="$tok" "$python" "$src/tools/record_grad_timeline.py" --model stock_models:TokenTransformer \
  --batch 6,3 --input-dtype long --vocab 100 --iterations 2 --warmup 1 --threads 1 --out "$dir/tok.json"
PYTHONPATH="$tok" "$python" "$src/tools/record_grad_timeline.py" --model stock_models:TokenTransformer \
  --inputs stock_models:token_batch --iterations 2 --warmup 1 --threads 1 --out "$dir/tok2.json"
"$python" - "$dir/tok.json" "$dir/tok2.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    t = json.load(open(path))["tensors"]
    assert len(t) == 27 and {x["name"] for x in t} >= {"embed.weight", "head.bias"}, [x["name"] for x in t]
print("ok: token model recorded from ids, 27 tensors")
PY
expect_refusal() {
  if PYTHONPATH="$tok" "$python" "$src/tools/record_grad_timeline.py" --model stock_models:TokenTransformer \
      --out "$dir/bad.json" "$@" 2> "$dir/err.txt"; then
    echo "accepted: $*"; exit 1
  fi
  grep -q -e "$1" "$dir/err.txt" || { echo "no '$1' in:"; cat "$dir/err.txt"; exit 1; }
}
expect_refusal --input-dtype long --batch 6,3
expect_refusal --vocab 100 --batch 6,3
expect_refusal --batch 6,x
expect_refusal --inputs nocolon
echo "ok: bad input options refused"
