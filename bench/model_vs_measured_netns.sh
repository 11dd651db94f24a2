#!/usr/bin/env bash
# The tcp part of bench/model_vs_measured.sh: ring AllReduce at p = 4 (2 nodes x 2 ranks,
# round-robin placement, so every ring step crosses an uplink) over the emulated two-level network
# of tests/netns/two_level.sh, at each uplink rate in RATES, where links, not cores, set the
# time. Each run and rate: `calibrate --transport tcp` over that network (ranks 0 and 1 ping-pong
# across the uplinks, pairs (0,1) and (2,3) at once for the concurrency), then `bench`, then the
# rates are interleaved within a run. Needs root (exit 77 otherwise, as two_level.sh).
# usage: model_vs_measured_netns.sh OUTDIR   (env as model_vs_measured.sh, plus RATES, CAL_BEGIN,
#        CAL_END)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=${1:?usage: model_vs_measured_netns.sh OUTDIR}
RATES=${RATES:-400mbit 200mbit}
# The calibration's sizes: 16 MiB ping-pongs at 200 Mbit/s would take minutes per run; 256 KiB -
# 4 MiB already sit where the link's rate, not the startup, sets the time.
CAL_BEGIN=${CAL_BEGIN:-256K}
CAL_END=${CAL_END:-4M}
# shellcheck source=../tests/netns/netns_lib.sh
. "$here/../tests/netns/netns_lib.sh"
[ -x "$RINGLAB" ] || { echo "no ringlab binary at $RINGLAB"; exit 1; }

PORT=29700
# Runs COMMAND... as one p = 4 job, rank r in the namespace of node r mod 2, slot r / 2; rank 0
# gets the extra arguments in RANK0_ARGS (its --json) and its output goes to LOG.
# Usage: job LOG COMMAND...
job() {
  local log=$1 rank n s pids=() failed=0 pid
  shift
  PORT=$((PORT + 1))
  local rendezvous extra
  rendezvous="tcp://$(rank_addr 0 0):$PORT"
  for ((rank = 0; rank < 4; rank++)); do
    n=$((rank % 2))
    s=$((rank / 2))
    extra=()
    [ $rank -eq 0 ] && read -r -a extra <<<"$RANK0_ARGS"
    ip netns exec "$(rank_ns "$n" "$s")" env RINGLAB_RANK=$rank RINGLAB_WORLD_SIZE=4 \
      RINGLAB_RENDEZVOUS="$rendezvous" RINGLAB_TOKEN=mvm RINGLAB_BIND="$(rank_addr "$n" "$s")" \
      "$RINGLAB" "$@" --transport tcp -p 4 "${extra[@]}" \
      >"$log.rank$rank" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  [ $failed -eq 0 ] || { echo "ranks failed:" >&2; tail -n 3 "$log".rank* >&2; return 1; }
  mv "$log.rank0" "$log"
  rm -f "$log".rank*
}

names=()
for rate in $RATES; do names+=("tcp-$rate"); done
echo "# load average before: $(cat /proc/loadavg)" | tee "$out/load.txt"
for ((run = 1; run <= RUNS; run++)); do
  for rate in $RATES; do
    cleanup
    RATE=$rate build 2 2
    name="tcp-$rate"
    RANK0_ARGS="--json $out/profile-$name-r$run.json" job "$out/calibrate-$name-r$run.txt" calibrate \
      -b "$CAL_BEGIN" -e "$CAL_END"
    RANK0_ARGS="--json $out/bench-$name-r$run.json" job "$out/bench-$name-r$run.txt" bench \
      -b "$BEGIN" -e "$END" -f 2 -n "$ITERS" -w 1 --timeout 300s
  done
done
cleanup
echo "# load average after: $(cat /proc/loadavg)" | tee -a "$out/load.txt"
"$here/model_vs_measured_report.sh" "$RINGLAB" "$out" "${names[@]}"
