"""The analysis functions give what the CLI gives: the same JSON documents, number for number
(the CLI's, run and parsed, compared with the package's), and the same errors."""

import json
import os

import pytest

import ringlab
import ringlab_cli

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
TIMELINE = os.path.join(DATA, "plan_timeline.json")
TOPO = "nodes=2,ranks=4,intra=100GB/s,inter=12.5GB/s"
# Stable fields only: a record's date and host differ between two runs, and its version between the
# module and the command when only one of them was rebuilt after a commit.
UNSTABLE = ("date", "host", "version", "ringlab_version")


def stable(document):
    if isinstance(document, dict):
        return {k: stable(v) for k, v in document.items() if k not in UNSTABLE}
    if isinstance(document, list):
        return [stable(v) for v in document]
    return document


def test_verify_text_is_the_cli_output_and_its_figures_are_the_volume():
    got = ringlab.verify(5, algo="ring", size="1000", dtype="float32", listing=True)
    assert got["text"] == ringlab_cli.run("verify", "-p", "5", "--size", "1000", "-d", "float32")
    assert got["valid"] and got["reason"] == ""
    # The ring sends 2(p-1) blocks of n/p: 2 * 4 * 200 bytes per rank.
    assert got["max_sent_bytes"] == 1600 and got["total_sent_bytes"] == 5 * 1600
    assert got["per_rank"][0] == {"sent_bytes": 1600, "received_bytes": 1600}
    # Without the listing: the CLI's output from its verdict on.
    got = ringlab.verify(8, collective="reduce_scatter", ring_stride=3)
    cli = ringlab_cli.run("verify", "-p", "8", "--collective", "reduce_scatter", "--ring-stride",
                          "3")
    assert got["text"] == cli[cli.index("\nverdict:") + 1:] and got["valid"]


@pytest.mark.parametrize("model,flags", [
    ({}, []),
    ({"alpha": "5us", "bw": "12.5GB/s", "gamma": "20GB/s"},
     ["--alpha", "5us", "--bw", "12.5GB/s", "--gamma", "20GB/s"]),
    ({"profile": os.path.join(DATA, "plan_profile_p2.json")},
     ["--profile", os.path.join(DATA, "plan_profile_p2.json")]),
])
def test_predict_is_the_cli_model(model, flags):
    assert ringlab.predict(8, "64M", **model) == ringlab_cli.run_json(
        "model", "-p", "8", "--size", "64M", *flags)
    assert ringlab.predict_sweep(4, "1K", "16M", dtype="float64", **model) == \
        ringlab_cli.run_json("model", "-p", "4", "--sweep", "-b", "1K", "-e", "16M", "-d",
                             "float64", *flags)
    assert ringlab.predict_vs_p([2, 4, 8, 16], "1G", **model) == ringlab_cli.run_json(
        "model", "--vs-p", "--max-p", "16", "--size", "1G", *flags)


def test_search_and_show_rings_are_the_cli_topo():
    assert ringlab.search_rings(topo=TOPO, placement="rr", size="16M") == ringlab_cli.run_json(
        "topo search", "--topo", TOPO, "--placement", "rr", "--size", "16M")
    assert ringlab.show_rings(topo=TOPO, placement="rr") == ringlab_cli.run_json(
        "topo show", "--topo", TOPO, "--placement", "rr")


def test_simulate_names_its_step_factor_keyword():
    with pytest.raises(ringlab.InvalidArgumentError, match="step_factor 1: must be >= 2"):
        ringlab.simulate(topo=TOPO, placement="rr", min_bytes="1K", max_bytes="1M",
                         step_factor=1)


def test_simulate_is_the_cli_sim():
    got = ringlab.simulate(topo=TOPO, placement="rr", min_bytes="1K", max_bytes="1M",
                           step_factor=4, reduce_bw="20GB/s", search=True)
    want = ringlab_cli.run_json("sim", "--topo", TOPO, "--placement", "rr", "-b", "1K", "-e",
                                "1M", "-f", "4", "--reduce-bw", "20GB/s", "--search")
    assert stable(got) == stable(want)
    assert [row["size_bytes"] for row in got["rows"]] == [1024, 4096, 16384, 65536, 262144,
                                                          1048576]


