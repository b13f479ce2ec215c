"""The table's clock without a network: the time taken from a phone, only when that is safe.

A Pi 4 (or a Pi 5 without its RTC battery) that boots with no network starts
from the last time it saved (fake-hwclock, or systemd-timesyncd's mark): the
journal's entries and the partida's «started» are then dated hours or months
back. The table display and ``/watch`` send the phone's time once
(``POST /api/clock``, docs/api.md); :class:`PhoneClock` decides whether to
believe it and moves the clock through a :class:`ClockSetter`:

- never while network time has synchronised the clock;
- only forward, by more than :data:`MIN_STEP_S` (the page of the Pi's own
  kiosk sends the Pi's own time: nothing moves);
- never to before the floor (the newest journal entry, or this release:
  :data:`RELEASE_FLOOR`), never past :data:`LATEST`, and without the table PIN
  not more than :data:`MAX_STEP_S` past what the table knows;
- without the PIN once per run: the first phone sets it, later ones are told
  so (with the PIN another may correct it, still only forward).

:class:`SystemClock` is the real setter (``timedatectl``, as ``[clock]`` of
the configuration says); :class:`FakeClock` stands in for it in tests.

>>> fake = FakeClock(RELEASE_FLOOR + 3600)
>>> phone = PhoneClock(fake, floor=RELEASE_FLOOR)
>>> phone.offer(RELEASE_FLOOR + 86400).outcome, fake.now() == RELEASE_FLOOR + 86400
(<ClockOutcome.SET: 'set'>, True)
>>> phone.offer(RELEASE_FLOOR + 2 * 86400).outcome
<ClockOutcome.ALREADY_SET: 'already_set'>
"""

from __future__ import annotations

import logging
import math
import shlex
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from table.errors import InvalidInput

log = logging.getLogger(__name__)

RELEASE_FLOOR = datetime(2026, 11, 1, tzinfo=UTC).timestamp()
"""No table runs before this release was made: a phone earlier than it is wrong."""
LATEST = datetime(2100, 1, 1, tzinfo=UTC).timestamp()
"""A phone later than this is wrong whatever the table knows."""
MIN_STEP_S = 60.0
"""The phone must be this far ahead of the table: a few seconds' difference is no reason to move a clock."""
MAX_STEP_S = 400 * 86400.0
"""Without the PIN, the phone may not be further than this past what the table knows (a table left in a
cupboard for a year still gets its time; a phone set to 2099 does not)."""
SYNC_CACHE_S = 10.0
"""How long an «is it synchronised?» answer is reused (each page of each phone asks)."""
COMMAND_TIMEOUT_S = 15.0

SET_COMMAND = "timedatectl set-time @{seconds}"
STATUS_COMMAND = "timedatectl show -p NTPSynchronized --value"
NTP_STATE = ("timedatectl", "show", "-p", "NTP", "--value")
NTP_OFF = ("timedatectl", "set-ntp", "false")
NTP_ON = ("timedatectl", "set-ntp", "true")


class ClockError(OSError):
    """The clock could not be set (the command failed, or is not there); one line saying why."""


class ClockOutcome(StrEnum):
    """What became of a phone's time."""

    SET = "set"
    OFF = "off"
    """This table does not take the time from phones (``[clock] from_phone = false``)."""
    SYNCHRONISED = "synchronised"
    """Network time keeps the clock: a phone never overrides it."""
    NOT_AHEAD = "not_ahead"
    """The phone's time is not ahead of the table's by more than :data:`MIN_STEP_S`: the clock never goes back."""
    ABSURD = "absurd"
    """Not a time, before the newest journal entry or this release, or too far ahead."""
    ALREADY_SET = "already_set"
    """A phone already set the clock in this run; another may only with the table PIN."""
    FAILED = "failed"


@dataclass(frozen=True)
class ClockAnswer:
    """A phone's time and what the table did with it."""

    outcome: ClockOutcome
    was: float
    """The table's time when the phone's arrived (Unix seconds)."""
    phone: float
    why: str = ""
    """For :attr:`ClockOutcome.FAILED`: the command's own line."""

    @property
    def ok(self) -> bool:
        return self.outcome is ClockOutcome.SET

    def to_json(self) -> dict[str, Any]:
        return {"outcome": str(self.outcome), "was": iso(self.was),
                "phone": iso(self.phone) if math.isfinite(self.phone) else None, "why": self.why}


