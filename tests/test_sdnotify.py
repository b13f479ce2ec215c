"""firmware/sdnotify.py: READY and the watchdog's pings on a real datagram socket, as systemd reads them."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from firmware.runner import TableRunner
from firmware.sdnotify import Notifier
from firmware.table_loop import TableLoop
from firmware.watcher import Watcher, WatchSettings
from tests.test_loop_runner import Clock, FakeCamera, FakeReader


@pytest.fixture
def systemd(tmp_path: Path):  # type: ignore[no-untyped-def]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify"
    sock.bind(str(path))
    sock.settimeout(10)
    yield sock, str(path)
    sock.close()


def test_ready_then_pings_at_most_four_times_a_period(systemd) -> None:  # type: ignore[no-untyped-def]
    sock, path = systemd
    clock = Clock()
    n = Notifier(env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000"}, clock=clock)
    assert n.every == 7.5
    assert n.ready("table mesa-1")
    assert sock.recv(100) == b"READY=1\nSTATUS=table mesa-1"
    assert n.alive()
    assert sock.recv(100) == b"WATCHDOG=1"
    clock.now = 7.0
    assert not n.alive()  # too soon: nothing sent
    clock.now = 7.6
    assert n.alive()
    assert sock.recv(100) == b"WATCHDOG=1"


def test_no_watchdog_for_another_process_and_nothing_without_systemd(tmp_path: Path) -> None:
    other = Notifier(env={"NOTIFY_SOCKET": str(tmp_path / "x"), "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"})
    assert other.every is None and not other.alive()
    gone = Notifier(env={"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")})
    assert gone.enabled and not gone.ready()  # a socket that is not there: no error, no message


def test_the_runners_thread_pings_after_each_frame() -> None:
    beats = threading.Event()
    runner = TableRunner(TableLoop(reader=FakeReader()), FakeCamera(Clock()), fps=0,
                         watcher=Watcher(WatchSettings(zones=0)))
    runner.heartbeat = beats.set
    runner.start()
    try:
        assert beats.wait(timeout=30)
    finally:
        runner.stop()
