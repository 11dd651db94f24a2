#!/bin/sh
# tools/ddp_bucket_check.py end to end at its smallest: real DDP over gloo in 2 processes, one
# round, three caps. Checks that every step ran and the results hold what docs/BUCKETS.md reports
# (a prediction per cap from both estimates, the planners' caps, the contention term). The
# figures themselves are noise at this size; the full runs are in docs/BUCKETS.md.
# Usage: plan_ddp_check_test.sh RINGLAB PYTHON SOURCE_DIR
set -eu
ringlab=$1 python=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" "$src/tools/ddp_bucket_check.py" --workload accel --backward-ms 10 --ringlab "$ringlab" --out "$dir" \
  --rounds 2 --iterations 1 --calibration-iterations 2 --calibration-rounds 2 --caps 1,25 > "$dir/log.txt"
"$python" - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
for name in ("timeline.json", "timeline_ddp.json", "profile.json", "allreduce_gloo.json", "bookkeeping.json",
             "plan_measured.json", "plan_link.json", "gantt.svg", "results.json"):
    assert os.path.getsize(os.path.join(d, name)) > 0, name
r = json.load(open(os.path.join(d, "results.json")))
caps = [row["cap_mb"] for row in r["rows"]]
assert caps[:2] == [1.0, 25.0] and r["planner_cap_mb"] in caps and r["planner_cap_link_mb"] in caps, caps
for row in r["rows"]:
    assert row["rounds"] == 2 and row["median_s"] > 0, row
    assert 0 < row["predicted_s"] <= row["predicted_serial_s"] + 1e-12, row
    assert row["predicted_link_s"] > 0, row
assert r["contention"]["c"] is not None
g = json.load(open(os.path.join(d, "allreduce_gloo.json")))
assert g["run"]["p"] == 2 and len(g["rows"]) == 24, g["run"]
print("ok:", len(caps), "caps measured and predicted; planner cap", r["planner_cap_mb"], "MiB")
PY
