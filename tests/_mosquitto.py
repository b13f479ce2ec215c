"""A Mosquitto broker of a test's own, on a free port of the loopback, that the test may stop and
start again (the shared one at 127.0.0.1:1883 must not be restarted)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

PROGRAM = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
HOST = "127.0.0.1"

needs_mosquitto = pytest.mark.skipif(PROGRAM is None, reason="no mosquitto program to start a broker of the test's own")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """``start()``/``stop()`` a broker on ``port`` (and a WebSockets listener on ``ws_port``)."""

    def __init__(self, folder: Path, *, ws_port: int | None = None, acl: str | None = None,
                 users: dict[str, str] | None = None) -> None:
        assert PROGRAM is not None
        self.port = free_port()
        self.ws_port = ws_port
        lines = [f"listener {self.port} {HOST}", "allow_anonymous true", "persistence false",
                 "max_queued_messages 100000"]
        if os.geteuid() == 0:  # else it drops to the «mosquitto» user, who cannot read the test's folder
            lines.append("user root")
        if ws_port is not None:
            lines += [f"listener {ws_port} {HOST}", "protocol websockets"]
        if acl is not None:
            (folder / "acl").write_text(acl)
            lines.append(f"acl_file {folder / 'acl'}")
        if users:
            passwd = folder / "passwd"
            for i, (user, password) in enumerate(users.items()):
                subprocess.run([shutil.which("mosquitto_passwd") or "mosquitto_passwd", *(["-c"] if i == 0 else []),
                                "-b", str(passwd), user, password], check=True, capture_output=True)
            lines.append(f"password_file {passwd}")
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Mosquitto:
        self.proc = subprocess.Popen([str(PROGRAM), "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        for _ in range(200):
            try:
                socket.create_connection((HOST, self.port), timeout=0.5).close()
                return self
            except OSError:
                if self.proc.poll() is not None:
                    err = self.proc.stderr.read() if self.proc.stderr else b""
                    raise AssertionError(f"mosquitto did not start: {err!r}") from None
                try:
                    self.proc.wait(timeout=0.05)
                except subprocess.TimeoutExpired:
                    pass
        raise AssertionError("mosquitto did not listen")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None
