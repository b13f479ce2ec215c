"""The hub's side of the broker: follow every table, miss nothing, keep it, pass it on to the public.

The follower subscribes to the documented topics of every table
(``docs/events.md``: ``PREFIX/+/state``, ``events/#``, ``status``, ``journal``)
and keeps what comes in the :class:`hub.store.Store`. Nothing is lost between
a table and the hub:

* each journal entry names the one before it (``prev``); an entry whose
  ``prev`` is not the last one kept means entries were missed, and the hub asks
  the table to send again what came after its last one (``PREFIX/TABLE/resend``);
* an event whose number jumps (and is not a restart's ``state``) asks for the
  events in between, which the table still holds in memory;
* a table that comes back ``online``, and every table when the hub itself
  (re)connects, is asked for everything after what the store holds — so a hub
  restarted rebuilds from its store, the retained states and what the tables
  send again.

Everything followed is republished for spectators under ``public/``
(:class:`hub.public.PublicTree`), after the tournament's delay.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hub.public import PublicTree
from hub.store import Store

log = logging.getLogger(__name__)


ASK_AGAIN_S = 5.0
"""A resend asked for and not answered: asked again at the table's next message after this long."""


@dataclass
class Followed:
    """What the follower knows of one table right now (the store holds the rest)."""

    name: str
    last_entry: int = 0
    last_event: int = 0
    status: str = "unknown"
    state: dict[str, Any] | None = None
    seq: int = 0
    seen: str | None = None
    asked: tuple[int, int] | None = None
    """The last resend asked for (events, journal), not asked again until something moves
    (or :data:`ASK_AGAIN_S` passed: the answer was lost)."""
    asked_at: float = 0.0
    call: dict[str, Any] | None = None
    latencies: list[float] = field(default_factory=list)
    kept: set[int] = field(default_factory=set)
    """Event numbers this follower has kept since it started (a resent one costs no database trip)."""


@dataclass(frozen=True)
class BrokerAddress:
    host: str = "127.0.0.1"
    port: int = 1883
    username: str = ""
    password: str = ""

    @classmethod
    def parse(cls, text: str) -> BrokerAddress:
        """``HOST[:PORT]``.

        >>> BrokerAddress.parse("10.0.0.5:1884")
        BrokerAddress(host='10.0.0.5', port=1884, username='', password='')
        """
        host, _, port = text.strip().rpartition(":") if ":" in text else (text.strip(), "", "1883")
        if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            from table.errors import InvalidInput
            raise InvalidInput(f"--broker: HOST[:PORT], not {text[:60]!r}")
        return cls(host, int(port))


