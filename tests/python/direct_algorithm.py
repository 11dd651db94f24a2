"""An AllReduce algorithm written in Python for the registration tests
(test_algorithm_registration.py): every rank sends each block straight to the rank that reduces
it, then that rank sends the reduced block straight to every other rank. Two steps whatever p is;
p - 1 sends per rank in each."""

import sys

import numpy as np

import ringlab


def direct(collective, ranks, spec):
    gather = [ringlab.Transfer(r, b, b, b + 1, "reduce")
              for b in range(ranks) for r in range(ranks) if r != b]
    spread = [ringlab.Transfer(b, r, b, b + 1) for b in range(ranks) for r in range(ranks) if r != b]
    return ringlab.Schedule(collective, ranks, ranks, [ringlab.Step(gather, "reduce-scatter"),
                                                       ringlab.Step(spread, "allgather")])


def rank_contribution(rank, count):
    """Rank r's input: (r + 1) (i mod 7), whose sum over p ranks is p (p + 1) / 2 (i mod 7)."""
    return ((rank + 1) * (np.arange(count) % 7)).astype(np.float64)


def main(transport, folder):
    """One rank of a launched job: registers the algorithm as every rank does, runs it over the
    transport, and saves what it gave."""
    ringlab.register_algorithm("direct", direct, min_ranks=2)
    comm = ringlab.connect(transport, timeout=60)
    x = rank_contribution(comm.rank, 100003)
    comm.allreduce(x, algo="direct")
    np.save(f"{folder}/rank{comm.rank}.npy", x)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
