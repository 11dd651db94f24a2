"""Typed objects beside the dict-returning helpers: the enums under the library's names, an
algorithm spec resolved for p, and the schedule the library runs, read as it holds them."""
import pytest

import ringlab


def test_enums_carry_the_library_names():
    assert [d.name for d in ringlab.DataType.__members__.values()] == [
        "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32",
        "float64"]
    assert list(ringlab.ReduceOp.__members__) == ["sum", "prod", "min", "max", "avg",
                                                  "premul_sum"]
    assert list(ringlab.Collective.__members__) == [
        "allreduce", "reduce_scatter", "allgather", "reduce", "broadcast", "alltoall"]


def test_algorithm_spec_is_the_choice_resolved_for_p():
    spec = ringlab.algorithm_spec(8, ring_stride=3)
    assert isinstance(spec, ringlab.AlgorithmSpec)
    assert spec.name == "ring"
    assert spec.ring_order == [0, 3, 6, 1, 4, 7, 2, 5]  # i -> 3i mod 8
    assert ringlab.algorithm_spec(8, "multi_ring", channels=2).channels == 2
    with pytest.raises(ringlab.InvalidArgumentError, match="ring stride 2 shares the factor 2"):
        ringlab.algorithm_spec(8, ring_stride=2)


def test_schedule_is_the_verified_one_with_its_closed_form_shape():
    s = ringlab.schedule(5)
    assert isinstance(s, ringlab.Schedule)
    assert (s.algorithm, s.collective, s.ranks, s.blocks) == ("ring", ringlab.Collective.allreduce,
                                                              5, 5)
    assert len(s.steps) == 2 * (5 - 1)  # reduce-scatter then allgather, p - 1 steps each
    assert [step.phase for step in s.steps[:4]] == ["reduce-scatter"] * 4
    first = s.steps[0].transfers
    assert len(first) == 5 and {t.mode for t in first} == {"reduce"}
    assert {(t.src, t.dst) for t in first} == {(r, (r + 1) % 5) for r in range(5)}
    tree = ringlab.schedule(4, collective="reduce", algo="binomial_tree")
    assert tree.collective == ringlab.Collective.reduce and tree.algorithm == "binomial_tree"
    with pytest.raises(ringlab.InvalidArgumentError, match="unknown collective 'gather'"):
        ringlab.schedule(4, collective="gather")
