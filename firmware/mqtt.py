"""The table's events on an MQTT broker, so many tables of a club can be followed from one place.

Topics, under ``PREFIX/TABLE/`` (``mus-table/mesa-1/`` by default):

* ``state`` — the latest event (``{"seq", "kind", "at", "state"}``), **retained**
  (QoS 0, published again at every connection): a late subscriber gets the
  table's whole state at once, never an older one;
* ``events/KIND`` — every event as it happens (not retained, QoS 1);
* ``status`` — ``online``, or ``offline`` (retained; the broker sends it as the
  client's last will when the table drops off).

``mus-table/+/state`` follows every table of a broker. The client connects in
the background and reconnects by itself; while the broker is away the table
goes on, and the latest state is published again when it is back. With no
broker configured nothing of this runs.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from firmware.events import EventBus, TableEvent

log = logging.getLogger(__name__)


class MqttPublisher:
    """Publishes a bus's events to a broker at ``host``:``port``; :meth:`close` says «offline»."""

    def __init__(self, bus: EventBus, table: str, host: str, port: int = 1883, *, prefix: str = "mus-table",
                 username: str = "", password: str = "", keepalive: int = 30) -> None:
        self.bus = bus
        self.base = f"{prefix}/{table}"
        self.connected = threading.Event()
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{prefix}-{table}",
                                   clean_session=True)
        if username:
            self._client.username_pw_set(username, password or None)
        self._client.will_set(f"{self.base}/status", "offline", qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.reconnect_delay_set(1, 30)
        self._client.connect_async(host, port, keepalive)
        self._client.loop_start()
        self._stop = bus.subscribe(self.publish)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("MQTT broker refused the table: %s", reason)
            return
        client.publish(f"{self.base}/status", "online", qos=1, retain=True)
        latest = self.bus.latest
        if latest is not None:  # the state of now, for whoever subscribes from now on
            client.publish(f"{self.base}/state", _payload(latest), qos=0, retain=True)
        self.connected.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        log.info("MQTT broker gone (%s); reconnecting", reason)

    def publish(self, event: TableEvent) -> None:
        if not self.connected.is_set():
            return  # published again as the retained state once connected
        payload = _payload(event)
        self._client.publish(f"{self.base}/events/{event.kind}", payload, qos=1)
        # The state at QoS 0: a QoS 1 state still unacknowledged when the broker went away would
        # be sent again after the reconnection, after the newer one, and stay retained, stale.
        # Lost instead, it costs nothing: every (re)connection publishes the state of then.
        self._client.publish(f"{self.base}/state", payload, qos=0, retain=True)

    def close(self) -> None:
        self._stop()
        if self.connected.is_set():
            self._client.publish(f"{self.base}/status", "offline", qos=1, retain=True).wait_for_publish(2)
        self._client.disconnect()
        self._client.loop_stop()


def _payload(event: TableEvent) -> str:
    return json.dumps(event.to_json(), ensure_ascii=False, separators=(",", ":"))
