"""The event fan-out: the loop's real bus, one pump, a bounded queue per listener."""

from __future__ import annotations

import itertools

import pytest

from firmware.events import EventBus, EventKind
from web.sse import Full, Hub


def hub_for(bus: EventBus, **kw: object) -> Hub:
    return Hub(bus, lambda: {"seq": bus.last_seq, "phase": "playing"}, cap=kw.pop("cap", 3),  # type: ignore[arg-type]
               keepalive=0.01, **kw)  # type: ignore[arg-type]


def frames(stream: object, n: int) -> list[bytes]:
    """The next ``n`` events of a stream (keep-alives skipped)."""
    return list(itertools.islice((c for c in stream if not c.startswith(b":")), n))  # type: ignore[attr-defined]


def test_a_listener_gets_the_whole_state_then_each_event_once() -> None:
    bus = EventBus()
    bus.publish(EventKind.STATE, {"phase": "playing"})
    hub = hub_for(bus)
    stream = hub.join(None).stream()
    retry, state = frames(stream, 2)
    assert retry == b"retry: 2000\n\n" and state.startswith(b"id: 1\nevent: state\n")
    bus.publish(EventKind.BET, {"phase": "playing"})
    bus.publish(EventKind.BET, {"phase": "playing"})
    assert [f.split(b"\n")[0] for f in frames(stream, 2)] == [b"id: 2", b"id: 3"]
    hub.stop()


def test_resume_after_last_event_id_and_from_too_old_an_id() -> None:
    bus = EventBus(ring=3)
    for _ in range(6):
        bus.publish(EventKind.BET, {})
    hub = hub_for(bus)
    assert [f.split(b"\n")[0] for f in frames(hub.join(4).stream(), 3)[1:]] == [b"id: 5", b"id: 6"]
    assert [f.split(b"\n")[0] for f in frames(hub.join(0).stream(), 2)[1:]] == [b"id: 6"]
    hub.stop()


def test_a_slow_listener_is_dropped_and_the_others_go_on() -> None:
    bus = EventBus()
    hub = hub_for(bus, queue_size=2)
    slow = hub.join(0)
    fast = hub.join(0)
    fast_stream = fast.stream()
    next(fast_stream)
    for i in range(5):
        bus.publish(EventKind.BET, {})
        assert frames(fast_stream, 1)[0].startswith(f"id: {i + 1}\n".encode())
    assert slow.dropped and hub.dropped == 1 and hub.listeners == 1
    hub.stop()


def test_the_cap_refuses_spectators_but_not_the_table() -> None:
    bus = EventBus()
    hub = hub_for(bus, cap=1)
    hub.join(None)
    with pytest.raises(Full):
        hub.join(None)
    hub.join(None, counted=False)
    assert hub.spectators == 1 and hub.listeners == 2
    hub.stop()
