"""Runs PyTorch's own distributed test suite (distributed_suite.py) against gloo and against
ringlab at each world size, counts pass, fail, error and skip per backend, and fails when a test
that passes on gloo does not pass on ringlab.

    PYTHONPATH=build/python python3 tests/torch/run_distributed_suite.py [--world-sizes 2 3]
        [--tests NAME ... | --tests-file FILE] [--gloo-results DIR] [--out DIR]

The tests in distributed_suite_excluded.txt (beside this file) are not run, on either backend;
that file says why for each. Each run's outcomes, with each test's seconds and the end of its
error, are written to DIR/<backend>-p<world size>.json. The whole suite takes about half an hour
a backend at p = 2: --gloo-results takes gloo's outcomes from an earlier run's DIR (or from the
record tests/data/torch_suite_gloo holds), and ringlab then runs only the tests that gloo passed.
Outcomes recorded with another torch version, or lacking a chosen test, are not used: gloo then
runs live at that world size.
"""
import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "distributed_suite.py")
EXCLUDED = os.path.join(HERE, "distributed_suite_excluded.txt")
OUTCOMES = ("pass", "fail", "error", "skip")


def listed_tests(path):
    """{test name: what follows it} from a list of tests (`name  text`, # comments)."""
    tests = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, text = line.partition(" ")
                tests[name] = text.strip()
    return tests


def all_tests(world_size):
    """The suite's test names, as unittest would run them."""
    listing = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.argv = ['x']; import distributed_suite as s, unittest; "
         "print('\\n'.join(unittest.TestLoader().getTestCaseNames(s.TestDistBackendWithSpawn)))"],
        cwd=HERE, env=dict(os.environ, BACKEND="gloo", WORLD_SIZE=str(world_size)),
        check=True, capture_output=True, text=True)
    return listing.stdout.split()


def run_suite(backend, world_size, tests, out_dir):
    """One backend at one world size: {test: outcome record}, and the run's seconds."""
    if not tests:  # distributed_suite.py given no test names runs them all
        return {}, 0.0
    results = os.path.join(out_dir, f"{backend}-p{world_size}.json")
    log = os.path.join(out_dir, f"{backend}-p{world_size}.log")
    started = time.monotonic()
    with open(log, "w") as out:
        subprocess.run([sys.executable, SUITE, "--results", results, "--tests", *tests],
                       env=dict(os.environ, BACKEND=backend, WORLD_SIZE=str(world_size)),
                       stdout=out, stderr=subprocess.STDOUT, check=False)
    seconds = time.monotonic() - started
    if not os.path.exists(results):
        sys.exit(f"{backend} at p = {world_size}: the suite wrote no results; see {log}")
    with open(results) as f:
        return json.load(f)["tests"], seconds


def recorded_gloo(gloo_dir, world_size, tests):
    """gloo's outcomes for `tests` from gloo_dir's run at `world_size`, or None (saying why) when
    that run used another torch version than the installed one or lacks one of the tests."""
    path = os.path.join(gloo_dir, f"gloo-p{world_size}.json")
    if not os.path.exists(path):
        print(f"p = {world_size}: {path} does not exist; running gloo", flush=True)
        return None
    with open(path) as f:
        recorded = json.load(f)
    installed = importlib.metadata.version("torch")
    if recorded.get("torch") != installed:
        print(f"p = {world_size}: {path} was recorded with torch {recorded.get('torch')}, "
              f"torch {installed} is installed; running gloo", flush=True)
        return None
    missing = [t for t in tests if t not in recorded["tests"]]
    if missing:
        print(f"p = {world_size}: {path} lacks {', '.join(missing)}; running gloo", flush=True)
        return None
    return {t: recorded["tests"][t] for t in tests}


def report(backend, world_size, outcomes, seconds):
    counted = {k: sum(1 for r in outcomes.values() if r["outcome"] == k) for k in OUTCOMES}
    print(f"p = {world_size} {backend:8s} " + " ".join(f"{k} {counted[k]:3d}" for k in OUTCOMES) +
          f"  ({seconds:.0f} s)", flush=True)


def last_line(detail):
    lines = [line for line in detail.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world-sizes", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--tests", nargs="+", help="only these tests (default: all not excluded)")
    parser.add_argument("--tests-file", help="only the tests this file lists, one a line")
    parser.add_argument("--gloo-results", help="a DIR of an earlier run: gloo's outcomes from it")
    parser.add_argument("--out", help="where the results go (default: a temporary folder)")
    args = parser.parse_args()
    out_dir = args.out or tempfile.mkdtemp(prefix="distributed-suite-")
    os.makedirs(out_dir, exist_ok=True)
    excluded = listed_tests(EXCLUDED)
    chosen = args.tests or (list(listed_tests(args.tests_file)) if args.tests_file else None)
    started = time.monotonic()
    regressions = []
    for world_size in args.world_sizes:
        tests = [t for t in (chosen or all_tests(world_size)) if t not in excluded]
        gloo = recorded_gloo(args.gloo_results, world_size, tests) if args.gloo_results else None
        from_record = gloo is not None
        seconds = 0.0
        if not from_record:
            gloo, seconds = run_suite("gloo", world_size, tests, out_dir)
        report("gloo", world_size, gloo, seconds)
        passed = sorted(t for t, r in gloo.items() if r["outcome"] == "pass")
        ringlab, seconds = run_suite("ringlab", world_size, passed if from_record else tests,
                                     out_dir)
        report("ringlab", world_size, ringlab, seconds)
        missed = [(world_size, t, ringlab.get(t, {"outcome": "missing", "detail": ""}))
                  for t in passed if ringlab.get(t, {}).get("outcome") != "pass"]
        print(f"p = {world_size}: ringlab passes {len(passed) - len(missed)} of the "
              f"{len(passed)} tests gloo passes", flush=True)
        regressions += missed
    for world_size, name, ours in regressions:
        print(f"  p = {world_size} {name}: {ours['outcome']} on ringlab: {last_line(ours['detail'])}")
    print(f"{len(excluded)} tests excluded ({os.path.basename(EXCLUDED)} says why); "
          f"results in {out_dir}; {time.monotonic() - started:.0f} s in all")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
