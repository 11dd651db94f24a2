#!/usr/bin/python3
"""This host's TCP loopback rate: what processes that only move bytes over it get on one host.

Usage: bench/tcp/loopback_rate.py [--streams 1,2,4] [--seconds 2] [--chunk 4M] [--both] [--zerocopy]
                                  [--ring 4 [--allreduce-sweep MIN MAX FACTOR]]

For each number of streams it starts that many connected pairs of processes over 127.0.0.1; each
sender writes `chunk`-byte buffers (allocated and touched once) for `seconds`, each receiver
reads into one reused buffer. Prints the bytes received per second over all streams (GB/s = 1e9
B/s). With --both every pair also sends the other way at the same time, as the two neighbours of a
ring do (the rate is then per direction: what each of the two ranks receives per second). With
--zerocopy the senders use MSG_ZEROCOPY (and drain its completions), to see what it buys here.
With --ring P, P processes in a ring instead, each sending to the next (a thread) while it
receives from the one before, as the ranks of a ring AllReduce over tcp do; the rate is then the
total over the P connections. With --allreduce-sweep as well, one ring per size from MIN (at least
1M) to MAX, its buffers that size, printed as CSV rows `p,size_bytes,time_us,rate_GBps`: time_us
is what a ring AllReduce of that size would take only to move its bytes (2 (P - 1) x size over all
connections) at the rate measured, no reduction: the floor that bench/peers/run.sh sets beside its
tcp goals. Each line also gives the CPU time (user + system, all the line's processes) per 100 MB received:
on a host whose cores all take part, a transport that moves its bytes through loopback sockets
cannot spend less than that on them, whatever it does around the transfers.
"""
import argparse
import multiprocessing as mp
import resource
import socket
import threading
import time

