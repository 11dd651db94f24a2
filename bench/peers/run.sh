#!/usr/bin/env bash
# Side-by-side AllReduce benchmark on this host: ringlab (inproc, shm, tcp, mpi) against Open MPI
# and MPICH MPI_Allreduce, Gloo (ring, ring_chunked, and the gloo::allreduce API torch uses) and
# torch.distributed with the gloo backend. Float32 sum, the same sizes and p for all, the same
# method for all: warm-up, iterations for about T seconds per size, per-iteration time = the
# slowest rank's, median reported, every element checked against its closed form.
#
# Open MPI also runs with its ring forced (MPI_Allreduce+ring), for a ring-to-ring comparison.
#
# Output, in $PEERS_OUT (default build-peers/results-DATE):
#   results.csv  peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,
#                loop_us,round (a run that failed leaves a row with empty time and the reason in
#                note; time_us is bench's median statistic, loop_us its loop statistic)
#   table.md     per p: ringlab's variants against the best peer at each size (ratios: the worst
#                and the median over rounds), then every variant's time; issues 18's and 35's
#                goals judged by the worst round (ringlab's inproc, shm and tcp runs carry
#                --roofline for them); all by the median statistic
#   table-loop.md  the same, by the loop statistic
#   busbw.svg    busbw against size, log-log, one line per variant, one panel per p
#   floor.csv    (family `floor`, with the tcp transport) p,size_bytes,time_us,rate_GBps,round: a
#                bare ring of p processes over loopback TCP, buffers of each size from 1 MiB,
#                moving a ring AllReduce's bytes with no reduction (bench/tcp/loopback_rate.py).
#                Each tcp goal against Gloo is followed by the floor's line: Gloo's time over the
#                floor's, in the same round
#   versions.txt, host.txt, logs/, json/
#
# Settings (environment variables; defaults are the full benchmark):
#   PEERS_P="2 4"  PEERS_MIN=4  PEERS_MAX=256M  PEERS_FACTOR=4  PEERS_TIME=0.3  PEERS_WARMUP=2
#   PEERS_ONLY="ringlab openmpi mpich gloo torch floor"   which families to run
#   PEERS_TRANSPORTS="inproc shm tcp mpi"          which of ringlab's transports to run
#   PEERS_TUNABLES=1    also run each MPI with the malloc tunables below (0: skip)
#   PEERS_ROUNDS=1      interleaved rounds: round 1 runs every variant at every p, then round 2...
#   PEERS_TIMEOUT=1800  seconds before one run is declared hung and stopped
#   PEERS_BASELINE=FILE an earlier results.csv whose ringlab shm busbw the goals compare with
#   PEERS_OUT=DIR       where results go
#   RINGLAB=PATH        use this ringlab binary as it is; by default the repository's build/
#                       folder is brought up to date (cmake --build build --target ringlab)
#   PEERS_JOBS=N        build ringlab with at most N jobs
#   PEERS_INSTALL=0     do not call scripts/install-peer-deps
# Example of a quick run: PEERS_MAX=64K PEERS_TIME=0.1 bench/peers/run.sh
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
started=$(date +%s)

ps_list=${PEERS_P:-"2 4"}
min=${PEERS_MIN:-4}
max=${PEERS_MAX:-256M}
factor=${PEERS_FACTOR:-4}
seconds=${PEERS_TIME:-0.3}
warmup=${PEERS_WARMUP:-2}
only=${PEERS_ONLY:-"ringlab openmpi mpich gloo torch floor"}
transports=${PEERS_TRANSPORTS:-"inproc shm tcp mpi"}
tunables=${PEERS_TUNABLES:-1}
run_timeout=${PEERS_TIMEOUT:-1800}
rounds=${PEERS_ROUNDS:-1}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: PEERS_ROUNDS=$rounds: must be a whole number >= 1" >&2; exit 2; }
baseline=()
if [ -n "${PEERS_BASELINE:-}" ]; then
  [ -f "$PEERS_BASELINE" ] || { echo "run.sh: PEERS_BASELINE=$PEERS_BASELINE: not a file (give an earlier results.csv)" >&2; exit 2; }
  baseline=(--baseline "$(cd "$(dirname "$PEERS_BASELINE")" && pwd)/$(basename "$PEERS_BASELINE")")
fi
build="$root/build-peers"
out=${PEERS_OUT:-"$build/results-$(date +%Y%m%d-%H%M%S)"}
python=/usr/bin/python3  # Debian's interpreter, the one python3-torch installs into
# Without these, glibc returns a large freed buffer to the kernel and the next call faults it in
# again, page by page; MPI implementations that allocate a temporary per call pay that each time.
malloc_tunables="glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184"

