"""Server-sent events for many spectators: one pump thread, one bounded queue per listener.

The table loop's bus wakes one thread here (the pump), which encodes each
event ONCE and puts the bytes in every listener's queue; a listener that
falls :data:`QUEUE_SIZE` events behind is dropped (its browser reconnects and
resumes from its ``Last-Event-ID``), so a slow phone never holds the table
back. Each stream starts with what its listener missed: the events after its
``Last-Event-ID`` while the bus still holds them, otherwise the latest event
(the state in every event is whole). A comment line goes out every
``keepalive`` seconds so that proxies keep the stream open and the server
notices a closed one. Past ``cap`` listeners a stream answers a single
``full`` event (and a long ``retry``) instead.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

QUEUE_SIZE = 64
KEEPALIVE_S = 15.0
FULL_RETRY_MS = 30000
RETRY_MS = 2000
"""How soon a browser reconnects after its stream drops (the SSE ``retry:`` field)."""


class Event(Protocol):
    seq: int

    def to_sse(self) -> str: ...


class Bus(Protocol):
    @property
    def last_seq(self) -> int: ...

    def since(self, seq: int) -> list[Any]: ...

    def wait(self, seq: int, timeout: float) -> list[Any]: ...


@dataclass(frozen=True)
class Frame:
    """One event as it goes on the wire."""

    seq: int
    data: bytes


_CLOSE = Frame(-1, b"")


def state_frame(state: dict[str, Any]) -> Frame:
    """The whole state as an event of kind ``state`` (a first connection before any event)."""
    seq = int(state.get("seq", 0))
    at = datetime.now(UTC).isoformat(timespec="seconds")
    body = json.dumps({"seq": seq, "kind": "state", "at": at, "state": state},
                      separators=(",", ":"), ensure_ascii=False)
    return Frame(seq, f"id: {seq}\nevent: state\ndata: {body}\n\n".encode())


def full_frame(message: str) -> bytes:
    body = json.dumps({"message": message}, ensure_ascii=False)
    return f"retry: {FULL_RETRY_MS}\nevent: full\ndata: {body}\n\n".encode()


class Full(Exception):
    """Every spectator place is taken."""


class Listener:
    """One open stream: a bounded queue the pump fills and the stream's thread empties."""

    def __init__(self, hub: Hub, backlog: list[Frame], after: int, counted: bool) -> None:
        self._hub = hub
        self._q: queue.Queue[Frame] = queue.Queue(hub.queue_size)
        self._backlog = backlog
        self._after = after
        self.counted = counted
        self.dropped = False

    def offer(self, frame: Frame) -> bool:
        try:
            self._q.put_nowait(frame)
            return True
        except queue.Full:
            self.dropped = True
            return False

    def close(self) -> None:
        self.dropped = True
        try:
            self._q.put_nowait(_CLOSE)
        except queue.Full:
            pass

    def stream(self) -> Iterator[bytes]:
        """The bytes of the stream, until the listener is dropped or its client goes away."""
        try:
            yield f"retry: {self._hub.retry_ms}\n\n".encode()
            for f in self._backlog:
                yield f.data
            last = self._after
            while not self.dropped:
                try:
                    f = self._q.get(timeout=self._hub.keepalive)
                except queue.Empty:
                    yield b": keep-alive\n\n"
                    continue
                if f is _CLOSE:
                    break
                if f.seq > last:
                    last = f.seq
                    yield f.data
        finally:
            self._hub.leave(self)


class Hub:
    """Fans the bus's events out to every listener (see the module's docstring)."""

    def __init__(self, bus: Bus, snapshot: Callable[[], dict[str, Any]], *, cap: int,
                 queue_size: int = QUEUE_SIZE, keepalive: float = KEEPALIVE_S,
                 retry_ms: int = RETRY_MS) -> None:
        self.bus = bus
        self.snapshot = snapshot
        self.cap = cap
        self.queue_size = queue_size
        self.keepalive = keepalive
        self.retry_ms = retry_ms
        self._lock = threading.Lock()
        self._listeners: set[Listener] = set()
        self._sent = bus.last_seq
        self._pump: threading.Thread | None = None
        self._stop = threading.Event()
        self.dropped = 0
        """Listeners dropped for being too slow, since start."""

    @property
    def spectators(self) -> int:
        """Open streams that count towards the cap (the table's own display does not)."""
        with self._lock:
            return sum(1 for x in self._listeners if x.counted)

    @property
    def listeners(self) -> int:
        with self._lock:
            return len(self._listeners)

    def join(self, last_id: int | None, *, counted: bool = True) -> Listener:
        """A new listener that resumes after ``last_id`` (None: starts from the whole state)."""
        self._start()
        with self._lock:
            if counted and sum(1 for x in self._listeners if x.counted) >= self.cap:
                raise Full
            sent = self._sent
            if last_id is None or last_id < 0:
                frame = state_frame(self.snapshot())
                backlog, after = [frame], frame.seq
            else:
                missed = [e for e in self.bus.since(last_id) if e.seq <= sent]
                backlog = [Frame(e.seq, e.to_sse().encode()) for e in missed]
                after = max([last_id, *(f.seq for f in backlog)])
            listener = Listener(self, backlog, after, counted)
            self._listeners.add(listener)
        return listener

    def leave(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.discard(listener)

    def drop_all(self) -> None:
        """End every open stream (their browsers reconnect and resume from their last event)."""
        with self._lock:
            for x in self._listeners:
                x.close()

    def stop(self) -> None:
        self._stop.set()
        self.drop_all()

    def _start(self) -> None:
        with self._lock:
            if self._pump is None:
                self._sent = self.bus.last_seq
                self._pump = threading.Thread(target=self._run, name="sse-pump", daemon=True)
                self._pump.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            events = self.bus.wait(self._sent, 1.0)
            for e in events:
                if e.seq <= self._sent:
                    continue
                frame = Frame(e.seq, e.to_sse().encode())
                with self._lock:
                    self._sent = e.seq
                    slow = [x for x in self._listeners if not x.offer(frame)]
                    for x in slow:
                        self._listeners.discard(x)
                        self.dropped += 1
