"""One table at work: the lock, the journal, the events, the camera's stills and the reader.

Everything people and the camera do reaches the table as one of a few inputs:
a command (:mod:`firmware.table_commands`: a word, a lance's outcome, a
correction, a confirmation, an undo...) or a reading of the cards. The game
itself — what a command does, whether the rules take it, who speaks, who
confirms — is :class:`table.game.Game`, a pure value: the loop asks it for the
next game (:meth:`~table.game.Game.apply`), journals the entry
(:mod:`firmware.journal`), keeps the new game and publishes one numbered event
carrying the whole state (:class:`firmware.state.TableState`). A command the
rules refuse raises :class:`~firmware.table_commands.CommandRefused` with its
code, its arguments and the reason in Spanish, and changes nothing. On a
restart the journal's entries go through the same ``apply``, so the table
resumes exactly where the partida was.

A command made on an older state than the one it would change (a double tap,
two phones at once) is refused too: :meth:`TableLoop.submit` takes the ``seq``
of the state the command was made on.

>>> from firmware.table_commands import LanceOutcome
>>> loop = TableLoop()
>>> loop.state().phase, loop.state().bets.lance
(<Phase.PLAYING: 'playing'>, <Lance.GRANDE: 'grande'>)
>>> loop.submit(LanceOutcome("grande", "querido", n=2, by=0))["bets"]["lance"]
'chica'
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from firmware.events import EventBus, EventKind, now_iso
from firmware.state import Fault, FaultKind, TableState
from firmware.table_commands import (
    CallJudge,
    Command,
    CommandRefused,
    Confirm,
    Declare,
    LanceOutcome,
    LearnCancel,
    LearnDeck,
    LearnFrame,
    LearnStart,
    NewPartida,
    Read,
    Say,
    Unsay,
    UseDeck,
)
from table.cards import Card
from table.entries import CardsRead, Change, entry_from_json
from table.errors import InvalidInput, Message, MusTableError, Refused
from table.game import ConfirmedHand, Game, PartidaLine, expected_stones, is_dentro
from table.hand import Phase, outcome_words, reading_problem
from table.match import Partida
from table.rules import Rules
from vision.mat import Mat
from vision.reading import Reading, TableReader
from web.strings import say

__all__ = ["ConfirmedHand", "Fault", "FaultKind", "JournalLike", "LoopSettings", "Phase", "Reader", "TableLoop",
           "expected_stones", "is_dentro", "learn_deck", "outcome_words", "reading_problem"]

Image = npt.NDArray[np.uint8]
log = logging.getLogger(__name__)

_EVENTS: dict[str, EventKind] = {
    "say": EventKind.BET, "unsay": EventKind.BET, "lance": EventKind.LANCE, "declare": EventKind.DECLARED,
    "correct": EventKind.CORRECTED, "confirm": EventKind.CONFIRMED, "undo_hand": EventKind.UNDONE,
    "new_partida": EventKind.NEW_PARTIDA, "reopen": EventKind.REOPENED, "cards": EventKind.READ,
}
"""The event each kind of entry publishes."""


@dataclass(frozen=True)
class LoopSettings:
    """What the loop needs from the configuration (:mod:`firmware.config` builds it)."""

    table: str = "mesa-1"
    rules: Rules = field(default_factory=Rules)
    juegos: int = 3
    """Juegos that win a vaca."""
    vacas: int = 1
    """Vacas that win the partida."""
    first_mano: int = 0
    piedras: tuple[int, int] = (0, 1)
    """The seat of each pair that keeps the piedras (its partner keeps the amarracos)."""
    panel_confirms: bool = True
    """Whether the panel's «confirmar» (no seat) may confirm a hand."""
    read_frames: int = 2
    """Stills read at most for one reading (a second only when the first is not sure of all 16)."""
    check_stones: bool = True

    def __post_init__(self) -> None:
        if not self.table or any(c in self.table for c in "/#+ "):
            raise InvalidInput(f"a table's name has no spaces, '/', '#' or '+': {self.table!r}")
        a, b = self.piedras
        if a not in (0, 2) or b not in (1, 3):
            raise InvalidInput(f"piedras: one seat of pair 0 (0 or 2) and one of pair 1 (1 or 3), "
                               f"not {list(self.piedras)}")
        if self.read_frames < 1:
            raise InvalidInput("read_frames must be at least 1")
        Partida(self.rules, self.first_mano, self.juegos, self.vacas)  # checks the format

    def new_partida(self, rules: Rules | None = None,
                    names: tuple[str, str, str, str] | None = None) -> NewPartida:
        """The journal entry that starts a partida with these rules (or the house rules agreed
        for it) and format, and the players' names where they were given."""
        return NewPartida(rules or self.rules, self.juegos, self.vacas, self.first_mano, names)


