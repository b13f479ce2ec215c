"""Numbered events, each carrying the table's whole state, for every listener.

Every change the table accepts publishes one :class:`TableEvent` on the loop's
:class:`EventBus`: its ``seq`` grows by one each time, its ``state`` is the
whole snapshot after the change (a listener that missed events is up to date
with the next one). The bus keeps the last events in a ring so a listener that
reconnects resumes from the last ``seq`` it saw (the web's ``Last-Event-ID``);
older than the ring, or newer than the bus (after a restart), it gets the
latest event alone. The events and the state are described in docs/events.md.

>>> bus = EventBus(ring=3)
>>> [bus.publish(EventKind.BET, {"n": i}).seq for i in range(5)]
[1, 2, 3, 4, 5]
>>> [e.seq for e in bus.since(3)], [e.seq for e in bus.since(0)]
([4, 5], [5])
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from table.errors import InvalidInput


class EventKind(StrEnum):
    """What happened (the SSE ``event:`` name and the MQTT topic's last word)."""

    STATE = "state"
    """The whole state, with no change: on start, on resume from the journal."""
    BET = "bet"
    """A word said in the lance in play (or taken back: ``unsay``)."""
    LANCE = "lance"
    """A lance's outcome entered in one step."""
    DECLARED = "declared"
    """A seat answered «¿pares?» or «¿juego?»."""
    READING = "reading"
    """The cards are being read (the table looks still, or «leer» was pressed)."""
    READ = "read"
    """A reading came back: the hand is scored, impossible, or there was nothing to read."""
    CORRECTED = "corrected"
    """A card corrected by hand."""
    CONFIRMED = "confirmed"
    """The hand counts: journaled, score moved on, next hand (or the partida is over)."""
    UNDONE = "undone"
    """The last confirmed hand taken back: it is back to be corrected and confirmed."""
    NEW_PARTIDA = "new_partida"
    """A new partida started at 0-0 (the one in play closed, kept in the journal)."""
    REOPENED = "reopened"
    """A closed partida is back in play as it was left; the one in play was closed in its place."""
    FAULT = "fault"
    """Something is wrong with the camera, the frames or the disk (``state.faults``)."""
    RECOVERED = "recovered"
    """A fault went away."""
    LEARNING = "learning"
    """Deck learning moved on (a frame taken, the deck learnt or the learning cancelled)."""
    JUDGE = "judge"
    """The table called the juez, or the juez's answer came (``state.judge``)."""


def now_iso() -> str:
    """The current time, ISO 8601 in UTC with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class TypedState(Protocol):
    """A whole state that can say itself as JSON (``firmware.state.TableState``)."""

    def at_seq(self, seq: int) -> TypedState: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class TableEvent:
    """One change: its number, its kind, when, and the whole state after it (``state``: as
    JSON, for the listeners that send it on; ``typed``: the same state as a typed value,
    for those in the table's own process, where the table published one)."""

    seq: int
    kind: EventKind
    at: str
    state: dict[str, Any] = field(repr=False)
    typed: Any = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": str(self.kind), "at": self.at, "state": self.state}

    def to_sse(self) -> str:
        """The event as one server-sent event (``id:`` is ``seq``)."""
        data = json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))
        return f"id: {self.seq}\nevent: {self.kind}\ndata: {data}\n\n"


class EventBus:
    """One sequence of events: a ring for late listeners, a condition to wait on, callbacks.

    Thread-safe. ``start`` is the number of the last event before this bus
    (the loop starts it after the journal's last entry, so numbers go on
    growing across a restart).
    """

    def __init__(self, ring: int = 1000, start: int = 0) -> None:
        if ring < 1:
            raise InvalidInput(f"the ring must hold at least one event, not {ring}")
        self._ring: deque[TableEvent] = deque(maxlen=ring)
        self._cond = threading.Condition()
        self._seq = start
        self._listeners: list[Callable[[TableEvent], None]] = []

    @property
    def last_seq(self) -> int:
        with self._cond:
            return self._seq

    @property
    def latest(self) -> TableEvent | None:
        with self._cond:
            return self._ring[-1] if self._ring else None

    def publish(self, kind: EventKind, state: dict[str, Any] | TypedState) -> TableEvent:
        """Number an event, keep it, wake the waiters, then tell the listeners."""
        with self._cond:
            self._seq += 1
            if isinstance(state, dict):
                event = TableEvent(self._seq, kind, now_iso(), {**state, "seq": self._seq})
            else:
                typed = state.at_seq(self._seq)
                event = TableEvent(self._seq, kind, now_iso(), typed.to_json(), typed)
            self._ring.append(event)
            self._cond.notify_all()
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # noqa: BLE001, S112 - a broken listener must not stop the table
                continue
        return event

    def since(self, seq: int) -> list[TableEvent]:
        """Events newer than ``seq`` still in the ring; the latest alone when the ring lost
        some of them (or ``seq`` is from before a restart and newer than the bus)."""
        with self._cond:
            return self._since(seq)

    def _since(self, seq: int) -> list[TableEvent]:
        if not self._ring:
            return []
        if seq >= self._seq:
            return [] if seq == self._seq else [self._ring[-1]]
        first = self._ring[0].seq
        if seq < first - 1:
            return [self._ring[-1]]
        return [e for e in self._ring if e.seq > seq]

    def wait(self, seq: int, timeout: float) -> list[TableEvent]:
        """Block until an event newer than ``seq`` exists (or ``timeout`` s); then :meth:`since`."""
        with self._cond:
            self._cond.wait_for(lambda: self._seq != seq, timeout=timeout)
            return self._since(seq)

    def subscribe(self, listener: Callable[[TableEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with every event from now on; returns the function that stops it."""
        with self._cond:
            self._listeners.append(listener)

        def stop() -> None:
            with self._cond:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return stop
