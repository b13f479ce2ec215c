"""The table's events over a real MQTT broker (Mosquitto at 127.0.0.1:1883): live, retained, last will."""

from __future__ import annotations

import json
import queue
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from firmware.mqtt import MqttPublisher
from firmware.table_commands import LanceOutcome, Say
from firmware.table_loop import LoopSettings, TableLoop

HOST, PORT = "127.0.0.1", 1883


def _broker() -> bool:
    try:
        socket.create_connection((HOST, PORT), timeout=0.5).close()
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _broker(), reason="no MQTT broker at 127.0.0.1:1883")


class Listener:
    def __init__(self, topic: str) -> None:
        self.messages: queue.Queue[tuple[str, bool, Any]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._message
        self.client.connect(HOST, PORT)
        self.client.subscribe(topic, qos=1)
        self.client.loop_start()

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
