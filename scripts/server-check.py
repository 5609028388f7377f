#!/usr/bin/env python3
"""Tries the running `serve` example the way hostile and ordinary clients would, and prints
the figures (standard library only; `curl` for the HTTP/2 check).

    cargo build --release -p ag-ui-server --example serve
    python3 scripts/server-check.py target/release/examples/serve

Starts the server itself with `--header-timeout-ms 5000 --write-timeout-ms 600000
--cors-origin http://allowed.example` and checks:
  - 100 connections sending their headers at 1 byte/s are closed within the header timeout
    plus 1 s;
  - 15 plain 20 MiB posts (content-length, no `Expect: 100-continue`) receive the 413 JSON;
  - 100 clients that read nothing of a firehose run cost at most 128 KiB each (the server's
    resident memory, after a warm-up batch);
  - `curl --http2-prior-knowledge` streams a run;
  - a CORS preflight from the configured origin is answered, one from another origin is not.
Exits non-zero when a check fails.
"""

import json
import socket
import subprocess
import sys
import threading
import time

HEADER_TIMEOUT_S = 5.0
ALLOWED = "http://allowed.example"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def settled_rss(pid):
    last, steady = rss_kib(pid), 0
    for _ in range(60):
        time.sleep(0.3)
        now = rss_kib(pid)
        steady = steady + 1 if abs(now - last) * 100 <= last else 0
        last = now
        if steady == 3:
            break
    return last


def run_body(run_id, props=None):
    return json.dumps({"threadId": "t", "runId": run_id, "messages": [],
                       "forwardedProps": props or {}}).encode()


def slow_headers(host, port, n=100):
    closed = [None] * n
    start = time.monotonic()

    def trickle(s, head):
        try:
            for b in head:
                s.sendall(bytes([b]))
                time.sleep(1.0)
        except OSError:
            pass

    def one(i):
        s = socket.create_connection((host, port))
        s.settimeout(30)
        head = b"POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-slow: " + b"a" * 60
        threading.Thread(target=trickle, args=(s, head), daemon=True).start()
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
        closed[i] = time.monotonic() - start
        s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return closed


def big_posts(host, port, n=15, size=20 * 1024 * 1024):
    results = []
    body = b" " * size
    for _ in range(n):
        s = socket.create_connection((host, port))
        s.settimeout(30)
        head = (f"POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                f"accept: text/event-stream\r\ncontent-length: {size}\r\n\r\n").encode()
        try:
            s.sendall(head + body)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            status = int(data.split(b" ", 2)[1])
            doc = json.loads(data.split(b"\r\n\r\n", 1)[1])
            results.append((status, doc.get("error")))
        except (OSError, ValueError, IndexError) as e:
            results.append(("failed", repr(e)))
        s.close()
    return results


def stalled_readers(host, port, pid, n=100, warm=20):
    body = run_body("r", {"scenario": "firehose", "events": 1000000, "bytes": 1000})
    request = (f"POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
               f"accept: text/event-stream\r\ncontent-length: {len(body)}\r\n\r\n").encode() + body

    def open_(k):
        socks = []
        for _ in range(k):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
            s.connect((host, port))
            s.sendall(request)
            socks.append(s)
        for s in socks:
            s.settimeout(30)
            assert s.recv(512).startswith(b"HTTP/1.1 200")
        return socks

    warm_socks = open_(warm)
    before = settled_rss(pid)
    socks = open_(n)
    after = settled_rss(pid)
    for s in warm_socks + socks:
        s.close()
    return before, after, (after - before) / n


def h2_prior_knowledge(host, port):
    out = subprocess.run(
        ["curl", "-sN", "--http2-prior-knowledge", "-H", "content-type: application/json",
         "-H", "accept: text/event-stream", "--data-binary", run_body("h2").decode(),
         "-w", "\n%{http_version}", f"http://{host}:{port}/"],
        capture_output=True, text=True, timeout=30)
    lines = out.stdout.strip().splitlines()
    events = [json.loads(l[5:].strip())["type"] for l in lines if l.startswith("data:")]
    return lines[-1] if lines else "", events


def preflight(host, port, origin):
    s = socket.create_connection((host, port))
    s.settimeout(10)
    s.sendall((f"OPTIONS / HTTP/1.1\r\nhost: x\r\norigin: {origin}\r\n"
               "access-control-request-method: POST\r\n"
               "access-control-request-headers: content-type\r\nconnection: close\r\n\r\n").encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head = data.split(b"\r\n\r\n", 1)[0].decode().lower()
    status = int(head.split(" ", 2)[1])
    allow = [l.split(":", 1)[1].strip() for l in head.splitlines()
             if l.startswith("access-control-allow-origin:")]
    return status, allow


def main():
    binary = sys.argv[1]
    server = subprocess.Popen(
        [binary, "127.0.0.1:0", "--header-timeout-ms", str(int(HEADER_TIMEOUT_S * 1000)),
         # The stalled readers are measured, not closed: a write timeout beyond the check.
         "--write-timeout-ms", "600000",
         "--cors-origin", ALLOWED], stdout=subprocess.PIPE, text=True)
    host, port = server.stdout.readline().strip().rsplit(":", 1)
    port = int(port)
    ok = True
    try:
        closed = slow_headers(host, port)
        worst = max(closed)
        good = worst <= HEADER_TIMEOUT_S + 1.0
        ok &= good
        print(f"slow headers: 100 connections closed after {min(closed):.2f}..{worst:.2f} s "
              f"(header timeout {HEADER_TIMEOUT_S:.0f} s) {'ok' if good else 'FAILED'}")

        posts = big_posts(host, port)
        got = sum(1 for r in posts if r == (413, "body_too_large"))
        ok &= got == len(posts)
        print(f"20 MiB posts: {got}/{len(posts)} received the 413 JSON"
              f"{'' if got == len(posts) else ' FAILED: ' + repr(posts)}")

        before, after, each = stalled_readers(host, port, server.pid)
        good = each <= 128
        ok &= good
        print(f"stalled readers: 100 clients, {before} -> {after} KiB resident, {each:.0f} KiB "
              f"each {'ok' if good else 'FAILED'}")

        version, events = h2_prior_knowledge(host, port)
        good = version == "2" and events[:1] == ["RUN_STARTED"] and events[-1:] == ["RUN_FINISHED"]
        ok &= good
        print(f"curl --http2-prior-knowledge: HTTP/{version}, {len(events)} events, last "
              f"{events[-1] if events else None} {'ok' if good else 'FAILED'}")

        status, allow = preflight(host, port, ALLOWED)
        other_status, other_allow = preflight(host, port, "http://other.example")
        good = allow == [ALLOWED] and other_allow == []
        ok &= good
        print(f"CORS preflight: {ALLOWED} -> {status} allow-origin {allow}; "
              f"http://other.example -> {other_status} allow-origin {other_allow} "
              f"{'ok' if good else 'FAILED'}")
    finally:
        server.kill()
        server.wait()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
