"""The production server: waitress, sized so that every open event stream has its thread.

waitress answers each request in a worker thread, and a server-sent event
stream holds its worker for as long as the spectator watches; its defaults
(4 threads, 100 connections) would let five phones freeze the table display.
So the pool is the spectator cap plus a reserve for the display, the API and
the camera, and the connection limit is above that. An idle stream costs a
blocked thread (no CPU, a small stack), which a Pi holds by the hundred; the
events are encoded once by :mod:`web.sse`, not once per thread. waitress
writes each chunk at once (``send_bytes`` 1), so events are not buffered.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask

RESERVE_THREADS = 16
"""Threads beyond the spectator cap: the display, API calls and camera streams."""
THREAD_STACK = 512 * 1024
"""Stack size of the server's threads (Python's frames live on the heap; 512 KiB is ample)."""


def server_options(app: Flask) -> dict[str, Any]:
    """The waitress options for ``app`` (threads and connections from its spectator cap).

    >>> from types import SimpleNamespace
    >>> app = SimpleNamespace(extensions={"mus_table": {"hub": SimpleNamespace(cap=200)}})
    >>> server_options(app)["threads"], server_options(app)["connection_limit"]
    (224, 264)
    """
    hub = app.extensions["mus_table"]["hub"]
    cap = int(hub.cap)
    return {
        "threads": cap + RESERVE_THREADS + 8,  # +8: the camera streams' own cap
        "connection_limit": cap + RESERVE_THREADS + 48,
        "channel_timeout": 60,
        "ident": "mus-table",
        "clear_untrusted_proxy_headers": True,
    }


def make_server(app: Flask, host: str = "0.0.0.0", port: int = 8000) -> Any:
    """A waitress server for ``app``, not yet running (``.run()`` blocks; ``.close()`` stops)."""
    from waitress.server import create_server  # noqa: PLC0415

    old = threading.stack_size(THREAD_STACK)  # only for the pool's threads, made here
    try:
        return create_server(app, host=host, port=port, **server_options(app))
    finally:
        threading.stack_size(old)


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8000) -> None:
    """Serve ``app`` until interrupted (``mus-table run`` and ``mus-table demo`` call this)."""
    server = make_server(app, host, port)
    try:
        server.run()
    finally:
        app.extensions["mus_table"]["hub"].stop()
        server.close()
