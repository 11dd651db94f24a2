"""`ringlab lab` under slow and hostile clients, over real sockets (standard library only).

Usage: lab_server_test.py RINGLAB_BINARY. Each check is one function; the script exits non-zero
on the first failure, naming it. The only time bounds are the server's own stated deadlines
(10 s, apps/lab/intake.hpp): a normal request must be answered within them while slow clients hold
connections open.
"""
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

REQUEST_DEADLINE_S = 10  # kRequestDeadline
RESPONSE_DEADLINE_S = 10  # kResponseDeadline: to send an answer once made
MAX_CONNECTIONS_READING = 128  # kMaxConnectionsReading
# docs/reliability.md's bounds on one upload: what the lab may take above its fresh size while it
# reads the largest file it accepts, and what it may keep after.
UPLOAD_PEAK_LIMIT_MB = 256
UPLOAD_KEPT_LIMIT_MB = 64


def start_lab(binary, *args):
    proc = subprocess.Popen([binary, "lab", "--port", "0", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"http://(\[[^\]]+\]|[^:/]+):(\d+)/", line)
    assert match, f"no URL in {line!r}: {proc.stderr.read()}"
    host = match.group(1).strip("[]")
    return proc, host, int(match.group(2))


def host_header(host, port):
    """The Host header a browser sends for the lab's URL."""
    name = f"[{host}]" if ":" in host else host
    return f"Host: {name}:{port}\r\n".encode()


def exchange(host, port, raw, timeout=REQUEST_DEADLINE_S):
    """Sends raw bytes, returns (status, headers, body) of the answer read to the close."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(raw)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    return status, headers, body


def expect_json_error(host, port, raw, status, allow=None):
    got, headers, body = exchange(host, port, raw)
    assert got == status, f"{raw[:60]!r}: status {got}, expected {status}: {body[:200]!r}"
    assert headers.get("content-type", "").startswith("application/json"), (raw[:60], headers)
    error = json.loads(body)["error"]
    assert error and "\0" not in error, error
    if allow is not None:
        assert headers.get("allow") == allow, (raw[:60], headers)
    return error


def check_slow_clients_do_not_stall_others(host, port):
    # Eight (and more: 12) connections that send one header line every two seconds.
    stop = threading.Event()
    closed_by_server = []

    def slow():
        s = socket.create_connection((host, port))
        s.settimeout(0.5)
        s.sendall(b"GET /api/info HTTP/1.1\r\n")
        try:
            while not stop.is_set():
                s.sendall(b"X-Slow: 1\r\n")
                try:
                    s.recv(4096)  # an answer (408) or the close: the server cut it off
                    closed_by_server.append(True)
                    return
                except socket.timeout:
                    pass
                stop.wait(1.5)
        except OSError:
            closed_by_server.append(True)
        finally:
            s.close()

    threads = [threading.Thread(target=slow, daemon=True) for _ in range(12)]
    for t in threads:
        t.start()
    time.sleep(2.5)  # every slow client has sent two lines
    for _ in range(3):
        status, _, body = exchange(host, port,
                                   b"GET /api/info HTTP/1.1\r\n" + host_header(host, port) + b"\r\n",
                                   timeout=REQUEST_DEADLINE_S)
        assert status == 200 and json.loads(body)["limits"], body[:200]
    # The slow ones are cut off at the stated deadline (with a margin for a loaded machine).
    for t in threads:
        t.join(timeout=REQUEST_DEADLINE_S + 10)
    stop.set()
    assert len(closed_by_server) == 12, f"{len(closed_by_server)} of 12 slow clients cut off"


def check_every_api_error_is_json(host, port):
    expect_json_error(host, port, b"GET /api/nope HTTP/1.1\r\n\r\n", 404)
    e = expect_json_error(host, port, b"DELETE /api/info HTTP/1.1\r\n\r\n", 405, "GET, HEAD")
    assert "no such path" not in e, e
    expect_json_error(host, port, b"OPTIONS /api/schedule HTTP/1.1\r\n\r\n", 405, "GET, HEAD")
    expect_json_error(host, port, b"GET /api/record HTTP/1.1\r\n\r\n", 405, "POST")
    expect_json_error(host, port, b"BREW /api/info HTTP/1.1\r\n\r\n", 405, "GET, HEAD")
    expect_json_error(host, port, b"GET /api/" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", 414)
    many = b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(300))
    expect_json_error(host, port, b"GET /api/info HTTP/1.1\r\n" + many + b"\r\n", 431)
    expect_json_error(host, port,
                      b"POST /api/record?name=x HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n",
                      413)
    expect_json_error(host, port, b"GET /api/orbit HTTP/1.1 extra\r\n\r\n", 400)


def check_post_without_body_is_answered(host, port):
    # No Content-Length: no body. Answered without waiting for more (the connection stays open
    # on the client's side, so an answer can only come from the server deciding there is none).
    status, _, body = exchange(host, port, b"POST /api/record?name=x HTTP/1.1\r\n" +
                               host_header(host, port) + b"\r\n", timeout=4)
    assert status == 200 and json.loads(body)["valid"] is False, body[:200]


def check_nul_in_a_parameter_is_refused(host, port):
    error = expect_json_error(host, port, b"GET /api/orbit?m=8%00junk&a=1 HTTP/1.1\r\n\r\n", 400)
    assert "control characters" in error and "\\x00junk" in error, error


def record_log(sizes, pad_lines=0):
    """An nccl-tests all_reduce_perf log of `sizes` rows (p = 16), after `pad_lines` comment lines."""
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    with open(os.path.join(data, "nccl_all_reduce_perf_16ranks.log")) as f:
        head = [line for line in f.read().splitlines() if line.startswith("#")][:22]
    lines = head + ["# " + "padding " * 30] * pad_lines
    for i in range(1, sizes + 1):
        size, us = 1024 * i, 100.0 + i * 0.01
        algbw = size / us / 1e3
        busbw = algbw * 30 / 16
        lines.append(f"{size:12d} {size // 4:12d} float sum -1 {us:8.2f} {algbw:6.2f} {busbw:6.2f} 0 "
                     f"{us:8.2f} {algbw:6.2f} {busbw:6.2f} 0")
    return ("\n".join(lines) + "\n").encode()


def post_record(host, port, body, name=b"big.log", extra=b""):
    return (b"POST /api/record?name=" + name + b" HTTP/1.1\r\n" + host_header(host, port) + extra +
            b"Content-Length: %d\r\n\r\n" % len(body) + body)


def check_host_and_origin(host, port):
    # DNS rebinding: another site's name, resolving here, is not the lab's address; nor another port.
    for bad in [b"evil.example:%d" % port, b"127.0.0.1.evil.example:%d" % port,
                b"127.0.0.1:%d" % (port + 1), b"localhost", b"[::2]:%d" % port]:
        error = expect_json_error(host, port, b"GET /api/info HTTP/1.1\r\nHost: " + bad + b"\r\n\r\n",
                                  421)
        assert "Host" in error, error
    for good in [b"127.0.0.1:%d", b"localhost:%d", b"LocalHost:%d", b"[::1]:%d"]:
        raw = b"GET /api/info HTTP/1.1\r\nHost: " + good % port + b"\r\n\r\n"
        assert exchange(host, port, raw)[0] == 200, raw
    # Another site's page posting to the lab: its origin is not the lab's own.
    for origin in [b"http://evil.example", b"null", b"http://127.0.0.1:%d" % (port + 1),
                   b"https://127.0.0.1:%d" % port]:
        raw = post_record(host, port, b"{}", b"x", b"Origin: " + origin + b"\r\n")
        expect_json_error(host, port, raw, 403)
    own = post_record(host, port, b"{}", b"x", b"Origin: http://127.0.0.1:%d\r\n" % port)
    status, _, body = exchange(host, port, own)
    assert status == 200 and json.loads(body)["valid"] is False, body[:200]


def check_odd_request_lines_get_json(host, port):
    expect_json_error(host, port, b"GET /api/info HTTP/1.9\r\n\r\n", 505)
    expect_json_error(host, port, b"GET /api/info HTTP/2.0\r\n\r\n", 505)
    # Bare LF line ends (RFC 9112 lets a server take them), from the request line to the head's end.
    bare = b"GET /api/orbit?m=8&a=3 HTTP/1.1\n" + host_header(host, port).replace(b"\r\n", b"\n")
    status, headers, body = exchange(host, port, bare + b"\n")
    assert status == 200 and json.loads(body)["period"] == 8, body[:200]
    expect_json_error(host, port, b"GET /api/nope HTTP/1.1\n\n", 404)
    expect_json_error(host, port, b"GET /api/orbit?m=8&a=x HTTP/1.1\nHost: 127.0.0.1\n\n", 421)
    for raw in [b"GET /api/orbit?m=8&a=1 HTTP/1.1\r\nX-Fold: a\r\n b\r\n\r\n",
                b"GET /api/orbit?m=8&a=1 HTTP/1.1\r\nNo colon\r\n\r\n",
                b"GET /api/orbit?m=8&a=1 HTTP/1.1\r\nX: \x00\x01\xff\r\n\r\n",
                b"GET /api/orbit?m=8&a=1 HTTP/1.1\r\r\n\r\n",
                b"GET /api/orbit?m=8&a=%zz HTTP/1.1\r\n\r\n"]:
        _, headers, _ = exchange(host, port, raw)
        assert headers.get("content-type", "").startswith("application/json"), (raw, headers)


def check_clients_that_do_not_read_do_not_stall_others(host, port):
    # Eight clients post a record whose answer (1000 sizes, about 550 KB) far exceeds what the
    # kernel takes for them unread, and never read it; the lab's workers must not wait on them.
    # A small receive buffer alone is not enough: on loopback the lab's send buffer grows to 4 MB
    # and takes about 3 MB unread, so a worker's blocking write returned at once and the check
    # passed on a lab whose workers wrote answers themselves. A small segment size (536 bytes)
    # keeps the lab's send buffer small (about 180 KB taken unread).
    request = post_record(host, port, record_log(1000))
    stuck = []
    for _ in range(8):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
        s.connect((host, port))
        s.sendall(request)
        stuck.append(s)
    time.sleep(1)  # every answer made, and stuck in its socket
    for _ in range(3):
        status, _, body = exchange(host, port,
                                   b"GET /api/info HTTP/1.1\r\n" + host_header(host, port) + b"\r\n",
                                   timeout=RESPONSE_DEADLINE_S / 2)
        assert status == 200 and json.loads(body)["limits"], body[:200]
    # Each is cut off at the stated deadline (with a margin for a loaded machine).
    for s in stuck:
        s.settimeout(RESPONSE_DEADLINE_S + 10)
        try:
            while s.recv(65536):
                pass
        except ConnectionResetError:
            pass
        s.close()


def check_connections_past_the_limit_get_503(host, port):
    held = []
    for _ in range(MAX_CONNECTIONS_READING):
        s = socket.create_connection((host, port))
        s.sendall(b"GET /api/info HTTP/1.1\r\n")  # and no more: each holds a place
        held.append(s)
    time.sleep(0.5)  # every one accepted
    try:
        for _ in range(16):
            # A request the lab does not read, still arriving when it answers: a close on it unread
            # would reset the connection, and the client's sending would fail. 1 MiB, since the
            # kernel's buffers on loopback take a 256 KiB body whole before the lab closes, and
            # then the answer is read before the reset (15 of 16 times on a lab that closed unread).
            raw = post_record(host, port, b"#" * (1 << 20))
            try:
                error = expect_json_error(host, port, raw, 503)
            except (ConnectionResetError, BrokenPipeError):
                raise AssertionError("a client past the connection limit was reset, not answered 503")
            assert "busy" in error, error
    finally:
        for s in held:
            s.close()


def check_upload_memory_is_bounded(binary):
    """A fresh lab's memory (VmRSS, VmHWM in /proc) around the uploads of the largest files."""
    proc, host, port = start_lab(binary)
    try:
        def memory_mb():
            with open(f"/proc/{proc.pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f)
            return {k: int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM")}

        fresh = memory_mb()["VmRSS"]
        # The size of the upload that took a lab to 1.72 GB: 140,000 sizes in 16.7 MB; then the
        # largest log the lab reads, 4096 sizes after comment lines up to kMaxRecordLines.
        for body in [record_log(140_000), record_log(4096, pad_lines=65536 - 4096 - 30)]:
            assert len(body) <= 16 << 20, len(body)
            status, _, answer = exchange(host, port, post_record(host, port, body), timeout=60)
            assert status == 200, answer[:200]
        after = memory_mb()
        print(f"lab memory: fresh {fresh} MB, peak {after['VmHWM']} MB, after {after['VmRSS']} MB")
        assert after["VmHWM"] - fresh < UPLOAD_PEAK_LIMIT_MB, after
        assert after["VmRSS"] - fresh < UPLOAD_KEPT_LIMIT_MB, after
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def check_host_is_validated(binary):
    for bad in ["", "a b", "x/y"]:
        r = subprocess.run([binary, "lab", "--port", "0", "--host", bad], capture_output=True,
                           text=True, timeout=10)
        assert r.returncode == 2, (bad, r.returncode, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "--host" in lines[0], (bad, r.stderr)
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        print("lab_server_test: no IPv6 loopback here; the [::1] URL check is skipped")
        return
    for given in ["::1", "[::1]"]:
        proc, host, port = start_lab(binary, "--host", given)
        try:
            status, _, _ = exchange(host, port, b"GET /api/info HTTP/1.1\r\n\r\n")
            assert host == "::1" and status == 200, (host, status)
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def main():
    binary = sys.argv[1]
    proc, host, port = start_lab(binary)
    try:
        for check in (check_every_api_error_is_json, check_post_without_body_is_answered,
                      check_nul_in_a_parameter_is_refused, check_host_and_origin,
                      check_odd_request_lines_get_json, check_connections_past_the_limit_get_503,
                      check_clients_that_do_not_read_do_not_stall_others,
                      check_slow_clients_do_not_stall_others):
            check(host, port)
            print(f"ok {check.__name__}")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    for check in (check_upload_memory_is_bounded, check_host_is_validated):
        check(binary)
        print(f"ok {check.__name__}")


if __name__ == "__main__":
    main()
