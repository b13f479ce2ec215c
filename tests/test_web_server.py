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
from web.server import make_server, server_options

CAP = 30


@pytest.fixture
def served() -> Iterator[tuple[TableLoop, Any, str]]:
    loop = TableLoop()
    app = create_app(loop, pin="1357", max_spectators=CAP, keepalive=0.5)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    yield loop, app, f"127.0.0.1:{server.effective_port}"
    app.extensions["mus_table"]["hub"].stop()
    server.close()


def open_stream(addr: str) -> socket.socket:
    host, port = addr.split(":")
    s = socket.create_connection((host, int(port)), timeout=10)
    s.sendall(f"GET /api/events HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode())
    return s


def read_until(s: socket.socket, marker: bytes) -> bytes:
    got = b""
    while marker not in got:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def test_the_pool_is_sized_from_the_cap(served: Any) -> None:
    _, app, _ = served
    opts = server_options(app)
    assert opts["threads"] > CAP and opts["connection_limit"] > opts["threads"]


def test_a_full_house_of_spectators_and_the_table_still_answers(served: Any) -> None:
    loop, _, addr = served
    streams = [open_stream(addr) for _ in range(CAP)]
    try:
        for s in streams:
            assert b"event: state" in read_until(s, b"event: state")
        extra = open_stream(addr)
        assert b"event: full" in read_until(extra, b"event: full")
        extra.close()
        req = urllib.request.Request(f"http://{addr}/api/command",
                                     json.dumps({"kind": "say", "seat": 0, "word": "paso"}).encode(),
                                     {"Content-Type": "application/json", "X-Table-PIN": "1357"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["state"]["bets"]["speaker"] == 1
        seq = loop.bus.last_seq
        for s in streams:
            assert f"id: {seq}\nevent: bet".encode() in read_until(s, b"event: bet")
    finally:
        for s in streams:
            s.close()
