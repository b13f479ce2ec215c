"""A table's partida in play: the partida so far, its confirmed hands and the hand in play.

:class:`Game` is an immutable value: :meth:`Game.apply` takes one entry
(:mod:`table.entries`) and gives the next game, or raises
:class:`~table.errors.Refused` with a code and its arguments. The table loop
checks a person's command with it and replays its journal with it, entry by
entry; nothing else decides what a command does.

A partida closed by «Nueva partida» is kept whole in the game (``closed``), and
:class:`~table.entries.Reopen` puts it back in play as it was left, closing the
one in play in its place: the journal's replay goes through the same steps.

>>> from table.entries import LanceOutcome
>>> g = Game.start(NewPartida(Rules(), 3, 1, 0))
>>> g = g.apply(LanceOutcome("grande", "ordago", by=1))
>>> g.hand.bets_over, g.phase
(True, <Phase.PLAYING: 'playing'>)
>>> g2 = g.apply(NewPartida(Rules(), 3, 1, 0))
>>> back = g2.apply(Reopen(1))
>>> back.partida_id, back.hand == g.hand, sorted(back.closed)
(1, True, [2])
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from table.answer import Answer
from table.entries import Change, Confirm, NewPartida, Reopen, UndoHand
from table.errors import Message, Refused
from table.hand import Hand, Phase
from table.match import Partida
from table.people import pair as pair_said
from table.record import HandRecord
from table.rules import Rules
from table.vocabulary import ESTAMOS_DENTRO, score_names

__all__ = ["ConfirmedHand", "Game", "PartidaLine", "expected_stones", "is_dentro", "pair_stones", "stones_check"]


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


@dataclass(frozen=True)
class PartidaLine:
    """One partida of the table as a list shows it (the display's «Reabrir», /api/partidas)."""

    id: int
    hands: int
    score: tuple[int, int]
    juegos_vaca: tuple[int, int]
    """Juegos won by each pair in the vaca being played (as the state's ``partida.juegos``)."""
    vacas: tuple[int, int]
    winner: int | None
    names: tuple[str, ...]
    started: str
    in_play: bool
    mano: int
    """The seat that is mano in the hand in play (where the partida goes on)."""

    @property
    def reopenable(self) -> bool:
        """Whether «Reabrir» takes it back into play (closed, and not won)."""
        return not self.in_play and self.winner is None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "hands": self.hands, "score": list(self.score), "juegos_vaca": list(self.juegos_vaca),
                "vacas": list(self.vacas), "winner": self.winner, "names": list(self.names) or None,
                "started": self.started, "in_play": self.in_play, "mano": self.mano,
                "reopenable": self.reopenable}


