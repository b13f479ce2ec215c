"""The table's events over a real MQTT broker (Mosquitto at 127.0.0.1:1883): live, retained, last will."""

from __future__ import annotations

import json
import queue
import shutil
import socket
import subprocess
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

HOST, PORT = "127.0.0.1", 1883


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
        assert subscribed.wait(5), f"the broker did not acknowledge the subscription to {topic}"

    def _message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        body = json.loads(msg.payload) if msg.payload.startswith(b"{") else msg.payload.decode()
        self.messages.put((msg.topic, msg.retain, body))

    def next(self, topic: str) -> tuple[bool, Any]:
        while True:
            t, retain, body = self.messages.get(timeout=5)
            if t == topic:
                return retain, body

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def table() -> Iterator[str]:
    name = f"test-{uuid.uuid4().hex[:8]}"
    yield name
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)  # leave no retained message behind
    c.connect(HOST, PORT)
    c.loop_start()
    for topic in ("state", "status"):
        c.publish(f"mus-table/{name}/{topic}", b"", qos=1, retain=True).wait_for_publish(5)
    c.loop_stop()
    c.disconnect()


def test_events_go_out_live_and_the_state_is_retained(table: str) -> None:
    loop = TableLoop(LoopSettings(table=table))
    pub = MqttPublisher(loop.bus, table, HOST, PORT)
    assert pub.connected.wait(5)
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
    assert built.mqtt is not None and built.mqtt.connected.wait(5)
    live = Listener(f"mus-table/{table}/events/#")
    try:
        built.loop.submit(Say(0, "paso"))
        assert live.next(f"mus-table/{table}/events/bet")[1]["state"]["bets"]["speaker"] == 1
    finally:
        live.close()
        built.stop()


def test_one_subscription_follows_every_table(table: str) -> None:
    other = f"{table}-b"
    loops = [TableLoop(LoopSettings(table=name)) for name in (table, other)]
    pubs = [MqttPublisher(loop.bus, name, HOST, PORT) for loop, name in zip(loops, (table, other), strict=True)]
    club = Listener("mus-table/+/state")
    try:
        assert all(p.connected.wait(5) for p in pubs)
        loops[1].submit(LanceOutcome("grande", "en paso"))
        seen: dict[str, Any] = {}
        while set(seen) != {table, other} or seen[other]["bets"]["lance"] != "chica":
            topic, _, body = club.messages.get(timeout=5)
            seen[topic.split("/")[1]] = body["state"]
        assert seen[table]["table"] == table and seen[table]["bets"]["lance"] == "grande"
    finally:
        club.close()
        for p in pubs:
            p.close()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        c.connect(HOST, PORT)
        c.loop_start()
        for topic in ("state", "status"):
            c.publish(f"mus-table/{other}/{topic}", b"", qos=1, retain=True).wait_for_publish(5)
        c.loop_stop()
        c.disconnect()


@pytest.mark.skipif(shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists(),
                    reason="no mosquitto program to start a broker of the test's own")
def test_a_broker_that_goes_away_gets_the_state_when_it_is_back(table: str, tmp_path: Path) -> None:
    """A broker of the test's own, stopped and started again: the table goes on meanwhile,
    and the broker has the state of now, retained, once the table has reconnected."""
    program = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    with socket.socket() as s:
        s.bind((HOST, 0))
        port = s.getsockname()[1]
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"listener {port} {HOST}\nallow_anonymous true\npersistence false\n")

    def start() -> subprocess.Popen[bytes]:
        broker = subprocess.Popen([program, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(100):
            try:
                socket.create_connection((HOST, port), timeout=0.5).close()
                return broker
            except OSError:
                if broker.poll() is not None:
                    pytest.skip(f"mosquitto did not start: {broker.stderr.read() if broker.stderr else ''!r}")
                try:
                    broker.wait(timeout=0.1)
                except subprocess.TimeoutExpired:
                    pass
        raise AssertionError("mosquitto did not listen")

    broker = start()
    loop = TableLoop(LoopSettings(table=table))
    pub = MqttPublisher(loop.bus, table, HOST, port)
    listeners: list[Listener] = []
    try:
        assert pub.connected.wait(5)
        broker.terminate()  # at once: the first state may still be unacknowledged
        broker.wait(timeout=10)
        loop.submit(LanceOutcome("grande", "en paso"))  # the table goes on without its broker
        loop.submit(LanceOutcome("chica", "querido", 3, 1))
        broker = start()
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
        broker.terminate()
        broker.wait(timeout=10)
