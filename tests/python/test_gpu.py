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
