"""Who may change the table: the table PIN, and requests that really come from this site.

A control request (a bet, a correction, a confirmation…) passes when

- it says who it is: the session was unlocked with the PIN (``/api/unlock``)
  and it carries the session's CSRF token in ``X-CSRF-Token``, or it carries
  the PIN itself in ``X-Table-PIN`` (scripts, ``curl``);
- it is JSON (a cross-site HTML form cannot send ``application/json`` without
  a CORS preflight, which this server never grants);
- its ``Origin`` (or ``Referer``), when the browser sends one, is this host.

The session cookie is ``SameSite=Strict`` and ``HttpOnly``. Wrong PINs are
throttled: after :data:`MAX_TRIES` in a row, every try is refused for
:data:`LOCKOUT_S` seconds (a 4-digit PIN must not be guessable by a script).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from table.errors import InvalidInput

MAX_TRIES = 5
LOCKOUT_S = 30.0
UNLOCK_S = 12 * 3600.0
"""How long the table display stays unlocked (a playing session)."""


class BadPin(InvalidInput):
    """A table PIN that is not digits (the configuration's ``table.pin``)."""


@dataclass(frozen=True)
class Refusal:
    """Why a control request was refused: the HTTP status and the key of the text to show."""

    status: int
    key: str
    seconds: int = 0


class PinGuard:
    """Checks the table PIN, in constant time, with a lockout after repeated wrong tries.

    >>> g = PinGuard("1234", clock=lambda: 0.0)
    >>> g.check("0000"), g.check("1234")
    (Refusal(status=403, key='pin_wrong', seconds=0), None)
    """

    def __init__(self, pin: str, *, clock: Callable[[], float] = time.monotonic,
                 max_tries: int = MAX_TRIES, lockout_s: float = LOCKOUT_S) -> None:
        if not pin or not pin.isdigit():
            raise BadPin(f"the table PIN must be digits (e.g. 4 of them), not {pin!r}")
        self._pin = pin.encode()
        self._clock = clock
        self._max = max_tries
        self._lockout = lockout_s
        self._wrong = 0
        self._until = 0.0
        self._lock = threading.Lock()

    def check(self, pin: object) -> Refusal | None:
        """None when ``pin`` is the table's; else why not (wrong, or locked out for a while)."""
        with self._lock:
            now = self._clock()
            if now < self._until:
                return Refusal(429, "pin_throttled", int(self._until - now) + 1)
            given = pin.encode() if isinstance(pin, str) else b""
            if hmac.compare_digest(given, self._pin):
                self._wrong = 0
                return None
            self._wrong += 1
            if self._wrong >= self._max:
                self._wrong = 0
                self._until = now + self._lockout
            return Refusal(403, "pin_wrong")


def new_token() -> str:
    return secrets.token_urlsafe(24)


def same_origin(origin: str | None, referer: str | None, host: str) -> bool:
    """True unless the browser says the request comes from another site.

    >>> same_origin("http://mesa.local:8000", None, "mesa.local:8000")
    True
    >>> same_origin("https://evil.example", None, "mesa.local:8000")
    False
    >>> same_origin(None, None, "mesa.local:8000")
    True
    """
    source = origin if origin and origin != "null" else referer
    if origin == "null":
        return False
    if not source:
        return True
    return urlsplit(source).netloc.lower() == host.lower()


def tokens_match(a: object, b: object) -> bool:
    return isinstance(a, str) and isinstance(b, str) and bool(a) and hmac.compare_digest(a, b)
