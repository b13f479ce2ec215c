"""Who may change the table: the table PIN, sessions the server can revoke, this site's requests.

A control request (a bet, a correction, a confirmation, «Bloquear»…) passes when

- it says who it is: the session was unlocked with the PIN (``/api/unlock``),
  the server still holds that session (:class:`Sessions`: «Bloquear» revokes
  it on the server, so a copy of the cookie is worth nothing afterwards), and
  it carries the session's CSRF token in ``X-CSRF-Token``; or it carries the
  PIN itself in ``X-Table-PIN`` (scripts, ``curl``);
- it is JSON (a cross-site HTML form cannot send ``application/json`` without
  a CORS preflight, which this server never grants);
- its ``Origin`` (or ``Referer``), when the browser sends one, is this host;
- its ``Host`` is one of the table's own names (:class:`HostNames`), so a
  page of another site cannot reach the table by DNS rebinding.

Wrong PINs are throttled per client address (:class:`PinGuard`), with a wait
that doubles at each wrong try past the first few: a script guessing from one
address slows only itself, and the table's own kiosk (loopback) is never
throttled, so no one on the Wi-Fi can lock the players out.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from table.errors import InvalidInput

UNLOCK_S = 12 * 3600.0
"""How long an unlocked display stays unlocked (a playing session)."""
PIN_DIGITS = 6
"""The length of a PIN the table makes itself (at install, for the demo)."""
KIOSK_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
"""The table's own screen: Chromium on the Pi itself, on loopback (other 127.x are not it)."""


class BadPin(InvalidInput):
    """A table PIN that is not 4 to 12 digits (the configuration's ``table.pin``, a new PIN)."""


def check_pin_format(pin: object) -> str:
    """``pin`` if it is 4 to 12 digits; else :class:`BadPin`.

    >>> check_pin_format("482915")
    '482915'
    """
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit() or not 4 <= len(pin) <= 12:
        raise BadPin(f"the table PIN must be 4 to 12 digits, not {pin!r}")
    return pin


def random_pin(digits: int = PIN_DIGITS) -> str:
    """A PIN drawn by the system's cryptographic random source.

    >>> len(random_pin()), random_pin().isdigit()
    (6, True)
    """
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def is_kiosk(address: str | None) -> bool:
    """True for the table's own screen (loopback 127.0.0.1 or ::1)."""
    return address in KIOSK_ADDRESSES


@dataclass(frozen=True)
class Refusal:
    """Why a control request was refused: the HTTP status and the key of the text to show."""

    status: int
    key: str
    seconds: int = 0


@dataclass(frozen=True)
class ThrottleSettings:
    """How wrong PINs slow down the address that sends them."""

    free_tries: int = 3
    """Wrong tries an address has before it must wait (a player mistypes)."""
    first_wait_s: float = 2.0
    """The wait after the first try past the free ones; it doubles at each further wrong try."""
    max_wait_s: float = 3600.0
    forget_s: float = 24 * 3600.0
    """An address that tried nothing for this long starts afresh."""
    max_addresses: int = 4096
    """Addresses remembered at most (the oldest is forgotten first)."""


@dataclass
class _Tries:
    wrong: int = 0
    until: float = 0.0
    last: float = 0.0


def client_key(address: str | None) -> str:
    """Whose tries these are: the address, or its /64 for IPv6 (one machine holds a whole /64).

    >>> client_key("192.168.1.20"), client_key("2001:db8::1:2:3:4")
    ('192.168.1.20', '2001:db8::/64')
    """
    if not address:
        return "?"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class PinGuard:
    """Checks the table PIN in constant time; wrong tries make their own address wait longer.

    >>> g = PinGuard("123456", clock=lambda: 0.0)
    >>> g.check("000000", "10.0.0.9"), g.check("123456", "10.0.0.9")
    (Refusal(status=403, key='pin_wrong', seconds=0), None)
    """

    def __init__(self, pin: str, *, clock: Callable[[], float] = time.monotonic,
                 settings: ThrottleSettings = ThrottleSettings()) -> None:
        self._pin = check_pin_format(pin).encode()
        self._clock = clock
        self.settings = settings
        self._tries: OrderedDict[str, _Tries] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def pin(self) -> str:
        return self._pin.decode()

    def change(self, pin: str) -> None:
        """Use ``pin`` from now on (:class:`BadPin` unless 4 to 12 digits); the waits are kept."""
        new = check_pin_format(pin).encode()
        with self._lock:
            self._pin = new

    def waiting(self, address: str | None) -> int:
        """Seconds ``address`` must still wait before its next try (0: it may try)."""
        if is_kiosk(address):
            return 0
        with self._lock:
            t = self._tries.get(client_key(address))
            now = self._clock()
            return int(t.until - now) + 1 if t is not None and now < t.until else 0

    def check(self, pin: object, address: str | None = None) -> Refusal | None:
        """None when ``pin`` is the table's; else why not (wrong, or this address must wait)."""
        kiosk = is_kiosk(address)
        key = client_key(address)
        s = self.settings
        with self._lock:
            now = self._clock()
            t = self._tries.get(key)
            if t is not None and now - t.last > s.forget_s:
                del self._tries[key]
                t = None
            if not kiosk and t is not None and now < t.until:
                return Refusal(429, "pin_throttled", int(t.until - now) + 1)
            given = pin.encode() if isinstance(pin, str) else b""
            if hmac.compare_digest(given, self._pin):
                self._tries.pop(key, None)
                return None
            if kiosk:
                return Refusal(403, "pin_wrong")
            if t is None:
                t = self._tries[key] = _Tries()
                while len(self._tries) > s.max_addresses:
                    self._tries.popitem(last=False)
            self._tries.move_to_end(key)
            t.wrong += 1
            t.last = now
            past = t.wrong - s.free_tries
            if past > 0:
                t.until = now + min(s.max_wait_s, s.first_wait_s * 2 ** min(past - 1, 30))
            return Refusal(403, "pin_wrong")


