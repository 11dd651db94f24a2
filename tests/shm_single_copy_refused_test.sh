#!/usr/bin/env bash
# shm's two-copy fallback for real: a seccomp filter (refuse_pidfd_getfd) makes pidfd_getfd fail
# with EPERM in bench's rank processes, as a stricter system policy would. The run must still be
# right in every element, say the refusal in its one line per rank process, and price its roofline
# as two copies at every size; the same run without the filter goes single-copy from the default
# size (unless this system refuses on its own, which the test then says), and with
# RINGLAB_SHM_SINGLE_COPY=off through the slots again.
# usage: shm_single_copy_refused_test.sh RINGLAB_BINARY REFUSE_PIDFD_GETFD_BINARY
set -euo pipefail
ringlab=${1:?usage: shm_single_copy_refused_test.sh RINGLAB REFUSE_PIDFD_GETFD}
refuse=${2:?usage: shm_single_copy_refused_test.sh RINGLAB REFUSE_PIDFD_GETFD}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
python=/usr/bin/python3

# 256 KiB to 1 MiB at p = 2: 128 to 512 KiB per step, all above the 128 KiB single-copy size.
bench=(bench -p 2 --transport shm -b 256K -e 1M -f 4 -n 2 -w 1 -c 3 --roofline)
line="cannot map rank .*'s buffers \(Operation not permitted\); large messages between processes take the two-copy path"

# single_copy_bytes of the roofline, and whether every row went through the slots.
roofline() {
  "$python" - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["roofline"]
print(r["single_copy_bytes"], all(row["slot_bytes"] > 0 for row in r["rows"]))
PY
}

rc=0
"$refuse" "$ringlab" "${bench[@]}" --json "$out/refused.json" >"$out/refused.out" 2>"$out/refused.err" || rc=$?
[ $rc -eq 0 ] || fail "refused run: exit $rc: $(cat "$out/refused.out" "$out/refused.err")"
grep -q "# wrong elements in total: 0" "$out/refused.out" || fail "refused run not right: $(cat "$out/refused.out")"
said=$(grep -cE "$line" "$out/refused.err" || true)
[ "$said" -ge 1 ] && [ "$said" -le 2 ] || fail "refused run: $said refusal lines (1 per rank process), stderr: $(cat "$out/refused.err")"
others=$(grep -cvE "$line" "$out/refused.err" || true)
[ "$others" -eq 0 ] || fail "refused run: other lines on stderr: $(cat "$out/refused.err")"
[ "$(roofline "$out/refused.json")" = "None True" ] ||
  fail "refused run: roofline (single_copy_bytes, all rows through slots) = $(roofline "$out/refused.json")"

"$ringlab" "${bench[@]}" --json "$out/plain.json" >"$out/plain.out" 2>"$out/plain.err" ||
  fail "plain run failed: $(cat "$out/plain.out" "$out/plain.err")"
grep -q "# wrong elements in total: 0" "$out/plain.out" || fail "plain run not right"
if grep -qE "cannot map rank" "$out/plain.err"; then
  echo "note: this system refuses pidfd_getfd without the filter too; the single-copy side is untested here"
else
  [ "$(roofline "$out/plain.json")" = "131072 False" ] ||
    fail "plain run: roofline (single_copy_bytes, all rows through slots) = $(roofline "$out/plain.json")"
fi
# Off by the environment: the roofline follows the transport's setting, two copies at every size.
RINGLAB_SHM_SINGLE_COPY=off "$ringlab" "${bench[@]}" --json "$out/off.json" >"$out/off.out" 2>&1 ||
  fail "run with RINGLAB_SHM_SINGLE_COPY=off failed: $(cat "$out/off.out")"
[ "$(roofline "$out/off.json")" = "None True" ] ||
  fail "RINGLAB_SHM_SINGLE_COPY=off: roofline (single_copy_bytes, all rows through slots) = $(roofline "$out/off.json")"
echo "ok: refused pidfd_getfd falls back to two copies, right in every element"
