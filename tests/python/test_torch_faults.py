"""Faults as torch users see them: one rank of a 3-rank torchrun job training with DDP on the
"ringlab" backend is killed (SIGKILL) or stopped (SIGSTOP, never resumed) in the middle of a
backward pass, over shm and over tcp (RINGLAB_TORCH_TRANSPORT chooses).

What must happen (docs/torch.md, "When a rank fails"):
- every survivor raises RuntimeError (gloo's type) from the backward: after a kill as soon as the
  death is seen, well before the group's timeout; after a stop no sooner than the timeout and no
  later than the timeout plus ringlab's window for learning which peer failed (1 s here);
- torchrun exits non-zero and leaves no process of the job and no /dev/shm name behind. A stopped
  rank keeps torchrun's SIGTERM pending, so torchrun kills it (SIGKILL) GRACE_S after it has seen
  a rank fail; no survivor may need that.

torchrun's own wait before that SIGKILL is 30 s; here it is GRACE_S (torchrun_with_grace.py), as
long as the slowest survivor the assertions below accept takes to raise, so a survivor that needs
the SIGKILL still fails the test. The four jobs overlap: the kills run while torchrun waits for the
stopped ranks. The whole file takes 20 to 35 s on a loaded 2-core machine.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchrun_jobs  # noqa: E402

JOBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_fault_jobs.py")
RANKS = 3
TIMEOUT_S = 5  # init_process_group(timeout=...); a killed rank is seen in well under 1 s
WINDOW_S = 1  # what ringlab adds to a timeout of 3 s or more (docs/torch.md)
SCHEDULING_S = 3  # a loaded machine's delay in waking a survivor and writing its report
GRACE_S = TIMEOUT_S + WINDOW_S + SCHEDULING_S  # torchrun's wait from SIGTERM to SIGKILL
STEPS_BEFORE_FAULT = 3  # torch_fault_jobs.py's
JOB_LIMIT_S = 240  # for all four jobs, which take 20 to 35 s on a loaded 2-core machine
MARK = "RINGLAB_TORCH_FAULT_JOB"  # in every process of a job's environment, to find them
# (fault, transport, victim): rank 0 and a middle rank each fail once per fault.
CASES = [("stop", "shm", 0), ("stop", "tcp", 1), ("kill", "shm", 1), ("kill", "tcp", 0)]


def shm_names():
    return set(os.listdir("/dev/shm"))


def processes_marked(value):
    """The pids of the processes whose environment holds MARK=value (torchrun and its ranks)."""
    needle = f"{MARK}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


class Job:
    def __init__(self, fault, transport, victim, out_dir):
        self.fault, self.transport, self.victim, self.out_dir = fault, transport, victim, out_dir
        self.survivors = [r for r in range(RANKS) if r != victim]
        self.mark = f"{fault}-{transport}-{uuid.uuid4().hex}"
        out_dir.mkdir()
        self.log = open(out_dir / "torchrun.log", "w+")
        command = torchrun_jobs.torchrun_command(RANKS, JOBS, fault, victim, TIMEOUT_S, out_dir,
                                                 log_dir=out_dir, grace_s=GRACE_S)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            command, stdout=self.log, stderr=subprocess.STDOUT,
            env=torchrun_jobs.environment({MARK: self.mark, "RINGLAB_TORCH_TRANSPORT": transport}))

    def report(self, rank):
        path = self.out_dir / f"rank{rank}.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def wait_for_survivors(self, deadline):
        """Until every survivor has reported its exception, the job has ended, or `deadline`."""
        while time.monotonic() < deadline and self.process.poll() is None:
            if all("exception" in self.report(r) for r in self.survivors):
                return
            time.sleep(0.2)

    def finish(self, deadline):
        try:
            self.returncode = self.process.wait(timeout=max(0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.returncode = None  # still running: a hang
        self.seconds = time.monotonic() - self.started
        self.left = processes_marked(self.mark)  # before the clean-up below
        for pid in self.left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait()
        self.log.seek(0)
        self.output = self.log.read()
        self.log.close()
        self.ranks = {r: self.report(r) for r in range(RANKS)}
        # The job's /dev/shm names (each rank listed those it maps) still there, then removed, so
        # that a failing run leaves none behind either.
        self.shm_left = sorted({name for report in self.ranks.values()
                                for name in report.get("shm names", [])
                                if os.path.exists(f"/dev/shm/{name}")})
        for name in self.shm_left:
            try:
                os.unlink(f"/dev/shm/{name}")
            except FileNotFoundError:
                pass

    def tail(self):
        return f"torchrun ({self.fault}, {self.transport}) output:\n{self.output[-6000:]}"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    out = tmp_path_factory.mktemp("faults")
    before = shm_names()
    started = []
    deadline = time.monotonic() + JOB_LIMIT_S
    try:
        # The stops first: the kills start once the stops' survivors have raised, and run while
        # torchrun waits its GRACE_S for the stopped ranks.
        for fault in ("stop", "kill"):
            for job in started:
                job.wait_for_survivors(deadline)
            started += [Job(f, transport, victim, out / f"{f}-{transport}")
                        for f, transport, victim in CASES if f == fault]
    finally:
        for job in started:
            job.finish(deadline)
    # A name another program on this machine creates and unlinks a moment later is not ours:
    # only names still there a little later count.
    new = shm_names() - before
    if new:
        time.sleep(2)
        new &= shm_names()
    for job in started:
        job.new_shm_names = sorted(new)
    return {(job.fault, job.transport): job for job in started}


@pytest.mark.parametrize("fault, transport, victim", CASES)
def test_every_survivor_raises_runtime_error_in_time(jobs, fault, transport, victim):
    job = jobs[fault, transport]
    report = job.ranks[victim]
    assert report.get("fault") == fault and report.get("step") == STEPS_BEFORE_FAULT, job.tail()
    seconds = []
    for rank in job.survivors:
        result = job.ranks[rank]
        assert "exception" in result, f"rank {rank} reported no exception\n{job.tail()}"
        assert result["exception"] == "RuntimeError", f"rank {rank}: {result}\n{job.tail()}"
        assert result["step"] == STEPS_BEFORE_FAULT, result
        message = result["message"]
        assert f"ringlab: rank {rank} of {RANKS} ({transport}): allreduce failed" in message, \
            message
        if fault == "kill":
            assert f"rank {victim} exited or crashed" in message, message
            assert result["seconds"] < TIMEOUT_S, result
        else:
            assert "timeout reached" in message, message
            assert f"rank {victim} is stopped or hung" in message, message
            assert result["seconds"] <= TIMEOUT_S + WINDOW_S + SCHEDULING_S, result
        seconds.append(result["seconds"])
    if fault == "stop":
        # Not before the timeout: the first survivor to give up waited it out (another may learn
        # of it from that one's abort up to its window sooner than its own wait would end).
        assert max(seconds) >= TIMEOUT_S, seconds


@pytest.mark.parametrize("fault, transport, victim", CASES)
def test_torchrun_fails_and_leaves_nothing(jobs, fault, transport, victim):
    job = jobs[fault, transport]
    assert job.returncode is not None, f"torchrun still ran after {job.seconds:.0f} s\n{job.tail()}"
    assert job.returncode != 0, job.tail()
    assert job.left == [], f"processes of the job left: {job.left}\n{job.tail()}"
    assert job.shm_left == [], f"the job's /dev/shm names left: {job.shm_left}"
    assert job.new_shm_names == [], f"/dev/shm names left: {job.new_shm_names}"
    # torchrun SIGKILLs a rank that outlives its SIGTERM by GRACE_S: only the stopped one may.
    forced = {int(pid) for pid in re.findall(r"Unable to shutdown process (\d+)", job.output)}
    expected = {job.ranks[victim].get("pid")} if fault == "stop" else set()
    assert forced == expected, job.tail()
