#!/usr/bin/env bash
# The report of bench/model_vs_measured.sh: per configuration, each run's bench against that
# run's own profile (`ringlab compare`, with its plot), and the run-to-run spread of the measured
# AllReduce time itself.
# usage: model_vs_measured_report.sh RINGLAB OUTDIR NAME...
set -euo pipefail
ringlab=$1
out=$2
shift 2
# Says so when the calibration after the bench found beta more than 1.5x from the one before it.
# Within one state this host's betas differed by up to 1.33x between runs; between its states,
# 3-4x. Nothing is said where there is no second calibration (tcp, or an older harness's output).
# Usage: host_changed BEFORE.txt AFTER.txt
host_changed() {
  [ -f "$2" ] || return 0
  local before after
  before=$(grep -oE '^# alpha = .*beta = [0-9.]+' "$1" | grep -oE '[0-9.]+$')
  after=$(grep -oE '^# alpha = .*beta = [0-9.]+' "$2" | grep -oE '[0-9.]+$')
  awk -v b="$before" -v a="$after" 'BEGIN {
    if (a <= 0 || b <= 0) exit
    r = a > b ? a / b : b / a
    if (r > 1.5)
      printf "    the host changed state while it ran: beta %s ns/B before the bench, %s after (%.1fx): this run judges nothing\n", b, a, r
    else
      printf "    the host held its state: beta %s ns/B before the bench, %s after\n", b, a
  }'
}

for name in "$@"; do
  echo "== $name"
  for bench in "$out"/bench-"$name"-r*.json; do
    run=${bench##*-r}
    run=${run%.json}
    "$ringlab" compare "$bench" --profile "$out/profile-$name-r$run.json" \
      --svg "$out/compare-$name-r$run.svg" >"$out/compare-$name-r$run.txt"
    profile=$(grep -E '^# alpha = ' "$out/calibrate-$name-r$run.txt")
    error=$(grep -E '^# median' "$out/compare-$name-r$run.txt" | awk '{print $NF}')
    regime=$(grep -E '^# memory regime' "$out/calibrate-$name-r$run.txt" |
      grep -oE 'beyond a working set of [0-9.]+ [KMG]?i?B|none seen')
    echo "  run $run: median |measured/predicted - 1| (>= 1 MiB) $error; profile: ${profile#\# };" \
      "memory regime: $regime"
    host_changed "$out/calibrate-$name-r$run.txt" "$out/calibrate-$name-r$run-after.txt"
  done
  # The host's cores and caches as calibrate read them (the same in every run).
  grep -hoE 'host: [0-9]+ cores, caches .*' "$out"/calibrate-"$name"-r1.txt | sed 's/^/  /'
  # Rows of the bench text: size in column 1, out-of-place time in 5, in-place time in 9.
  cat "$out"/bench-"$name"-r*.txt | awk '
    /^ +[0-9]/ && $1 >= 1048576 { key[$1 " o"] = key[$1 " o"] " " $5; key[$1 " i"] = key[$1 " i"] " " $9 }
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      m = 0
      for (k in key) {
        n = split(substr(key[k], 2), t, " "); lo = t[1]; hi = t[1]
        for (i = 2; i <= n; i++) { if (t[i] < lo) lo = t[i]; if (t[i] > hi) hi = t[i] }
        s[++m] = (hi - lo) / median(t, n)
      }
      printf "  run-to-run spread of the measured time, (max - min) / median over %d runs, median over sizes >= 1 MiB: %.3f\n", n, median(s, m)
    }'
done
