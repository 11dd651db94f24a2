#!/usr/bin/env bash
# Calibrate from point-to-point only, then measure ring AllReduce at p = 2, 4, 8 in-process and
# compare with the prediction (docs/MODEL_VS_MEASURED.md). Two profiles: calibrated over all sizes
# (8 B - 64 MiB), and over the bandwidth range the comparison is about (1 - 64 MiB). The benches
# interleave p (2 4 8 2 4 8) so that a slowed core hurts all of them alike.
# Usage: bench/model_vs_measured.sh [OUTDIR]
set -euo pipefail
ringlab="$(dirname "$0")/../build/ringlab"
out="${1:-mvm-out}"
mkdir -p "$out"
"$ringlab" calibrate -b 8 -e 64M --json "$out/profile-all.json" > "$out/calibrate-all.txt"
"$ringlab" calibrate -b 1M -e 64M --json "$out/profile-large.json" > "$out/calibrate-large.txt"
for round in 1 2; do
  for p in 2 4 8; do
    "$ringlab" bench -p "$p" -b 1M -e 64M -f 2 -n 10 -w 2 --json "$out/bench-p$p-r$round.json" > "$out/bench-p$p-r$round.txt"
  done
done
for profile in all large; do
  "$ringlab" compare "$out"/bench-p*-r*.json --profile "$out/profile-$profile.json" \
    --svg "$out/model_vs_measured-$profile.svg" > "$out/compare-$profile.txt"
done
for profile in all large; do echo "== profile $profile"; grep -E "^# (ring|median)" "$out/compare-$profile.txt"; done
