#!/usr/bin/env bash
# The proof on a real network: an emulated two-level cluster in network namespaces, ringlab's
# TCP transport running ring AllReduce in rank order and in the order `ringlab topo search`
# finds, with round-robin placement (rank r on node r mod nodes), and `ringlab sim`'s prediction
# of both beside the measurement.
#
#   each rank       its own namespace, one veth onto its node's bridge (fast: no shaping)
#   each node       a namespace holding the node bridge and one uplink veth to the core bridge,
#                   rate-limited at both ends with tbf (netem is not available on every kernel)
#   core            a namespace holding the core bridge
# The simulator's link parameters are measured here, by ringlab over the uplink: the rate one
# transfer gets, and what two transfers sharing it get together (less than twice: see below).
# Addresses come from the benchmarking range 198.18.0.0/15; there is no default route and no link
# to the host's interfaces, so traffic stays inside. Everything is torn down on exit, on failure
# and on Ctrl-C.
#
# tbf settings that matter (measured): the burst must exceed TCP's 64 KiB segments (128 KiB
# works, 16 KiB collapses throughput) and the queue should hold ~5 ms, since two flows sharing a
# shallow queue lose whole segments. At 1 Gbit/s the 2 cores of a small machine, not the links,
# bound the run, so the uplink runs at 400 Mbit/s with 16 MiB messages: link-bound.
#
# usage: two_level.sh RINGLAB_BINARY [NODExRANKS ...]      (default: 2x2 4x2)
# env:   RATE (400mbit), SIZE (16M), ITERS (2), STRICT (1: also fail when the simulated speed-up
#        is more than 10% off the measured one)
# exit:  0 pass, 1 fail, 77 skipped (not root, or no netns/tbf here): CTest's SKIP_RETURN_CODE.
set -euo pipefail

RINGLAB=${1:?usage: two_level.sh RINGLAB_BINARY [NODExRANKS ...]}
shift
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=(2x2 4x2)
RATE=${RATE:-400mbit}
SIZE=${SIZE:-16M}
ITERS=${ITERS:-2}
WORK=$(mktemp -d)
STRICT=${STRICT:-0}
# shellcheck source=netns_lib.sh
. "$(dirname "$0")/netns_lib.sh"
[ -x "$RINGLAB" ] || { echo "no ringlab binary at $RINGLAB"; exit 1; }

