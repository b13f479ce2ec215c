"""The event bus: numbered events, a ring for late listeners, waiting, callbacks."""

from __future__ import annotations

import json
import threading

import pytest

from firmware.events import EventBus, EventKind, TableEvent
from table.errors import InvalidInput


def test_events_are_numbered_and_carry_their_number_in_the_state() -> None:
    bus = EventBus(start=41)
    e = bus.publish(EventKind.CONFIRMED, {"phase": "playing"})
    assert (e.seq, e.state["seq"], bus.last_seq, bus.latest) == (42, 42, 42, e)


def test_a_listener_resumes_from_the_last_event_it_saw() -> None:
    bus = EventBus(ring=5)
    for i in range(8):
        bus.publish(EventKind.BET, {"i": i})
    assert [e.seq for e in bus.since(6)] == [7, 8]
    assert bus.since(8) == []
    assert [e.seq for e in bus.since(1)] == [8]  # older than the ring: the latest, whole
    assert [e.seq for e in bus.since(3)] == [4, 5, 6, 7, 8]  # the ring still holds them all
    assert [e.seq for e in bus.since(500)] == [8]  # a seq from before a restart: the latest


def test_wait_blocks_until_an_event_and_times_out_otherwise() -> None:
    bus = EventBus()
    bus.publish(EventKind.STATE, {})
    assert bus.wait(1, timeout=0.01) == []
    got: list[list[TableEvent]] = []
    t = threading.Thread(target=lambda: got.append(bus.wait(1, timeout=5)))
    t.start()
    bus.publish(EventKind.READ, {"x": 1})
    t.join()
    assert [e.kind for e in got[0]] == [EventKind.READ]


def test_listeners_get_every_event_and_a_broken_one_stops_nothing() -> None:
    bus = EventBus()
    seen: list[int] = []

    def broken(e: TableEvent) -> None:
        raise RuntimeError("boom")

    bus.subscribe(broken)
    stop = bus.subscribe(lambda e: seen.append(e.seq))
    bus.publish(EventKind.BET, {})
    stop()
    bus.publish(EventKind.BET, {})
    assert seen == [1]


def test_the_sse_and_json_forms() -> None:
    e = EventBus().publish(EventKind.FAULT, {"faults": [{"kind": "camera"}], "texto": "cámara"})
    sse = e.to_sse()
    head, data = sse.split("data: ")
    assert head == "id: 1\nevent: fault\n" and sse.endswith("\n\n")
    assert json.loads(data) == e.to_json() == {"seq": 1, "kind": "fault", "at": e.at, "state": e.state}


def test_a_ring_of_nothing_is_refused() -> None:
    with pytest.raises(InvalidInput):
        EventBus(ring=0)
