"""The production server: waitress, with a lane for the table that spectators cannot block.

waitress reads and writes every connection in one event loop (no thread per
socket: a slow-loris socket or a held event stream costs a file descriptor,
not a worker) and runs each complete request in a worker thread. What it
lacks for a table on a club's Wi-Fi is added here, on its own hooks:

- **Lanes.** Each complete request goes to the worker pool of its lane
  (:class:`Lanes`): the *table* (the kiosk on loopback, and any request of a
  session unlocked with the PIN), *streams* (``/api/events`` and
  ``/stream.mjpg``, which hold their worker while they are watched: the
  spectator cap plus a reserve for the unlocked displays), and the *public*
  (every other page and API call). Spectators' streams and attackers' requests
  queue in their own pools; the kiosk's and the players' never wait behind them.
- **No global connection ceiling that closes the door.** The loop polls
  (``poll``, not ``select``: more than 1024 sockets), the connection limit is
  the process's file limit (raised to its hard limit), and each client address
  holds at most ``per_address`` connections (the kiosk's loopback is not
  counted), so one attacker cannot fill the table's sockets: the newcomer over
  its address's share is answered 429 in one Spanish line and closed.
- **A request must arrive in ``request_timeout_s``** from its first byte
  (headers and body): a slow-loris socket is closed instead of held forever.
- **Bodies are refused before they are read**: each route's limit
  (``web.body.body_limit``) is checked against ``Content-Length`` as soon as
  the headers are in, and against a chunked body as it grows; the answer is
  413 in one Spanish line, and the connection is closed without reading on.

waitress writes each chunk at once (``send_bytes`` 1), so events are not held
in a buffer. See docs/decisions-web.md for the measures.
"""

from __future__ import annotations

import copy
import json
import logging
import resource
import select
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from flask import Flask
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher
from waitress.utilities import RequestEntityTooLarge, RequestHeaderFieldsTooLarge

from web.body import UPLOAD_ROUTES, body_limit
from web.security import client_key, is_kiosk
from web.strings import ES

log = logging.getLogger("mus_table.web")

THREAD_STACK = 512 * 1024
"""Stack size of the server's threads (Python's frames live on the heap; 512 KiB is ample)."""
STREAM_PATHS = frozenset({"/api/events", "/stream.mjpg"})


class Lane(StrEnum):
    TABLE = "table"
    STREAMS = "streams"
    PUBLIC = "public"


@dataclass(frozen=True)
class ServerSettings:
    """The server's tuning (the spectator cap is the app's: ``create_app(max_spectators=...)``)."""

    table_threads: int = 8
    """Workers for the kiosk and unlocked sessions' requests (their streams go to the streams lane)."""
    public_threads: int = 12
    """Workers for everyone else's pages and API calls."""
    stream_reserve: int = 24
    """Stream workers beyond the spectator cap: unlocked displays and the camera's 8 streams."""
    per_address: int = 24
    """Connections one client address may hold at once (a browser opens 6 per site)."""
    request_timeout_s: float = 10.0
    """From a request's first byte to its last (headers and body)."""
    idle_timeout_s: float = 60.0
    """A connection with no request in progress and no traffic for this long is closed."""
    fd_margin: int = 256
    """File descriptors kept for the journal, the camera, temporary files."""
    max_header_bytes: int = 16 * 1024
    loop_rest_max_s: float = 0.02
    """The event loop rests as long as its last round worked, up to this: waitress looks at every
    connection each round (Python, a few us a socket), so with a thousand busy sockets an unpaced
    loop would hold the GIL all the time and starve the workers; resting, it holds it at most
    half the time and batches what arrived. With few sockets the rest is a few microseconds."""
    accept_batch: int = 64
    """Connections accepted in one round (a flood must not fill the listen backlog ahead of the kiosk)."""


SETTINGS = ServerSettings()


