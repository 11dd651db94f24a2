"""run_distributed_suite.py with gloo's outcomes from a record (tests/data/torch_suite_gloo): the
record is used only when it was made with the installed torch and holds every chosen test, gloo
runs live otherwise, and ringlab fails the run whenever a test gloo passes does not pass on it.
The suite itself is not run here: run_suite is replaced by a stand-in that says what it was asked.
"""
import importlib.metadata
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))
import run_distributed_suite as runner  # noqa: E402

RECORD = os.path.join(ROOT, "tests", "data", "torch_suite_gloo")
SUBSET = os.path.join(ROOT, "tests", "torch", "distributed_suite_subset.txt")
INSTALLED = importlib.metadata.version("torch")


def write_record(folder, world_size, outcomes, torch_version=INSTALLED):
    tests = {t: {"outcome": o, "seconds": 1.0, "detail": ""} for t, o in outcomes.items()}
    record = {"backend": "gloo", "world_size": world_size, "tests": tests}
    if torch_version is not None:
        record["torch"] = torch_version
    (folder / f"gloo-p{world_size}.json").write_text(json.dumps(record))


class StandIn:
    """run_suite's stand-in: every call, and each backend's outcomes from `outcomes`."""

    def __init__(self, outcomes):
        self.outcomes, self.calls = outcomes, []

    def __call__(self, backend, world_size, tests, out_dir):
        self.calls.append((backend, world_size, list(tests)))
        return {t: {"outcome": self.outcomes[backend].get(t, "pass"), "detail": "boom"}
                for t in tests}, 1.0


def run(monkeypatch, tmp_path, stand_in, *args):
    monkeypatch.setattr(runner, "run_suite", stand_in)
    monkeypatch.setattr(sys, "argv", ["run_distributed_suite.py", "--world-sizes", "2",
                                      "--tests", "test_a", "test_b", "test_c",
                                      "--out", str(tmp_path / "out"), *args])
    return runner.main()


def test_checked_in_record_covers_the_subset_at_both_world_sizes():
    tests = list(runner.listed_tests(SUBSET))
    for world_size in (2, 3):
        with open(os.path.join(RECORD, f"gloo-p{world_size}.json")) as f:
            record = json.load(f)
        assert record["backend"] == "gloo" and record["world_size"] == world_size
        assert record["torch"], "the record names no torch version"
        assert sorted(record["tests"]) == sorted(tests)


def test_a_record_of_this_torch_spares_the_gloo_run_and_ringlab_runs_what_gloo_passed(
        monkeypatch, tmp_path):
    write_record(tmp_path, 2, {"test_a": "pass", "test_b": "skip", "test_c": "pass"})
    stand_in = StandIn({"ringlab": {}})
    assert run(monkeypatch, tmp_path, stand_in, "--gloo-results", str(tmp_path)) == 0
    assert stand_in.calls == [("ringlab", 2, ["test_a", "test_c"])]


def test_a_test_gloo_passes_that_fails_on_ringlab_fails_the_run(monkeypatch, tmp_path, capsys):
    write_record(tmp_path, 2, {"test_a": "pass", "test_b": "pass", "test_c": "pass"})
    stand_in = StandIn({"ringlab": {"test_b": "fail"}})
    assert run(monkeypatch, tmp_path, stand_in, "--gloo-results", str(tmp_path)) == 1
    assert "p = 2 test_b: fail on ringlab: boom" in capsys.readouterr().out


@pytest.mark.parametrize("torch_version, outcomes, why", [
    ("0.0.1", {"test_a": "pass", "test_b": "pass", "test_c": "pass"},
     "was recorded with torch 0.0.1, torch " + INSTALLED + " is installed"),
    (None, {"test_a": "pass", "test_b": "pass", "test_c": "pass"},
     "was recorded with torch None, torch " + INSTALLED + " is installed"),
    (INSTALLED, {"test_a": "pass", "test_b": "pass"}, "lacks test_c"),
])
def test_a_record_of_another_torch_or_lacking_a_test_runs_gloo_live(
        monkeypatch, tmp_path, capsys, torch_version, outcomes, why):
    write_record(tmp_path, 2, outcomes, torch_version)
    stand_in = StandIn({"gloo": {"test_c": "skip"}, "ringlab": {}})
    assert run(monkeypatch, tmp_path, stand_in, "--gloo-results", str(tmp_path)) == 0
    assert why in capsys.readouterr().out
    assert stand_in.calls == [("gloo", 2, ["test_a", "test_b", "test_c"]),
                              ("ringlab", 2, ["test_a", "test_b", "test_c"])]


def test_no_record_for_the_world_size_runs_gloo_live(monkeypatch, tmp_path, capsys):
    stand_in = StandIn({"gloo": {}, "ringlab": {"test_a": "error"}})
    assert run(monkeypatch, tmp_path, stand_in, "--gloo-results", str(tmp_path)) == 1
    assert "gloo-p2.json does not exist; running gloo" in capsys.readouterr().out
    assert [call[0] for call in stand_in.calls] == ["gloo", "ringlab"]


def test_when_gloo_passes_none_of_the_tests_ringlab_runs_none(monkeypatch, tmp_path):
    write_record(tmp_path, 2, {"test_a": "skip", "test_b": "skip", "test_c": "skip"})
    started = []
    monkeypatch.setattr(runner.subprocess, "run", lambda command, **_: started.append(command))
    monkeypatch.setattr(sys, "argv", ["run_distributed_suite.py", "--world-sizes", "2",
                                      "--tests", "test_a", "test_b", "test_c",
                                      "--out", str(tmp_path / "out"),
                                      "--gloo-results", str(tmp_path)])
    assert runner.main() == 0
    assert started == []