def iso(seconds: float) -> str | None:
    """Unix seconds as ISO 8601 in UTC (None for a time no calendar holds)."""
    try:
        return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None


class ClockSetter(Protocol):
    """The system clock as the table sees it: read, ask whether network time keeps it, set."""

    def now(self) -> float: ...

    def synchronised(self) -> bool | None:
        """True when network time has synchronised the clock; None when that cannot be told."""
        ...

    def set(self, seconds: float) -> None:
        """Set the clock to ``seconds`` (Unix time); :class:`ClockError` if it could not."""
        ...


Runner = Callable[..., "subprocess.CompletedProcess[str]"]


class SystemClock:
    """The real clock: ``status_command`` says whether it is synchronised, ``set_command`` sets it.

    ``set_command``'s ``{seconds}`` becomes the whole Unix time (``@{seconds}`` is how both
    ``timedatectl set-time`` and ``date -s`` take one). systemd's timedated refuses
    ``set-time`` while its network time service is on, even when that has never reached a
    server; with ``pause_ntp`` it is turned off for the set and on again after, whatever
    the set did (only where it was on). No shell runs: the commands are split into words.
    """

    def __init__(self, set_command: str = SET_COMMAND, status_command: str = STATUS_COMMAND, *,
                 pause_ntp: bool = True, run: Runner = subprocess.run,
                 now: Callable[[], float] = time.time) -> None:
        self._set = command_words(set_command, "set_command", needs_seconds=True)
        self._status = command_words(status_command, "status_command") if status_command.strip() else ()
        self._pause = pause_ntp
        self._run = run
        self._now = now

    def now(self) -> float:
        return self._now()

    def synchronised(self) -> bool | None:
        if not self._status:
            return None
        try:
            out = self._call(self._status).strip().lower()
        except ClockError as exc:
            log.info("clock: cannot tell whether it is synchronised: %s", exc)
            return None
        return {"yes": True, "no": False}.get(out)

    def set(self, seconds: float) -> None:
        words = [w.replace("{seconds}", str(int(seconds))) for w in self._set]
        paused = False
        if self._pause:
            try:
                paused = self._call(NTP_STATE).strip().lower() == "yes"
            except ClockError:
                paused = False
            if paused:
                self._call(NTP_OFF)
        try:
            self._call(words)
        finally:
            if paused:
                try:
                    self._call(NTP_ON)
                except ClockError as exc:
                    log.warning("clock: network time not turned on again: %s", exc)

    def _call(self, words: Sequence[str]) -> str:
        try:
            done = self._run(list(words), capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S,
                             check=False)
        except FileNotFoundError:
            raise ClockError(f"{words[0]}: no such command") from None
        except subprocess.TimeoutExpired:
            raise ClockError(f"{words[0]}: no answer in {COMMAND_TIMEOUT_S:.0f} s") from None
        except OSError as exc:
            raise ClockError(f"{words[0]}: {exc.strerror}") from None
        if done.returncode != 0:
            lines = (done.stderr or done.stdout or "").strip().splitlines()
            raise ClockError(f"{' '.join(words)}: {lines[-1] if lines else f'exit {done.returncode}'}")
        return done.stdout or ""


def command_words(command: str, name: str, *, needs_seconds: bool = False) -> tuple[str, ...]:
    """A configured command line as its words; one-line :class:`InvalidInput` when it is not one."""
    try:
        words = tuple(shlex.split(command))
    except ValueError as exc:
        raise InvalidInput(f"config: clock.{name}: {exc}") from None
    if not words:
        raise InvalidInput(f"config: clock.{name} is empty")
    if needs_seconds and not any("{seconds}" in w for w in words):
        raise InvalidInput(f"config: clock.{name} must say where the time goes ({{seconds}}): {command!r}")
    return words


class FakeClock:
    """A clock for tests: it reads ``t``, says ``synced``, and records each set (or fails with ``fail``)."""

    def __init__(self, t: float, *, synced: bool | None = False, fail: str = "") -> None:
        self.t = t
        self.synced = synced
        self.fail = fail
        self.sets: list[float] = []
        self.asked = 0

    def now(self) -> float:
        return self.t

    def synchronised(self) -> bool | None:
        self.asked += 1
        return self.synced

    def set(self, seconds: float) -> None:
        if self.fail:
            raise ClockError(self.fail)
        self.sets.append(seconds)
        self.t = seconds


