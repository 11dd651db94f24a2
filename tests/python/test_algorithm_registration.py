"""Algorithms written in Python (ringlab.register_algorithm): the library verifies what the
function builds, then runs, prices and lists it like a built-in, on threads and on launched
processes; every wrong registration or schedule is refused in a message that names it."""

import os

import numpy as np
import pytest

import ringlab
import ringlab_cli
from direct_algorithm import direct, rank_contribution

HERE = os.path.dirname(__file__)


@pytest.fixture
def registered():
    """Registers `direct` as an AllReduce candidate for one test, and takes it away after."""
    ringlab.register_algorithm("direct", direct, min_ranks=2, candidate=True)
    yield "direct"
    ringlab.unregister_algorithm("direct")


def expected(ranks, count):
    return ranks * (ranks + 1) / 2 * (np.arange(count) % 7)


def test_it_is_listed_verified_and_priced_like_a_built_in(registered):
    assert ringlab.algorithms()[-1] == "direct"
    s = ringlab.schedule(4, algo="direct")
    assert (s.algorithm, s.ranks, s.blocks, len(s.steps)) == ("direct", 4, 4, 2)
    assert [step.phase for step in s.steps] == ["reduce-scatter", "allgather"]
    checked = ringlab.verify(4, algo="direct", size="1024")
    assert checked["valid"] and checked["steps"] == 2
    # Each rank sends p - 1 of its p blocks, then p - 1 copies of its reduced block: 2 (p-1)/p of
    # the buffer, as the ring does, but in 2 steps instead of 2 (p - 1).
    assert checked["max_sent_bytes"] == 2 * 3 * 1024 // 4
    rows = {row["algorithm"]: row for row in ringlab.predict(4, "64K")}
    assert rows["direct"]["steps"] == 2 and rows["ring"]["steps"] == 6


@pytest.mark.parametrize("ranks,count", [(2, 1), (3, 1001), (5, 4099)])
def test_threads_reduce_to_the_closed_form_bitwise_on_every_rank(registered, ranks, count):
    def rank(comm):
        x = rank_contribution(comm.rank, count)
        out = comm.allreduce(x, np.empty_like(x), algo="direct")
        comm.allreduce(x, algo="direct")  # in place
        assert out.tobytes() == x.tobytes()
        return x

    results = ringlab.run_threads(ranks, rank)
    assert np.array_equal(results[0], expected(ranks, count))
    assert all(r.tobytes() == results[0].tobytes() for r in results)


def test_launched_processes_each_register_it_and_agree(tmp_path):
    done = ringlab_cli.launch(3, os.path.join(HERE, "direct_algorithm.py"), "shm", str(tmp_path))
    assert done.returncode == 0, done.stderr
    results = [np.load(tmp_path / f"rank{r}.npy") for r in range(3)]
    assert np.array_equal(results[0], expected(3, 100003))
    assert all(r.tobytes() == results[0].tobytes() for r in results)


def test_spec_fields_reach_the_builder_only_when_read():
    seen = []

    def ordered(collective, ranks, spec):
        seen.append(spec.ring_order)
        return ringlab.schedule(ranks, algo="ring", ring_order=spec.ring_order)

    ringlab.register_algorithm("ordered", ordered, reads=("ring_order",))
    try:
        ringlab.schedule(4, algo="ordered", ring_stride=3)
        assert seen == [[0, 3, 2, 1]]
    finally:
        ringlab.unregister_algorithm("ordered")
    with pytest.raises(ringlab.InvalidArgumentError,
                       match="algorithm 'direct' takes no ring order"):
        ringlab.register_algorithm("direct", direct)
        try:
            ringlab.schedule(4, algo="direct", ring_stride=3)
        finally:
            ringlab.unregister_algorithm("direct")


def wrong_builders():
    def half(collective, ranks, spec):  # the reduce-scatter without the allgather
        return ringlab.Schedule(collective, ranks, ranks, direct(collective, ranks, spec).steps[:1])

    def other_p(collective, ranks, spec):
        return direct(collective, ranks + 1, spec)

    def outside(collective, ranks, spec):
        return ringlab.Schedule(collective, ranks, 1, [ringlab.Step([ringlab.Transfer(0, 7, 0, 1)])])

    return [
        (half, "invalid bad schedule: after 1 steps, rank 0 block 1 lacks the contributions"),
        (other_p, "algorithm 'bad' built a schedule of allreduce at p = 4 when asked for "
                  "allreduce at p = 3"),
        (outside, r"transfer 0->7 names a rank outside 0..2"),
        (lambda c, p, s: 42, "algorithm 'bad': its build function returned int, not a "
                             "ringlab.Schedule"),
    ]


@pytest.mark.parametrize("build,message", wrong_builders())
def test_a_wrong_schedule_is_refused_before_any_rank_runs_it(build, message):
    ringlab.register_algorithm("bad", build)
    try:
        with pytest.raises(ringlab.InvalidArgumentError, match=message):
            ringlab.schedule(3, algo="bad")
        with pytest.raises(ringlab.InvalidArgumentError, match=message):
            ringlab.run_threads(3, lambda comm: comm.allreduce(np.ones(10), algo="bad"))
    finally:
        ringlab.unregister_algorithm("bad")


def test_the_builders_own_exception_reaches_the_caller():
    def raises(collective, ranks, spec):
        raise ValueError("no schedule for you")

    ringlab.register_algorithm("raises", raises)
    try:
        with pytest.raises(ValueError, match="no schedule for you"):
            ringlab.schedule(3, algo="raises")
        with pytest.raises(ValueError, match="no schedule for you"):
            ringlab.run_threads(3, lambda comm: comm.allreduce(np.ones(10), algo="raises"))
    finally:
        ringlab.unregister_algorithm("raises")


@pytest.mark.parametrize("arguments,message", [
    (dict(name="ring"), "algorithm 'ring' is already registered"),
    (dict(name="auto"), "algorithm name 'auto': give a name other than '' and 'auto'"),
    (dict(build=5), "build: int is not callable; give a function build"),
    (dict(reads=("root",)), "reads: 'root' is not a field an algorithm can read; valid are "
                            "ring_order, channels, ranks_per_node"),
    (dict(collectives=("gather",)), "unknown collective 'gather'"),
    (dict(collectives=()), "collectives: give at least one collective"),
    (dict(min_ranks=0), "min_ranks 0: give 1 or more"),
])
def test_a_wrong_registration_is_refused_by_name(arguments, message):
    given = dict(name="fresh", build=direct) | arguments
    with pytest.raises(ringlab.InvalidArgumentError, match=message):
        ringlab.register_algorithm(given.pop("name"), given.pop("build"), **given)
    assert "fresh" not in ringlab.algorithms()


def test_only_registrations_can_go(registered):
    with pytest.raises(ringlab.InvalidArgumentError, match="algorithm 'ring' is built in"):
        ringlab.unregister_algorithm("ring")
    with pytest.raises(ringlab.InvalidArgumentError, match="algorithm 'nope' is not registered"):
        ringlab.unregister_algorithm("nope")
    with pytest.raises(ringlab.InvalidArgumentError,
                       match="algorithm 'direct' builds allreduce only, not reduce"):
        ringlab.schedule(3, algo="direct", collective="reduce")
