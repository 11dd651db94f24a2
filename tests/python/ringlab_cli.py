"""Every invocation of the ringlab command line the Python tests make, in one place, so that a
change of its flags is one change here. The binary is $RINGLAB_BINARY (ctest sets it)."""

import json
import os
import subprocess
import sys

BINARY = os.environ.get("RINGLAB_BINARY", "ringlab")


def run(*args, timeout=120):
    """The CLI's stdout; fails the test with its stderr on a non-zero exit."""
    done = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"ringlab {' '.join(args)}: {done.stderr}"
    return done.stdout


def run_json(command, *args):
    """The JSON document a command writes with `--json -` (on stdout, without its text);
    command may be two words ("topo search")."""
    return json.loads(run(*command.split(), *args, "--json", "-"))


def launch(ranks, script, *args, timeout=120):
    """`ringlab launch -p N -- python3 SCRIPT ARGS...`: the script as N local ranks with the rank
    environment set; returns the finished process (stdout and stderr as text)."""
    return subprocess.run([BINARY, "launch", "-p", str(ranks), "--", sys.executable, script,
                           *args], capture_output=True, text=True, timeout=timeout)
