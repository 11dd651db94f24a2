#!/usr/bin/env bash
# bench/model_vs_measured.sh end to end on inproc at small sizes (two runs: each compared with its
# own profile), its report's run-to-run spread against a closed-form case, and a transport it does
# not know refused. usage: model_vs_measured_test.sh RINGLAB_BINARY
set -euo pipefail
ringlab=${1:?usage: model_vs_measured_test.sh RINGLAB_BINARY}
here="$(cd "$(dirname "$0")" && pwd)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A transport it does not know: exit 2, the value named with what is valid.
rc=0
msg=$(RINGLAB="$ringlab" "$here/../bench/model_vs_measured.sh" nvlink "$out/bad" 2>&1) || rc=$?
[ $rc -eq 2 ] || fail "unknown transport: exit $rc, expected 2"
grep -q "transport 'nvlink' is not one of inproc, shm, tcp" <<<"$msg" || fail "unknown transport: '$msg'"

# Two runs at small sizes: every run's profile, bench, comparison and plot, and one report line each.
report=$(RINGLAB="$ringlab" RUNS=2 BEGIN=1M END=2M ITERS=1 CAL_BEGIN=64K CAL_END=1M \
  "$here/../bench/model_vs_measured.sh" inproc "$out/run")
for run in 1 2; do
  for f in profile-p2-r$run.json bench-p2-r$run.json compare-p2-r$run.txt compare-p2-r$run.svg; do
    [ -s "$out/run/$f" ] || fail "missing $f"
  done
  grep -Eq "^  run $run: median \|measured/predicted - 1\| \(>= 1 MiB\) [0-9.]+; profile: alpha = " <<<"$report" ||
    fail "no line for run $run in: $report"
done
grep -q "over 2 runs" <<<"$report" || fail "no spread over 2 runs in: $report"

# The spread in closed form: out-of-place 100 and 200 us at 1 MiB (0.667), 100 and 100 at 2 MiB
# (0); in-place 100 and 100 (0), 100 and 300 (1.0): the median of {0, 0, 0.667, 1.0} is 0.333.
row() { printf '%14s %12s  float32    sum %9s 1.00 1.00 0 %9s 1.00 1.00 0\n' "$1" $(($1 / 4)) "$2" "$3"; }
{ row 1048576 100.0 100.0; row 2097152 100.0 100.0; } >"$out/run/bench-p2-r1.txt"
{ row 1048576 200.0 100.0; row 2097152 100.0 300.0; } >"$out/run/bench-p2-r2.txt"
spread=$("$here/../bench/model_vs_measured_report.sh" "$ringlab" "$out/run" p2 | grep spread)
grep -q "over 2 runs, median over sizes >= 1 MiB: 0.333$" <<<"$spread" || fail "closed-form spread: $spread"
echo "model_vs_measured harness: checked"
