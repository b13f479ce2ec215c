"""The public tree: what spectators read, republished by the hub, never by the tables.

Topics (anonymous spectators may only read ``public/#``; see ``hub/brokers/``):

* ``public/index`` — retained: every table at a glance (``{"tables": [...], "at"}``);
* ``public/<table>/state`` — retained: the table's latest event, whole state;
* ``public/<table>/events`` — every event as it came (QoS 0).

A tournament may hold the public feed back (``delay_s``, as broadcasts of
other games do, so a spectator cannot signal a player): each message goes out
that many seconds after the hub got it, in order. The index is sent at most
``index_every_s`` apart, whatever the number of tables.
"""

from __future__ import annotations

import heapq
import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

PUBLIC = "public"
PHASES = {"playing": "se juega", "reading": "leyendo", "impossible": "la mesa no cuadra", "scored": "tanteo",
          "over": "partida terminada", "learning": "aprendiendo una baraja"}
"""The phases as the hub's pages say them (``docs/events.md``)."""


def glance(name: str, state: dict[str, Any] | None, status: str, seen: str | None) -> dict[str, Any]:
    """One table as the index and the tables page show it."""
    if state is None:
        return {"table": name, "status": status, "seen": seen, "phase": None}
    partida = state.get("partida") or {}
    bets = state.get("bets") or {}
    return {"table": name, "status": status, "seen": seen, "seq": state.get("seq"),
            "phase": state.get("phase"), "score": state.get("score"), "target": state.get("target"),
            "partida": partida.get("id"), "juegos": partida.get("juegos"), "vacas": partida.get("vacas"),
            "over": partida.get("over"), "winner": partida.get("winner"), "hand_no": state.get("hand_no"),
            "lance": bets.get("lance"), "faults": [f.get("kind") for f in state.get("faults") or []]}


class PublicTree:
    """Publishes the public tree on a client, ``delay_s`` after the hub got each message."""

    def __init__(self, *, delay_s: float = 0.0, index_every_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic,
                 pairs: Callable[[], dict[str, list[str]]] | None = None) -> None:
        self.delay_s = max(0.0, delay_s)
        self.pairs = pairs
        """The pairs' names at each table (the draw), for the index; None: no names."""
        self.index_every_s = index_every_s
        self.clock = clock
        self._client: mqtt.Client | None = None
        self._queue: list[tuple[float, int, str, bytes, bool]] = []
        self._count = itertools.count()
        self._cond = threading.Condition()
        self._index_due: float | None = None
        self._closed = False
        self.published = 0
        self._thread = threading.Thread(target=self._run, name="hub-public", daemon=True)

    def attach(self, client: mqtt.Client) -> None:
        self._client = client
        if not self._thread.is_alive():
            self._thread.start()

    def poke(self) -> None:
        """Look at the clock again now (a test's fake clock moved)."""
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def event(self, name: str, event: dict[str, Any], tables: dict[str, Any]) -> None:
        payload = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()
        self._later(f"{PUBLIC}/{name}/events", payload, False)
        self._later(f"{PUBLIC}/{name}/state", payload, True)
        self.table_changed(name, tables)

    def table_changed(self, name: str, tables: dict[str, Any]) -> None:
        """The index is due again (at most once every ``index_every_s``), with the delay."""
        self._tables = tables
        with self._cond:
            if self._index_due is None:
                self._index_due = self.clock() + self.index_every_s
                self._cond.notify_all()

    def _later(self, topic: str, payload: bytes, retain: bool) -> None:
        with self._cond:
            heapq.heappush(self._queue, (self.clock() + self.delay_s, next(self._count), topic, payload, retain))
            self._cond.notify_all()

    def _index(self) -> bytes:
        try:
            seated = self.pairs() if self.pairs is not None else {}
        except Exception:  # noqa: BLE001 - the index goes out without names rather than not at all
            seated = {}
        rows = [{**glance(t.name, t.state, t.status, t.seen), "pairs": seated.get(t.name)}
                for t in list(self._tables.values())]
        return json.dumps({"tables": sorted(rows, key=lambda r: r["table"])}, ensure_ascii=False,
                          separators=(",", ":")).encode()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    now = self.clock()
                    if self._index_due is not None and self._index_due <= now:
                        self._index_due = None
                        heapq.heappush(self._queue, (now + self.delay_s, next(self._count),
                                                     f"{PUBLIC}/index", self._index(), True))
                    if self._queue and self._queue[0][0] <= now:
                        break
                    due = [d for d in (self._index_due, self._queue[0][0] if self._queue else None)
                           if d is not None]
                    self._cond.wait(timeout=min(max(0.0, min(due) - now), 1.0) if due else None)
                if self._closed:
                    return
                _, _, topic, payload, retain = heapq.heappop(self._queue)
            client = self._client
            if client is not None:
                client.publish(topic, payload, qos=0, retain=retain)
                self.published += 1
