"""The table's state machine: a hand from the first word to the confirmed score, and the partida around it.

Everything people and the camera do reaches the table as one of a few inputs:
a command (:mod:`firmware.table_commands`: a word, a lance's outcome, a
correction, a confirmation, an undo...) or a reading of the cards. Each input
the engine accepts becomes one journal entry (:mod:`firmware.journal`), then
one numbered event carrying the whole state (:mod:`firmware.events`); one the
engine refuses raises :class:`~firmware.table_commands.CommandRefused` with the
reason and changes nothing. The table's state is what replaying the entries
gives, so a restart resumes exactly where the partida was.

A hand goes: ``playing`` (bets checked by :class:`table.betting.HandBets` as
they come) → ``reading`` (the cards lie still, or «leer») → ``impossible``
(a duplicate, a seat short or with five: the table waits for a fix on the
felt, a correction or a re-read; it never scores a guess) or ``scored`` (the
tanteo in strict order, waiting for a player of the other pair to confirm) →
confirmed: journaled, the score moves on, mano moves on; ``over`` when the
partida is won. The state and the events are described in docs/events.md.

>>> from firmware.table_commands import LanceOutcome
>>> loop = TableLoop()
>>> loop.snapshot()["phase"], loop.snapshot()["bets"]["lance"]
('playing', 'grande')
>>> loop.submit(LanceOutcome("grande", "querido", n=2, by=0))["bets"]["lance"]
'chica'
"""

from __future__ import annotations

import copy
import json
import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from firmware.events import EventBus, EventKind, now_iso
from firmware.table_commands import (
    Command,
    CommandRefused,
    Confirm,
    Correct,
    Declare,
    LanceOutcome,
    LearnCancel,
    LearnDeck,
    LearnFrame,
    NewPartida,
    Read,
    Say,
    UndoHand,
    Unsay,
    UseDeck,
)
from table.answer import Answer
from table.betting import Betting, HandBets
from table.cards import BY_TEXT, Card
from table.errors import InvalidInput, MusTableError
from table.jugadas import Jugadas
from table.lances import Lance
from table.match import Partida
from table.record import FORMAT, HandRecord
from table.rules import Rules
from table.tanteo import score as score_hand
from vision.mat import Mat
from vision.reading import Reading, TableReader
from vision.stones import StoneCount

Image = npt.NDArray[np.uint8]
log = logging.getLogger(__name__)


class Phase(StrEnum):
    """Where the hand in play stands (``state.phase``)."""

    PLAYING = "playing"
    READING = "reading"
    IMPOSSIBLE = "impossible"
    SCORED = "scored"
    OVER = "over"
    LEARNING = "learning"


class FaultKind(StrEnum):
    CAMERA = "camera"
    """No frames: the camera is unplugged, or gives none."""
    FROZEN = "frozen"
    """The same frame over and over."""
    FRAMES = "frames"
    """Frames that cannot be read (wrong size, broken)."""
    DISK = "disk"
    """The journal cannot be written (a full or failing disk): entries wait in memory."""


@dataclass(frozen=True, slots=True)
class Fault:
    """Something wrong that the table says on the display and the LEDs, until it goes."""

    kind: FaultKind
    text: str
    todo: str

    def to_json(self) -> dict[str, str]:
        return {"kind": str(self.kind), "text": self.text, "todo": self.todo}


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


@dataclass(frozen=True)
class ConfirmedHand:
    """A hand that counts: its number in the partida, its record and the engine's answer."""

    n: int
    partida: int
    record: HandRecord
    answer: Answer
    at: str
    by: int | None
    """The seat that confirmed it (None: the panel)."""


class Reader(Protocol):
    """What reads a frame (``vision.reading.TableReader``, or a fake in tests)."""

    def read(self, frame: Image) -> Reading: ...


class JournalLike(Protocol):
    def append(self, seq: int, partida: int, kind: str, body: dict[str, Any]) -> None: ...

    def entries(self) -> Sequence[tuple[int, int, str, str, dict[str, Any]]]: ...


# ------------------------------------------------------------------------------------------ the hand


@dataclass
class _Hand:
    """The hand in play: what was said, declared and read (the derived state is computed)."""

    mano: int
    score: tuple[int, int]
    words: list[tuple[int, str, int | None]] = field(default_factory=list)
    declared: dict[str, list[bool | None]] = field(
        default_factory=lambda: {"pares": [None] * 4, "juego": [None] * 4})
    cards: list[list[Card]] | None = None
    stones: StoneCount | None = None
    read_problems: list[str] = field(default_factory=list)
    unknown: int = 0
    corrected: bool = False


@dataclass
class _View:
    bets: HandBets
    asked: list[str]
    problems: list[str]
    record: HandRecord | None
    answer: Answer | None


