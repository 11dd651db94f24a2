#!/bin/sh
# `mpirun -np 2 ringlab calibrate` without --transport, under the launcher of the MPI this ringlab
# links: one calibration over MPI (rank 0 prints it once), and one profile that records transport
# mpi, p 2 and the placement. Arguments: the ringlab binary, the MPI it links (openmpi or mpich),
# and that MPI's launcher.
set -u
binary=$1 built=$2 launcher=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err profile=$dir/profile.json

if [ "$built" = openmpi ]; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none \
    timeout 120 "$launcher" --oversubscribe --bind-to none -np 2 \
    "$binary" calibrate -b 8 -e 1M -n 3 --rounds 2 --json "$profile" >"$out" 2>"$err"
else
  timeout 120 "$launcher" -np 2 \
    "$binary" calibrate -b 8 -e 1M -n 3 --rounds 2 --json "$profile" >"$out" 2>"$err"
fi
status=$?
failures=0
fail() {
  echo "FAIL: $*"
  echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"
  failures=$((failures + 1))
}
[ $status -eq 0 ] || fail "exit status $status"
[ "$(grep -c '^# ringlab calibrate: transport mpi, p 2, placement ranks as MPI processes' "$out")" -eq 1 ] ||
  fail "not one calibration of one mpi job of 2 ranks"
grep -q '^# 95% intervals' "$out" || fail "no intervals"
grep -q '"transport": "mpi"' "$profile" || fail "the profile does not record transport mpi"
grep -q '"job_ranks": 2' "$profile" || fail "the profile does not record p 2"
echo "calibrate under $built's launcher: checked"
exit $failures
