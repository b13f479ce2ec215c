"""The club's Mosquitto configuration as shipped starts (its ports and files moved to the test's
own) and keeps anonymous clients to reading ``public/#``; the championship's EMQX files say
what docs/hub.md promises."""

from __future__ import annotations

import re
import socket
import subprocess
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tests._mosquitto import HOST, PROGRAM, free_port, needs_mosquitto

BROKERS = Path(__file__).resolve().parent.parent / "hub" / "brokers"


@needs_mosquitto
def test_the_club_configuration_starts_and_lets_anonymous_read_only_public(tmp_path: Path) -> None:
    port, ws = free_port(), free_port()
    conf = (BROKERS / "mosquitto-club.conf").read_text()
    conf = conf.replace("listener 1883", f"listener {port} {HOST}").replace("listener 9001", f"listener {ws} {HOST}")
    conf = conf.replace("./mosquitto-data/", f"{tmp_path}/data/").replace("./passwd", f"{tmp_path}/passwd")
    conf = conf.replace("./hub/brokers/mosquitto-club.acl", str(BROKERS / "mosquitto-club.acl"))
    conf += "user root\n"
    (tmp_path / "data").mkdir()
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(tmp_path / "passwd"), "mesa-1", "pw"], check=True)
    subprocess.run(["mosquitto_passwd", "-b", str(tmp_path / "passwd"), "hub", "hubpw"], check=True)
    (tmp_path / "club.conf").write_text(conf)
    broker = subprocess.Popen([str(PROGRAM), "-c", str(tmp_path / "club.conf")], stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                for p in (port, ws):
                    socket.create_connection((HOST, p), timeout=0.5).close()
                break
            except OSError:
                assert broker.poll() is None, broker.stderr.read() if broker.stderr else b""
                try:
                    broker.wait(timeout=0.05)
                except subprocess.TimeoutExpired:
                    pass
        table = mqtt.Client(CallbackAPIVersion.VERSION2)
        table.username_pw_set("mesa-1", "pw")
        table.connect(HOST, port)
        table.loop_start()
        table.publish("mus-table/mesa-1/state", b'{"seq": 1}', qos=1, retain=True).wait_for_publish(10)
        table.publish("mus-table/mesa-2/state", b'{"seq": 1}', qos=1, retain=True).wait_for_publish(10)  # not its own
        got: list[str] = []
        done = threading.Event()
        spectator = mqtt.Client(CallbackAPIVersion.VERSION2, transport="websockets")
        spectator.on_message = lambda c, u, m: (got.append(m.topic), m.topic == "public/marker" and done.set())
        subscribed = threading.Event()
        spectator.on_subscribe = lambda *a: subscribed.set()
        spectator.connect(HOST, ws)
        spectator.loop_start()
        spectator.subscribe([("mus-table/#", 1), ("public/#", 1)])
        assert subscribed.wait(10)
        spectator.publish("public/index", b"{}", qos=1).wait_for_publish(10)  # anonymous may not write public/
        mesa = mqtt.Client(CallbackAPIVersion.VERSION2)
        mesa.username_pw_set("mesa-1", "pw")
        mesa.connect(HOST, port)
        mesa.loop_start()
        mesa.publish("public/index", b'{"tables": []}', qos=1).wait_for_publish(10)  # nor may a table
        mesa.publish("mus-table/mesa-1/events/bet", b'{"seq": 2}', qos=1).wait_for_publish(10)  # its own: not public
        hub = mqtt.Client(CallbackAPIVersion.VERSION2)
        hub.username_pw_set("hub", "hubpw")
        hub.connect(HOST, port)
        hub.loop_start()
        hub.publish("public/marker", b"{}", qos=1).wait_for_publish(10)  # the hub writes the public tree
        assert done.wait(10)
        assert got == ["public/marker"], got  # nothing of the tables' topics, nothing let into public/
        for c in (table, spectator, mesa, hub):
            c.loop_stop()
            c.disconnect()
    finally:
        broker.terminate()
        broker.wait(timeout=10)


def test_the_championship_configuration_denies_what_is_not_listed() -> None:
    conf = (BROKERS / "emqx-championship.conf").read_text()
    acl = (BROKERS / "emqx-acl.conf").read_text()
    assert re.search(r"no_match\s*=\s*deny", conf)
    assert "listeners.ws.default" in conf and re.search(r"retainer\s*\{\s*enable\s*=\s*true", conf)
    assert "Business Source License" in conf
    assert '{allow, all, subscribe, ["public/#"]}.' in acl and acl.rstrip().endswith("{deny, all}.")
