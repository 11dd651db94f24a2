#!/bin/sh
# `mpirun -np 2 ringlab bench` without --transport, under each MPI's real launcher: the launcher
# whose MPI this ringlab links runs one job of two ranks (one table, transport mpi, p 2); the other
# MPI's launcher is refused by every rank with a line naming the launcher to use, before anything
# is measured. Arguments: the ringlab binary, the MPI it links (openmpi, mpich or ""), Open MPI's
# launcher and MPICH's (either may be "": not installed).
set -u
binary=$1 built=$2 openmpi=$3 mpich=$4
failures=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

fail() {
  echo "FAIL: $*"
  echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"
  failures=$((failures + 1))
}

# run FLAVOUR: mpirun -np 2 ringlab bench under that MPI's launcher, output in $out and $err.
run() {
  if [ "$1" = openmpi ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_btl_vader_single_copy_mechanism=none \
      timeout 120 "$openmpi" --oversubscribe --bind-to none -np 2 \
      "$binary" bench -b 8 -e 1K -f 4 -n 2 >"$out" 2>"$err"
  else
    timeout 120 "$mpich" -np 2 "$binary" bench -b 8 -e 1K -f 4 -n 2 >"$out" 2>"$err"
  fi
}

for flavour in openmpi mpich; do
  eval launcher=\$$flavour
  [ -n "$launcher" ] || { echo "skip $flavour: no launcher"; continue; }
  run "$flavour"
  status=$?
  if [ "$flavour" = "$built" ]; then
    [ $status -eq 0 ] || fail "$flavour: exit status $status"
    [ "$(grep -c '^# ringlab bench: allreduce  algorithm ring  transport mpi  p 2$' "$out")" -eq 1 ] ||
      fail "$flavour: not one table of one mpi job of 2 ranks"
    grep -q '^# wrong elements in total: 0$' "$out" || fail "$flavour: no clean total"
    [ ! -s "$err" ] || fail "$flavour: unexpected stderr"
  else
    [ $status -ne 0 ] || fail "$flavour: the other MPI's launcher was accepted"
    [ "$(grep -c '^ringlab: error: under .*--transport inproc' "$err")" -eq 2 ] ||
      fail "$flavour: not one refusal per rank naming --transport inproc"
    if [ -n "$built" ]; then
      grep -q "start it with" "$err" || fail "$flavour: the refusal does not name the launcher to use"
    fi
    ! grep -q '^ *[0-9]' "$out" || fail "$flavour: measured despite the refusal"
  fi
  echo "$flavour: checked (built for ${built:-no MPI})"
done

# Outside any launcher, --transport mpi would start MPI as a job of one rank and measure nothing
# between ranks: refused, with the launch line of the MPI this ringlab links.
if [ -n "$built" ]; then
  env -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_RANK -u PMI_SIZE -u PMI_RANK -u PMIX_RANK \
    timeout 60 "$binary" bench --transport mpi -p 2 -b 8 -e 8 >"$out" 2>"$err"
  status=$?
  [ $status -eq 2 ] || fail "no launcher: exit status $status"
  if [ "$built" = mpich ]; then start="mpiexec -n 2"; else start="mpirun -np 2"; fi
  grep -qF "start the ranks with $start $binary bench --transport mpi -p 2 -b 8 -e 8" "$err" ||
    fail "no launcher: the refusal does not give the launch line"
  [ ! -s "$out" ] || fail "no launcher: measured alone"
  echo "no launcher: refused with the launch line"
fi
exit $failures