@dataclass(frozen=True)
class Game:
    """The partida in play (``partida_id``: its number in the journal), the hands that
    count, the partidas closed before (each as it was left), and the hand in play."""

    partida_id: int
    partida: Partida
    """Never changed in place: each entry that moves it makes a new one."""
    hand: Hand
    confirmed: tuple[ConfirmedHand, ...] = ()
    closed: Mapping[int, Game] = field(default_factory=dict)
    """The partidas closed by «Nueva partida» or by re-opening another, by number, each the game
    it was when closed (its own ``closed`` empty): «Reabrir» puts one back as it was."""
    first_mano: int = 0
    names: tuple[str, ...] = ()
    """The players' names by seat for this partida (empty: none given)."""
    started: str = ""
    """When the partida was started (its ``new_partida`` entry's time)."""

    @classmethod
    def start(cls, entry: NewPartida, partida_id: int = 1, at: str = "") -> Game:
        rules = entry.rules or Rules()
        mano = 0 if entry.mano is None else entry.mano
        p = Partida(rules, mano, 3 if entry.juegos is None else entry.juegos, 1 if entry.vacas is None else entry.vacas)
        return cls(partida_id, p, Hand(rules, mano, (0, 0)), first_mano=mano, names=entry.names or (),
                   started=at)

    @property
    def over(self) -> bool:
        return self.partida.over

    @property
    def rules(self) -> Rules:
        return self.partida.rules

    @property
    def done(self) -> Mapping[int, tuple[ConfirmedHand, ...]]:
        """The confirmed hands of each closed partida."""
        return {k: g.confirmed for k, g in self.closed.items()}

    @property
    def phase(self) -> Phase:
        """Over, impossible, scored or playing (reading and learning are the loop's)."""
        if self.partida.over:
            return Phase.OVER
        if self.hand.impossible:
            return Phase.IMPOSSIBLE
        if self.hand.scored:
            return Phase.SCORED
        return Phase.PLAYING

    def apply(self, entry: Change, at: str = "", *, replay: bool = False) -> Game:
        """The game after ``entry`` (``at``: when, for a confirmed hand); raises
        :class:`~table.errors.Refused` and changes nothing when the rules do not take it.

        ``replay``: the entry comes from the journal. It goes through the same rules,
        but who confirmed a hand is history and is not judged again (a journal written
        when another pair was asked to confirm still replays)."""
        if isinstance(entry, NewPartida):
            if entry.rules is None:
                raise Refused("partida_not_filled")
            new = Game.start(entry, max((*self.closed, self.partida_id)) + 1, at)
            return replace(new, closed=self._closing())
        if isinstance(entry, Reopen):
            return self._reopen(entry.partida)
        if isinstance(entry, UndoHand):
            if not self.confirmed:
                raise Refused("nothing_to_undo")
            confirmed = self.confirmed[:-1]
            undone = self.confirmed[-1]
            return replace(self, confirmed=confirmed, partida=self._replayed(confirmed),
                           hand=Hand.from_record(undone.record))
        if self.partida.over:
            raise Refused("partida_over")
        if isinstance(entry, Confirm):
            self.hand.confirmable(Confirm(None) if replay else entry)
            record, answer = self.hand.record, self.hand.answer
            assert record is not None and answer is not None
            p = copy.deepcopy(self.partida)
            p.apply(answer)
            hand = ConfirmedHand(p.hands, self.partida_id, record, answer, at, entry.seat)
            return replace(self, partida=p, confirmed=(*self.confirmed, hand),
                           hand=Hand(p.rules, p.mano, (p.score[0], p.score[1])))
        return replace(self, hand=self.hand.apply(entry))

    def _closing(self) -> dict[int, Game]:
        """The closed partidas once this one is closed too (kept whole, as it is now)."""
        return {**self.closed, self.partida_id: replace(self, closed={})}

    def _reopen(self, k: int) -> Game:
        """Partida ``k`` back in play exactly as it was closed; this one closed in its place.

        A partida already won stays closed: its last hand decided it, and play after a win
        would be hands that count for nothing. To put right a hand that ended a partida,
        the partida is not re-opened: the hand is undone («Deshacer la última mano») while
        that partida is still in play (docs/decisions-engine.md)."""
        if k == self.partida_id:
            raise Refused("reopen_in_play", partida=k)
        old = self.closed.get(k)
        if old is None:
            raise Refused("reopen_unknown", partida=k)
        if old.over:
            w = old.partida.winner
            raise Refused("reopen_won", partida=k, winner=w, pair=pair_said(w, old.names) if w is not None else "")
        closed = self._closing()
        del closed[k]
        return replace(old, closed=closed)

    def partidas(self) -> list[PartidaLine]:
        """Every partida of the table, closed or in play, by number."""
        games = {**self.closed, self.partida_id: self}
        return [games[k]._line(k == self.partida_id) for k in sorted(games)]

    def _line(self, in_play: bool) -> PartidaLine:
        p = self.partida
        return PartidaLine(self.partida_id, len(self.confirmed), (p.score[0], p.score[1]),
                           (p.won_juegos[0], p.won_juegos[1]), (p.won_vacas[0], p.won_vacas[1]), p.winner,
                           self.names, self.started, in_play, self.hand.mano)

    def _replayed(self, confirmed: Sequence[ConfirmedHand]) -> Partida:
        old = self.partida
        p = Partida(old.rules, confirmed[0].record.mano if confirmed else self.first_mano, old.juegos, old.vacas)
        for h in confirmed:
            p.apply(h.answer)
        return p

    def body(self, entry: Change) -> dict[str, Any]:
        """The journal's body for ``entry`` in this game (a confirmation keeps the hand's
        record and answer, an undo the number of the hand it takes back)."""
        out = entry.to_json()
        if isinstance(entry, Confirm):
            rec, ans = self.hand.record, self.hand.answer
            assert rec is not None and ans is not None
            out.update(hand=self.partida.hands + 1, record=rec.to_json(), answer=ans.to_json())
        elif isinstance(entry, UndoHand) and self.confirmed:
            out["hand"] = self.confirmed[-1].n
        elif isinstance(entry, Reopen):
            out["closes"] = self.partida_id  # for a reader of the journal; the replay needs only «partida»
        return out

    def hands(self, partida: int | None = None) -> tuple[ConfirmedHand, ...]:
        if partida is None or partida == self.partida_id:
            return self.confirmed
        old = self.closed.get(partida)
        return old.confirmed if old is not None else ()


# ------------------------------------------------------------------------------------ stones


def is_dentro(points: int, target: int) -> bool:
    """Whether a pair is «dentro» (the engine's definition: ``table.vocabulary.score_names``)."""
    return ESTAMOS_DENTRO in score_names(points, target)


def pair_stones(points: int, target: int) -> tuple[int, int, bool]:
    """How a pair keeps ``points``: amarracos (5 each), piedras, and whether it is «dentro»
    (its amarracos given back: the piedras say how far inside it is).

    >>> pair_stones(12, 40), pair_stones(37, 40)
    ((2, 2, False), (0, 2, True))
    """
    if is_dentro(points, target):
        return 0, points - (target - 5), True
    return points // 5, points % 5, False


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


@dataclass(frozen=True)
class StonesOff:
    """A seat whose stones, as counted, differ from what the score says it keeps."""

    seat: int
    expected: int
    seen: int
    piedras: bool
    """Whether the seat keeps the piedras (else the amarracos)."""

    @property
    def diff(self) -> int:
        return self.seen - self.expected

    @property
    def message(self) -> Message:
        return Message("stones_off", {"seat": self.seat, "expected": self.expected, "seen": self.seen,
                                      "diff": self.diff, "what": "piedras" if self.piedras else "amarracos"})


def stones_check(hand: Hand, target: int, piedras: tuple[int, int]) -> tuple[StonesOff, ...]:
    """Every seat whose stones seen at the end of ``hand`` differ from its score's."""
    if hand.stones is None:
        return ()
    want = expected_stones(hand.score, target, piedras)
    return tuple(StonesOff(seat, want[seat], hand.stones.seats[seat], seat in piedras)
                 for seat in range(4) if hand.stones.seats[seat] != want[seat])
