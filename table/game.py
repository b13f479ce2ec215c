"""A table's partida in play: the partida so far, its confirmed hands and the hand in play.

:class:`Game` is an immutable value: :meth:`Game.apply` takes one entry
(:mod:`table.entries`) and gives the next game, or raises
:class:`~table.errors.Refused` with a code and its arguments. The table loop
checks a person's command with it and replays its journal with it, entry by
entry; nothing else decides what a command does.

>>> from table.entries import LanceOutcome
>>> g = Game.start(NewPartida(Rules(), 3, 1, 0))
>>> g = g.apply(LanceOutcome("grande", "ordago", by=1))
>>> g.hand.bets_over, g.phase
(True, <Phase.PLAYING: 'playing'>)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from table.answer import Answer
from table.entries import Change, Confirm, NewPartida, UndoHand
from table.errors import Message, Refused
from table.hand import Hand, Phase
from table.match import Partida
from table.record import HandRecord
from table.rules import Rules
from table.vocabulary import ESTAMOS_DENTRO, score_names

__all__ = ["ConfirmedHand", "Game", "expected_stones", "is_dentro", "pair_stones", "stones_check"]


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
class Game:
    """The partida in play (``partida_id``: its number in the journal), the hands that
    count, those of earlier partidas, and the hand in play."""

    partida_id: int
    partida: Partida
    """Never changed in place: each entry that moves it makes a new one."""
    hand: Hand
    confirmed: tuple[ConfirmedHand, ...] = ()
    done: Mapping[int, tuple[ConfirmedHand, ...]] = field(default_factory=dict)
    first_mano: int = 0
    names: tuple[str, ...] = ()
    """The players' names by seat for this partida (empty: none given)."""

    @classmethod
    def start(cls, entry: NewPartida, partida_id: int = 1) -> Game:
        rules = entry.rules or Rules()
        mano = 0 if entry.mano is None else entry.mano
        p = Partida(rules, mano, 3 if entry.juegos is None else entry.juegos, 1 if entry.vacas is None else entry.vacas)
        return cls(partida_id, p, Hand(rules, mano, (0, 0)), first_mano=mano, names=entry.names or ())

    @property
    def over(self) -> bool:
        return self.partida.over

    @property
    def rules(self) -> Rules:
        return self.partida.rules

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
            done = dict(self.done)
            if self.confirmed or self.partida_id:
                done[self.partida_id] = self.confirmed
            new = Game.start(entry, self.partida_id + 1)
            return replace(new, done=done)
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
        return out

    def hands(self, partida: int | None = None) -> tuple[ConfirmedHand, ...]:
        if partida is None or partida == self.partida_id:
            return self.confirmed
        return self.done.get(partida, ())


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
