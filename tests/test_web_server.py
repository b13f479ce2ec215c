"""The production server: every open event stream has its thread, and the table still answers."""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from firmware.table_loop import TableLoop
from web.app import create_app
from web.server import Lane, ServerSettings, lane_sizes, make_server, server_options
from web.strings import ES

CAP = 30
SETTINGS = ServerSettings(per_address=8, request_timeout_s=0.5)


@pytest.fixture
def served() -> Iterator[tuple[TableLoop, Any, str]]:
    loop = TableLoop()
    app = create_app(loop, pin="135790", max_spectators=CAP, keepalive=0.5)
    server = make_server(app, "127.0.0.1", 0, settings=SETTINGS)
    threading.Thread(target=server.run, daemon=True).start()
    yield loop, app, f"127.0.0.1:{server.effective_port}"
    app.extensions["mus_table"]["hub"].stop()
    server.close()


def connect(addr: str, source: str = "127.0.0.1") -> socket.socket:
    """A connection to the served table from ``source`` (any 127.x is this machine; 127.0.0.1 is the kiosk)."""
    host, port = addr.split(":")
    return socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0))


def open_stream(addr: str, source: str = "127.0.0.1") -> socket.socket:
    s = connect(addr, source)
    s.sendall(f"GET /api/events HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode())
    return s


def spectator_address(i: int) -> str:
    return f"127.0.1.{2 + i // SETTINGS.per_address}"


def read_until(s: socket.socket, marker: bytes) -> bytes:
    got = b""
    while marker not in got:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def test_the_streams_lane_is_sized_from_the_cap_and_the_table_has_its_own(served: Any) -> None:
    _, app, _ = served
    sizes = lane_sizes(app, SETTINGS)
    assert sizes[Lane.STREAMS] > CAP and sizes[Lane.TABLE] >= 4 and sizes[Lane.PUBLIC] >= 4
    assert server_options(app)["connection_limit"] > 10 * CAP


def test_a_full_house_of_spectators_and_the_table_still_answers(served: Any) -> None:
    loop, _, addr = served
    streams = [open_stream(addr, spectator_address(i)) for i in range(CAP)]
    try:
        for s in streams:
            assert b"event: state" in read_until(s, b"event: state")
        extra = open_stream(addr, spectator_address(CAP))
        assert b"event: full" in read_until(extra, b"event: full")
        extra.close()
        req = urllib.request.Request(f"http://{addr}/api/command",
                                     json.dumps({"kind": "say", "seat": 0, "word": "paso"}).encode(),
                                     {"Content-Type": "application/json", "X-Table-PIN": "135790"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["state"]["bets"]["speaker"] == 1
        seq = loop.bus.last_seq
        for s in streams:
            assert f"id: {seq}\nevent: bet".encode() in read_until(s, b"event: bet")
    finally:
        for s in streams:
            s.close()


def read_all(s: socket.socket) -> bytes:
    got = b""
    while chunk := s.recv(65536):
        got += chunk
    return got


def test_a_body_over_the_limit_is_refused_from_its_content_length_before_it_is_sent(served: Any) -> None:
    loop, _, addr = served
    before = loop.snapshot()
    with connect(addr, "127.0.0.5") as s:
        s.sendall(f"POST /api/command HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n"
                  "X-Table-PIN: 135790\r\nContent-Length: 1000000000\r\n\r\n".encode())
        got = read_all(s)  # not one byte of the body was sent: the answer must come without it
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413")
    assert json.loads(body)["error"] == ES["too_large"]
    assert loop.snapshot() == before


def test_a_chunked_body_is_cut_at_its_routes_limit(served: Any) -> None:
    _, _, addr = served
    with connect(addr, "127.0.0.5") as s:
        s.sendall(f"POST /api/unlock HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n".encode())
        # one chunk past the 1 KiB limit, and nothing after it: the server consumes every byte
        # sent (no unread data, so its close is a clean FIN, never a reset that would lose the answer)
        s.sendall(b"401\r\n" + b" " * 0x401)
        got = read_all(s)
    assert got.startswith(b"HTTP/1.1 413")


def test_a_request_that_never_finishes_arriving_is_closed(served: Any) -> None:
    _, _, addr = served
    with connect(addr, "127.0.0.6") as s:
        s.sendall(f"GET /api/state HTTP/1.1\r\nHost: {addr}\r\nX-a: ".encode())
        assert read_all(s) == b""  # closed by the server (the socket's own timeout bounds the wait)


def test_one_address_holds_its_share_of_connections_and_the_kiosk_still_gets_in(served: Any) -> None:
    _, _, addr = served
    held = [connect(addr, "127.0.0.7") for _ in range(SETTINGS.per_address)]
    try:
        for s in held:  # each really is served (the share counts open connections, not requests)
            s.sendall(f"GET /api/state HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode())
            assert read_until(s, b"}").startswith(b"HTTP/1.1 200")
        with connect(addr, "127.0.0.7") as extra:
            got = read_all(extra)
        assert got.startswith(b"HTTP/1.1 429") and ES["too_many_connections"].encode() in got
        with urllib.request.urlopen(f"http://{addr}/api/state", timeout=10) as r:  # the kiosk
            assert r.status == 200
        with connect(addr, "127.0.0.8") as other:  # and anyone else
            other.sendall(f"GET /api/state HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n".encode())
            assert read_all(other).startswith(b"HTTP/1.1 200")
    finally:
        for s in held:
            s.close()


def test_waitress_queue_warnings_are_said_once_a_while_not_once_a_request(served: Any) -> None:
    import logging

    from web.server import QuietQueueLog

    logger = logging.getLogger("waitress.queue")
    quiet = [f for f in logger.filters if isinstance(f, QuietQueueLog)]
    assert len(quiet) == 1  # installed by the server, once however many servers were made
    said = [logger.filter(logging.LogRecord("waitress.queue", logging.WARNING, "", 0,
                                            "Task queue depth is %d (test)", (n,), None)) for n in range(50)]
    assert sum(1 for s in said if s) == 1  # a LogRecord or True when let through (3.12 / 3.11)