class Sessions:
    """The unlocked sessions the server knows: a session cookie is worth only what is listed here.

    >>> s = Sessions(clock=lambda: 0.0)
    >>> sid = s.open()
    >>> s.alive(sid), s.alive("forged")
    (True, False)
    >>> s.revoke(sid); s.alive(sid)
    False
    """

    def __init__(self, *, ttl_s: float = UNLOCK_S, clock: Callable[[], float] = time.monotonic,
                 max_sessions: int = 256) -> None:
        self._ttl = ttl_s
        self._clock = clock
        self._max = max_sessions
        self._until: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def open(self) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._until[sid] = self._clock() + self._ttl
            while len(self._until) > self._max:
                self._until.popitem(last=False)
        return sid

    def alive(self, sid: object) -> bool:
        if not isinstance(sid, str) or not sid:
            return False
        with self._lock:
            until = self._until.get(sid)
            if until is None:
                return False
            if self._clock() >= until:
                del self._until[sid]
                return False
            return True

    def revoke(self, sid: object) -> None:
        with self._lock:
            self._until.pop(sid, None)  # type: ignore[arg-type]

    def revoke_all(self, keep: object = None) -> None:
        """Revoke every session but ``keep`` (after the PIN changes)."""
        with self._lock:
            for sid in [x for x in self._until if x != keep]:
                del self._until[sid]


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


def split_host(host: str) -> str:
    """The name or address of a ``Host`` header, without its port or brackets, lower case.

    >>> split_host("Mesa.local:8000"), split_host("[::1]:8000"), split_host("10.0.0.5")
    ('mesa.local', '::1', '10.0.0.5')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    name, _, port = host.rpartition(":")
    return name if name and port.isdigit() else host


@lru_cache(maxsize=64)
def _is_local_address(ip: str) -> bool:
    """True when this machine has the address ``ip`` (it can bind a socket to it)."""
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.bind((ip, 0))
    except OSError:
        return False
    return True


class HostNames:
    """The names the table answers to: localhost, its host name and mDNS name, its addresses.

    >>> h = HostNames(["mus-table"])
    >>> h.allowed("mus-table.local:8000"), h.allowed("localhost"), h.allowed("127.0.0.1:8000")
    (True, True, True)
    >>> h.allowed("evil.example"), h.allowed("")
    (False, False)
    """

    def __init__(self, names: Iterable[str] = ()) -> None:
        base = {"localhost", socket.gethostname()}
        self.names = frozenset(
            x for n in (*base, *names) if n for x in (n.lower(), n.lower().removesuffix(".local") + ".local"))

    def allowed(self, host: str | None) -> bool:
        if not host:
            return False
        name = split_host(host)
        if name in self.names or name.endswith(".localhost"):
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return _is_local_address(name)


class QuietLog:
    """A log that says each kind of refusal at most once every ``every_s`` seconds, with how many
    it kept quiet since: one line per bad request, but an attacker cannot fill the SD card.

    >>> import logging; now = [0.0]
    >>> q = QuietLog(logging.getLogger("doctest"), every_s=10, clock=lambda: now[0])
    >>> q.warning("body_deep", "refused %s", "x"), q.warning("body_deep", "refused %s", "y")
    (True, False)
    >>> now[0] = 11.0; q.quiet("body_deep"), q.warning("body_deep", "refused %s", "z"), q.quiet("body_deep")
    (1, True, 0)
    """

    def __init__(self, logger: Any, *, every_s: float = 10.0, clock: Callable[[], float] = time.monotonic,
                 max_kinds: int = 64) -> None:
        self._log = logger
        self._every = every_s
        self._clock = clock
        self._max = max_kinds
        self._last: dict[str, float] = {}
        self._quiet: dict[str, int] = {}
        self._lock = threading.Lock()

    def quiet(self, kind: str) -> int:
        with self._lock:
            return self._quiet.get(kind, 0)

    def warning(self, kind: str, msg: str, *args: Any) -> bool:
        """Log ``msg % args`` unless ``kind`` was logged less than ``every_s`` ago; True if logged."""
        with self._lock:
            now = self._clock()
            last = self._last.get(kind)
            if last is not None and now - last < self._every:
                self._quiet[kind] = self._quiet.get(kind, 0) + 1
                return False
            if last is None and len(self._last) >= self._max:
                kind = "other"
            self._last[kind] = now
            quiet = self._quiet.pop(kind, 0)
        if quiet:
            self._log.warning(msg + " (and %d more like it)", *args, quiet)
        else:
            self._log.warning(msg, *args)
        return True