wants() { [[ " $only " == *" $1 "* ]]; }
wants_transport() { [[ " $transports " == *" $1 "* ]]; }
exec 3>&2  # this script's own messages, even from inside a redirected run
say() { echo "run.sh: $*" >&3; }
die() { say "$*"; exit 2; }

if [ "${PEERS_INSTALL:-1}" = 1 ]; then "$root/scripts/install-peer-deps" || die "installing the peer packages failed"; fi

# ---- build -----------------------------------------------------------------------------------
mkdir -p "$build" "$out/logs" "$out/json" || die "cannot create $out"
# Rebuild a program when its source is newer than it.
build_if_stale() {  # target source command...
  local target=$1 source=$2
  shift 2
  if [ ! -x "$target" ] || [ "$source" -nt "$target" ]; then
    say "building $(basename "$target")"
    "$@" || die "building $(basename "$target") failed"
  fi
}
if wants openmpi; then
  build_if_stale "$build/mpi_allreduce_bench_openmpi" "$here/mpi_allreduce_bench.c" \
    mpicc.openmpi -O2 -Wall -o "$build/mpi_allreduce_bench_openmpi" "$here/mpi_allreduce_bench.c" -lm
fi
if wants mpich; then
  build_if_stale "$build/mpi_allreduce_bench_mpich" "$here/mpi_allreduce_bench.c" \
    mpicc.mpich -O2 -Wall -o "$build/mpi_allreduce_bench_mpich" "$here/mpi_allreduce_bench.c" -lm
fi
if wants gloo; then
  # Gloo's CMake package (GlooConfig.cmake) only names the include folder and the `gloo` library:
  # a plain compiler line says the same.
  build_if_stale "$build/gloo_bench" "$here/gloo_bench.cpp" \
    g++ -std=c++17 -O2 -Wall -o "$build/gloo_bench" "$here/gloo_bench.cpp" -lgloo -pthread
fi
if wants ringlab; then
  if [ -n "${RINGLAB:-}" ]; then
    ringlab=$RINGLAB
  else
    ringlab_build="$root/build"
    if [ ! -f "$ringlab_build/CMakeCache.txt" ]; then
      cmake -S "$root" -B "$ringlab_build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null || die "configuring ringlab failed"
    fi
    say "bringing $ringlab_build/ringlab up to date"
    cmake --build "$ringlab_build" --target ringlab ${PEERS_JOBS:+--parallel "$PEERS_JOBS"} >/dev/null ||
      die "building ringlab failed"
    build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$ringlab_build/CMakeCache.txt")
    [ "$build_type" = Release ] || say "warning: ringlab in $ringlab_build is a '${build_type:-no type}' build, not Release"
    ringlab="$ringlab_build/ringlab"
  fi
  [ -x "$ringlab" ] || die "no ringlab binary at $ringlab"
  ringlab_version=$("$ringlab" --version 2>/dev/null | head -1 | tr ',' ';')
fi

# ---- what ran, where ---------------------------------------------------------------------------
pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }
gloo_version="gloo (libgloo-dev $(pkg_version libgloo-dev))"
torch_package=$(pkg_version python3-torch)
{
  echo "libopenmpi-dev $(pkg_version libopenmpi-dev); mpirun.openmpi: $(mpirun.openmpi --version 2>&1 | head -1)"
  echo "libmpich-dev $(pkg_version libmpich-dev); mpirun.mpich: $(mpirun.mpich --version 2>&1 | sed -n 's/^ *Version: *//p' | head -1)"
  echo "$gloo_version"
  echo "python3-torch $torch_package; torch.__version__ $("$python" -c 'import torch; print(torch.__version__)' 2>&1)"
  [ -n "${ringlab_version:-}" ] && echo "ringlab: $ringlab_version"
} >"$out/versions.txt"
{
  echo "host $(hostname)  date $(date -u +%Y-%m-%dT%H:%M:%SZ)  cpus $(nproc)  $(uname -sr)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "settings: rounds $rounds  p='$ps_list' sizes $min..$max x$factor  T=${seconds}s  warm-up $warmup  only='$only'  transports='$transports'  tunables=$tunables"
} >"$out/host.txt"
cat "$out/versions.txt" "$out/host.txt" >&3

csv="$out/results.csv"
echo "peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,loop_us,round" >"$csv"
if wants floor && wants_transport tcp; then echo "p,size_bytes,time_us,rate_GBps,round" >"$out/floor.csv"; fi
round=1
tag=""  # log and JSON names carry the round when there are several