def _json_error(status: str, code: str) -> tuple[str, list[tuple[str, str]], bytes]:
    body = json.dumps({"error": ES[code], "code": code}, ensure_ascii=False).encode()
    return status, [("Content-Type", "application/json; charset=utf-8")], body


class TooLarge(RequestEntityTooLarge):
    """A body over its route's limit (answered before it is read)."""

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        return _json_error("413 Request Entity Too Large", "too_large")


class HeadersTooLarge(RequestHeaderFieldsTooLarge):
    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        return _json_error("431 Request Header Fields Too Large", "headers_too_large")


class RouteParser(HTTPRequestParser):  # type: ignore[misc]
    """waitress's parser, with the body limit of the request's own route (from ``web.body``)."""

    table_session: Callable[[str | None], bool] = staticmethod(lambda cookie: False)
    """Whether a ``Cookie`` header holds an unlocked session (only it may upload a release)."""

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        path = self.path or "/"
        table = path in UPLOAD_ROUTES and self.table_session(self.headers.get("COOKIE"))
        limit = body_limit(self.command or "GET", path, table=table)
        adj = copy.copy(self.adj)
        adj.max_request_body_size = limit + 1  # waitress refuses from max_request_body_size on
        self.adj = adj

    def received(self, data: bytes) -> int:
        n: int = super().received(data)
        e = self.error
        if isinstance(e, RequestEntityTooLarge) and not isinstance(e, TooLarge):
            self.error = TooLarge(e.body)
            log.info("body over the limit refused: %s %s", self.command, self.path)
        elif isinstance(e, RequestHeaderFieldsTooLarge) and not isinstance(e, HeadersTooLarge):
            self.error = HeadersTooLarge(e.body)
        return n


class TableChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that remembers when its request began and tells its server when it closes."""

    parser_class = RouteParser
    request_started = 0.0
    _counted = False

    def received(self, data: bytes) -> bool:
        if self.request is None and data:
            self.request_started = time.time()
            self.request = self.parser_class(self.adj)
            self.request.table_session = self.server.table_session
        return bool(super().received(data))

    def del_channel(self, map: Any = None) -> None:
        if self._counted:
            self._counted = False
            self.server.left(self.addr)
        super().del_channel(map)


class Lanes:
    """A waitress task dispatcher made of one pool per :class:`Lane`; ``choose`` routes each request."""

    def __init__(self, sizes: dict[Lane, int], choose: Callable[[Any], Lane]) -> None:
        self.pools: dict[Lane, ThreadedTaskDispatcher] = {}
        self.choose = choose
        old = threading.stack_size(THREAD_STACK)  # only for the pools' threads, made here
        try:
            for lane, n in sizes.items():
                pool = ThreadedTaskDispatcher()
                pool.set_thread_count(n)
                self.pools[lane] = pool
        finally:
            threading.stack_size(old)

    def add_task(self, channel: Any) -> None:
        try:
            lane = self.choose(channel)
        except Exception:  # a lane is a matter of speed, never of a lost request
            log.warning("could not choose a lane; public", exc_info=False)
            lane = Lane.PUBLIC
        self.pools[lane].add_task(channel)

    def set_thread_count(self, count: int) -> None:
        """The pools are sized at creation (waitress calls this only when it made the dispatcher)."""

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        return all([p.shutdown(cancel_pending, timeout) for p in self.pools.values()])


def _over_share(lang: dict[str, str]) -> bytes:
    body = json.dumps({"error": lang["too_many_connections"], "code": "too_many_connections"},
                      ensure_ascii=False).encode()
    return (b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\n"
            b"Connection: close\r\nRetry-After: 30\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)


class TableServer(TcpWSGIServer):  # type: ignore[misc]
    """waitress's TCP server with a share of connections per address and a request deadline."""

    channel_class = TableChannel

    def __init__(self, *args: Any, settings: ServerSettings = SETTINGS,
                 table_session: Callable[[str | None], bool] = lambda cookie: False, **kw: Any) -> None:
        self.settings = settings
        self.table_session = table_session
        self.per_address: Counter[str] = Counter()
        self.refused_connections = 0
        self._over_share = _over_share(ES)
        super().__init__(*args, **kw)

    def readable(self) -> bool:
        # waitress stops accepting everyone at the connection limit; we keep accepting, so that
        # the kiosk always gets in, and close a newcomer from elsewhere in handle_accept.
        now = time.time()
        if now >= self.next_channel_cleanup:
            self.next_channel_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        return bool(self.accepting)

    def handle_accept(self) -> None:
        for _ in range(self.settings.accept_batch):
            if not self._accept_one():
                return

    def _accept_one(self) -> bool:
        """Accept one waiting connection (False: none was waiting)."""
        try:
            v = self.accept()
            if v is None:
                return False
            conn, addr = v
            self.set_socket_options(conn)
        except OSError:
            return True
        host = addr[0] if isinstance(addr, tuple) else str(addr)
        key = client_key(host)  # an IPv6 client counts by its /64
        full = len(self._map) >= self.adj.connection_limit
        if not is_kiosk(host) and (full or self.per_address[key] >= self.settings.per_address):
            self.refused_connections += 1
            try:
                conn.setblocking(False)
                conn.send(self._over_share)
            except OSError:
                pass
            conn.close()
            return True
        channel = self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)
        if not is_kiosk(host):
            self.per_address[key] += 1
            channel._counted = True
        return True

    def run(self) -> None:
        """waitress's poll loop (``wasyncore.poll2``), resting after each round as long as the round
        worked, up to ``loop_rest_max_s`` (see :class:`ServerSettings`)."""
        most = self.settings.loop_rest_max_s
        timeout = int(self.adj.asyncore_loop_timeout * 1000)
        try:
            while self._map:
                t0 = time.monotonic()
                pollster = select.poll()
                for fd, obj in list(self._map.items()):
                    flags = select.POLLIN | select.POLLPRI if obj.readable() else 0
                    if obj.writable() and not obj.accepting:
                        flags |= select.POLLOUT
                    if flags:
                        pollster.register(fd, flags)
                t1 = time.monotonic()
                try:
                    ready = pollster.poll(timeout)
                except InterruptedError:
                    ready = []
                t2 = time.monotonic()
                for fd, flags in ready:
                    obj = self._map.get(fd)
                    if obj is not None:
                        wasyncore.readwrite(obj, flags)
                worked = (t1 - t0) + (time.monotonic() - t2)
                if worked > 0.001:
                    time.sleep(min(most, worked))
        except (SystemExit, KeyboardInterrupt):
            self.task_dispatcher.shutdown()

    def left(self, addr: Any) -> None:
        key = client_key(addr[0] if isinstance(addr, tuple) else str(addr))
        self.per_address[key] -= 1
        if self.per_address[key] <= 0:
            del self.per_address[key]

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # idle connections (channel_timeout)
        cutoff = now - self.settings.request_timeout_s
        for channel in list(self.active_channels.values()):
            r = channel.request
            if r is not None and not r.completed and not channel.requests \
                    and channel.request_started < cutoff:
                channel.will_close = True  # a request that does not finish arriving