class Reader(Protocol):
    """What reads a frame (``vision.reading.TableReader``, or a fake in tests)."""

    def read(self, frame: Image) -> Reading: ...


class JournalLike(Protocol):
    def append(self, seq: int, partida: int, kind: str, body: dict[str, Any]) -> None: ...

    def entries(self) -> Sequence[tuple[int, int, str, str, dict[str, Any]]]: ...


_RECENT = 64
"""Entries remembered to name what a stale command missed («ya se anotó: ...»)."""


class TableLoop:
    """One table: its game, its journal and its events. Thread-safe."""

    def __init__(self, settings: LoopSettings | None = None, *, reader: Reader | None = None,
                 journal: JournalLike | None = None, bus: EventBus | None = None,
                 mat: Mat | None = None) -> None:
        self.settings = settings or LoopSettings()
        self.mat = mat or Mat()
        self.reader = reader
        self.journal = journal
        self._lock = threading.RLock()
        self._pending: list[tuple[int, int, str, dict[str, Any]]] = []
        self._faults: dict[FaultKind, Fault] = {}
        self._still: Callable[[], Image | None] | None = None
        self._frame: Image | None = None
        self._reading: Reading | None = None
        self._reading_now = False
        self._learning: dict[str, Any] | None = None
        self._learn_frames: dict[int, Image] = {}
        self.deck: str | None = None
        """The learnt deck the table reads with (the state's ``deck``; None: the card model alone)."""
        self._judge: dict[str, Any] | None = None
        self._recent: deque[tuple[int, str, dict[str, Any]]] = deque(maxlen=_RECENT)
        self._last_entry = 0
        self.game: Game | None = None
        last = 0
        if journal is not None:
            for seq, partida, kind, at, body in journal.entries():
                self.game = self._next(entry_from_json(kind, body), at, partida, replay=True)
                self._remember(seq, kind, body)
                last = seq
            reserved = getattr(journal, "reserved", None)
            last = max(last, reserved() if reserved is not None else 0)
        self._reserved = last
        self.bus = bus or EventBus(start=last)
        if journal is not None and bus is None and hasattr(journal, "reserve"):
            self._reserve(last)
            self.bus.subscribe(self._on_event)
        if self.game is None:
            self._commit(self.settings.new_partida())
        else:
            self.bus.publish(EventKind.STATE, self._state())

    # -------------------------------------------------------------------------------- public API

    def state(self) -> TableState:
        """The table's whole state, typed."""
        with self._lock:
            return self._state()

    def snapshot(self) -> dict[str, Any]:
        """The table's whole state as JSON (docs/events.md), as every event carries it."""
        with self._lock:
            return self._snapshot()

    @property
    def phase(self) -> Phase:
        with self._lock:
            return self._phase()

    @property
    def partida(self) -> Partida:
        """The partida in play (read it; the game changes only through :meth:`submit`)."""
        return self._game.partida

    @property
    def partida_id(self) -> int:
        return self._game.partida_id

    def submit(self, cmd: Command, seq: int | None = None) -> dict[str, Any]:
        """Apply a command; the new snapshot. :class:`CommandRefused` (nothing changed) if refused.

        ``seq``: the number of the state the command was made on (what the display
        last saw). A command made before the table's last change is refused, naming
        that change: a second tap on «Paso» never becomes the next player's word.
        None: the state now (the panel's buttons, a program driving the table).
        """
        if isinstance(cmd, Read):
            return self.read_now()
        with self._lock:
            if self._reading_now and not isinstance(cmd, Say | Unsay | LanceOutcome | Declare):
                raise CommandRefused("reading_now")
            if isinstance(cmd, CallJudge):
                return self._call_judge()
            if isinstance(cmd, LearnStart | LearnFrame | LearnDeck | LearnCancel):
                return self._learn(cmd)
            if isinstance(cmd, UseDeck):
                return self._use_deck(cmd.name)
            if self._learning is not None:
                raise CommandRefused("learning_now")
            self._check_fresh(seq)
            entry: Change = cmd
            if isinstance(cmd, NewPartida):
                entry = self.settings.new_partida(cmd.rules, cmd.names)
            elif isinstance(cmd, Confirm) and cmd.seat is None and not self.settings.panel_confirms:
                raise CommandRefused("panel_may_not_confirm")
            self._commit(entry)
            return self._snapshot()

    def _call_judge(self) -> dict[str, Any]:
        """«Llamar al juez»: a call numbered by its event (unique across restarts); no journal entry,
        the game does not change. The hub answers through :meth:`judge_answered`."""
        call = self.bus.last_seq + 1
        self._judge = {"id": call, "called": now_iso(), "answer": None, "answered": None}
        self.bus.publish(EventKind.JUDGE, self._state())
        return self._snapshot()

    def judge_answered(self, answer: dict[str, Any]) -> None:
        """The juez's answer to the table's call (``{"id", "text", "at"}``, from the hub);
        an answer to another call than the one open is left alone."""
        with self._lock:
            judge = self._judge
            if judge is None or answer.get("id") != judge["id"] or judge["answer"] is not None:
                return
            self._judge = {**judge, "answer": str(answer.get("text", ""))[:500],
                           "answered": str(answer.get("at") or now_iso())}
            self.bus.publish(EventKind.JUDGE, self._state())

    def partidas(self) -> list[PartidaLine]:
        """Every partida of the table, closed or in play, by number (what «Reabrir» lists)."""
        with self._lock:
            return self._game.partidas()

    def hands(self, partida: int | None = None) -> list[ConfirmedHand]:
        """The confirmed hands that count, of ``partida`` (None: the one in play), in order."""
        with self._lock:
            return list(self._game.hands(partida))

    def latest_frame(self) -> Image | None:
        return self._frame

    def latest_reading(self) -> Reading | None:
        return self._reading

    @property
    def faults(self) -> list[Fault]:
        with self._lock:
            return list(self._faults.values())

    def expected_stones(self, score: Sequence[int]) -> list[int]:
        """The stones each seat should keep for a score (piedras, amarracos and «dentro»)."""
        return expected_stones(score, self._game.rules.target, self.settings.piedras)

    # -------------------------------------------------------------------------------- camera side

    def attach_camera(self, still: Callable[[], Image | None] | None) -> None:
        """Where «leer» takes its full-resolution stills from (the runner sets it)."""
        self._still = still

    def show_frame(self, frame: Image) -> None:
        """The latest frame the camera gave (for the display's live view)."""
        self._frame = frame

    def wants_reading(self) -> bool:
        """Whether a still table should be read now: no cards read yet in this hand, or an
        impossible table nobody has corrected by hand (a fix on the felt is read again)."""
        with self._lock:
            if self._learning is not None or self._reading_now or self._game.over:
                return False
            h = self._game.hand
            return h.cards is None or (h.impossible and not h.corrected)

    def read_now(self, frames: Sequence[Image] | None = None, *, auto: bool = False) -> dict[str, Any]:
        """Read the cards from ``frames`` (None: stills from the camera), and apply what was read.

        ``auto`` (the watcher asked, nobody pressed «leer»): a reading without a single
        card read for sure is taken as nothing to read (cards face down, say), not as an
        impossible table."""
        with self._lock:
            if self._learning is not None:
                raise CommandRefused("learning_now")
            if self._game.over:
                raise CommandRefused("partida_over")
            if self._reading_now:
                raise CommandRefused("already_reading")
            if self.reader is None:
                raise CommandRefused("no_reader")
            if frames is None and self._still is None:
                raise CommandRefused("no_camera_read")
            self._reading_now = True
            self.bus.publish(EventKind.READING, self._state())
        try:
            readings = self._read_frames(frames)
        except Exception as exc:
            with self._lock:
                self._reading_now = False
                self._coded_fault(FaultKind.FRAMES, "photo_failed")
                self.bus.publish(EventKind.READ, self._state())
            if isinstance(exc, CommandRefused):
                raise
            if isinstance(exc, InvalidInput):
                raise CommandRefused("photo_unreadable", why=str(exc)) from None
            raise
        with self._lock:
            self._reading_now = False
            entry = self._merge(readings)
            if auto and not any(entry.cards) and not self._game.hand.cards:
                self.bus.publish(EventKind.READ, self._state())  # nothing to read yet
                return self._snapshot()
            self._commit(entry)
            return self._snapshot()

    def _read_frames(self, frames: Sequence[Image] | None) -> list[Reading]:
        assert self.reader is not None
        readings: list[Reading] = []
        wanted = len(frames) if frames is not None else self.settings.read_frames
        for i in range(wanted):
            frame = frames[i] if frames is not None else (self._still() if self._still else None)
            if frame is None:
                break
            reading = self.reader.read(frame)
            readings.append(reading)
            self._reading = reading
            if reading.ok and sum(len(c) for c in reading.cards) == 16 and not reading.unknown:
                break
        if not readings:
            raise CommandRefused("no_frames")
        return readings

    @staticmethod
    def _merge(readings: list[Reading]) -> CardsRead:
        """One reading from several stills: each seat's sure cards from any of them; the
        problems of the best one; the stones the median of each zone."""
        cards: list[list[Card]] = [[], [], [], []]
        for r in readings:
            for seat, hand in enumerate(r.cards):
                for c in hand:
                    if c not in cards[seat]:
                        cards[seat].append(c)
        best = max(readings, key=lambda r: (r.ok, sum(len(c) for c in r.cards)))
        pools = sorted(r.stones.pool for r in readings)
        seats = tuple(sorted(r.stones.seats[s] for r in readings)[len(readings) // 2] for s in range(4))
        return CardsRead(tuple(tuple(s) for s in cards), pools[len(pools) // 2], seats,
                         tuple(best.impossible) if not best.ok or best.impossible else (),
                         len(best.unknown), best.stale)

    # -------------------------------------------------------------------------------- faults

    def fault(self, kind: FaultKind, code: str, /, **args: Any) -> None:
        """Say that something is wrong, as a message code and its arguments (``web/strings.py``
        words it, and what to do: ``msg_CODE``, ``msg_CODE_todo``); published once, until
        :meth:`clear_fault`."""
        with self._lock:
            self._coded_fault(kind, code, **args)

    def set_fault(self, kind: FaultKind, text: str, todo: str) -> None:
        """A fault worded by the caller (its code is the kind's: ``fault_camera``...)."""
        with self._lock:
            self._fault(kind, text, todo)

    def _coded_fault(self, kind: FaultKind, code: str, /, **args: Any) -> None:
        self._fault(kind, say(code, args), say(code + "_todo", args), Message(code, args))

    def _fault(self, kind: FaultKind, text: str, todo: str, message: Message | None = None) -> None:
        f = Fault(kind, text, todo, message)
        if self._faults.get(kind) == f:
            return
        self._faults[kind] = f
        log.warning("fault %s: %s", kind, text)
        self.bus.publish(EventKind.FAULT, self._state())

    def clear_fault(self, kind: FaultKind) -> None:
        with self._lock:
            if self._faults.pop(kind, None) is not None:
                log.info("fault %s gone", kind)
                self.bus.publish(EventKind.RECOVERED, self._state())

    def flush(self) -> bool:
        """Write the entries that waited for the disk; True when none is left."""
        with self._lock:
            return self._flush()

    # -------------------------------------------------------------------------------- entries

    @property
    def _game(self) -> Game:
        assert self.game is not None  # set in __init__
        return self.game

    def _next(self, entry: Change, at: str, partida: int, *, replay: bool = False) -> Game:
        """The game after ``entry``: the one check of a command and the one replay of an entry."""
        if self.game is None:
            if not isinstance(entry, NewPartida):
                raise InvalidInput(f"a journal starts with a new partida, not {entry.kind!r}")
            return Game.start(entry, partida, at)
        try:
            return self.game.apply(entry, at, replay=replay)
        except Refused as exc:
            raise CommandRefused.of(exc) from None

    def _check_fresh(self, seq: int | None) -> None:
        """Refuse a command made on a state older than the table's last change."""
        if seq is None or seq >= self._last_entry:
            return
        missed = next(((kind, body) for s, kind, body in self._recent if s > seq), None)
        if missed is None:
            raise CommandRefused("stale_unknown", seq=seq)
        kind, body = missed
        raise CommandRefused("stale", seq=seq, entry={"kind": kind, **_brief(body)})

    def _remember(self, seq: int, kind: str, body: dict[str, Any]) -> None:
        self._recent.append((seq, kind, body))
        self._last_entry = seq

    def _commit(self, entry: Change) -> None:
        """Check ``entry``, journal it, keep the game it makes, publish its event (in that
        order: what was published is on the disk, or waits in memory with the disk fault shown)."""
        at = now_iso()
        game = self._next(entry, at, 1)  # raises when refused: nothing changed
        partida = game.partida_id  # the partida in play after it (a new one, or one re-opened)
        body = self.game.body(entry) if self.game is not None else entry.to_json()
        seq = self.bus.last_seq + 1
        if self.journal is not None:
            self._pending.append((seq, partida, entry.kind, body))
            self._flush()
        self.game = game
        self._remember(seq, entry.kind, body)
        if entry.kind in ("confirm", "reopen"):
            self._reading = None  # the reading belonged to the hand that was confirmed, or left
        self.bus.publish(_EVENTS[entry.kind], self._state())

    RESERVE = 100
    """Event numbers reserved at a time in the journal's mark (one small write per hundred events)."""

    def _on_event(self, event: Any) -> None:
        if event.seq >= self._reserved:
            self._reserve(event.seq)

    def _reserve(self, seq: int) -> None:
        """Mark the numbers up to ``seq + RESERVE`` as used, so that after a restart no event
        number comes back with another state (a listener resuming from one would miss the restart)."""
        try:
            self.journal.reserve(seq + self.RESERVE)  # type: ignore[union-attr]
            self._reserved = seq + self.RESERVE
        except OSError as exc:  # a full disk: the «disk» fault says so when an entry fails too
            log.warning("event numbers not reserved: %s", exc)

    def _flush(self) -> bool:
        if self.journal is None:
            return True
        while self._pending:
            seq, partida, kind, body = self._pending[0]
            try:
                self.journal.append(seq, partida, kind, body)
            except OSError as exc:  # sqlite3.Error is mapped to OSError by the journal
                self._coded_fault(FaultKind.DISK, "disk_full", why=str(exc))
                return False
            self._pending.pop(0)
        if FaultKind.DISK in self._faults:
            del self._faults[FaultKind.DISK]
            self.bus.publish(EventKind.RECOVERED, self._state())
        return True

    # -------------------------------------------------------------------------------- state

    def _phase(self) -> Phase:
        if self._learning is not None:
            return Phase.LEARNING
        if self._game.over:
            return Phase.OVER
        if self._reading_now:
            return Phase.READING
        return self._game.phase

    def _state(self) -> TableState:
        return TableState.of(
            self._game, seq=self.bus.last_seq if hasattr(self, "bus") else 0, table=self.settings.table,
            phase=self._phase(), piedras=self.settings.piedras, check_stones=self.settings.check_stones,
            reading=self._reading.to_json() if self._reading is not None else None,
            faults=tuple(self._faults.values()), pending=len(self._pending),
            learning=dict(self._learning) if self._learning is not None else None,
            judge=dict(self._judge) if self._judge is not None else None, deck=self.deck)

    def _snapshot(self) -> dict[str, Any]:
        return self._state().to_json()

    # -------------------------------------------------------------------------------- learning

    def _learn(self, cmd: LearnStart | LearnFrame | LearnDeck | LearnCancel) -> dict[str, Any]:
        if isinstance(cmd, LearnCancel):
            self._learning = None
            self._learn_frames = {}
        elif isinstance(cmd, LearnStart):
            self._learning = {**(self._learning or {"name": None, "done": [], "faults": {}}), "frame": cmd.k}
        elif isinstance(cmd, LearnFrame):
            still = self._still() if self._still else self._frame
            if still is None:
                raise CommandRefused("no_camera_learn")
            if self._learning is None:
                self._learning = {"name": None, "frame": cmd.k, "done": [], "faults": {}}
            self._learn_frames[cmd.k] = still
            faults = {**self._learning.get("faults", {}), str(cmd.k): learn_frame_faults(cmd.k, still, self.mat)}
            faults = {k: v for k, v in faults.items() if v}
            right = [k for k in sorted(self._learn_frames) if str(k) not in faults]
            after = [k for k in (0, 1, 2) if k not in right]  # the frame to lay next: this one again if wrong
            frame = cmd.k if str(cmd.k) in faults or not after else after[0]
            self._learning = {**self._learning, "frame": frame, "done": sorted(self._learn_frames),
                              "faults": faults}
        else:
            if sorted(self._learn_frames) != [0, 1, 2]:
                raise CommandRefused("learn_frames_missing")
            classifier = learn_deck(cmd.name, [self._learn_frames[k] for k in (0, 1, 2)], self.mat)
            if isinstance(self.reader, TableReader):  # read with the deck just learnt from now on
                self.reader = TableReader(self.mat, classifier=classifier)
            self.deck = deck_name(cmd.name)
            self._learning = None
            self._learn_frames = {}
        self.bus.publish(EventKind.LEARNING, self._state())
        return self._snapshot()


    def _use_deck(self, name: str | None) -> dict[str, Any]:
        """Read with the learnt deck ``name`` (None: the card model alone) from now on, and after a restart."""
        from vision import learnt

        try:
            classifier = learnt.load_deck(name).classifier() if name is not None else None
            learnt.use_deck(name)
        except MusTableError as exc:
            raise CommandRefused("deck_unusable", name=name, why=str(exc)) from None
        if isinstance(self.reader, TableReader):
            self.reader = TableReader(self.mat, classifier=classifier)
        self.deck = deck_name(name) if name is not None else None
        self.bus.publish(EventKind.LEARNING, self._snapshot())
        return self._snapshot()


def _brief(body: dict[str, Any]) -> dict[str, Any]:
    """What names an entry in a refusal (its record and answer left out)."""
    return {k: v for k, v in body.items()
            if k in ("seat", "word", "n", "lance", "outcome", "says", "index", "card", "partida")}


def learn_frame_faults(k: int, frame: Image, mat: Mat | None = None) -> list[dict[str, Any]]:
    """What is wrong with learning photo ``k`` as it was taken (:func:`vision.learnt.frame_faults`),
    each as its code, arguments and the line a person reads; empty when it is right."""
    from vision import learnt

    try:
        faults = learnt.frame_faults(k, frame, mat)
    except InvalidInput as exc:  # a frame the reader cannot take at all
        return [{"code": "learn_failed", "args": {}, "text": say("learn_failed", {"why": str(exc)})}]
    return [{"code": f.code, "args": dict(f.params), "text": say(f.code, f.params)} for f in faults]


def learn_deck(name: str, frames: list[Image], mat: Mat | None = None) -> Any:
    """Learn a deck from its three frames, keep it as ``name`` and make it the deck in use
    (:mod:`vision.learnt`); the classifier that reads it."""
    from vision import learnt

    try:
        deck = learnt.learn_deck(frames, mat)
        learnt.save_deck(learnt.check_name(name), deck)
        learnt.use_deck(name)
        return deck.classifier()
    except InvalidInput as exc:
        if exc.code.startswith(("learn_", "deck_")):
            raise CommandRefused(exc.code, **exc.params) from None
        raise CommandRefused("learn_failed", why=str(exc)) from None


def deck_name(name: str) -> str:
    """A deck's name as it is kept (:func:`vision.learnt.check_name`: spaces made one)."""
    from vision import learnt

    return learnt.check_name(name)
