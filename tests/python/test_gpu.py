"""The GPU functions give what the CLI gives: compare_gpu is `ringlab compare LOG --system ...
--json` on the real nccl-tests logs of tests/data/gpu_logs, predict_gpu is `ringlab model --system
--json`, and their errors are the library's, worded with the package's keywords."""

import json
import os

import pytest

import ringlab
import ringlab_cli

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
LOGS = os.path.join(DATA, "gpu_logs")
with open(os.path.join(LOGS, "corpus.json")) as corpus_file:
    # The logs the reader takes (the corpus says why it refuses the others), with the system each
    # ran on and p where the log does not print it.
    CORPUS = [entry for entry in json.load(corpus_file) if "skip" not in entry]
A3_MEGA = os.path.join(LOGS, "h100_a3mega_2node_tcpxo.log")


def cli_compare(entry):
    flags = ["-p", str(entry["ranks"])] if "ranks" in entry else []
    return ringlab_cli.run_json("compare", os.path.join(LOGS, entry["file"]), "--system",
                                entry["system"], *flags)


def python_compare(entry):
    return ringlab.compare_gpu(os.path.join(LOGS, entry["file"]), system=entry["system"],
                               ranks=entry.get("ranks"))


def as_the_cli_words_it(text):
    """The package's words for what the CLI names by its flags and its argument."""
    return text.replace("from ranks:", "from -p:").replace("measured by log ",
                                                           "measured by measurements ")


@pytest.mark.parametrize("entry", CORPUS, ids=[entry["file"] for entry in CORPUS])
def test_compare_gpu_is_the_cli_verdict_on_each_corpus_log(entry):
    got, want = python_compare(entry), cli_compare(entry)
    assert len(got) == len(want) == 1
    for verdict, cli in zip(got, want):
        # The file is named by the keyword each front end takes it with: log, or compare's files.
        assert verdict.pop("source") == "log " + os.path.join(LOGS, entry["file"])
        assert cli.pop("source") == "measurements " + os.path.join(LOGS, entry["file"])
        assert [as_the_cli_words_it(note) for note in verdict.pop("notes")] == cli.pop("notes")
        text = verdict.pop("text")
        # Every row, number for number, and the verdict: flagged, findings, bands, the system.
        assert verdict == cli
        assert verdict["device"].startswith("GPUs") and verdict["p"] >= 2
        assert [r["size_bytes"] for r in verdict["rows"]] == [r["size_bytes"] for r in cli["rows"]]
        assert f"# p = {verdict['p']}, measured by log " in text
        assert text.rstrip().endswith("# verdict: FLAGGED (see the findings)" if verdict["flagged"]
                                      else "# verdict: within the model's margins")


def test_compare_gpu_text_is_the_cli_table():
    entry = next(e for e in CORPUS if e["file"] == "a100_dgx_4gpu_nop2p_llminsights.log")
    [verdict] = python_compare(entry)
    cli = ringlab_cli.run("compare", os.path.join(LOGS, entry["file"]), "--system",
                          entry["system"], "-p", str(entry["ranks"]))
    assert as_the_cli_words_it(verdict["text"]) == cli


def test_compare_gpu_gives_one_verdict_per_case_of_the_file():
    log = os.path.join(DATA, "nccl_tests", "op_all_rows_issue167.log")  # -o all: max, then min
    got = ringlab.compare_gpu(log, system="dgx-h100", ranks=16)
    want = ringlab_cli.run_json("compare", log, "--system", "dgx-h100", "-p", "16")
    assert [v["label"] for v in got] == [v["label"] for v in want] == [
        "p = 16, float32 max", "p = 16, float32 min"]
    assert [v["rows"] for v in got] == [v["rows"] for v in want]


@pytest.mark.parametrize("entry", [e for e in CORPUS if e["condition"] == "underperforming"],
                         ids=lambda entry: entry["file"])
def test_compare_gpu_flags_the_logs_the_corpus_marks_underperforming(entry):
    [verdict] = python_compare(entry)
    assert verdict["flagged"] and verdict["findings"]