def file_limit() -> int:
    """Raise this process's open-file limit to its hard limit; the soft limit it now has."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        want = 65536 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return soft


def server_options(app: Flask, settings: ServerSettings = SETTINGS) -> dict[str, Any]:
    """The waitress options for ``app`` (the connection limit from the file limit).

    >>> from types import SimpleNamespace
    >>> app = SimpleNamespace(extensions={"mus_table": {"hub": SimpleNamespace(cap=200)}})
    >>> opts = server_options(app)
    >>> opts["asyncore_use_poll"], opts["connection_limit"] > 1000, opts["max_request_body_size"]
    (True, True, 65537)
    """
    fds = file_limit()
    return {
        "threads": 1,  # unused: the lanes' pools do the work
        "connection_limit": max(64, fds - settings.fd_margin),
        "asyncore_use_poll": True,
        "channel_timeout": settings.idle_timeout_s,
        "cleanup_interval": 1,
        "max_request_body_size": body_limit("POST", "/any") + 1,
        "max_request_header_size": settings.max_header_bytes,
        "backlog": 1024,
        "ident": "mus-table",
        "clear_untrusted_proxy_headers": True,
    }


def lane_sizes(app: Flask, settings: ServerSettings = SETTINGS) -> dict[Lane, int]:
    cap = int(app.extensions["mus_table"]["hub"].cap)
    return {Lane.TABLE: settings.table_threads, Lane.STREAMS: cap + settings.stream_reserve,
            Lane.PUBLIC: settings.public_threads}


def chooser(app: Flask) -> Callable[[Any], Lane]:
    """Which lane a channel's next request goes to (its address, path and session cookie)."""
    is_table_session: Callable[[str | None], bool] = app.extensions["mus_table"]["table_session"]

    def choose(channel: Any) -> Lane:
        request = channel.requests[0]
        if request.path in STREAM_PATHS and request.error is None:
            return Lane.STREAMS
        addr = channel.addr
        if is_kiosk(addr[0] if isinstance(addr, tuple) else None):
            return Lane.TABLE
        if request.error is None and is_table_session(request.headers.get("COOKIE")):
            return Lane.TABLE
        return Lane.PUBLIC

    return choose


class QuietQueueLog(logging.Filter):
    """waitress logs «Task queue depth is N» for every request that waits for a thread: under a
    flood that is a line a request, enough to fill the SD card. Each message is let through once
    every ``every_s`` seconds, saying how many like it were kept quiet.

    >>> now = [0.0]
    >>> f = QuietQueueLog(every_s=10, clock=lambda: now[0])
    >>> rec = lambda: logging.LogRecord("waitress.queue", 30, "", 0, "Task queue depth is %d", (3,), None)
    >>> f.filter(rec()), f.filter(rec()), f.filter(rec())
    (True, False, False)
    >>> now[0] = 11.0; r = rec(); f.filter(r), r.getMessage()
    (True, 'Task queue depth is 3 (and 2 more like it)')
    """

    def __init__(self, every_s: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._every = every_s
        self._clock = clock
        self._last: dict[str, float] = {}
        self._quiet: Counter[str] = Counter()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)
        with self._lock:
            now = self._clock()
            last = self._last.get(key)
            if last is not None and now - last < self._every:
                self._quiet[key] += 1
                return False
            self._last[key] = now
            quiet = self._quiet.pop(key, 0)
        if quiet:
            record.msg = f"{record.msg} (and {quiet} more like it)"
        return True


def _quiet_waitress_queue() -> None:
    logger = logging.getLogger("waitress.queue")
    if not any(isinstance(f, QuietQueueLog) for f in logger.filters):
        logger.addFilter(QuietQueueLog())


def make_server(app: Flask, host: str = "0.0.0.0", port: int = 8000,
                settings: ServerSettings = SETTINGS) -> Any:
    """A waitress server for ``app``, not yet running (``.run()`` blocks; ``.close()`` stops)."""
    from waitress.adjustments import Adjustments  # noqa: PLC0415

    _quiet_waitress_queue()
    adj = Adjustments(host=host, port=port, **server_options(app, settings))
    lanes = Lanes(lane_sizes(app, settings), chooser(app))
    return TableServer(app, {}, True, None, dispatcher=lanes, adj=adj, settings=settings,
                       table_session=app.extensions["mus_table"]["table_session"])


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8000) -> None:
    """Serve ``app`` until interrupted (``mus-table run`` and ``mus-table demo`` call this)."""
    server = make_server(app, host, port)
    try:
        server.run()
    finally:
        app.extensions["mus_table"]["hub"].stop()
        server.task_dispatcher.shutdown()
        server.close()


__all__ = ["Lane", "Lanes", "QuietQueueLog", "ServerSettings", "TableServer", "make_server", "serve",
           "server_options"]
