"""Starts the jobs of the torch backend's tests: torchrun, or plain rank processes.

Debian's torch 1.13 on Python 3.11 fails in torchrun's default ``--redirects 0 --tee 0`` (its
``Std.from_str`` finds no member for 0 when iterating the IntFlag), so the jobs pass
``--redirects 1 --tee 1``: stdout also goes to a log file, and every stream still reaches us.
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile

PYTHON = sys.executable
JOBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_backend_jobs.py")
GRACE_LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torchrun_with_grace.py")


def environment(extra=None):
    """This process's environment for a job: one OpenMP thread a rank, and `extra`."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.update(extra or {})
    return env


def torchrun(job, ranks, *args, env=None, timeout=240, wrapper=(), script=JOBS):
    """Runs `torch_backend_jobs.py JOB ARGS...` (or `script` ARGS... when job is None) under
    torchrun with `ranks` processes; `wrapper`: a command that runs torchrun (and so its ranks),
    such as a seccomp filter's."""
    with tempfile.TemporaryDirectory(prefix="ringlab-torchrun-") as log_dir:
        command = [*wrapper, *torchrun_command(ranks, script, *([] if job is None else [job]),
                                               *args, log_dir=log_dir)]
        # In a session of its own, so that a job past its time goes whole: killing torchrun alone
        # leaves its ranks running (a hung rank spins, slowing every test after it).
        with subprocess.Popen(command, env=environment(env), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              start_new_session=True) as job_process:
            try:
                stdout, stderr = job_process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(job_process.pid, signal.SIGKILL)
                stdout, stderr = job_process.communicate()
                raise AssertionError(f"{' '.join(command)} ran past {timeout} s:\n"
                                     f"{(stdout + stderr)[-6000:]}") from None
    output = stdout + stderr
    assert job_process.returncode == 0, f"{' '.join(command)} failed:\n{output[-6000:]}"
    return output


def torchrun_command(ranks, script, *args, log_dir, options=(), grace_s=None):
    """The command line that runs `script ARGS...` under torchrun with `ranks` processes on a free
    port; `log_dir`: where torchrun writes the ranks' logs (left to itself it makes a directory in
    /tmp for each job and never removes it); `options`: more of torchrun's own options;
    `grace_s`: how long torchrun lets the ranks of a failed job outlive its SIGTERM before it
    kills them (torchrun_with_grace.py; default torchrun's 30 s). torchrun sleeps
    --monitor_interval between looks at its ranks, so a job ends up to that long after its ranks
    have: 0.2 s here, as in the examples' tests, not 5."""
    launcher = (["-m", "torch.distributed.run"] if grace_s is None
                else [GRACE_LAUNCHER, str(grace_s)])
    return [PYTHON, *launcher, "--redirects", "1", "--tee", "1", "--monitor_interval", "0.2",
            "--nproc_per_node", str(ranks), "--master_port", str(free_port()),
            "--log_dir", str(log_dir), *options,
            script, *map(str, args)]


def start_ranks(job, ranks, *args, env=None):
    """Starts the ranks of `job` as plain processes with torchrun's variables (env:// init), so
    that one rank can die without a launcher tearing the others down. Returns the Popen list."""
    port = free_port()
    processes = []
    for rank in range(ranks):
        variables = {"RANK": str(rank), "WORLD_SIZE": str(ranks), "LOCAL_RANK": str(rank),
                     "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
        variables.update(env or {})
        processes.append(subprocess.Popen([PYTHON, JOBS, job, *map(str, args)],
                                          env=environment(variables), stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True))
    return processes


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