PORT=29500
# Runs one ringlab AllReduce job (rank i in namespace PLACE i = NODE:SLOT) and prints rank 0's
# time in microseconds, one line per size. Usage: job ORDER PLACE...  (ORDER "" = rank order);
# sizes from $SIZES (default: just SIZE).
job() {
  local order=$1
  shift
  local places=("$@") p=$# rank pids=() out n s
  out=$(mktemp)
  PORT=$((PORT + 1))
  local rendezvous="tcp://$(rank_addr "${places[0]%:*}" "${places[0]#*:}"):$PORT"
  for ((rank = 0; rank < p; rank++)); do
    n=${places[$rank]%:*}
    s=${places[$rank]#*:}
    ip netns exec "$(rank_ns "$n" "$s")" env RINGLAB_RANK=$rank RINGLAB_WORLD_SIZE=$p \
      RINGLAB_RENDEZVOUS="$rendezvous" RINGLAB_TOKEN=netns-proof RINGLAB_BIND="$(rank_addr "$n" "$s")" \
      "$RINGLAB" bench --transport tcp -p "$p" ${SIZES:--b "$SIZE" -e "$SIZE"} -n "$ITERS" -w 1 --timeout 120s \
      ${order:+--ring-order "$order"} >"$out.$rank" 2>&1 &
    pids+=($!)
  done
  local failed=0 pid
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  if [ $failed -ne 0 ]; then
    echo "ranks failed; rank outputs:" >&2
    cat "$out".* >&2
    rm -f "$out" "$out".*
    return 1
  fi
  awk '/^ +[0-9]/ {print $5}' "$out.0"
  rm -f "$out" "$out".*
}

# Round-robin placement: rank r on node r mod nodes, in slot r / nodes.
measure() {
  local nodes=$1 rpn=$2 order=$3 places=() r
  for ((r = 0; r < nodes * rpn; r++)); do places+=("$((r % nodes)):$((r / nodes))"); done
  job "$order" "${places[@]}"
}

# The uplink's measured parameters, from ringlab itself across nodes 0 and 1: one pair of ranks
# (one flow each way through the uplinks) gives the rate one transfer gets; two pairs at once
# (two flows sharing each uplink direction) give what two get together. A p = 2 AllReduce sends
# SIZE bytes each way; its time includes the per-step costs a ring step has too, so the rates are
# effective ones. (Fitting SIZE/4 and SIZE and taking the slope was tried: no closer, noisier.)
calibrate() {
  local bytes
  bytes=$(awk -v s="$SIZE" 'BEGIN { n = s + 0; u = substr(s, length(n "") + 1);
    print n * (u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1) }')
  job "" 0:0 1:0 >"$WORK/one"
  job "" 0:0 1:0 >"$WORK/pair0" &
  local first=$!
  job "" 0:1 1:1 >"$WORK/pair1"
  wait "$first"
  paste "$WORK/one" "$WORK/pair0" "$WORK/pair1" | awk -v n="$bytes" '{
    two = ($2 > $3 ? $2 : $3); printf "%.3fMB/s %.3fMB/s\n", n / $1, 2 * n / two }'
}

simulate() {
  local spec=$1 order=$2
  "$RINGLAB" sim --topo "$spec" --placement rr -b "$SIZE" -e "$SIZE" --ring-order "$order" | awk '/^ +[0-9]/ {print $5}'
}

status=0
printf '# ringlab netns proof: %s uplinks (tbf burst 128kb latency 5ms), %s allreduce, round-robin placement\n' "$RATE" "$SIZE"
printf '# %-5s %-11s %-24s %12s %12s\n' config order ring measured_us simulated_us
for config in "${CONFIGS[@]}"; do
  nodes=${config%x*}
  rpn=${config#*x}
  p=$((nodes * rpn))
  cleanup
  build "$nodes" "$rpn"
  if [ -z "${LINK:-}" ]; then
    read -r one_flow two_flows < <(calibrate)
    LINK="inter=$one_flow,inter_shared=$two_flows"
    echo "# uplink measured by ringlab over it: one flow $one_flow, two flows sharing it $two_flows together"
  fi
  spec="nodes=$nodes,ranks=$rpn,$LINK,inter_latency=50us,intra=2GB/s,intra_latency=20us,name=netns-${config}"
  identity=$(seq -s, 0 $((p - 1)))
  searched=$("$RINGLAB" topo search --topo "$spec" --placement rr --size "$SIZE" --export ring-order)
  m_rank=$(measure "$nodes" "$rpn" "$identity")
  m_search=$(measure "$nodes" "$rpn" "$searched")
  s_rank=$(simulate "$spec" "$identity")
  s_search=$(simulate "$spec" "$searched")
  printf '  %-5s %-11s %-24s %12s %12s\n' "$config" "rank order" "$identity" "$m_rank" "$s_rank"
  printf '  %-5s %-11s %-24s %12s %12s\n' "$config" "searched" "$searched" "$m_search" "$s_search"
  # Hard: the searched order recovers what block placement gets (>= 1.8x). Reported, and hard
  # only with STRICT=1: the simulator's speed-up within 10% of the measured one (two TCP flows
  # sharing one shaped uplink get less than its rate, which max-min sharing does not model).
  verdict=$(awk -v mr="$m_rank" -v ms="$m_search" -v sr="$s_rank" -v ss="$s_search" -v strict="$STRICT" 'BEGIN {
    m = mr / ms; s = sr / ss; d = (m > s ? m - s : s - m) / m;
    fail = m < 1.8 || (strict == 1 && d > 0.10);
    printf "%s measured speed-up %.2fx (goal >= 1.8x: %s), simulated %.2fx, difference %.1f%% (goal <= 10%%: %s)",
      (fail ? "FAIL" : "PASS"), m, (m >= 1.8 ? "met" : "missed"), s, 100 * d, (d <= 0.10 ? "met" : "missed") }')
  echo "# $config: $verdict"
  case $verdict in FAIL*) status=1 ;; esac
done
exit $status
