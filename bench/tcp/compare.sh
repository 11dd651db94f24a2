#!/bin/bash
# The tcp transport's switches side by side: for each round, each size, each variant, one
# `ringlab bench` run; then the median time over rounds per variant and size, and its ratio to
# the first variant (above 1: faster). Interleaving the variants this finely keeps a slow spell of
# a shared machine from landing on one variant only.
#
#   bench/tcp/compare.sh                         p = 2, 5 rounds, 1M 16M 64M 256M
#   P=4 ROUNDS=3 VARIANTS="1:0:0 2:0:0" bench/tcp/compare.sh
#
# A variant is CHANNELS:SOCKET_BUFFER:REDUCE_ON_RECEIVE[:SEGMENT], the values of
# RINGLAB_TCP_CHANNELS, RINGLAB_TCP_SOCKET_BUFFER, RINGLAB_TCP_REDUCE_ON_RECEIVE
# (docs/transports.md) and bench's --segment (default 256K). RINGLAB names
# the binary (default build/ringlab). Every element is checked: the summary counts wrong ones.
# GLOO=PATH adds Gloo's three variants (bench/peers/gloo_bench.cpp, built by bench/peers/run.sh
# into build-peers/gloo_bench) to every round and size, and the summary then gives, per variant,
# the best Gloo variant's median time / this one's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
RINGLAB=${RINGLAB:-$here/../../build/ringlab}
P=${P:-2}
ROUNDS=${ROUNDS:-5}
SIZES=${SIZES:-"1M 16M 64M 256M"}
VARIANTS=${VARIANTS:-"1:0:0 2:0:0 4:0:0 1:4M:0 1:0:1"}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# p = $P, $ROUNDS rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for size in $SIZES; do
    # Large sizes: a fixed 5 iterations rather than a time, so that one run stays short.
    case $size in 1[0-9][0-9]M | [2-9][0-9][0-9]M | [0-9]*G) iters="-n 5 -w 1" ;; *) iters="--time 200ms" ;; esac
    for v in $VARIANTS; do
      IFS=: read -r ch sb ror seg <<<"$v"
      # shellcheck disable=SC2086
      RINGLAB_TCP_CHANNELS=$ch RINGLAB_TCP_SOCKET_BUFFER=$sb RINGLAB_TCP_REDUCE_ON_RECEIVE=$ror \
        "$RINGLAB" bench -p "$P" --transport tcp -b "$size" -e "$size" --segment "${seg:-256K}" \
        $iters 2>&1 |
        awk -v v="$v" '/^ +[0-9]/ {print v, $1, $5, $8}' >>"$out"
    done
    if [ -n "${GLOO:-}" ]; then
      store=$(mktemp -d)
      "$GLOO" -p "$P" --store "$store" -b "$size" -e "$size" -T 0.2 -w 1 \
        --variants ring,ring_chunked,allreduce 2>&1 |
        awk -F, '$1 == "gloo" {print "gloo:" $2, $4, $5, $7}' >>"$out"
      rm -rf "$store"
    fi
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$out" <<'PY'
import collections, statistics, sys
times, wrong, order = collections.defaultdict(list), 0, []
for line in open(sys.argv[1]):
    variant, size, time_us, bad = line.split()
    times[(variant, int(size))].append(float(time_us))
    wrong += int(bad)
    if variant not in order:
        order.append(variant)
sizes = sorted({s for _, s in times})
print("# median time (us) over rounds, and the first variant's median / this one's")
print("variant".ljust(18) + "".join(f"{s:>14} B     " for s in sizes))
for v in order:
    cells = []
    for s in sizes:
        m = statistics.median(times[(v, s)])
        cells.append(f"{m:>12.0f} {statistics.median(times[(order[0], s)]) / m:5.2f}x")
    print(v.ljust(18) + "  ".join(cells))
glooVariants = [v for v in order if v.startswith("gloo:")]
if glooVariants:
    best = {s: min(statistics.median(times[(g, s)]) for g in glooVariants) for s in sizes}
    print("# best Gloo variant's median time / this variant's (above 1: ringlab is faster)")
    for v in order:
        if v in glooVariants:
            continue
        print(v.ljust(18) + "  ".join(
            f"{best[s] / statistics.median(times[(v, s)]):>18.2f}x" for s in sizes))
print(f"# wrong elements in total: {wrong}")
PY