def test_compare_gpu_without_a_system_says_what_ran_and_how_to_describe_it():
    with pytest.raises(ValueError) as info:
        ringlab.compare_gpu(A3_MEGA)
    message = str(info.value)
    assert isinstance(info.value, ringlab.InvalidArgumentError)
    assert message.startswith(f"log {A3_MEGA}: the log ran p = 16 on GPUs (NVIDIA H100 80GB HBM3): "
                              "ringlab cannot judge GPU hardware without a description of it; "
                              "pass system='dgx-h100' (ringlab.gpu_presets()), "
                              "system='gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s' or "
                              "nccl_topo=PATH")
    assert "(this GPU's presets include dgx-h100: NVIDIA DGX H100)" in message
    # The CLI's sentence up to its way of giving a system.
    cli = ringlab_cli.run("compare", A3_MEGA)
    assert message[len(f"log {A3_MEGA}: "):message.index("; pass")] in cli
    with pytest.raises(ValueError, match="cannot judge GPU hardware"):
        ringlab.compare_gpu(A3_MEGA, nodes=2)  # a node count alone describes no system


def test_compare_gpu_errors_name_the_value_and_the_keyword():
    with pytest.raises(ringlab.InvalidArgumentError) as info:
        ringlab.compare_gpu(A3_MEGA, system="dgx-h999")
    assert str(info.value).startswith("system: the GPU system 'dgx-h999': no preset 'dgx-h999'")
    assert "dgx-h100" in str(info.value)  # the presets that are valid
    with pytest.raises(ringlab.InvalidArgumentError, match="nic=fast"):
        ringlab.compare_gpu(A3_MEGA, system="gpu=h100,nic=fast")
    with pytest.raises(ringlab.InvalidArgumentError, match="^nccl_topo: .*missing-topo.xml"):
        ringlab.compare_gpu(A3_MEGA, nccl_topo="missing-topo.xml")
    with pytest.raises(ringlab.InvalidArgumentError, match="p = 16.*nodes"):
        ringlab.compare_gpu(A3_MEGA, system="dgx-h100", nodes=3)
    # No rank lines: p from busbw/algbw where the rounding tells it, and a ranks that contradicts
    # the figures refused in Python's word.
    unranked = os.path.join(LOGS, "h100_dgx_4gpu_llminsights.log")
    [verdict] = ringlab.compare_gpu(unranked, system="dgx-h100")
    assert verdict["p"] == 4
    with pytest.raises(ringlab.InvalidArgumentError, match="ranks 3 but the log says p = 4 by line"):
        ringlab.compare_gpu(unranked, system="dgx-h100", ranks=3)
    with pytest.raises(ringlab.InvalidArgumentError, match="ranks 8 but the log says p = 16"):
        ringlab.compare_gpu(A3_MEGA, system="dgx-h100", ranks=8)
    # A CPU record: the library's refusal, with or without a system.
    cpu = os.path.join(DATA, "plan_measured_p2.json")
    with pytest.raises(ringlab.InvalidArgumentError, match="not GPUs: a GPU system prices GPUs"):
        ringlab.compare_gpu(cpu, system="dgx-h100")
    with pytest.raises(ringlab.InvalidArgumentError, match="ran on CPU ranks .*not GPUs"):
        ringlab.compare_gpu(cpu)


def test_compare_gpu_takes_an_nccl_topology_and_a_path_object():
    import pathlib
    log = pathlib.Path(DATA, "nccl_tests", "h100_16ranks_mpirun.log")
    topo = pathlib.Path(DATA, "nccl_topo", "hgx_h200_dump.xml")
    [verdict] = ringlab.compare_gpu(log, nccl_topo=topo, system="nics=8,nic=400Gb/s")
    [cli] = ringlab_cli.run_json("compare", str(log), "--nccl-topo", str(topo), "--system",
                                 "nics=8,nic=400Gb/s")
    assert verdict["rows"] == cli["rows"] and verdict["system"] == cli["system"]
    assert "NVSwitch 18 links x 20.6 GB/s" in verdict["system"]["description"]


@pytest.mark.parametrize("kwargs,flags", [
    ({"system": "dgx-h100", "nodes": 2}, ["--system", "dgx-h100", "--nodes", "2"]),
    ({"system": "gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s", "min_bytes": "1K",
      "max_bytes": "4G"},
     ["--system", "gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s", "-b", "1K", "-e", "4G"]),
    ({"system": "nics=8,nic=400Gb/s", "nccl_topo": os.path.join(DATA, "nccl_topo",
                                                                "hgx_h200_dump.xml")},
     ["--system", "nics=8,nic=400Gb/s", "--nccl-topo",
      os.path.join(DATA, "nccl_topo", "hgx_h200_dump.xml")]),
])
def test_predict_gpu_is_the_cli_model_of_a_system(kwargs, flags):
    got = ringlab.predict_gpu(**kwargs)
    assert got.pop("text") == ringlab_cli.run("model", *flags)
    assert got == ringlab_cli.run_json("model", *flags)


