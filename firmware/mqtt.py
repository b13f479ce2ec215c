"""The table's events on an MQTT broker, so many tables of a club can be followed from one place.

Topics, under ``PREFIX/TABLE/`` (``mus-table/mesa-1/`` by default):

* ``state`` — the latest event (``{"seq", "kind", "at", "state"}``), **retained**
  (QoS 0, published again at every connection): a late subscriber gets the
  table's whole state at once, never an older one;
* ``events/KIND`` — every event as it happens (not retained, QoS 1);
* ``status`` — ``online``, or ``offline`` (retained; the broker sends it as the
  client's last will when the table drops off);
* ``journal`` — every journal entry (``{"seq", "prev", "partida", "kind", "at",
  "body"}``, QoS 1), each naming the entry before it (``prev``), so a follower
  (the hub) sees at once when one is missing;
* ``resend`` (the table listens) — ``{"events": N, "journal": M}``: a follower
  asks for the events after ``N`` still in the table's memory and the journal
  entries after ``M``; the table sends them again on ``events/KIND`` and
  ``journal``.
* ``judge`` (the table listens; retained) — the juez's answer to the table's
  call (``{"id", "text", "at"}``), handed to ``on_judge``.

``mus-table/+/state`` follows every table of a broker. The client connects in
the background and reconnects by itself; while the broker is away the table
goes on, and on reconnecting it sends the journal entries it could not send
(and the latest state). With no broker configured nothing of this runs.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from firmware.events import EventBus, TableEvent

log = logging.getLogger(__name__)

Entry = tuple[int, int, str, str, dict[str, Any]]


class JournalSource(Protocol):
    """What the link reads of the journal (:class:`firmware.journal.Journal`)."""

    def entries_after(self, seq: int, limit: int = 500) -> tuple[int, list[Entry]]: ...

    def last_seq(self) -> int: ...


class MqttPublisher:
    """Publishes a bus's events (and the journal's entries) to a broker at ``host``:``port``;
    :meth:`close` says «offline»."""

    def __init__(self, bus: EventBus, table: str, host: str, port: int = 1883, *, prefix: str = "mus-table",
                 username: str = "", password: str = "", keepalive: int = 30,
                 journal: JournalSource | None = None,
                 on_judge: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.bus = bus
        self.base = f"{prefix}/{table}"
        self.connected = threading.Event()
        self.journal = journal
        self.on_judge = on_judge
        self._send_lock = threading.Lock()
        # the last journal entry sent in order: at start, the journal's end (what came before
        # is sent again when a follower asks for it); kept across reconnections, so what the
        # table journaled while the broker was away goes out as soon as it is back
        self._sent = journal.last_seq() if journal is not None else 0
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{prefix}-{table}",
                                   clean_session=True)
        if username:
            self._client.username_pw_set(username, password or None)
        self._client.will_set(f"{self.base}/status", "offline", qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.reconnect_delay_set(1, 30)
        self._client.connect_async(host, port, keepalive)
        self._client.loop_start()
        self._stop = bus.subscribe(self.publish)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("MQTT broker refused the table: %s", reason)
            return
        client.subscribe([(f"{self.base}/resend", 1), (f"{self.base}/judge", 1)])
        client.publish(f"{self.base}/status", "online", qos=1, retain=True)
        latest = self.bus.latest
        if latest is not None:  # the state of now, for whoever subscribes from now on
            client.publish(f"{self.base}/state", _payload(latest), qos=0, retain=True)
        self.connected.set()
        self._send_journal()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        log.info("MQTT broker gone (%s); reconnecting", reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            body = json.loads(msg.payload) if msg.payload else None
        except ValueError:
            log.warning("MQTT: unreadable message on %s", msg.topic)
            return
        if not isinstance(body, dict):
            return
        if msg.topic.endswith("/resend"):
            self.resend(_int(body.get("events")), _int(body.get("journal")))
        elif msg.topic.endswith("/judge") and self.on_judge is not None:
            try:
                self.on_judge(body)
            except Exception:  # noqa: BLE001 - a bad answer must not stop the link
                log.exception("MQTT: the juez's answer was not taken")

    def publish(self, event: TableEvent) -> None:
        if not self.connected.is_set():
            return  # published again as the retained state once connected
        payload = _payload(event)
        self._client.publish(f"{self.base}/events/{event.kind}", payload, qos=1)
        # The state at QoS 0: a QoS 1 state still unacknowledged when the broker went away would
        # be sent again after the reconnection, after the newer one, and stay retained, stale.
        # Lost instead, it costs nothing: every (re)connection publishes the state of then.
        self._client.publish(f"{self.base}/state", payload, qos=0, retain=True)
        self._send_journal()

    def resend(self, events: int | None, journal: int | None) -> None:
        """Send again the events after ``events`` still in memory, and the journal entries after
        ``journal`` (a follower asked: it missed them)."""
        if events is not None:
            for event in self.bus.since(events):
                self._client.publish(f"{self.base}/events/{event.kind}", _payload(event), qos=1)
        if journal is not None:
            with self._send_lock:
                self._sent = min(self._sent, journal)
            self._send_journal()

    def _send_journal(self) -> None:
        """Every journal entry after the last one sent, in order, each chained to the one before."""
        if self.journal is None:
            return
        with self._send_lock:
            while self.connected.is_set():
                prev, entries = self.journal.entries_after(self._sent)
                if not entries:
                    return
                for seq, partida, kind, at, body in entries:
                    text = json.dumps({"seq": seq, "prev": prev, "partida": partida, "kind": kind, "at": at,
                                       "body": body}, ensure_ascii=False, separators=(",", ":"))
                    info = self._client.publish(f"{self.base}/journal", text, qos=1)
                    if info.rc != mqtt.MQTT_ERR_SUCCESS:
                        return  # the link went away: the rest goes when it is back
                    prev = self._sent = seq

    def close(self) -> None:
        self._stop()
        if self.connected.is_set():
            self._client.publish(f"{self.base}/status", "offline", qos=1, retain=True).wait_for_publish(2)
        self._client.disconnect()
        self._client.loop_stop()


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _payload(event: TableEvent) -> str:
    return json.dumps(event.to_json(), ensure_ascii=False, separators=(",", ":"))
