"""One rank of a job started by `ringlab launch` or mpirun (tests/python/test_processes.py):
joins over the transport argv[1] names and saves what each collective gave into argv[2]."""

import os
import sys

import numpy as np

import ringlab


def main(transport, folder):
    comm = ringlab.connect(transport, timeout=60)
    p, r = comm.size, comm.rank
    results = {}
    for dtype in (np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64):
        for op in ("sum", "prod", "min", "max", "avg"):
            for count in (1, 7, 1000):
                send = ((r + 1) + np.arange(count) % 5).astype(dtype)
                if op == "prod":
                    send = (1 + (r + np.arange(count)) % 2).astype(dtype)
                out = comm.allreduce(send, np.empty_like(send), op=op)
                comm.allreduce(send, op=op)  # in place
                assert send.tobytes() == out.tobytes()
                results[f"allreduce_{np.dtype(dtype).name}_{op}_{count}"] = out
    # Large enough for single copy over shm (blocks above its threshold), odd in length.
    big = comm.empty(300001, np.float32)
    big[:] = (r + 1) + np.arange(big.size) % 5
    results["allreduce_shared_300001"] = comm.allreduce(big, comm.empty(big.size, np.float32))
    comm.allreduce(big)  # in place
    assert big.tobytes() == results["allreduce_shared_300001"].tobytes()
    send = np.arange(p * 5, dtype=np.float64) + r
    results["reduce_scatter"] = comm.reduce_scatter(send)
    results["allgather"] = comm.allgather(np.full(3, r, dtype=np.int32))
    for root in range(p):  # each rank keeps the reduction it received as the root
        total = comm.reduce(np.arange(7, dtype=np.int64) + r, np.full(7, -1), root=root)
        if r == root:
            results["reduce_at_root"] = total
        else:
            assert np.all(total == -1)
        results[f"broadcast_from_{root}"] = comm.broadcast(
            np.full(13, r * 10 + root, dtype=np.float32), root=root)
    results["alltoall"] = comm.alltoall(100 * r + np.arange(2 * p, dtype=np.int32))
    results["rank_and_size"] = np.array([r, p, int(comm.transport == transport)])
    np.savez(os.path.join(folder, f"rank{r}.npz"), **results)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