def test_predict_gpu_sweeps_like_the_cli_and_refuses_a_bad_range():
    curve = ringlab.predict_gpu("dgx-h100")
    assert curve["p"] == 8
    assert [r["size_bytes"] for r in curve["rows"]] == [8 * 4**i for i in range(14)]
    with pytest.raises(ringlab.InvalidArgumentError,
                       match="min_bytes 2K and max_bytes 1K: need 0 < min <= max"):
        ringlab.predict_gpu("dgx-h100", min_bytes="2K", max_bytes="1K")
    with pytest.raises(ringlab.InvalidArgumentError, match="12Q"):
        ringlab.predict_gpu("dgx-h100", max_bytes="12Q")
    with pytest.raises(ringlab.InvalidArgumentError, match="^no GPU system: pass system="):
        ringlab.predict_gpu()
    with pytest.raises(ringlab.InvalidArgumentError, match="^system: .*'dgx-h999'"):
        ringlab.predict_gpu("dgx-h999")


def test_gpu_presets_are_the_cli_list_with_their_sources():
    presets = ringlab.gpu_presets()
    by_key = {p["key"]: p for p in presets}
    assert by_key["dgx-h100"]["title"] == "NVIDIA DGX H100"
    assert by_key["dgx-h100"]["source"] and by_key["dgx-h100"]["spec"].startswith("gpu=h100")
    listing = ringlab_cli.run("compare", "--system", "list")
    for preset in presets:
        assert f"source: {preset['source']}\n" in listing and preset["spec"] in listing
        # Every preset is a system the package takes by its key.
        assert ringlab.predict_gpu(preset["key"], min_bytes="1G", max_bytes="1G")["rows"]


def without_run_stamps(document):
    """A sim record without what differs from one run to the next (date, version)."""
    run = {k: v for k, v in document["run"].items() if k not in ("date", "ringlab_version")}
    return {**document, "run": run}


def test_simulate_on_a_system_is_the_cli_sim_on_nccls_rings():
    got = ringlab.simulate(system="dgx-h100", nodes=2, min_bytes="1M", max_bytes="64M",
                           step_factor=8)
    want = ringlab_cli.run_json("sim", "--system", "dgx-h100", "--nodes", "2", "-b", "1M", "-e",
                                "64M", "-f", "8")
    assert without_run_stamps(got) == without_run_stamps(want)
    assert got["run"]["algorithm"] == "multi_ring"
    assert got["run"]["ring_order"].startswith("0,7,6,5,4,3,2,1,8,15,")  # NCCL's channel 0
    assert got["run"]["p"] == 16
    # Another algorithm and a part of the system, as the CLI's --algo and -p give them.
    got = ringlab.simulate(system="dgx-h100", ranks=8, algo="ring", max_bytes="1M",
                           step_factor=16)
    want = ringlab_cli.run_json("sim", "--system", "dgx-h100", "-p", "8", "--algo", "ring",
                                "-e", "1M", "-f", "16")
    assert without_run_stamps(got) == without_run_stamps(want)
    assert got["run"]["algorithm"] == "ring"
    assert got["run"]["p"] == 8


def test_search_and_show_rings_on_a_system_hold_the_rings_against_nccls():
    got = ringlab.search_rings(system="dgx-h100", nodes=2)
    assert got == ringlab_cli.run_json("topo search", "--system", "dgx-h100", "--nodes", "2")
    assert got["reference"]["name"] == "NCCL rings"
    assert len(got["reference"]["rings"]) == len(got["chosen"]["rings"])
    assert ringlab.show_rings(system="dgx-h100", nodes=2, channels=2) == ringlab_cli.run_json(
        "topo show", "--system", "dgx-h100", "--nodes", "2", "--channels", "2")


def test_a_system_beside_a_topology_or_a_p_it_cannot_place_is_refused_in_keywords():
    with pytest.raises(ringlab.InvalidArgumentError,
                       match="^system=dgx-h100 is the topology: give it or topo=, topo_file="):
        ringlab.simulate(system="dgx-h100", topo="nodes=2,ranks=4")
    with pytest.raises(ringlab.InvalidArgumentError, match="^ranks=12 on system=dgx-h100: p = 12 does not fit"):
        ringlab.search_rings(system="dgx-h100", ranks=12)
    with pytest.raises(ringlab.InvalidArgumentError, match="^system: the GPU system 'dgx-h999'"):
        ringlab.show_rings(system="dgx-h999")
