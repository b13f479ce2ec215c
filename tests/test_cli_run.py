"""``mus-table run --config``: the real table's command on a folder of frames, stopped as systemd stops it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2

from firmware.cli import main
from firmware.journal import Journal
from firmware.synthetic import SyntheticTable
from firmware.table_commands import NewPartida
from table.cards import Card

HAND = [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
        ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]]


def test_run_reads_a_still_table_journals_it_and_stops_on_sigterm(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    table = SyntheticTable(11)
    table.moving_frames = 0
    cv2.imwrite(str(frames / "00.png"), table.still())
    table.show([[Card.parse(c) for c in seat] for seat in HAND])
    cv2.imwrite(str(frames / "01.png"), table.still())
    journal = tmp_path / "journal.sqlite"
    config = tmp_path / "table.toml"
    config.write_text(f"""
[table]
name = "prueba"
journal = "{journal}"
[camera]
source = "folder"
path = "{frames}"
fps = 30.0
[panel]
enabled = false
[web]
enabled = false
""")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "firmware.cli", "run", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    cards = None
    deadline = time.monotonic() + 60
    try:
        while cards is None and time.monotonic() < deadline and proc.poll() is None:
            if journal.exists():
                rows = [b for _, _, kind, _, b in Journal(journal).entries() if kind == "cards"]
                cards = rows[0]["cards"] if rows else None
            if cards is None:
                try:
                    proc.wait(timeout=0.3)
                except subprocess.TimeoutExpired:
                    pass
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert cards is not None, err
    assert [sorted(s) for s in cards] == [sorted(s) for s in HAND]
    assert proc.returncode == 0, err


def test_run_serves_the_display_and_stops_on_sigterm_as_systemd_stops_it(tmp_path: Path) -> None:
    import json
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "table.toml"
    config.write_text(f"""
[table]
name = "con-pantalla"
journal = "{tmp_path / 'journal.sqlite'}"
[camera]
source = "synthetic"
[panel]
enabled = false
[web]
host = "127.0.0.1"
port = {port}
""")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "firmware.cli", "run", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    state = None
    deadline = time.monotonic() + 90  # a safety net for a table that never answers, not a timing
    try:
        while state is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as r:
                    state = json.loads(r.read())
            except OSError:
                try:
                    proc.wait(timeout=0.3)
                except subprocess.TimeoutExpired:
                    pass
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert state is not None and state["table"] == "con-pantalla", err
    assert proc.returncode == 0, err
    assert [kind for _, _, kind, _, _ in Journal(tmp_path / "journal.sqlite").entries()] == ["new_partida"]


def test_a_long_press_of_undo_runs_the_shutdown_command_once(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    from firmware.config import parse_config
    from firmware.panel import PanelButton, PanelEvent
    from firmware.table_app import ShutdownHook, build_table
    from firmware.table_loop import FaultKind

    done = tmp_path / "powered-off"
    cfg = parse_config(f"""
[camera]
source = "synthetic"
[panel]
buzzer_active_high = false
shutdown = "{sys.executable} -c 'import pathlib, sys; pathlib.Path(sys.argv[1]).touch()' {done}"
[web]
enabled = false
""")
    factory = MockFactory()
    try:
        table = build_table(cfg, journal_path=":memory:", pin_factory=factory, reader=FakeReader())
        driver = table.panel_driver
        assert driver is not None and isinstance(driver.on_shutdown, ShutdownHook)
        assert factory.pin(cfg.panel.buzzer).state is True  # a low-triggered buzzer rests high
        failing = table.journal
        assert failing is not None
        real_append = failing.append
        failing.append = lambda *a: (_ for _ in ()).throw(OSError("disk full"))  # type: ignore[method-assign]
        table.loop.submit(NewPartida())  # an entry that waits for the disk
        assert FaultKind.DISK in {f.kind for f in table.loop.faults}
        driver.handle(PanelEvent(PanelButton.UNDO, long=True))
        assert driver.on_shutdown.process is None  # refused: it would lose the entry waiting
        failing.append = real_append  # type: ignore[method-assign]
        driver.handle(PanelEvent(PanelButton.UNDO, long=True))
        process = driver.on_shutdown.process
        assert process is not None and process.wait(timeout=30) == 0 and done.exists()
        assert not table.loop.faults  # the entry was written first
        driver.handle(PanelEvent(PanelButton.UNDO, long=True))
        assert driver.on_shutdown.process is process  # once
        table.stop()
    finally:
        factory.reset()


class FakeReader:
    def read(self, frame: object) -> object:
        raise AssertionError("nothing is read in this test")


def test_run_refuses_a_bad_configuration_in_one_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "t.toml"
    bad.write_text("[camera]\nsource = 'webcam'\n")
    assert main(["run", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "camera.source" in err
