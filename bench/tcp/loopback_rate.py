#!/usr/bin/python3
"""This host's TCP loopback rate: the ceiling under ringlab's tcp transport on one host.

Usage: bench/tcp/loopback_rate.py [--streams 1,2,4] [--seconds 2] [--chunk 4M] [--both]

For each number of streams it starts that many connected pairs of processes over 127.0.0.1; each
sender writes `chunk`-byte buffers (allocated and touched once) for `seconds`, each receiver
reads into one reused buffer. Prints the bytes received per second over all streams (GB/s = 1e9
B/s). With --both every pair also sends the other way at the same time, as the two neighbours of a
ring do (the rate is then per direction: what each of the two ranks receives per second).
"""
import argparse
import multiprocessing as mp
import socket
import time


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def sender(sock, chunk, seconds):
    buffer = bytearray(b"\x5a" * chunk)
    view = memoryview(buffer)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sock.sendall(view)
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


def measure(streams, chunk, seconds, both):
    result = mp.Queue()
    procs = []
    for _ in range(streams):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        a = socket.create_connection(listener.getsockname())
        b, _ = listener.accept()
        listener.close()
        for s in (a, b):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        procs.append(mp.Process(target=sender, args=(a, chunk, seconds)))
        procs.append(mp.Process(target=receiver, args=(b, chunk, result)))
        if both:
            procs.append(mp.Process(target=sender, args=(b, chunk, seconds)))
            procs.append(mp.Process(target=receiver, args=(a, chunk, result)))
    for p in procs:
        p.start()
    outcomes = [result.get() for _ in range(streams * (2 if both else 1))]
    for p in procs:
        p.join()
    total = sum(n for n, _ in outcomes)
    longest = max(t for _, t in outcomes)
    return total / longest / (2 if both else 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", default="1,2,4")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--chunk", default="4M")
    parser.add_argument("--both", action="store_true")
    args = parser.parse_args()
    chunk = parse_size(args.chunk)
    print(f"# loopback 127.0.0.1, chunk {chunk} B, {args.seconds} s per line,"
          f" {'both directions (rate per direction)' if args.both else 'one direction'}")
    for streams in [int(s) for s in args.streams.split(",")]:
        rate = measure(streams, chunk, args.seconds, args.both)
        print(f"streams {streams}: {rate / 1e9:.2f} GB/s")


if __name__ == "__main__":
    main()