def test_plan_buckets_is_the_cli_plan_from_a_file_or_a_dict():
    flags = ["--alpha", "20us", "--bw", "5GB/s", "--ddp-caps", "0.01,1"]
    want = ringlab_cli.run_json("plan", "--timeline", TIMELINE, "-p", "4", *flags)
    assert ringlab.plan_buckets(TIMELINE, 4, alpha="20us", bw="5GB/s", ddp_caps=[0.01, 1]) == want
    with open(TIMELINE) as f:
        timeline = json.load(f)  # as a program that recorded it in the same run holds it
    got = ringlab.plan_buckets(timeline, 4, alpha="20us", bw="5GB/s", ddp_caps="0.01,1")
    assert got["timeline"].pop("source") == "timeline"  # where the CLI names its file
    want["timeline"].pop("source")
    assert got == want
    measured = os.path.join(DATA, "plan_measured_p2.json")
    assert ringlab.plan_buckets(TIMELINE, 2, measured=measured, views=True) == \
        ringlab_cli.run_json("plan", "--timeline", TIMELINE, "-p", "2", "--measured", measured,
                             "--views")


def test_timelines_and_records_read_and_write(tmp_path):
    timeline = ringlab.read_timeline(TIMELINE)
    assert timeline["format"] == "ringlab-grad-timeline/1" and len(timeline["tensors"]) == 12
    ringlab.write_timeline(timeline, str(tmp_path / "t.json"))
    again = ringlab.read_timeline(str(tmp_path / "t.json"))
    # Times are held in seconds: microseconds come back within a rounding of what was written.
    for before, after in zip(timeline["tensors"], again["tensors"]):
        assert after.pop("ready_us") == pytest.approx(before.pop("ready_us"), rel=1e-12)
    assert again == timeline

    record = ringlab.read_record(os.path.join(DATA, "nccl_all_reduce_perf_16ranks.log"))
    assert record["run"]["p"] == 16 and record["rows"][0]["size_bytes"] > 0
    ringlab.write_record(record, str(tmp_path / "r.json"))
    assert ringlab.read_record(str(tmp_path / "r.json")) == record
    assert ringlab.read_record(record) == record
    with open(os.path.join(DATA, "plan_measured_p2.json")) as f:
        assert ringlab.parse_record(f.read())["run"]["p"] == 2


def test_analysis_errors_carry_the_cli_message():
    with pytest.raises(ringlab.InvalidArgumentError, match="nodes=0"):
        ringlab.search_rings(topo="nodes=0,ranks=4")
    with pytest.raises(ringlab.InvalidArgumentError) as info:
        ringlab.predict(4, "12Q")
    assert "12Q" in str(info.value)
    with pytest.raises(ringlab.InvalidArgumentError, match="record"):
        ringlab.read_record({"rows": []})
    with pytest.raises(ringlab.InvalidArgumentError, match="ring_order and ring_stride"):
        ringlab.verify(4, ring_order=[0, 1, 2, 3], ring_stride=1)


def test_plan_buckets_prices_a_record_it_is_handed_as_its_file():
    path = os.path.join(DATA, "plan_measured_p2.json")
    from_file = ringlab.plan_buckets(TIMELINE, 2, measured=path, views=True)
    held = ringlab.plan_buckets(TIMELINE, 2, measured=ringlab.read_record(path), views=True)
    assert from_file["model_source"] == "measured " + path
    assert held.pop("model_source") == "measured record"
    from_file.pop("model_source")
    assert held == from_file
    with pytest.raises(ringlab.InvalidArgumentError) as info:
        ringlab.plan_buckets(TIMELINE, 8, measured=ringlab.read_record(path))
    assert "measured at p = 2, not ranks = 8; measure at this p or pass ranks = 2" in \
        str(info.value)


def test_errors_name_the_keyword_argument_not_a_flag():
    cases = [(lambda: ringlab.predict(4, "1M", bw_counts="both"),
              "bw_counts 'both': valid are send and send+recv"),
             (lambda: ringlab.search_rings(topo="nodes=2,colour=red"),
              "topo: unknown key 'colour'"),
             (lambda: ringlab.plan_buckets(TIMELINE, 4, alpha="5us", ddp_caps="1,-2"),
              "ddp_caps '1,-2': '-2' is not a bucket_cap_mb > 0")]
    for call, words in cases:
        with pytest.raises(ringlab.InvalidArgumentError) as info:
            call()
        assert words in str(info.value)
        assert "--" not in str(info.value)