# ---- running -----------------------------------------------------------------------------------
# run_rows PEER VARIANT P VERSION LOG -- COMMAND...: runs a command that prints CSV rows and
# appends them. A run that fails or hangs leaves a row saying so, beside whatever rows it printed.
failures=0
# Each run goes under `timeout`, in a process group of its own that a hung run's timeout, or a
# Ctrl-C here, stops as a whole (ranks included).
current=""
on_signal() {
  [ -n "$current" ] && kill -TERM "$current" 2>/dev/null
  [ -n "${store:-}" ] && rm -rf "$store"
  say "interrupted; partial results in $out"
  exit 130
}
trap on_signal INT TERM
supervised() {  # COMMAND...; returns its exit status (124 or 137 when it was stopped)
  timeout --kill-after=10 "$run_timeout" "$@" &
  current=$!
  wait "$current"
  local rc=$?
  current=""
  return $rc
}
record_failure() {  # peer variant p version note
  echo "$1,$2,$3,,,,,$4,,$5,,$round" >>"$csv"
  failures=$((failures + 1))
  say "FAILED: $1 $2 p=$3 round $round: $5"
}
# CSV rows on stdin with the round appended as the 12th field (a program that prints no note or
# loop_us column gets empty ones first).
with_round() { awk -F, -v OFS=, -v round="$round" '{ while (NF < 11) $(NF + 1) = ""; print $0, round }'; }
with_round_last() { awk -v round="$round" '{ print $0 "," round }'; }
run_rows() {
  local peer=$1 variant=$2 p=$3 version=$4 log=$5
  shift 6
  say "$peer $variant p=$p round $round"
  supervised "$@" >"$log.rows" 2>"$log"
  local rc=$?
  grep "^$peer," "$log.rows" | with_round >>"$csv"
  case $rc in
    0) ;;
    # Exit 1 means wrong elements, which the rows then show; without such a row it is a failure.
    1) grep "^$peer," "$log.rows" | awk -F, '$7 != "0"' | grep -q . ||
         record_failure "$peer" "$variant" "$p" "$version" "exit 1; see logs/$(basename "$log")" ;;
    124 | 137) record_failure "$peer" "$variant" "$p" "$version" "stopped after ${run_timeout}s; see logs/$(basename "$log")" ;;
    *) record_failure "$peer" "$variant" "$p" "$version" "exit $rc; see logs/$(basename "$log")" ;;
  esac
}
# run_ringlab VARIANT P LOG -- COMMAND...: a `ringlab bench --json` run, turned into CSV rows.
run_ringlab() {
  local variant=$1 p=$2 log=$3
  shift 4
  local json="$out/json/ringlab-$variant-p$p$tag.json"
  say "ringlab $variant p=$p round $round"
  rm -f "$json"
  supervised "$@" --json "$json" >"$log" 2>&1
  local rc=$?
  if [ -s "$json" ]; then
    "$python" "$here/report.py" ringlab-rows "$json" --variant "$variant" | with_round >>"$csv" ||
      record_failure ringlab "$variant" "$p" "$ringlab_version" "cannot read $json"
  fi
  # Exit 1 with a JSON file: some elements were wrong, and the rows say how many.
  if [ $rc -ne 0 ] && ! { [ $rc -eq 1 ] && [ -s "$json" ]; }; then
    record_failure ringlab "$variant" "$p" "$ringlab_version" "exit $rc; see logs/$(basename "$log")"
  fi
}

sweep=(-b "$min" -e "$max" -f "$factor")
openmpi_run=(mpirun.openmpi --oversubscribe)
[ "$(id -u)" -eq 0 ] && openmpi_run+=(--allow-run-as-root)

