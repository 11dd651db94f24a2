#!/bin/sh
# tools/bucket_apply_check.py end to end at its smallest: record, plan and train in one program on
# 2 processes over gloo, DDP and the applied plans interleaved for two rounds. Checks that every
# configuration ran and was predicted, and that the goal's figures are there. The figures
# themselves are noise at this size; the full runs are in docs/BUCKETS.md.
# Usage: bucket_apply_check_test.sh PYTHON SOURCE_DIR (PYTHONPATH: the built package, which plans)
set -eu
python=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" "$src/tools/bucket_apply_check.py" --workload two-phase --backward-ms 10 --out "$dir" \
  --rounds 2 --iterations 1 --calibration-rounds 2 --caps 2 > "$dir/log.txt"
"$python" - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
r = json.load(open(os.path.join(d, "results.json")))
names = [row["config"] for row in r["rows"]]
assert names[:2] == ["ddp-default", "ddp-best-cap"], names
assert names[-3:] == ["applied:ddp-default", "applied:ddp-best-cap", "applied:optimal"], names
for row in r["rows"]:
    assert row["rounds"] == 2 and row["median_s"] > 0 and row["predicted_s"] > 0, row
assert r["rows"][-1]["optimal_ratio"] == 1.0
assert {"predicted_gain_over_best_cap", "measured_gain_over_best_cap_applied", "applies", "met"} <= set(r["goal"])
plan = json.load(open(os.path.join(d, "plan.json")))
assert plan["p"] == 2 and plan["plans"][0]["name"] == "optimal"
print("ok:", len(names), "configurations measured and predicted")
PY
