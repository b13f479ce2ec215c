"""The table's events over a real MQTT broker (Mosquitto at 127.0.0.1:1883): live, retained, last will.

The shared broker is a club's: it holds other tables' retained states (a
``mus-table run`` left one, another test runs beside this one), so every test
here has tables of its own names, looks only at its own topics, and runs with
a foreign table's retained state and status on the broker (the fixture
``crowded``). Every wait ends on an event — an acknowledged subscription, a
connection, a message seen — with ``WAIT`` seconds only as the bound of a
broken run.
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from firmware.mqtt import MqttPublisher
from firmware.table_commands import LanceOutcome, Say
from firmware.table_loop import FaultKind, LoopSettings, TableLoop
from tests._mosquitto import Mosquitto, needs_mosquitto

HOST, PORT = "127.0.0.1", 1883
WAIT = 30.0
"""Seconds before a wait that should end on an event counts as failed (a bound, not a timing)."""


def _broker() -> bool:
    try:
        socket.create_connection((HOST, PORT), timeout=0.5).close()
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _broker(), reason="no MQTT broker at 127.0.0.1:1883")


class Listener:
    def __init__(self, topic: str, port: int = PORT) -> None:
        self.messages: queue.Queue[tuple[str, bool, Any]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: subscribed.set()
        self.client.connect(HOST, port)
        self.client.subscribe(topic, qos=1)
        self.client.loop_start()
        # the broker sends what is published after it acknowledged the subscription, not before
        assert subscribed.wait(WAIT), f"the broker did not acknowledge the subscription to {topic}"

    def _message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:  # what others publish may be anything: kept as it came when it is no JSON
            body = json.loads(msg.payload) if msg.payload.startswith(b"{") else msg.payload.decode()
        except ValueError:
            body = msg.payload
        self.messages.put((msg.topic, msg.retain, body))

    def next(self, topic: str) -> tuple[bool, Any]:
        """The next message on ``topic`` (others, such as other tables' states, are passed over)."""
        while True:
            t, retain, body = self.messages.get(timeout=WAIT)
            if t == topic:
                return retain, body

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _retain(messages: dict[str, bytes]) -> None:
    """Publish retained messages and wait until the broker has each (an empty one clears a topic)."""
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.connect(HOST, PORT)
    c.loop_start()
    try:
        for topic, payload in messages.items():
            c.publish(topic, payload, qos=1, retain=True).wait_for_publish(WAIT)
    finally:
        c.disconnect()  # wakes the network thread, which then ends at once
        c.loop_stop()


def _forgotten(*tables: str) -> dict[str, bytes]:
    return {f"mus-table/{name}/{topic}": b"" for name in tables for topic in ("state", "status")}


def _forget(*tables: str) -> None:
    """Leave no retained message of these tables behind."""
    _retain(_forgotten(*tables))


@pytest.fixture(autouse=True)
def crowded() -> Iterator[str]:
    """Another table on the broker, as a club's broker has: its retained state and status (and
    a retained message that is no JSON), there before the test starts."""
    name = f"foreign-{uuid.uuid4().hex[:8]}"
    state = {"seq": 7, "kind": "state", "at": "2026-12-01T12:00:00+00:00",
             "state": {"seq": 7, "table": name, "phase": "playing", "bets": {"lance": "juego"}}}
    _retain({f"mus-table/{name}/state": json.dumps(state).encode(), f"mus-table/{name}/status": b"online",
             f"mus-table/{name}-x/state": b"{not json"})
    yield name
    _retain({**_forgotten(name), f"mus-table/{name}-x/state": b""})


@pytest.fixture
def table() -> Iterator[str]:
    name = f"test-{uuid.uuid4().hex[:8]}"
    yield name
    _forget(name)


def test_events_go_out_live_and_the_state_is_retained(table: str) -> None:
    loop = TableLoop(LoopSettings(table=table))
    pub = MqttPublisher(loop.bus, table, HOST, PORT)
    assert pub.connected.wait(WAIT)
    live = Listener(f"mus-table/{table}/#")
    try:
        loop.submit(LanceOutcome("grande", "en paso"))
        retain, event = live.next(f"mus-table/{table}/events/lance")
        assert not retain and event["kind"] == "lance" and event["state"]["bets"]["lance"] == "chica"
        loop.submit(Say(0, "envido", 4))
        retain, event = live.next(f"mus-table/{table}/events/bet")
        assert event["seq"] == loop.bus.last_seq
        assert live.next(f"mus-table/{table}/state")[1]["seq"] == loop.bus.last_seq  # the broker has it
        late = Listener(f"mus-table/{table}/state")  # a spectator who comes late gets the whole state
        try:
            retain, state = late.next(f"mus-table/{table}/state")
            assert retain and state["seq"] == loop.bus.last_seq and state["state"] == loop.snapshot()
        finally:
            late.close()
        status = Listener(f"mus-table/{table}/status")
        assert status.next(f"mus-table/{table}/status") == (True, "online")
        pub.close()
        assert status.next(f"mus-table/{table}/status") == (False, "offline")
        status.close()
    finally:
        live.close()


def test_no_broker_needed_when_none_answers(table: str) -> None:
    loop = TableLoop(LoopSettings(table=table))
    pub = MqttPublisher(loop.bus, table, "127.0.0.1", 1)  # nothing listens there
    loop.submit(LanceOutcome("grande", "en paso"))  # the table goes on
    assert not pub.connected.is_set() and loop.snapshot()["bets"]["lance"] == "chica"
    pub.close()


def test_a_configured_broker_gets_the_table_built_from_the_configuration(table: str, tmp_path: Any) -> None:
    from firmware.config import MqttSection, PanelSection, TableConfig, TableSection
    from firmware.table_app import build_table

    config = TableConfig(table=TableSection(name=table, journal=str(tmp_path / "j.sqlite")),
                         mqtt=MqttSection(host=HOST, port=PORT), panel=PanelSection(enabled=False))
    built = build_table(config, source=None, reader=None)
    assert built.mqtt is not None and built.mqtt.connected.wait(WAIT)
    live = Listener(f"mus-table/{table}/events/#")
    try:
        built.loop.submit(Say(0, "paso"))
        assert live.next(f"mus-table/{table}/events/bet")[1]["state"]["bets"]["speaker"] == 1
    finally:
        live.close()
        built.stop()


def test_one_subscription_follows_every_table(table: str, crowded: str) -> None:
    """A club follows all its tables with one subscription; the broker also holds another
    table's retained state (``crowded``), which this test is not about and passes over."""
    other = f"{table}-b"
    ours = {table, other}
    loops = [TableLoop(LoopSettings(table=name)) for name in (table, other)]
    pubs = [MqttPublisher(loop.bus, name, HOST, PORT) for loop, name in zip(loops, (table, other), strict=True)]
    club = Listener("mus-table/+/state")
    try:
        assert all(p.connected.wait(WAIT) for p in pubs)
        loops[1].submit(LanceOutcome("grande", "en paso"))
        seen: dict[str, Any] = {}
        others: set[str] = set()
        while set(seen) != ours or seen[other]["bets"]["lance"] != "chica":
            topic, _, body = club.messages.get(timeout=WAIT)
            name = topic.split("/")[1]
            if name in ours:
                seen[name] = body["state"]
            else:
                others.add(name)
        assert seen[table]["table"] == table and seen[table]["bets"]["lance"] == "grande"
        while crowded not in others:  # the other table was there all along (retained): seen, and passed over
            others.add(club.messages.get(timeout=WAIT)[0].split("/")[1])
    finally:
        club.close()
        for p in pubs:
            p.close()
        _forget(other)


@needs_mosquitto
def test_a_broker_that_goes_away_gets_the_state_when_it_is_back(table: str, tmp_path: Path) -> None:
    """A broker of the test's own, stopped and started again: the table goes on meanwhile,
    and the broker has the state of now, retained, once the table has reconnected."""
    broker = Mosquitto(tmp_path).start()
    port = broker.port
    loop = TableLoop(LoopSettings(table=table))
    pub = MqttPublisher(loop.bus, table, HOST, port)
    listeners: list[Listener] = []
    try:
        assert pub.connected.wait(WAIT)
        broker.stop()  # at once: the first state may still be unacknowledged
        loop.submit(LanceOutcome("grande", "en paso"))  # the table goes on without its broker
        loop.submit(LanceOutcome("chica", "querido", 3, 1))
        broker.start()
        watching = Listener(f"mus-table/{table}/state", port=port)  # there before the table is back
        listeners.append(watching)
        assert pub.connected.wait(60)
        loop.set_fault(FaultKind.CAMERA, "Cámara perdida", "mirad el cable")  # a change after it
        seqs = []
        while not seqs or seqs[-1] < loop.bus.last_seq:
            seqs.append(watching.next(f"mus-table/{table}/state")[1]["seq"])
        # never an older state after a newer one (a stale one resent would stay retained)
        assert seqs == sorted(seqs) and seqs[0] >= 3, seqs
        late = Listener(f"mus-table/{table}/state", port=port)
        listeners.append(late)
        retain, state = late.next(f"mus-table/{table}/state")
        assert retain and state["seq"] == loop.bus.last_seq and state["state"] == loop.snapshot()
    finally:
        for listener in listeners:
            listener.close()
        pub.close()
        broker.stop()
