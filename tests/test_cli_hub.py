"""``mus-table hub``: bad options are one line and status 2; the real command serves its pages."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from firmware.cli import main
from tests._mosquitto import HOST, Mosquitto, free_port, needs_mosquitto

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("argv, says", [
    (["--broker", "host:port"], "--broker: HOST[:PORT]"),
    (["--port", "70000", "--pin", "1"], "--port: de 1 a 65535, no 70000"),
    (["--delay", "-3", "--pin", "1"], "--delay: de 0 a 7200, no -3"),
    (["--db", "postgresql+psycopg://x:y@127.0.0.1:1/none", "--pin", "1"], "cannot open the hub's database"),
])
def test_bad_options_are_one_line(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hub", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_hub_needs_the_juezs_pin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env_pin = os.environ.pop("MUS_TABLE_HUB_PIN", None)
    try:
        assert main(["hub", "--db", f"sqlite:///{tmp_path / 'h.sqlite'}", "--pin", ""]) == 2
    finally:
        if env_pin is not None:
            os.environ["MUS_TABLE_HUB_PIN"] = env_pin
    assert "PIN" in capsys.readouterr().err


@needs_mosquitto
def test_the_command_serves_the_tables_page(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path).start()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "firmware.cli", "hub", "--broker", f"{HOST}:{broker.port}",
                             "--port", str(port), "--host", HOST, "--db", f"sqlite:///{tmp_path / 'hub.sqlite'}",
                             "--pin", "9876"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()  # said once the hub follows the broker, just before serving
        assert "siguiendo" in line, (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        for _ in range(200):
            try:
                socket.create_connection((HOST, port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None
        with urllib.request.urlopen(f"http://{HOST}:{port}/", timeout=10) as r:
            assert r.status == 200 and "Mesas" in r.read().decode()
        with urllib.request.urlopen(f"http://{HOST}:{port}/static/mqtt.min.js", timeout=10) as r:
            assert r.read(40).startswith(b'"use strict";var mqtt=')
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        broker.stop()