for round in $(seq "$rounds"); do
  [ "$rounds" -gt 1 ] && tag="-r$round"
  for p in $ps_list; do
    if wants ringlab; then
      for transport in inproc shm tcp; do
        wants_transport $transport || continue
        run_ringlab "$transport" "$p" "$out/logs/ringlab-$transport-p$p$tag.log" -- \
          "$ringlab" bench -p "$p" --transport "$transport" "${sweep[@]}" --time "${seconds}s" -w "$warmup" --roofline
      done
      # The ring is ringlab's default; `--algo auto` picks per size from the model, as MPI libraries
      # pick their algorithm per size (recursive doubling for small messages at p = 4, for example).
      for transport in shm tcp; do
        wants_transport $transport || continue
        run_ringlab "$transport+auto" "$p" "$out/logs/ringlab-$transport-auto-p$p$tag.log" -- \
          "$ringlab" bench -p "$p" --transport "$transport" --algo auto "${sweep[@]}" --time "${seconds}s" -w "$warmup" \
          --roofline
      done
      # Under Open MPI; --peer-mpi also times MPI_Allreduce on the same buffers in the same run.
      wants_transport mpi &&
        run_ringlab mpi "$p" "$out/logs/ringlab-mpi-p$p$tag.log" -- \
          "${openmpi_run[@]}" -np "$p" "$ringlab" bench --transport mpi --peer-mpi "${sweep[@]}" --time "${seconds}s" -w "$warmup"
    fi
    for mpi in openmpi mpich; do
      wants $mpi || continue
      if [ $mpi = openmpi ]; then launcher=("${openmpi_run[@]}" -np "$p"); else launcher=(mpirun.mpich -np "$p"); fi
      program=("$build/mpi_allreduce_bench_$mpi" "${sweep[@]}" -T "$seconds" -w "$warmup" --peer $mpi)
      mpi_version="$mpi (lib$mpi-dev $(pkg_version lib$mpi-dev))"
      run_rows $mpi MPI_Allreduce "$p" "$mpi_version" "$out/logs/$mpi-p$p$tag.log" -- \
        "${launcher[@]}" "${program[@]}" --variant MPI_Allreduce
      if [ "$tunables" = 1 ]; then
        # Open MPI's mpirun passes the variable on with -x; MPICH's passes the whole environment.
        extra=()
        [ $mpi = openmpi ] && extra=(-x GLIBC_TUNABLES)
        run_rows $mpi MPI_Allreduce+malloc-tunables "$p" "$mpi_version" "$out/logs/$mpi-tunables-p$p$tag.log" -- \
          env GLIBC_TUNABLES="$malloc_tunables" "${launcher[@]}" "${extra[@]}" "${program[@]}" \
          --variant MPI_Allreduce+malloc-tunables
      fi
      # Open MPI with its ring forced (coll/tuned's allreduce algorithm 4, "ring" in `ompi_info --param
      # coll tuned --level 5`), so that ringlab's ring is also compared ring to ring.
      if [ $mpi = openmpi ]; then
        run_rows $mpi MPI_Allreduce+ring "$p" "$mpi_version" "$out/logs/$mpi-ring-p$p$tag.log" -- \
          "${launcher[@]}" --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4 \
          "${program[@]}" --variant MPI_Allreduce+ring
      fi
    done
    if wants gloo; then
      # One run per variant, so that a variant that fails or crawls cannot take the others with it.
      for variant in ring ring_chunked allreduce; do
        store=$(mktemp -d "${TMPDIR:-/tmp}/gloo_bench.XXXXXX") || die "no temporary directory"
        run_rows gloo "$variant" "$p" "$gloo_version" "$out/logs/gloo-$variant-p$p$tag.log" -- \
          "$build/gloo_bench" -p "$p" --store "$store" --variants "$variant" "${sweep[@]}" -T "$seconds" -w "$warmup" \
          --version "$gloo_version"
        rm -rf "$store"
        store=""
      done
    fi
    if wants floor && wants_transport tcp; then
      # A throughput: at least 2 s per size, so that even 64 MiB buffers go round several times.
      say "floor (bare ring over loopback) p=$p round $round"
      supervised "$python" "$root/bench/tcp/loopback_rate.py" --ring "$p" --allreduce-sweep "$min" "$max" "$factor" \
        --seconds "$(awk -v t="$seconds" 'BEGIN { print (t > 2 ? t : 2) }')" >"$out/logs/floor-p$p$tag.log" 2>&1 ||
        record_failure floor bare-ring "$p" "" "exit $?; see logs/floor-p$p$tag.log"
      grep -E '^[0-9]+,' "$out/logs/floor-p$p$tag.log" | with_round_last >>"$out/floor.csv"
    fi
    if wants torch; then
      run_rows torch all_reduce "$p" "torch (python3-torch $torch_package)" "$out/logs/torch-p$p$tag.log" -- \
        "$python" "$here/torch_bench.py" -p "$p" "${sweep[@]}" -T "$seconds" -w "$warmup" --package "$torch_package"
    fi
  done
done

# ---- report ------------------------------------------------------------------------------------
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/host.txt"
# The same results judged by both statistics of `ringlab bench --stats` (report.py says how).
"$python" "$here/report.py" table "$csv" "${baseline[@]}" >"$out/table.md" || say "the table could not be made"
"$python" "$here/report.py" table "$csv" "${baseline[@]}" --stat loop >"$out/table-loop.md" ||
  say "the loop table could not be made"
"$python" "$here/plot_svg.py" "$csv" "$out/busbw.svg" || say "the plot could not be made"
cat "$out/table.md" "$out/table-loop.md"
wrong_rows=$(awk -F, 'NR > 1 && $7 != "" && $7 != "0"' "$csv" | wc -l)
elapsed=$(($(date +%s) - started))
echo "run.sh: took ${elapsed}s" | tee -a "$out/host.txt" >&3
say "results in $out (results.csv, table.md, table-loop.md, busbw.svg); $failures failed run(s), $wrong_rows row(s) with wrong elements"
[ "$failures" -eq 0 ] && [ "$wrong_rows" -eq 0 ]
