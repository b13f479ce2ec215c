"""firmware.clock: when a phone's time may set the table's clock, and the real setter's commands.

The rules run against :class:`FakeClock`; :class:`SystemClock` against a stand-in for
``subprocess.run`` that records each command and answers as timedatectl would.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.clock import (
    LATEST,
    MAX_STEP_S,
    MIN_STEP_S,
    NTP_OFF,
    NTP_ON,
    RELEASE_FLOOR,
    ClockError,
    ClockOutcome,
    FakeClock,
    PhoneClock,
    SystemClock,
    journal_floor,
    newest_entry_time,
)
from firmware.journal import Journal
from table.errors import InvalidInput

DAY = 86400.0
BOOT = RELEASE_FLOOR + 30 * DAY
"""Where a Pi 4 without network starts: the last time it saved."""


class Ticker:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_a_phone_ahead_of_an_unsynchronised_clock_sets_it() -> None:
    fake = FakeClock(BOOT)
    phone = PhoneClock(fake, floor=BOOT - DAY)
    answer = phone.offer(BOOT + 3 * DAY)
    assert answer.ok and answer.outcome is ClockOutcome.SET
    assert fake.sets == [BOOT + 3 * DAY] and fake.now() == BOOT + 3 * DAY
    assert answer.to_json()["was"] == answer.to_json()["was"][:19] + "+00:00"
    assert phone.set_at == BOOT + 3 * DAY and not phone.wanted()


def test_a_synchronised_clock_is_never_set() -> None:
    fake = FakeClock(BOOT, synced=True)
    phone = PhoneClock(fake)
    assert phone.offer(BOOT + DAY, trusted=True).outcome is ClockOutcome.SYNCHRONISED
    assert fake.sets == [] and not phone.wanted()


def test_the_clock_never_goes_back_nor_moves_by_seconds() -> None:
    fake = FakeClock(BOOT)
    phone = PhoneClock(fake)
    for t in (BOOT - DAY, BOOT, BOOT + MIN_STEP_S):
        assert phone.offer(t, trusted=True).outcome is ClockOutcome.NOT_AHEAD
    assert fake.sets == []


@pytest.mark.parametrize("t", [float("nan"), float("inf"), 0.0, RELEASE_FLOOR - DAY, LATEST, 1e15])
def test_a_time_no_table_can_be_at_is_refused(t: float) -> None:
    fake = FakeClock(BOOT)
    assert PhoneClock(fake).offer(t, trusted=True).outcome is ClockOutcome.ABSURD
    assert fake.sets == []


def test_a_phone_behind_the_newest_journal_entry_is_refused() -> None:
    """After a power cut a Pi 4 restarts at its last hourly save, before the last hands: the clock
    is clearly behind, but a phone that is behind those hands too is wrong."""
    newest = BOOT + 2 * 3600
    fake = FakeClock(BOOT)
    phone = PhoneClock(fake, floor=newest)
    assert phone.offer(newest - 600).outcome is ClockOutcome.ABSURD
    assert phone.offer(newest + 600).outcome is ClockOutcome.SET


def test_without_the_pin_a_phone_may_not_jump_further_than_a_year_and_a_bit() -> None:
    fake = FakeClock(BOOT)
    phone = PhoneClock(fake)
    assert phone.offer(BOOT + MAX_STEP_S + DAY).outcome is ClockOutcome.ABSURD
    assert fake.sets == []
    assert phone.offer(BOOT + MAX_STEP_S + DAY, trusted=True).outcome is ClockOutcome.SET


def test_only_the_first_phone_sets_it_unless_the_pin_says_otherwise() -> None:
    fake = FakeClock(BOOT)
    phone = PhoneClock(fake)
    assert phone.offer(BOOT + DAY).ok
    assert phone.offer(BOOT + 2 * DAY).outcome is ClockOutcome.ALREADY_SET
    assert phone.offer(BOOT + 2 * DAY, trusted=True).ok
    assert fake.sets == [BOOT + DAY, BOOT + 2 * DAY]


def test_a_failed_command_says_why_and_leaves_the_next_phone_its_turn() -> None:
    fake = FakeClock(BOOT, fail="timedatectl set-time: Access denied")
    phone = PhoneClock(fake)
    answer = phone.offer(BOOT + DAY)
    assert answer.outcome is ClockOutcome.FAILED and answer.why == "timedatectl set-time: Access denied"
    assert phone.set_at is None and phone.wanted()
    fake.fail = ""
    assert phone.offer(BOOT + DAY).ok


def test_off_means_off() -> None:
    fake = FakeClock(BOOT)
    phone = PhoneClock(fake, enabled=False)
    assert phone.offer(BOOT + DAY, trusted=True).outcome is ClockOutcome.OFF
    assert not phone.wanted() and fake.sets == []


def test_whether_it_is_synchronised_is_asked_at_most_every_few_seconds_and_kept_once_true() -> None:
    fake = FakeClock(BOOT)
    tick = Ticker()
    phone = PhoneClock(fake, monotonic=tick)
    for _ in range(5):
        phone.wanted()
    assert fake.asked == 1
    tick.t = 11.0
    fake.synced = True
    assert not phone.wanted() and fake.asked == 2
    tick.t = 100.0
    fake.synced = False
    assert not phone.wanted() and fake.asked == 2  # network time, once it has the clock, keeps it


@settings(max_examples=60, deadline=None)
@given(now=st.floats(RELEASE_FLOOR - 5 * 365 * DAY, LATEST),
       ahead=st.floats(-2 * MAX_STEP_S, 2 * MAX_STEP_S) | st.floats(allow_nan=True, allow_infinity=True),
       synced=st.sampled_from([True, False, None]), trusted=st.booleans())
def test_whatever_a_phone_sends_the_clock_only_moves_forward_and_never_when_synchronised(
        now: float, ahead: float, synced: bool | None, trusted: bool) -> None:
    phone = now + ahead
    fake = FakeClock(now, synced=synced)
    answer = PhoneClock(fake).offer(phone, trusted=trusted)
    if answer.ok:
        assert synced is not True and fake.now() > now + MIN_STEP_S and RELEASE_FLOOR <= fake.now() < LATEST
    else:
        assert fake.sets == [] and fake.now() == now


# -- the real setter's commands ---------------------------------------------------------------


class Timedatectl:
    """Answers the commands as timedatectl would, and records them."""

    def __init__(self, *, ntp: str = "yes", synced: str = "no", set_fails: bool = False,
                 missing: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.ntp, self.synced, self.set_fails, self.missing = ntp, synced, set_fails, missing

    def __call__(self, argv: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        assert kw["timeout"] > 0 and kw["capture_output"] and kw["text"]
        self.calls.append(argv)
        if self.missing:
            raise FileNotFoundError(argv[0])
        out, rc, err = "", 0, ""
        if argv[1:] == ["show", "-p", "NTPSynchronized", "--value"]:
            out = self.synced + "\n"
        elif argv[1:] == ["show", "-p", "NTP", "--value"]:
            out = self.ntp + "\n"
        elif argv[1] == "set-time" and self.set_fails:
            rc, err = 1, "Failed to set time: Access denied\n"
        return subprocess.CompletedProcess(argv, rc, out, err)


def test_the_real_setter_pauses_network_time_around_set_time() -> None:
    run = Timedatectl()
    clock = SystemClock(run=run)
    clock.set(RELEASE_FLOOR + 0.75)
    assert run.calls == [["timedatectl", "show", "-p", "NTP", "--value"], list(NTP_OFF),
                         ["timedatectl", "set-time", f"@{int(RELEASE_FLOOR)}"], list(NTP_ON)]


def test_network_time_is_turned_on_again_even_when_the_set_fails_and_the_line_says_why() -> None:
    run = Timedatectl(set_fails=True)
    with pytest.raises(ClockError, match="^timedatectl set-time @\\d+: Failed to set time: Access denied$"):
        SystemClock(run=run).set(RELEASE_FLOOR)
    assert run.calls[-1] == list(NTP_ON)


def test_network_time_that_was_off_stays_off_and_other_commands_are_run_as_configured() -> None:
    run = Timedatectl(ntp="no")
    SystemClock("sudo -n date -s @{seconds}", run=run).set(RELEASE_FLOOR)
    assert run.calls[1:] == [["sudo", "-n", "date", "-s", f"@{int(RELEASE_FLOOR)}"]]
    run = Timedatectl()
    SystemClock(pause_ntp=False, run=run).set(RELEASE_FLOOR)
    assert [c[1] for c in run.calls] == ["set-time"]


def test_the_real_setter_reads_whether_it_is_synchronised() -> None:
    assert SystemClock(run=Timedatectl(synced="yes")).synchronised() is True
    assert SystemClock(run=Timedatectl(synced="no")).synchronised() is False
    assert SystemClock(run=Timedatectl(missing=True)).synchronised() is None
    assert SystemClock(status_command="", run=Timedatectl()).synchronised() is None


def test_a_missing_command_is_one_line() -> None:
    with pytest.raises(ClockError, match="^timedatectl: no such command$"):
        SystemClock(run=Timedatectl(missing=True), pause_ntp=False).set(RELEASE_FLOOR)


@pytest.mark.parametrize(("command", "why"), [("", "empty"), ("timedatectl set-time now", "{seconds}"),
                                              ("date -s '@{seconds}", "quotation")])
def test_a_set_command_that_cannot_work_is_refused(command: str, why: str) -> None:
    with pytest.raises(InvalidInput, match=why):
        SystemClock(command)


def test_the_floor_is_the_newest_journal_entry(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    assert newest_entry_time(path) is None and journal_floor(path) == RELEASE_FLOOR
    journal = Journal(path)
    assert newest_entry_time(path) is None
    journal.append(1, 1, "new_partida", {"kind": "new_partida", "mano": 0})
    journal.append(2, 1, "word", {"kind": "say"})
    at = journal.entries()[-1][3]
    from datetime import datetime

    assert newest_entry_time(path) == datetime.fromisoformat(at).timestamp()
    assert journal_floor(path) == max(RELEASE_FLOOR, datetime.fromisoformat(at).timestamp())
    journal.close()
    (tmp_path / "not.sqlite").write_text("not a journal")
    assert newest_entry_time(tmp_path / "not.sqlite") is None
    assert newest_entry_time(":memory:") is None


def test_mus_table_run_gives_the_display_a_clock_floored_at_its_journal(tmp_path: Path) -> None:
    from firmware.commands.run import phone_clock
    from firmware.config import parse_config

    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    journal.append(1, 1, "new_partida", {"kind": "new_partida", "mano": 0})
    journal.close()
    clock = phone_clock(parse_config(f"[table]\njournal = '{path}'"))
    assert isinstance(clock, PhoneClock) and isinstance(clock.setter, SystemClock)
    assert clock.floor == journal_floor(path) and clock.enabled
    assert phone_clock(parse_config("[clock]\nfrom_phone = false")) is None