_SEEN = re.compile(r"card (\S+) seen (twice|\d+ times) \((.*)\)")
_AT_SEAT = re.compile(r"(\d+) cards at seat (\d)")


def reader_problem(line: str) -> str:
    """A reading's ``impossible`` line (docs/mat.md spells them in English) as the table says it.

    The journal keeps the reading as it came; the state and the display get Spanish.

    >>> reader_problem("card 12o seen twice (seat 1 and seat 2)")
    'El 12o aparece 2 veces: asiento 1 y asiento 2'
    >>> reader_problem("5 cards at seat 3")
    'El asiento 3 tiene 5 cartas'
    """
    m = _SEEN.fullmatch(line)
    if m:
        times = "2" if m[2] == "twice" else m[2].split()[0]
        where = m[3].replace(" and ", " y ").replace("seat ", "asiento ").replace("outside", "fuera de las zonas")
        return f"El {m[1]} aparece {times} veces: {where}"
    m = _AT_SEAT.fullmatch(line)
    if m:
        return f"El asiento {m[2]} tiene {m[1]} cartas"
    return line


def _card_problems(cards: list[list[Card]]) -> list[str]:
    """Why these cards cannot be a dealt hand (empty when they can), one line each, in Spanish."""
    out: list[str] = []
    where: dict[Card, list[int]] = {}
    for seat, hand in enumerate(cards):
        for c in hand:
            where.setdefault(c, []).append(seat)
    for c, seats in where.items():
        if len(seats) > 1:
            out.append(f"El {c} aparece {len(seats)} veces: asientos "
                       + " y ".join(str(s) for s in seats))
    for seat, hand in enumerate(cards):
        if len(hand) > 4:
            out.append(f"El asiento {seat} tiene {len(hand)} cartas")
        elif len(hand) < 4:
            falta = 4 - len(hand)
            out.append(f"Al asiento {seat} le falta{'n' if falta > 1 else ''} {falta} "
                       f"carta{'s' if falta > 1 else ''}")
    return out


def _truth(cards: list[list[Card]], rules: Rules, mano: int) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    j = Jugadas([[c.rank for c in h] for h in cards], rules, mano)
    return tuple(s.pares_kind > 0 for s in j.seats), tuple(s.juego > 0 for s in j.seats)


def outcome_words(b: Betting, outcome: str, n: int | None, by: int | None) -> list[tuple[int, str, int | None]]:
    """The legal words that make a fresh lance end as ``outcome`` (see :class:`LanceOutcome`).

    >>> outcome_words(Betting("grande", 0), "no querido", 5, 1)
    [(0, 'envido', 5), (1, 'envido', 2), (2, 'no quiero', None), (0, 'no quiero', None)]
    """
    b = b.copy()
    if b.words:
        raise CommandRefused(f"en {b.lance} ya se ha hablado: deshaced esas palabras antes de dar el final")
    if b.done:
        raise CommandRefused(f"{b.lance} no se juega en esta mano")
    said: list[tuple[int, str, int | None]] = []

    def say(word: str, k: int | None = None) -> None:
        seat = b.speaker
        assert seat is not None
        b.say(seat, word, k)
        said.append((seat, word, k))

    def pass_until(ok: Callable[[int], bool]) -> None:
        while b.speaker is not None and "paso" in b.legal() and not ok(b.speaker):
            say("paso")
        if b.speaker is None or "paso" not in b.legal():
            raise CommandRefused(f"en {b.lance} no puede apostar quien decís (asiento {by})")

    try:
        if outcome == "en paso":
            while not b.done:
                say("paso")
        elif outcome in ("querido", "ordago"):
            pass_until(lambda s: by is None or s == by)
            if outcome == "ordago":
                say("ordago")
            else:
                say("envido", 2 if n is None else max(n, 2))
            say("quiero")
        elif outcome == "no querido":
            if by is None:
                raise CommandRefused("no querido: decid qué pareja se lleva el deje (by: uno de sus asientos)")
            pair = by & 1
            deje = 1 if n is None else n
            if deje == 1:
                pass_until(lambda s: s & 1 == pair)
                say("envido", 2)
            else:
                pass_until(lambda s: s & 1 != pair)
                say("envido", deje)
                say("envido", 2)
            while not b.done:
                say("no quiero")
        else:
            raise CommandRefused(f"final desconocido: {outcome!r}")
    except InvalidInput as exc:
        if isinstance(exc, CommandRefused):
            raise
        raise CommandRefused(f"{b.lance}: {exc}") from None
    return said


# ------------------------------------------------------------------------------------------ the loop


