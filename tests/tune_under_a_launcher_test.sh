#!/bin/sh
# `ringlab tune` as one job of two ranks under a real launcher, without --transport: mpirun (the
# MPI this ringlab links; transport mpi) or torchrun (transport tcp). One table printed once, a
# decision table that is well-formed JSON naming the transport and p 2 with a choice at every size,
# and the line rank 0 prints only once every rank's decision has been checked identical to its own.
# Arguments: mpirun BINARY FLAVOUR LAUNCHER, or torchrun BINARY TORCHRUN.
set -u
mode=$1 binary=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err table=$dir/tune.json
tune="tune -b 8 -e 4K -f 8 -n 2 --rounds 2 --timeout 30s --json $table"

if [ "$mode" = mpirun ]; then
  flavour=$3 launcher=$4 transport=mpi
  if [ "$flavour" = openmpi ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_btl_vader_single_copy_mechanism=none \
      timeout 120 "$launcher" --oversubscribe --bind-to none -np 2 "$binary" $tune >"$out" 2>"$err"
  else
    timeout 120 "$launcher" -np 2 "$binary" $tune >"$out" 2>"$err"
  fi
else
  torchrun=$3 transport=tcp
  # A plain torchrun (and the job token every TCP rendezvous needs): its agent's store holds
  # --master_port and ringlab's takes the port after it (bootstrap/rendezvous.hpp). Debian's
  # torchrun (torch 1.13) needs -r 1 -t 1 (tests/python/torchrun_jobs.py says why);
  # --monitor_interval 0.2: torchrun notices its ranks have ended within 0.2 s, not 5.
  port=$(/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
  RINGLAB_TOKEN=tune-under-torchrun OMP_NUM_THREADS=1 timeout 120 "$torchrun" -r 1 -t 1 \
    --monitor_interval 0.2 --log_dir "$dir/logs" --nproc_per_node 2 --master_port "$port" \
    --no_python "$binary" $tune >"$out" 2>"$err"
fi
status=$?
failures=0
fail() {
  echo "FAIL: $*"
  echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"
  failures=$((failures + 1))
}
[ $status -eq 0 ] || fail "exit status $status"
[ "$(grep -c "# ringlab tune: allreduce, p 2, float32, transport $transport " "$out")" -eq 1 ] ||
  fail "not one table of one $transport job of 2 ranks"
[ "$(grep -c "the 2 ranks' decisions checked identical" "$out")" -eq 1 ] ||
  fail "the ranks' decisions were not checked identical"
/usr/bin/python3 - "$table" "$transport" <<'PY' || fail "the decision table is not as it should be"
import json, sys
path, transport = sys.argv[1:]
t = json.load(open(path))
problems = []
def want(what, ok):
    if not ok: problems.append(what)
want("format ringlab-tune/1", t.get("format") == "ringlab-tune/1")
want("transport " + transport, t.get("transport") == transport)
want("p 2", t.get("p") == 2)
want("sizes 8, 64, 512, 4096", [m["bytes"] for m in t.get("measured", [])] == [8, 64, 512, 4096])
for m in t.get("measured", []):
    want(f"a choice among the measured at {m['bytes']} B", m.get("chosen") in m["time_us"])
    want(f"2 rounds of each at {m['bytes']} B", all(len(r) == 2 for r in m["rounds_us"].values()))
want("rules from 0 B", t.get("rules") and t["rules"][0]["from_bytes"] == 0)
for p in problems: print("missing or wrong:", p)
sys.exit(1 if problems else 0)
PY
echo "tune under $mode: checked"
exit $failures
