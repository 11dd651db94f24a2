#!/usr/bin/env bash
# Calibrate from point-to-point only, then measure ring AllReduce at p = 2, 4, 8 in-process and
# compare with the prediction (docs/MODEL_VS_MEASURED.md). The benches interleave p (2 4 8 2 4 8)
# so that a slowed core hurts all of them alike; compare reads every JSON file.
# Usage: bench/model_vs_measured.sh [OUTDIR] [calibrate options...]
set -euo pipefail
ringlab="$(dirname "$0")/../build/ringlab"
out="${1:-mvm-out}"
shift || true
mkdir -p "$out"
"$ringlab" calibrate -o "$out/profile.json" "$@" | tee "$out/calibrate.txt"
for round in 1 2; do
  for p in 2 4 8; do
    "$ringlab" bench -p "$p" -b 1M -e 64M -f 2 -n 10 -w 2 --json "$out/bench-p$p-r$round.json" > "$out/bench-p$p-r$round.txt"
  done
done
"$ringlab" compare "$out"/bench-p*-r*.json --profile "$out/profile.json" --svg "$out/model_vs_measured.svg" | tee "$out/compare.txt"