# Linux's values; Python's socket module does not name them.
SO_ZEROCOPY = 60
MSG_ZEROCOPY = 0x4000000
ENOBUFS = 105


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def drain_completions(sock):
    while True:
        try:
            sock.recvmsg(0, 4096, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return


def sender(sock, chunk, seconds, zerocopy):
    buffer = bytearray(b"\x5a" * chunk)
    view = memoryview(buffer)
    end = time.monotonic() + seconds
    if not zerocopy:
        while time.monotonic() < end:
            sock.sendall(view)
    else:
        # The buffer is never changed, so reusing it before its completion arrives is harmless.
        sock.setsockopt(socket.SOL_SOCKET, SO_ZEROCOPY, 1)
        while time.monotonic() < end:
            try:
                sent = 0
                while sent < chunk:
                    sent += sock.send(view[sent:], MSG_ZEROCOPY)
            except OSError as e:
                if e.errno != ENOBUFS:
                    raise
            drain_completions(sock)
    sock.shutdown(socket.SHUT_WR)


def receiver(sock, chunk, result):
    buffer = bytearray(chunk)
    view = memoryview(buffer)
    total = 0
    start = None
    while True:
        n = sock.recv_into(view)
        if n == 0:
            break
        if start is None:
            start = time.monotonic()
        total += n
    result.put((total, time.monotonic() - start))


def connected_pair():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    a = socket.create_connection(listener.getsockname())
    b, _ = listener.accept()
    listener.close()
    for s in (a, b):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return a, b


def ring_rank(to_next, from_before, chunk, seconds, result):
    sending = threading.Thread(target=sender, args=(to_next, chunk, seconds, False))
    sending.start()
    receiver(from_before, chunk, result)
    sending.join()


def measure(streams, chunk, seconds, both, zerocopy):
    result = mp.Queue()
    procs = []
    for _ in range(streams):
        a, b = connected_pair()
        procs.append(mp.Process(target=sender, args=(a, chunk, seconds, zerocopy)))
        procs.append(mp.Process(target=receiver, args=(b, chunk, result)))
        if both:
            procs.append(mp.Process(target=sender, args=(b, chunk, seconds, zerocopy)))
            procs.append(mp.Process(target=receiver, args=(a, chunk, result)))
    return run(procs, streams * (2 if both else 1), result, 2 if both else 1)


def measure_ring(ranks, chunk, seconds):
    result = mp.Queue()
    pairs = [connected_pair() for _ in range(ranks)]  # pair i: rank i's end, rank i + 1's end
    procs = [mp.Process(target=ring_rank, args=(pairs[i][0], pairs[i - 1][1], chunk, seconds, result))
             for i in range(ranks)]
    return run(procs, ranks, result, 1)


def run(procs, receivers, result, directions):
    """Runs the processes; the bytes per second received (per direction) and the CPU seconds all of
    them spent per byte received."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for p in procs:
        p.start()
    outcomes = [result.get() for _ in range(receivers)]
    for p in procs:
        p.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    total = sum(n for n, _ in outcomes)
    longest = max(t for _, t in outcomes)
    return total / longest / directions, cpu / total


def allreduce_rows(ranks, sweep, seconds, parser):
    try:
        low, high, factor = parse_size(sweep[0]), parse_size(sweep[1]), int(sweep[2])
    except ValueError:
        low = high = factor = 0
    if factor < 2 or low < 1 or high < low:
        parser.error(f"--allreduce-sweep {' '.join(sweep)}: want sizes MIN <= MAX (such as 4 and 64M) and a whole FACTOR >= 2")
    size = low
    while size < 1 << 20:  # below 1 MiB a call's time is not its bytes
        size *= factor
    print(f"# loopback 127.0.0.1, a ring of {ranks} processes, {seconds} s per size; time_us: 2 (p - 1) x size"
          " at the rate measured, buffers of the size")
    print("p,size_bytes,time_us,rate_GBps")
    while size <= high:
        rate, _ = measure_ring(ranks, size, seconds)
        print(f"{ranks},{size},{2 * (ranks - 1) * size / rate * 1e6:.1f},{rate / 1e9:.3f}", flush=True)
        size *= factor


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", default="1,2,4")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--chunk", default="4M")
    parser.add_argument("--both", action="store_true")
    parser.add_argument("--zerocopy", action="store_true")
    parser.add_argument("--ring", type=int, default=0, help="P ranks in a ring instead of --streams")
    parser.add_argument("--allreduce-sweep", nargs=3, metavar=("MIN", "MAX", "FACTOR"),
                        help="with --ring: CSV rows, one ring per size")
    args = parser.parse_args()
    chunk = parse_size(args.chunk)
    if args.allreduce_sweep and not args.ring:
        parser.error("--allreduce-sweep: give --ring P too")
    if args.ring:
        if args.ring < 2:
            parser.error(f"--ring {args.ring}: a ring needs at least 2 processes")
        if args.allreduce_sweep:
            allreduce_rows(args.ring, args.allreduce_sweep, args.seconds, parser)
            return
        rate, cpu = measure_ring(args.ring, chunk, args.seconds)
        print(f"# loopback 127.0.0.1, chunk {chunk} B, {args.seconds} s, a ring of {args.ring} processes")
        print(f"ring of {args.ring}: {rate / 1e9:.2f} GB/s in all, CPU {cpu * 1e11:.1f} ms per 100 MB")
        return
    print(f"# loopback 127.0.0.1, chunk {chunk} B, {args.seconds} s per line,"
          f" {'both directions (rate per direction)' if args.both else 'one direction'}"
          f"{', MSG_ZEROCOPY' if args.zerocopy else ''}")
    for streams in [int(s) for s in args.streams.split(",")]:
        rate, cpu = measure(streams, chunk, args.seconds, args.both, args.zerocopy)
        print(f"streams {streams}: {rate / 1e9:.2f} GB/s, CPU {cpu * 1e11:.1f} ms per 100 MB")


if __name__ == "__main__":
    main()