class PhoneClock:
    """Decides whether a phone's time may set the table's clock (the rules in the module's text).

    ``floor``: no time before it is believed (:func:`journal_floor`). ``monotonic``: for the
    cache of «synchronised?» answers (tests pass their own). Thread-safe: two phones at once
    are taken one after the other, and only the first sets the clock.
    """

    def __init__(self, setter: ClockSetter, *, floor: float = RELEASE_FLOOR, enabled: bool = True,
                 min_step_s: float = MIN_STEP_S, max_step_s: float = MAX_STEP_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.setter = setter
        self.floor = max(floor, RELEASE_FLOOR)
        self.enabled = enabled
        self._min = min_step_s
        self._max = max_step_s
        self._mono = monotonic
        self._lock = threading.Lock()
        self._synced: bool | None = None
        self._asked_at = -math.inf
        self.set_at: float | None = None
        """The time a phone set, when one did in this run."""

    def _synchronised(self) -> bool | None:
        if self._synced is True:  # once network time has it, it keeps it
            return True
        if self._mono() - self._asked_at >= SYNC_CACHE_S:
            self._synced = self.setter.synchronised()
            self._asked_at = self._mono()
        return self._synced

    def wanted(self) -> bool:
        """Whether the pages should send their phone's time (saves a request where it is of no use)."""
        with self._lock:
            return self.enabled and self.set_at is None and self._synchronised() is not True

    def status(self) -> dict[str, Any]:
        """What ``GET /api/clock`` answers: the table's time and whether a phone may set it."""
        with self._lock:
            synced = self._synchronised()
            return {"now": iso(self.setter.now()), "synchronised": synced, "from_phone": self.enabled,
                    "wanted": self.enabled and self.set_at is None and synced is not True,
                    "floor": iso(self.floor), "set_by_phone": iso(self.set_at) if self.set_at else None}

    def offer(self, phone: float, *, trusted: bool = False) -> ClockAnswer:
        """Take ``phone`` (Unix seconds) if the rules allow; ``trusted``: the request had the table PIN."""
        with self._lock:
            now = self.setter.now()

            def answer(outcome: ClockOutcome, why: str = "") -> ClockAnswer:
                return ClockAnswer(outcome, now, phone, why)

            if not self.enabled:
                return answer(ClockOutcome.OFF)
            if not math.isfinite(phone) or not RELEASE_FLOOR <= phone < LATEST:
                return answer(ClockOutcome.ABSURD)
            if self.set_at is not None and not trusted:
                return answer(ClockOutcome.ALREADY_SET)
            if self._synchronised() is True:
                return answer(ClockOutcome.SYNCHRONISED)
            if phone < self.floor:
                return answer(ClockOutcome.ABSURD)
            if phone - now <= self._min:
                return answer(ClockOutcome.NOT_AHEAD)
            if not trusted and phone - max(now, self.floor) > self._max:
                return answer(ClockOutcome.ABSURD)
            try:
                self.setter.set(phone)
            except ClockError as exc:
                log.warning("clock: a phone's time (%s) not set: %s", iso(phone), exc)
                return answer(ClockOutcome.FAILED, str(exc))
            self.set_at = phone
            self._synced = None
            self._asked_at = -math.inf
            log.warning("clock: moved forward from %s to %s by a phone's time%s", iso(now), iso(phone),
                        " (with the PIN)" if trusted else "")
            return answer(ClockOutcome.SET)


def newest_entry_time(path: str | Path) -> float | None:
    """When the newest entry of the journal at ``path`` was written (None: no journal, no entry)."""
    p = Path(path)
    if str(path) in (":memory:", ":none:") or not p.is_file():
        return None
    try:
        db = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT at FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    if not row:
        return None
    try:
        return datetime.fromisoformat(str(row[0])).timestamp()
    except ValueError:
        return None


def journal_floor(path: str | Path) -> float:
    """The earliest time the table may be at: its newest journal entry, or this release."""
    newest = newest_entry_time(path)
    return max(RELEASE_FLOOR, newest) if newest is not None else RELEASE_FLOOR
