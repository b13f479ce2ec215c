"""systemd's notify protocol, as small as it is: ``READY=1`` once, ``WATCHDOG=1`` while alive.

The service (``hardware/pi/mus-table.service``) is ``Type=notify`` with
``WatchdogSec=``: systemd waits for ``READY=1`` and then kills and restarts a
table whose loop has not said ``WATCHDOG=1`` within the period. The table
loop's thread calls :meth:`Notifier.alive` at every frame; it sends at most
one datagram per quarter of the period. Outside systemd (no
``NOTIFY_SOCKET``) every call does nothing.

>>> n = Notifier(env={})
>>> n.enabled, n.ready(), n.alive()
(False, False, False)
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping


class Notifier:
    """Datagrams to ``$NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace)."""

    def __init__(self, env: Mapping[str, str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        self.enabled = bool(address)
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        period = int(usec) / 1e6 if usec.isdigit() and (not pid or pid == str(os.getpid())) else 0.0
        self.every = period / 4 if period > 0 else None
        """Seconds between two ``WATCHDOG=1`` (a quarter of systemd's period); None: no watchdog."""
        self._clock = clock
        self._last: float | None = None

    def send(self, message: str) -> bool:
        if not self.enabled:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.connect(self.address)
                s.sendall(message.encode())
            return True
        except OSError:
            return False

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def alive(self) -> bool:
        """``WATCHDOG=1``, unless one went less than :attr:`every` ago (or there is no watchdog)."""
        if self.every is None:
            return False
        now = self._clock()
        if self._last is not None and now - self._last < self.every:
            return False
        self._last = now
        return self.send("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")
