"""`ringlab lab` under slow and hostile clients, over real sockets (standard library only).

Usage: lab_server_test.py RINGLAB_BINARY. Each check is one function; the script exits non-zero
on the first failure, naming it. The only time bound is the server's own stated request deadline
(10 s, apps/lab/intake.hpp): a normal request must be answered within it while slow clients hold
connections open.
"""
import json
import re
import socket
import subprocess
import sys
import threading
import time

REQUEST_DEADLINE_S = 10  # kRequestDeadline


def start_lab(binary, *args):
    proc = subprocess.Popen([binary, "lab", "--port", "0", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"http://(\[[^\]]+\]|[^:/]+):(\d+)/", line)
    assert match, f"no URL in {line!r}: {proc.stderr.read()}"
    host = match.group(1).strip("[]")
    return proc, host, int(match.group(2))


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
        status, _, body = exchange(host, port, b"GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n",
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
    status, _, body = exchange(host, port, b"POST /api/record?name=x HTTP/1.1\r\nHost: x\r\n\r\n",
                               timeout=4)
    assert status == 200 and json.loads(body)["valid"] is False, body[:200]


def check_nul_in_a_parameter_is_refused(host, port):
    error = expect_json_error(host, port, b"GET /api/orbit?m=8%00junk&a=1 HTTP/1.1\r\n\r\n", 400)
    assert "control characters" in error and "\\x00junk" in error, error


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
                      check_nul_in_a_parameter_is_refused, check_slow_clients_do_not_stall_others):
            check(host, port)
            print(f"ok {check.__name__}")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    check_host_is_validated(binary)
    print("ok check_host_is_validated")


if __name__ == "__main__":
    main()
