"""DDP on the ringlab backend ends where DDP on gloo ends.

One torchrun job (2 ranks) trains the same model from the same start on the same per-rank data
three times: over gloo, ringlab shm and ringlab tcp, each through its own process group.

Why bitwise: with 2 ranks, every element of an averaged gradient bucket is the sum of exactly two
float32 numbers (DDP scales each gradient by 1/2 before the AllReduce, an exact power-of-two
scaling). IEEE addition is commutative and correctly rounded, so a + b and b + a are the same
bits whatever algorithm moves them; everything else (forward, backward, SGD) is the same local
code on the same inputs. So the parameters must agree bitwise, for the float-valued model and
for the integer-valued one (small dyadic weights and inputs, exact at any p). A tolerance would
only be needed from 3 ranks up, where the order of a sum of three terms changes its rounding.
"""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torchrun_jobs  # noqa: E402


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp")
    torchrun_jobs.torchrun("ddp", 2, out)
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]


@pytest.mark.parametrize("model", ["float", "integer"])
@pytest.mark.parametrize("transport", ["shm", "tcp"])
def test_ddp_parameters_bitwise_equal_to_gloo(ranks, model, transport):
    for rank, result in enumerate(ranks):
        gloo = result[f"{model} gloo bits"]
        ringlab = result[f"{model} ringlab {transport} bits"]
        assert len(ringlab) == len(gloo) == (6 if model == "float" else 4)
        for i, (a, b) in enumerate(zip(ringlab, gloo)):
            assert a == b, f"rank {rank}, parameter {i}: ringlab {transport} differs from gloo"


@pytest.mark.parametrize("model", ["float", "integer"])
def test_ddp_trained_and_ranks_agree(ranks, model):
    # The runs moved the parameters (the comparison above is not of untouched models) and the
    # ranks hold the same model, as DDP promises.
    initial, final = ranks[0][f"{model} initial"], ranks[0][f"{model} ringlab shm"]
    assert all(a != b for a, b in zip(initial, final))
    for transport in ("shm", "tcp"):
        key = f"{model} ringlab {transport} bits"
        assert ranks[0][key] == ranks[1][key]