class TableLoop:
    """One table: its partida, the hand in play, its journal and its events. Thread-safe."""

    def __init__(self, settings: LoopSettings | None = None, *, reader: Reader | None = None,
                 journal: JournalLike | None = None, bus: EventBus | None = None,
                 mat: Mat | None = None) -> None:
        self.settings = s = settings or LoopSettings()
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
        self.partida_id = 0
        self.partida = Partida(s.rules, s.first_mano, s.juegos, s.vacas)
        self._confirmed: list[ConfirmedHand] = []
        self._done: dict[int, list[ConfirmedHand]] = {}
        self._hand = _Hand(s.first_mano, (0, 0))
        self._view: _View | None = None
        last = 0
        if journal is not None:
            entries = journal.entries()
            for seq, partida, kind, at, body in entries:
                self._apply(kind, body, at=at, partida=partida)
                last = seq
            reserved = getattr(journal, "reserved", None)
            last = max(last, reserved() if reserved is not None else 0)
        self._reserved = last
        self.bus = bus or EventBus(start=last)
        if journal is not None and bus is None and hasattr(journal, "reserve"):
            self._reserve(last)
            self.bus.subscribe(self._on_event)
        if self.partida_id == 0:
            self._commit("new_partida", self._new_partida_body(), EventKind.NEW_PARTIDA)
        else:
            self.bus.publish(EventKind.STATE, self._snapshot())

    # -------------------------------------------------------------------------------- public API

    def snapshot(self) -> dict[str, Any]:
        """The table's whole state (JSON-able), as every event carries it (docs/events.md)."""
        with self._lock:
            return self._snapshot()

    @property
    def phase(self) -> Phase:
        with self._lock:
            return self._phase()

    def submit(self, cmd: Command) -> dict[str, Any]:
        """Apply a command; the new snapshot. :class:`CommandRefused` (nothing changed) if refused."""
        if isinstance(cmd, Read):
            return self.read_now()
        with self._lock:
            if self._reading_now and not isinstance(cmd, (Say, Unsay, LanceOutcome, Declare)):
                raise CommandRefused("se están leyendo las cartas: un momento")
            if isinstance(cmd, (LearnFrame, LearnDeck, LearnCancel)):
                return self._learn(cmd)
            if isinstance(cmd, UseDeck):
                return self._use_deck(cmd.name)
            if self._learning is not None:
                raise CommandRefused("la mesa está aprendiendo un mazo: terminad o cancelad antes")
            kind, body, event = self._entry_for(cmd)
            self._commit(kind, body, event)
            return self._snapshot()

    def hands(self, partida: int | None = None) -> list[ConfirmedHand]:
        """The confirmed hands that count, of ``partida`` (None: the one in play), in order."""
        with self._lock:
            if partida is None or partida == self.partida_id:
                return list(self._confirmed)
            return list(self._done.get(partida, []))

    def latest_frame(self) -> Image | None:
        return self._frame

    def latest_reading(self) -> Reading | None:
        return self._reading

    @property
    def faults(self) -> list[Fault]:
        with self._lock:
            return list(self._faults.values())

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
            if self._learning is not None or self._reading_now or self.partida.over:
                return False
            h = self._hand
            return h.cards is None or (self._phase() is Phase.IMPOSSIBLE and not h.corrected)

    def read_now(self, frames: Sequence[Image] | None = None, *, auto: bool = False) -> dict[str, Any]:
        """Read the cards from ``frames`` (None: stills from the camera), and apply what was read.

        ``auto`` (the watcher asked, nobody pressed «leer»): a reading without a single
        card read for sure is taken as nothing to read (cards face down, say), not as an
        impossible table."""
        with self._lock:
            if self._learning is not None:
                raise CommandRefused("la mesa está aprendiendo un mazo")
            if self.partida.over:
                raise CommandRefused("la partida ha terminado: empezad otra")
            if self._reading_now:
                raise CommandRefused("ya se están leyendo las cartas")
            if self.reader is None:
                raise CommandRefused("esta mesa no tiene lector de cartas")
            if frames is None and self._still is None:
                raise CommandRefused("no hay cámara: no se puede leer")
            self._reading_now = True
            self._view = None
            self.bus.publish(EventKind.READING, self._snapshot())
        try:
            readings = self._read_frames(frames)
        except Exception as exc:
            with self._lock:
                self._reading_now = False
                self._fault(FaultKind.FRAMES, "No se pudo leer la foto de la mesa",
                            "Mirad la cámara y pulsad «leer» otra vez")
                self.bus.publish(EventKind.READ, self._snapshot())
            if isinstance(exc, InvalidInput):
                raise CommandRefused(f"la foto no se puede leer: {exc}") from None
            raise
        with self._lock:
            self._reading_now = False
            self._view = None
            body = self._merge(readings)
            if auto and not any(body["cards"]) and not self._hand.cards:
                self.bus.publish(EventKind.READ, self._snapshot())  # nothing to read yet
                return self._snapshot()
            self._commit("cards", body, EventKind.READ)
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
            raise CommandRefused("la cámara no da fotos")
        return readings

    @staticmethod
    def _merge(readings: list[Reading]) -> dict[str, Any]:
        """One reading from several stills: each seat's sure cards from any of them; the
        problems of the best one; the stones the median of each zone."""
        cards: list[list[str]] = [[], [], [], []]
        for r in readings:
            for seat, hand in enumerate(r.cards):
                for c in hand:
                    if str(c) not in cards[seat]:
                        cards[seat].append(str(c))
        best = max(readings, key=lambda r: (r.ok, sum(len(c) for c in r.cards)))
        pools = sorted(r.stones.pool for r in readings)
        seats = [sorted(r.stones.seats[s] for r in readings)[len(readings) // 2] for s in range(4)]
        return {"cards": cards, "stones": {"pool": pools[len(pools) // 2], "seats": seats},
                "impossible": list(best.impossible) if not best.ok or best.impossible else [],
                "unknown": len(best.unknown), "stale": best.stale}

    # -------------------------------------------------------------------------------- faults

    def set_fault(self, kind: FaultKind, text: str, todo: str) -> None:
        """Say that something is wrong (published once, until :meth:`clear_fault`)."""
        with self._lock:
            self._fault(kind, text, todo)

    def _fault(self, kind: FaultKind, text: str, todo: str) -> None:
        f = Fault(kind, text, todo)
        if self._faults.get(kind) == f:
            return
        self._faults[kind] = f
        log.warning("fault %s: %s", kind, text)
        self.bus.publish(EventKind.FAULT, self._snapshot())

    def clear_fault(self, kind: FaultKind) -> None:
        with self._lock:
            if self._faults.pop(kind, None) is not None:
                log.info("fault %s gone", kind)
                self.bus.publish(EventKind.RECOVERED, self._snapshot())

    def flush(self) -> bool:
        """Write the entries that waited for the disk; True when none is left."""
        with self._lock:
            return self._flush()

    # -------------------------------------------------------------------------------- entries

    def _entry_for(self, cmd: Command) -> tuple[str, dict[str, Any], EventKind]:
        """Check ``cmd`` against the state; the journal entry it becomes. Raises when refused."""
        phase = self._phase()
        if isinstance(cmd, NewPartida):
            return "new_partida", self._new_partida_body(), EventKind.NEW_PARTIDA
        if isinstance(cmd, UndoHand):
            if not self._confirmed:
                raise CommandRefused("no hay mano confirmada que deshacer en esta partida")
            return "undo_hand", {"kind": "undo_hand", "hand": self._confirmed[-1].n}, EventKind.UNDONE
        if phase is Phase.OVER:
            raise CommandRefused("la partida ha terminado: deshaced la última mano o empezad otra")
        body = cmd.to_json()
        if isinstance(cmd, Confirm):
            body = self._check_confirm(cmd, phase)
            return "confirm", body, EventKind.CONFIRMED
        trial = copy.deepcopy(self._hand)
        if isinstance(cmd, Say):
            self._trial_say(trial, cmd)
            event = EventKind.BET
        elif isinstance(cmd, Unsay):
            if not trial.words:
                raise CommandRefused("no se ha dicho nada en esta mano")
            trial.words.pop()
            event = EventKind.BET
        elif isinstance(cmd, LanceOutcome):
            view = self._derive(trial)
            if view.asked:
                raise CommandRefused(f"antes, ¿{view.asked[0]}? (que declare cada asiento)")
            if view.bets.lance != cmd.lance:
                raise CommandRefused(f"se está jugando {view.bets.lance or 'nada'}, no {cmd.lance}")
            if cmd.n is not None and cmd.outcome in ("en paso", "ordago"):
                raise CommandRefused(f"«{cmd.outcome}» no lleva número (solo querido y no querido)")
            if cmd.outcome == "querido" and cmd.n is not None and cmd.n < 2:
                raise CommandRefused(f"un envite querido es de 2 piedras o más, no {cmd.n}")
            betting = view.bets.betting
            assert betting is not None
            trial.words.extend(outcome_words(betting, cmd.outcome, cmd.n, cmd.by))
            event = EventKind.LANCE
        elif isinstance(cmd, Declare):
            trial.declared[cmd.lance][cmd.seat] = cmd.says
            event = EventKind.DECLARED
        elif isinstance(cmd, Correct):
            if trial.cards is None:
                raise CommandRefused("aún no se han leído las cartas: no hay nada que corregir")
            hand = trial.cards[cmd.seat]
            if cmd.index < len(hand):
                hand[cmd.index] = cmd.card
            else:
                hand.append(cmd.card)
            trial.corrected = True
            trial.read_problems = []
            event = EventKind.CORRECTED
        else:  # pragma: no cover - every command is handled above
            raise CommandRefused(f"orden no admitida: {cmd!r}")
        self._derive(trial)  # raises if the hand no longer holds together
        return cmd.kind, body, event

    def _trial_say(self, trial: _Hand, cmd: Say) -> None:
        view = self._derive(trial)
        if view.asked:
            raise CommandRefused(f"antes, ¿{view.asked[0]}? (que declare cada asiento)")
        if view.bets.over:
            raise CommandRefused("las apuestas de esta mano ya han terminado")
        try:
            view.bets.say(cmd.seat, cmd.word, cmd.n)
        except InvalidInput as exc:
            raise CommandRefused(f"{view.bets.lance}: {exc}") from None
        trial.words.append((cmd.seat, cmd.word, cmd.n))

    def _check_confirm(self, cmd: Confirm, phase: Phase) -> dict[str, Any]:
        if phase is not Phase.SCORED:
            if phase is Phase.IMPOSSIBLE:
                raise CommandRefused("la mesa no es posible: corregid o volved a leer antes de confirmar")
            raise CommandRefused("no hay mano tanteada que confirmar")
        view = self._current()
        assert view.record is not None and view.answer is not None
        allowed = self._confirm_by(view.answer, view.record)
        if cmd.seat is None:
            if not self.settings.panel_confirms:
                raise CommandRefused("confirma un jugador de la otra pareja, desde la pantalla")
        elif cmd.seat not in allowed:
            raise CommandRefused(f"confirma un jugador de la otra pareja (asientos "
                                 f"{' o '.join(str(s) for s in allowed)}), no el asiento {cmd.seat}")
        return {"kind": "confirm", "seat": cmd.seat, "hand": self.partida.hands + 1,
                "record": view.record.to_json(), "answer": view.answer.to_json()}

    @staticmethod
    def _confirm_by(answer: Answer, record: HandRecord) -> list[int]:
        """The pair that the hand went against confirms it (both when it went even)."""
        gain = [answer.score[p] - record.score[p] for p in (0, 1)]
        if gain[0] == gain[1]:
            return [0, 1, 2, 3]
        loser = 0 if gain[0] < gain[1] else 1
        return [loser, loser + 2]

    def _new_partida_body(self) -> dict[str, Any]:
        s = self.settings
        return {"kind": "new_partida", "rules": s.rules.to_json(), "juegos": s.juegos, "vacas": s.vacas,
                "mano": s.first_mano}

    def _commit(self, kind: str, body: dict[str, Any], event: EventKind) -> None:
        """Journal one entry, apply it, publish its event (in that order: what was published
        is on the disk, or waits in memory with the disk fault shown)."""
        partida = self.partida_id + 1 if kind == "new_partida" else self.partida_id
        seq = self.bus.last_seq + 1
        if self.journal is not None:
            self._pending.append((seq, partida, kind, body))
            self._flush()
        self._apply(kind, body, at=now_iso(), partida=partida)
        self.bus.publish(event, self._snapshot())

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
                self._fault(FaultKind.DISK, "No se puede escribir el diario (¿disco lleno?)",
                            f"Liberad espacio en la tarjeta; la mesa guarda lo que tiene ({exc})")
                return False
            self._pending.pop(0)
        if FaultKind.DISK in self._faults:
            del self._faults[FaultKind.DISK]
            self.bus.publish(EventKind.RECOVERED, self._snapshot())
        return True

    # -------------------------------------------------------------------------------- applying

    def _apply(self, kind: str, body: dict[str, Any], *, at: str, partida: int) -> bool:
        """Apply one journal entry (checked before, or replayed from the journal). Returns
        whether something was won (a juego)."""
        self._view = None
        h = self._hand
        if kind == "new_partida":
            if self._confirmed or self.partida_id:
                self._done[self.partida_id] = self._confirmed
            self.partida_id = partida
            rules = Rules.from_json(body.get("rules"))
            self.partida = Partida(rules, int(body.get("mano", 0)), int(body.get("juegos", 3)),
                                   int(body.get("vacas", 1)))
            self._confirmed = []
            self._hand = _Hand(self.partida.mano, (0, 0))
        elif kind == "say":
            h.words.append((body["seat"], body["word"], body.get("n")))
        elif kind == "unsay":
            h.words.pop()
        elif kind == "lance":
            view = self._derive(h)
            assert view.bets.betting is not None
            h.words.extend(outcome_words(view.bets.betting, body["outcome"], body.get("n"), body.get("by")))
        elif kind == "declare":
            h.declared[body["lance"]][body["seat"]] = body["says"]
        elif kind == "cards":
            h.cards = [[BY_TEXT[c] for c in seat] for seat in body["cards"]]
            st = body.get("stones") or {}
            h.stones = StoneCount(int(st.get("pool", 0)), tuple(st.get("seats", (0, 0, 0, 0))))  # type: ignore[arg-type]
            h.read_problems = list(body.get("impossible", []))
            h.unknown = int(body.get("unknown", 0))
            if h.unknown and sum(len(seat) for seat in h.cards) < 16:
                h.read_problems.append(f"La cámara no está segura de {h.unknown} carta"
                                       f"{'s' if h.unknown > 1 else ''}: corregidlas o volved a leer")
            h.corrected = False
        elif kind == "correct":
            assert h.cards is not None
            hand = h.cards[body["seat"]]
            card = BY_TEXT[body["card"]]
            if body["index"] < len(hand):
                hand[body["index"]] = card
            else:
                hand.append(card)
            h.corrected = True
            h.read_problems = []
        elif kind == "confirm":
            view = self._derive(h)
            assert view.record is not None and view.answer is not None
            won = self.partida.apply(view.answer)
            self._confirmed.append(ConfirmedHand(self.partida.hands, self.partida_id, view.record,
                                                 view.answer, at, body.get("seat")))
            self._hand = _Hand(self.partida.mano, (self.partida.score[0], self.partida.score[1]))
            self._reading = None  # the reading belonged to the hand that was confirmed
            self._view = None
            return bool(won)
        elif kind == "undo_hand":
            undone = self._confirmed.pop()
            self._rebuild_partida()
            rec = undone.record
            restored = _Hand(rec.mano, rec.score)
            for lance in rec.lances:
                restored.words.extend((w.seat, w.word, w.n) for w in rec.bets.get(lance, ()))
            if any(rec.declared_given):
                for i, jugada in enumerate((Lance.PARES, Lance.JUEGO)):
                    if rec.declared_given[i]:
                        restored.declared[jugada] = list(rec.declared[i])
            restored.cards = [[BY_TEXT[c] for c in seat] for seat in rec.cards]
            self._hand = restored
        else:
            raise InvalidInput(f"unknown journal entry {kind!r}")
        self._view = None
        return False

    def _rebuild_partida(self) -> None:
        old = self.partida
        first = self._confirmed[0].record.mano if self._confirmed else None
        p = Partida(old.rules, old.mano, old.juegos, old.vacas)
        # the partida's first mano: from its first hand, or counted back from the hands played
        p.mano = first if first is not None else (old.mano - old.hands) % 4
        for h in self._confirmed:
            p.apply(h.answer)
        self.partida = p

    # -------------------------------------------------------------------------------- deriving

    def _current(self) -> _View:
        if self._view is None:
            self._view = self._derive(self._hand)
        return self._view

    def _declared(self, h: _Hand, lance: Lance) -> tuple[bool, ...] | None:
        given = h.declared[lance]
        if all(v is not None for v in given):
            return tuple(bool(v) for v in given)
        if h.cards is None or _card_problems(h.cards):
            return None
        truth = _truth(h.cards, self.partida.rules, h.mano)[0 if lance == Lance.PARES else 1]
        return tuple(truth[s] if given[s] is None else bool(given[s]) for s in range(4))

    def _derive(self, h: _Hand) -> _View:
        """The bets replayed, what is asked, the problems, and the record and answer when
        the hand is complete. Raises :class:`CommandRefused` when the hand does not hold."""
        pares, juego = self._declared(h, Lance.PARES), self._declared(h, Lance.JUEGO)
        bets = HandBets(h.mano, pares or (True,) * 4, juego or (True,) * 4)
        for i, (seat, word, n) in enumerate(h.words, 1):
            if bets.lance == Lance.PARES and pares is None or bets.lance in (Lance.JUEGO, Lance.PUNTO) and juego is None:
                raise CommandRefused(f"la palabra {i} se dijo antes de declarar {bets.lance}")
            try:
                bets.say(seat, word, n)
            except InvalidInput as exc:
                raise CommandRefused(f"con eso, la palabra {i} ({seat} {word}) ya no vale: {exc}") from None
        asked: list[str] = []
        if bets.lance == Lance.PARES and pares is None:
            asked.append(Lance.PARES)
        elif bets.lance in (Lance.JUEGO, Lance.PUNTO) and juego is None:
            asked.append(Lance.JUEGO)
        problems = [] if h.cards is None else [reader_problem(p) for p in h.read_problems] + _card_problems(h.cards)
        record = answer = None
        betting = bets.betting
        if h.cards is not None and not problems and (betting is None or not betting.words):
            # lances nobody spoke in are en paso (docs/hand-record.md: a missing lance or [])
            obj: dict[str, Any] = {"format": FORMAT, "rules": self.partida.rules.to_json(), "mano": h.mano,
                                   "score": list(h.score), "cards": [[str(c) for c in s] for s in h.cards],
                                   "bets": bets.words()}
            if any(v is not None for lance in (Lance.PARES, Lance.JUEGO) for v in h.declared[lance]):
                obj["declared"] = {"pares": list(pares or ()), "juego": list(juego or ())}
            try:
                record = HandRecord.from_json(obj)
                answer = score_hand(record)
            except InvalidInput as exc:
                problems.append(f"La mano no se puede tantear: {exc}")
                record = answer = None
        return _View(bets, asked, problems, record, answer)

    def _phase(self) -> Phase:
        if self._learning is not None:
            return Phase.LEARNING
        if self.partida.over:
            return Phase.OVER
        if self._reading_now:
            return Phase.READING
        view = self._current()
        if self._hand.cards is not None and view.problems:
            return Phase.IMPOSSIBLE
        if view.answer is not None:
            return Phase.SCORED
        return Phase.PLAYING

    # -------------------------------------------------------------------------------- learning

    def _learn(self, cmd: LearnFrame | LearnDeck | LearnCancel) -> dict[str, Any]:
        if isinstance(cmd, LearnCancel):
            self._learning = None
            self._learn_frames = {}
        elif isinstance(cmd, LearnFrame):
            still = self._still() if self._still else self._frame
            if still is None:
                raise CommandRefused("no hay cámara: no se puede tomar la foto del mazo")
            if self._learning is None:
                self._learning = {"name": None, "frame": cmd.k, "done": [], "checks": {}}
            check = check_learning_frame(still, cmd.k, self.mat)
            if check["code"] == "ok":
                self._learn_frames[cmd.k] = still
            else:  # the photo is not kept: the display says why (code and args) and it is taken again
                self._learn_frames.pop(cmd.k, None)
            self._learning = {**self._learning, "frame": cmd.k, "done": sorted(self._learn_frames),
                              "checks": {**self._learning.get("checks", {}), str(cmd.k): check}}
        else:
            if sorted(self._learn_frames) != [0, 1, 2]:
                raise CommandRefused("faltan fotos del mazo: hacen falta las tres (0, 1 y 2)")
            classifier = learn_deck(cmd.name, [self._learn_frames[k] for k in (0, 1, 2)], self.mat)
            if isinstance(self.reader, TableReader):  # read with the deck just learnt from now on
                self.reader = TableReader(self.mat, classifier=classifier)
            self.deck = cmd.name
            self._learning = None
            self._learn_frames = {}
        self.bus.publish(EventKind.LEARNING, self._snapshot())
        return self._snapshot()

    def _use_deck(self, name: str | None) -> dict[str, Any]:
        """Read with the learnt deck ``name`` (None: the card model alone) from now on, and after a restart."""
        from vision import learnt

        try:
            classifier = learnt.load_deck(name).classifier() if name is not None else None
            learnt.use_deck(name)
        except InvalidInput as exc:
            raise CommandRefused(f"nombre de mazo no válido: {exc}") from None
        except MusTableError as exc:
            raise CommandRefused(f"no se puede usar el mazo «{name}»: {exc}") from None
        if isinstance(self.reader, TableReader):
            self.reader = TableReader(self.mat, classifier=classifier)
        self.deck = name
        self.bus.publish(EventKind.LEARNING, self._snapshot())
        return self._snapshot()

    # -------------------------------------------------------------------------------- snapshot

    def expected_stones(self, score: Sequence[int]) -> list[int]:
        """The stones each seat should keep for a score (piedras, amarracos and «dentro»)."""
        return expected_stones(score, self.partida.rules.target, self.settings.piedras)

    def _stones_check(self) -> list[dict[str, Any]]:
        h = self._hand
        if h.stones is None or not self.settings.check_stones:
            return []
        want = self.expected_stones(h.score)
        out = []
        for seat in range(4):
            seen = h.stones.seats[seat]
            if seen != want[seat]:
                diff = seen - want[seat]
                what = "amarracos" if seat not in self.settings.piedras else "piedras"
                text = (f"Asiento {seat}: {'sobra' if diff > 0 else 'falta'}{'n' if abs(diff) > 1 else ''} "
                        f"{abs(diff)} {what if abs(diff) > 1 else what[:-1]} (hay {seen}, "
                        f"el tanteo dice {want[seat]})")
                out.append({"seat": seat, "expected": want[seat], "seen": seen, "diff": diff, "text": text})
        return out

    def _snapshot(self) -> dict[str, Any]:
        p, h, s = self.partida, self._hand, self.settings
        phase = self._phase()
        view = self._current()
        bets = view.bets
        betting = bets.betting
        outcomes = {}
        for lance, o in bets.outcomes().items():
            outcomes[str(lance)] = {"how": str(o.how), "stake": o.stake, "deje": o.deje, "pair": o.pair, "bettor": o.bettor}
        target = p.rules.target
        answer = view.answer
        tanteo: list[dict[str, Any]] = []
        if answer is not None:
            run = list(h.score)
            for e in answer.tanteo:
                run[e.pair] += e.stones
                tanteo.append({**e.to_json(), "text": e.why, "score": list(run), "counted": True})
            for e in answer.not_counted:
                tanteo.append({**e.to_json(), "text": e.why, "score": None, "counted": False})
        pairs_stones = []
        for pair in (0, 1):
            pts = p.score[pair]
            dentro = is_dentro(pts, target)
            pairs_stones.append({"amarracos": 0 if dentro else pts // 5,
                                 "piedras": pts - (target - 5) if dentro else pts % 5, "dentro": dentro})
        return _plain({
            "seq": self.bus.last_seq if hasattr(self, "bus") else 0,
            "table": s.table,
            "phase": str(phase),
            "rules": p.rules.to_json(),
            "format": {"juegos": p.juegos, "vacas": p.vacas},
            "partida": {"id": self.partida_id, "juegos": list(p.won_juegos), "vacas": list(p.won_vacas),
                        "vaca_results": [list(v) for v in p.vaca_results], "over": p.over, "winner": p.winner},
            "score": list(p.score),
            "target": target,
            "stones": pairs_stones,
            "piedras": list(s.piedras),
            "mano": h.mano,
            "hand_no": p.hands + 1,
            "bets": {
                "lance": None if bets.lance is None else str(bets.lance),
                "speaker": None if view.asked else bets.speaker,
                "legal": [] if view.asked else list(bets.legal()),
                "asked": [str(a) for a in view.asked],
                "declared": {k: list(v) for k, v in h.declared.items()},
                "words": {str(lance): ws for lance, ws in bets.words().items()},
                "outcomes": outcomes,
                "standing": None if betting is None or betting.bettor is None else
                {"bettor": betting.bettor, "total": betting.total, "ordago": betting.ordago},
                "over": bets.over,
            },
            "reading": self._reading.to_json() if self._reading is not None else None,
            "cards": None if h.cards is None else [[str(c) for c in seat] for seat in h.cards],
            "corrected": h.corrected,
            "problems": view.problems,
            "record": view.record.to_json() if view.record is not None else None,
            "answer": answer.to_json() if answer is not None else None,
            "tanteo": tanteo,
            "won_at": answer.won_at.to_json() if answer is not None and answer.won_at is not None else None,
            "not_counted": [e.to_json() for e in answer.not_counted] if answer is not None else [],
            "confirm_by": self._confirm_by(answer, view.record) if answer is not None and view.record else [],
            "stones_check": self._stones_check(),
            "faults": [f.to_json() for f in self._faults.values()],
            "pending_entries": len(self._pending),
            "learning": dict(self._learning) if self._learning is not None else None,
            "deck": self.deck,
            "hands": p.hands,
            "last_hand": self._confirmed[-1].answer.to_json() if self._confirmed else None,
        })


def _plain(state: dict[str, Any]) -> dict[str, Any]:
    """The state as plain JSON values (the engine's typed values, such as lances, become their spelling)."""
    return json.loads(json.dumps(state, ensure_ascii=False))  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------ stones


def is_dentro(points: int, target: int) -> bool:
    """Whether a pair is «dentro» (the engine's definition: ``table.vocabulary.score_names``)."""
    from table.vocabulary import ESTAMOS_DENTRO, score_names

    return ESTAMOS_DENTRO in score_names(points, target)


def expected_stones(score: Sequence[int], target: int, piedras: tuple[int, int] = (0, 1)) -> list[int]:
    """The stones each seat keeps for a score: a pair's piedras seat holds ``points % 5``, its
    partner ``points // 5`` amarracos; «dentro», the amarracos go back to the pool and the
    piedras say how far inside the pair is.

    >>> expected_stones([12, 37], 40)
    [2, 2, 2, 0]
    """
    out = [0, 0, 0, 0]
    for pair, points in enumerate(score):
        p_seat = piedras[pair]
        a_seat = p_seat ^ 2
        if is_dentro(points, target):
            out[p_seat] = points - (target - 5)
        else:
            out[a_seat], out[p_seat] = divmod(points, 5)
    return out


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
        raise CommandRefused(str(exc)) from None


def check_learning_frame(frame: Image, k: int, mat: Mat | None = None) -> dict[str, Any]:
    """A learning photo checked as it is taken: ``{"code": "ok", "args": {"frame": k}}``, or the code
    and arguments of what is wrong with it (:class:`vision.learnt.LayoutRefused`), for the display."""
    from vision import learnt

    try:
        learnt.check_frame(frame, k, mat)
    except learnt.LayoutRefused as exc:
        return exc.to_json()
    return {"code": "ok", "args": {"frame": k}}
