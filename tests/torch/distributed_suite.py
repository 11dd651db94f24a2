"""PyTorch's own distributed test suite (torch/testing/_internal/distributed/distributed_test.py,
the `DistributedTest._DistTestBase` methods) against one backend, as PyTorch's
test/distributed/test_distributed_spawn.py runs them: each test spawns WORLD_SIZE processes that
join a group of backend BACKEND through a file store.

    BACKEND=ringlab WORLD_SIZE=2 python3 distributed_suite.py --results out.json [-k PATTERN]

run_distributed_suite.py runs this for gloo and ringlab and compares them. For "ringlab" the
suite's backend lists are widened so that ringlab is treated like gloo, and nothing else changes:
the backend-feature sets that name gloo name ringlab too, and each comparison of the suite's
BACKEND with "gloo" also holds for "ringlab" (the source is rewritten as it is loaded; the count of
rewrites is checked, so that another torch version's suite is noticed, not silently half-widened).
"""
import argparse
import importlib.metadata
import json
import os
import re
import sys
import time
import types
import unittest

try:
    import expecttest  # noqa: F401 (torch's test utilities import it)
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "stand_ins"))

BACKEND = os.environ["BACKEND"]
if BACKEND == "ringlab":
    # Registers the backend here and in every spawned rank (spawn imports this file again).
    import ringlab.torch

    if ringlab.torch.BACKEND_MISSING is not None:
        raise ImportError(f"the ringlab torch backend is not built: {ringlab.torch.BACKEND_MISSING}")

import torch  # noqa: E402
import torch.testing._internal.distributed.distributed_test as stock  # noqa: E402
from torch.testing._internal.common_distributed import DistTestCases  # noqa: E402

# torch 1.13's suite: comparisons of BACKEND with "gloo", and require_backend({"gloo"}).
_GLOO_COMPARISONS = [
    (r'BACKEND == "gloo"', 'BACKEND in ("gloo", "ringlab")', 3),
    (r'BACKEND != "gloo"', 'BACKEND not in ("gloo", "ringlab")', 17),
    (r'require_backend\(\{"gloo"\}\)', 'require_backend({"gloo", "ringlab"})', 18),
]


def _suite_treating_ringlab_like_gloo():
    """distributed_test.py, loaded again with ringlab in every place that names gloo."""
    for backends in DistTestCases.backend_feature.values():
        if "gloo" in backends:
            backends.add("ringlab")
    with open(stock.__file__) as f:
        source = f.read()
    for pattern, replacement, expected in _GLOO_COMPARISONS:
        source, found = re.subn(pattern, replacement, source)
        if found != expected:
            raise RuntimeError(f"{stock.__file__}: {found} places match {pattern!r}, "
                               f"torch 1.13's suite has {expected}; widen the lists for this "
                               f"torch version ({torch.__version__})")
    module = types.ModuleType("ringlab_distributed_test")
    module.__file__ = stock.__file__
    sys.modules[module.__name__] = module
    exec(compile(source, stock.__file__, "exec"), module.__dict__)
    return module


suite = _suite_treating_ringlab_like_gloo() if BACKEND == "ringlab" else stock


class TestDistBackendWithSpawn(suite.TestDistBackend, suite.DistributedTest._DistTestBase):
    """test_distributed_spawn.py's class: every _DistTestBase method, ranks as spawned processes."""

    def setUp(self):
        super().setUp()
        self._spawn_processes()
        torch.backends.cudnn.flags(enabled=True, allow_tf32=False).__enter__()


class _Recorder(unittest.TextTestResult):
    """Each test's outcome and seconds, for the results file."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}
        self._started = 0.0

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def _record(self, test, outcome, detail=""):
        name = test.id().rsplit(".", 1)[-1]
        self.outcomes[name] = {"outcome": outcome,
                               "seconds": round(time.monotonic() - self._started, 2),
                               "detail": detail[-2000:]}

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "fail", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skip", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "pass")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "fail", "unexpected success")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, help="JSON file: each test's outcome")
    parser.add_argument("--tests", nargs="*", help="test method names (default: all)")
    args = parser.parse_args()
    loader = unittest.TestLoader()
    if args.tests:
        tests = unittest.TestSuite(TestDistBackendWithSpawn(name) for name in args.tests)
    else:
        tests = loader.loadTestsFromTestCase(TestDistBackendWithSpawn)
    runner = unittest.TextTestRunner(resultclass=_Recorder, verbosity=1, stream=sys.stderr)
    result = runner.run(tests)
    with open(args.results, "w") as f:
        json.dump({"backend": BACKEND, "world_size": int(os.environ["WORLD_SIZE"]),
                   "torch": importlib.metadata.version("torch"), "tests": result.outcomes},
                  f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
