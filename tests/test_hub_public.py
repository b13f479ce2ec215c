"""The public tree: what spectators get, when (the tournament's delay), and the index."""

from __future__ import annotations

import json
import threading
from typing import Any

from hub.follower import Followed
from hub.public import PublicTree, glance


class FakeClient:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any, bool]] = []
        self.arrived = threading.Condition()

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
        with self.arrived:
            self.sent.append((topic, json.loads(payload), retain))
            self.arrived.notify_all()

    def wait(self, n: int) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.sent) >= n, 10)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _event(seq: int) -> dict[str, Any]:
    return {"seq": seq, "kind": "bet", "at": "t", "state": {"seq": seq, "phase": "playing", "score": [3, 4],
                                                            "partida": {"id": 1, "juegos": [0, 1]},
                                                            "bets": {"lance": "chica"}, "faults": []}}


def test_events_go_out_after_the_delay_in_order_with_the_index() -> None:
    clock, client = Clock(), FakeClient()
    tree = PublicTree(delay_s=900, index_every_s=1, clock=clock)
    tree.attach(client)  # type: ignore[arg-type]
    tables = {"mesa-1": Followed("mesa-1", status="online", state=_event(2)["state"])}
    try:
        tree.event("mesa-1", _event(1), tables)
        tree.event("mesa-1", _event(2), tables)
        clock.now += 899  # not yet: a spectator is held back 15 minutes
        tree.poke()
        assert client.sent == []
        clock.now += 2
        tree.poke()
        assert client.wait(4)
        assert [(t, b["seq"], r) for t, b, r in client.sent[:4]] == [
            ("public/mesa-1/events", 1, False), ("public/mesa-1/state", 1, True),
            ("public/mesa-1/events", 2, False), ("public/mesa-1/state", 2, True)]
        clock.now += 901
        tree.poke()
        assert client.wait(5)
        topic, index, retained = client.sent[4]
        assert topic == "public/index" and retained
        assert index["tables"] == [{**glance("mesa-1", _event(2)["state"], "online", None), "pairs": None}]
        assert index["tables"][0]["score"] == [3, 4] and index["tables"][0]["lance"] == "chica"
    finally:
        tree.close()