class Follower:
    """Follows every table under ``prefix`` on a broker; keeps it in ``store``; feeds ``public``."""

    def __init__(self, store: Store, broker: BrokerAddress, *, prefix: str = "mus-table",
                 public: PublicTree | None = None, client_id: str = "",
                 clock: Callable[[], float] = time.time, keep_latencies: bool = False) -> None:
        self.store = store
        self.prefix = prefix
        self.public = public
        self.clock = clock
        self.keep_latencies = keep_latencies
        self.tables: dict[str, Followed] = {}
        self.connected = threading.Event()
        self.changed = threading.Condition()
        self.received = 0
        for row in store.tables():
            self.tables[row.name] = Followed(row.name, store.last_entry(row.name), store.last_event(row.name),
                                             row.status, row.state, row.seq, row.seen)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id or "",
                                  clean_session=True)
        if broker.username:
            self.client.username_pw_set(broker.username, broker.password or None)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(1, 10)
        self.client.max_queued_messages_set(0)
        self.client.connect_async(broker.host, broker.port, 30)
        if public is not None:
            public.attach(self.client)

    def start(self) -> None:
        self.client.loop_start()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        if self.public is not None:
            self.public.close()

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds after some message (or ``timeout`` s); whether it holds."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    # ---------------------------------------------------------------------------- asking

    def ask(self, name: str, *, force: bool = False) -> None:
        """Ask a table for what the hub has not got: events and journal entries after the last kept."""
        t = self._table(name)
        want = (t.last_event, t.last_entry)
        now = time.monotonic()
        if t.asked == want and not force and now - t.asked_at < ASK_AGAIN_S:
            return
        t.asked, t.asked_at = want, now
        self.client.publish(f"{self.prefix}/{name}/resend",
                            json.dumps({"events": want[0], "journal": want[1]}), qos=1)

    def answer_call(self, name: str, call_id: int, text: str, at: str) -> None:
        """The juez's answer to a table's call, retained for the table to get when it can."""
        self.client.publish(f"{self.prefix}/{name}/judge",
                            json.dumps({"id": call_id, "text": text, "at": at}, ensure_ascii=False),
                            qos=1, retain=True)

    # ---------------------------------------------------------------------------- the broker

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("the broker refused the hub: %s", reason)
            return
        p = self.prefix
        client.subscribe([(f"{p}/+/state", 1), (f"{p}/+/events/+", 1), (f"{p}/+/status", 1),
                          (f"{p}/+/journal", 1)])
        self.connected.set()
        for name in list(self.tables):  # whatever came while the hub was away
            self.ask(name, force=True)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()

    def _table(self, name: str) -> Followed:
        t = self.tables.get(name)
        if t is None:
            t = self.tables[name] = Followed(name)
        return t

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if not msg.topic.startswith(self.prefix + "/"):
            return
        parts = msg.topic[len(self.prefix) + 1:].split("/")
        if len(parts) < 2:
            return
        name, what = parts[0], parts[1]
        try:
            if what == "status":
                self._status(name, msg.payload.decode("utf-8", "replace"))
            elif msg.payload:
                body = json.loads(msg.payload)
                if isinstance(body, dict):
                    if what == "journal":
                        self._entry(name, body)
                    elif what == "events":
                        self._event(name, body, live=True)
                    elif what == "state":
                        self._event(name, body, live=False)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("unreadable message on %s: %s", msg.topic, exc)
        except Exception:  # noqa: BLE001 - one bad message (or a database hiccup) must not stop the hub
            log.exception("message on %s not kept", msg.topic)
        with self.changed:
            self.received += 1
            self.changed.notify_all()

    def _status(self, name: str, status: str) -> None:
        t = self._table(name)
        new = t.status != status
        t.status = status if status in ("online", "offline") else "unknown"
        t.seen = _now()
        self.store.set_table(name, status=t.status, seen=t.seen)
        if t.status == "online":
            self.ask(name, force=new)
        if self.public is not None:
            self.public.table_changed(name, self.tables)

    def _entry(self, name: str, body: dict[str, Any]) -> None:
        t = self._table(name)
        seq, prev = int(body["seq"]), int(body["prev"])
        if seq <= t.last_entry:
            return  # sent again: kept already
        if prev != t.last_entry:  # some entries before this one never came
            self.ask(name)
            return
        self.store.add_entry(name, seq, prev, int(body["partida"]), str(body["kind"]), str(body["at"]),
                             body["body"])
        t.last_entry = seq
        t.asked = None

    def _event(self, name: str, event: dict[str, Any], *, live: bool) -> None:
        t = self._table(name)
        seq, kind, state = int(event["seq"]), str(event["kind"]), event["state"]
        if not isinstance(state, dict):
            raise TypeError("an event's state is an object")
        t.seen = _now()
        if self.keep_latencies and live:
            t.latencies.append(self.clock() - _epoch(str(event["at"])))
        # the event log holds what came on events/KIND (live or sent again); the retained state
        # only says where the table is now: counting it as received would hide the events before it
        if live and seq not in t.kept:
            self.store.add_event(name, seq, kind, str(event["at"]), state)
            t.kept.add(seq)
            if len(t.kept) > 5000:
                t.kept = {k for k in t.kept if k > seq - 2000}
        newer = seq >= t.seq
        advanced = seq > t.seq or t.state is None
        if newer:
            t.state, t.seq = state, seq
        if advanced:
            self.store.set_table(name, seq=seq, state=state, seen=t.seen)
        if live and seq > t.last_event + 1 and t.last_event and kind != "state":
            self.ask(name)  # events in between never came
        if live and seq > t.last_event:
            t.last_event = seq
            t.asked = None
        judge = state.get("judge") if newer else None
        if isinstance(judge, dict) and judge.get("id") is not None:
            call_id = int(judge["id"])
            if judge.get("called") and self.store.add_call(name, call_id, str(judge["called"])):
                t.call = judge
        if advanced and self.public is not None:  # the public gets each state once, never an older one
            self.public.event(name, event, self.tables)


def _now() -> str:
    from datetime import UTC, datetime
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _epoch(at: str) -> float:
    from datetime import datetime
    return datetime.fromisoformat(at).timestamp()
