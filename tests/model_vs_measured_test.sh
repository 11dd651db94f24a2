#!/usr/bin/env bash
# bench/model_vs_measured.sh end to end on inproc at small sizes (two runs: each compared with its
# own profile, and calibrated again after its bench), its report's run-to-run spread and its check
# that the host held its state against closed-form cases, and a transport it does not know refused. usage: model_vs_measured_test.sh RINGLAB_BINARY
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
# Each run calibrated again after its bench, and says whether the host held its state.
[ -s "$out/run/profile-p2-r1-after.json" ] || fail "no calibration after the bench"
[ "$(grep -cE '^    the host (held its state|changed state while it ran): beta ' <<<"$report")" -eq 2 ] ||
  fail "no state line per run in: $report"

# The state check in closed form: beta 0.1000 before and 0.1200 after held (1.2x); 0.1000 and
# 0.0300 (3.3x) changed, and that run judges nothing.
cal() {
  echo "# alpha = 1.000 us, beta = $1 ns/B (1.00 GB/s per direction), gamma = 0.0300 ns/B"
  echo "# memory regime: none seen"
  echo "# working sets: host: 2 cores, caches L1 48 KiB"
}
cal 0.1000 >"$out/run/calibrate-p2-r1.txt"
cal 0.1200 >"$out/run/calibrate-p2-r1-after.txt"
cal 0.1000 >"$out/run/calibrate-p2-r2.txt"
cal 0.0300 >"$out/run/calibrate-p2-r2-after.txt"
states=$("$here/../bench/model_vs_measured_report.sh" "$ringlab" "$out/run" p2 | grep "the host")
grep -q "held its state: beta 0.1000 ns/B before the bench, 0.1200 after$" <<<"$states" ||
  fail "1.2x apart should hold: $states"
grep -q "changed state while it ran: beta 0.1000 ns/B before the bench, 0.0300 after (3.3x): this run judges nothing$" <<<"$states" ||
  fail "3.3x apart should be a change: $states"

# The spread in closed form: out-of-place 100 and 200 us at 1 MiB (0.667), 100 and 100 at 2 MiB
# (0); in-place 100 and 100 (0), 100 and 300 (1.0): the median of {0, 0, 0.667, 1.0} is 0.333.
row() { printf '%14s %12s  float32    sum %9s 1.00 1.00 0 %9s 1.00 1.00 0\n' "$1" $(($1 / 4)) "$2" "$3"; }
{ row 1048576 100.0 100.0; row 2097152 100.0 100.0; } >"$out/run/bench-p2-r1.txt"
{ row 1048576 200.0 100.0; row 2097152 100.0 300.0; } >"$out/run/bench-p2-r2.txt"
spread=$("$here/../bench/model_vs_measured_report.sh" "$ringlab" "$out/run" p2 | grep spread)
grep -q "over 2 runs, median over sizes >= 1 MiB: 0.333$" <<<"$spread" || fail "closed-form spread: $spread"
echo "model_vs_measured harness: checked"
