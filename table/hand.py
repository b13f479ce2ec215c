"""The hand in play: what was said, declared and read, as one immutable value.

A :class:`Hand` holds only what happened (the words in order, the answers to
«¿pares?» and «¿juego?», the cards read and corrected); everything else — the
lance in play, who speaks, what may be said, what the table must ask first,
why the cards cannot be a dealt hand, the record, the tanteo and who confirms —
is derived from it by the rules. :meth:`Hand.apply` takes one entry
(:mod:`table.entries`) and gives the next hand, or raises
:class:`~table.errors.Refused` with a code and its arguments and changes nothing.
The table checks a person's command and replays its journal through this one
method.

>>> h = Hand(Rules(), mano=0, score=(0, 0))
>>> h.lance, h.speaker, [str(w) for w in h.legal]
(<Lance.GRANDE: 'grande'>, 0, ['paso', 'envido', 'ordago'])
>>> h = h.apply(Say(0, "envido", 2)).apply(Say(1, "no quiero")).apply(Say(3, "quiero"))
>>> h = h.apply(LanceOutcome(Lance.CHICA, "en paso"))
>>> h.asked
(<Lance.PARES: 'pares'>,)
>>> h.apply(Say(1, "paso"))
Traceback (most recent call last):
...
table.errors.Refused: declare_first: lance='pares'
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from table.answer import Answer
from table.betting import Betting, BetWord, HandBets, Outcome, Word
from table.cards import Card
from table.entries import (
    CardsRead,
    Change,
    Confirm,
    Correct,
    Declare,
    Ending,
    LanceOutcome,
    Say,
    Unsay,
)
from table.errors import IllegalBet, InvalidInput, Message, Refused
from table.jugadas import Jugadas
from table.lances import Lance
from table.record import FORMAT, HandRecord
from table.rules import Rules
from table.tanteo import score as score_hand


class Phase(enum.StrEnum):
    """Where the table stands (``state.phase``)."""

    PLAYING = "playing"
    """The hand is being bet; no cards read (or not all that is needed)."""
    READING = "reading"
    """The camera is reading the cards."""
    IMPOSSIBLE = "impossible"
    """The cards read cannot be a dealt hand: the table waits for a fix, never scores a guess."""
    SCORED = "scored"
    """The tanteo is shown and waits for a confirmation."""
    OVER = "over"
    """The partida is won."""
    LEARNING = "learning"
    """A deck is being learnt."""


NO_DECLARATIONS: tuple[tuple[bool | None, ...], tuple[bool | None, ...]] = ((None,) * 4, (None,) * 4)
_JUGADAS = (Lance.PARES, Lance.JUEGO)


def _jugada(lance: Lance) -> int:
    """0 for pares, 1 for juego (and punto, which juego's declarations decide)."""
    return 0 if lance == Lance.PARES else 1


# ------------------------------------------------------------------------------------ problems


_SEEN = ("card ", " seen ")


def reading_problem(line: str) -> Message:
    """A reading's ``impossible`` line (docs/mat.md spells them in English) as a message code.

    >>> reading_problem("card 12o seen twice (seat 1 and seat 2)")
    Message(code='card_repeated', args={'card': '12o', 'times': 2, 'seats': [1, 2], 'outside': False})
    >>> reading_problem("5 cards at seat 3")
    Message(code='seat_cards', args={'seat': 3, 'n': 5})
    """
    words = line.split()
    if len(words) >= 4 and words[0] == "card" and words[2] == "seen" and "(" in line:
        times_word = words[3]
        times = 2 if times_word == "twice" else int(times_word) if times_word.isdigit() else 0
        inside = line[line.index("(") + 1:line.rindex(")")] if ")" in line else ""
        seats = [int(w) for w in inside.replace(",", " ").split() if w.isdigit()]
        return Message("card_repeated", {"card": words[1], "times": times, "seats": seats,
                                         "outside": "outside" in inside})
    if len(words) == 5 and words[1:4] == ["cards", "at", "seat"] and words[0].isdigit() and words[4].isdigit():
        return Message("seat_cards", {"seat": int(words[4]), "n": int(words[0])})
    return Message("reader_problem", {"line": line})


def card_problems(cards: Sequence[Sequence[Card]]) -> list[Message]:
    """Why these cards cannot be a dealt hand (empty when they can).

    >>> cards = [[Card.parse(c) for c in s] for s in (["12o", "1o"], ["12o"], [], [])]
    >>> [m.code for m in card_problems(cards)]
    ['card_repeated', 'seat_cards', 'seat_cards', 'seat_cards', 'seat_cards']
    """
    out: list[Message] = []
    where: dict[Card, list[int]] = {}
    for seat, hand in enumerate(cards):
        for c in hand:
            where.setdefault(c, []).append(seat)
    for c, seats in where.items():
        if len(seats) > 1:
            out.append(Message("card_repeated", {"card": str(c), "times": len(seats), "seats": seats,
                                                 "outside": False}))
    for seat, hand in enumerate(cards):
        if len(hand) != 4:
            out.append(Message("seat_cards", {"seat": seat, "n": len(hand)}))
    return out


# ------------------------------------------------------------------------------------ one-step lances


def outcome_words(b: Betting, outcome: str, n: int | None, by: int | None) -> list[Word]:
    """The legal words that make a fresh lance end as ``outcome`` (see :class:`LanceOutcome`).

    >>> [str(w) for w in outcome_words(Betting("grande", 0), "no querido", 5, 1)]
    ['0 envido 5', '1 envido 2', '2 no quiero', '0 no quiero']
    """
    b = b.copy()
    lance = str(b.lance)
    if b.words:
        raise Refused("lance_started", lance=lance)
    if b.done:
        raise Refused("lance_not_played", lance=lance)
    said: list[Word] = []

    def say(word: BetWord, k: int | None = None) -> None:
        seat = b.speaker
        assert seat is not None
        b.say(seat, word, k)
        said.append(Word(seat, word, k))

    def pass_until(ok: Callable[[int], bool]) -> None:
        while b.speaker is not None and BetWord.PASO in b.legal() and not ok(b.speaker):
            say(BetWord.PASO)
        if b.speaker is None or BetWord.PASO not in b.legal():
            raise Refused("cannot_bet", lance=lance, seat=by)

    try:
        if outcome == Ending.EN_PASO:
            while not b.done:
                say(BetWord.PASO)
        elif outcome in (Ending.QUERIDO, Ending.ORDAGO):
            pass_until(lambda s: by is None or s == by)
            if outcome == Ending.ORDAGO:
                say(BetWord.ORDAGO)
            else:
                say(BetWord.ENVIDO, 2 if n is None else max(n, 2))
            say(BetWord.QUIERO)
        elif outcome == Ending.NO_QUERIDO:
            if by is None:
                raise Refused("deje_needs_pair", lance=lance)
            pair = by & 1
            deje = 1 if n is None else n
            if deje == 1:
                pass_until(lambda s: s & 1 == pair)
                say(BetWord.ENVIDO, 2)
            else:
                pass_until(lambda s: s & 1 != pair)
                say(BetWord.ENVIDO, deje)
                say(BetWord.ENVIDO, 2)
            while not b.done:
                say(BetWord.NO_QUIERO)
        else:
            raise Refused("unknown_outcome", outcome=str(outcome))
    except IllegalBet as exc:
        raise Refused(exc.code, **exc.params) from None
    return said


# ------------------------------------------------------------------------------------ who confirms


def confirm_by(answer: Answer, record: HandRecord) -> tuple[int, ...]:
    """The seats that may confirm a scored hand: those of the pair it went against.

    The pair that lost the juego in it (an accepted órdago included: the pair
    that lost the órdago); otherwise the pair that gained fewer stones; when
    both gained the same, either pair.
    """
    if answer.winner is not None:
        loser = 1 - answer.winner
    else:
        gain = [answer.score[p] - record.score[p] for p in (0, 1)]
        if gain[0] == gain[1]:
            return (0, 1, 2, 3)
        loser = 0 if gain[0] < gain[1] else 1
    return (loser, loser + 2)


# ------------------------------------------------------------------------------------ the hand


@dataclass(frozen=True)
class StonesSeen:
    """The stones the camera counted at the end of the hand: the pool and each seat's."""

    pool: int
    seats: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class _Derived:
    bets: HandBets
    asked: tuple[Lance, ...]
    problems: tuple[Message, ...]
    record: HandRecord | None
    answer: Answer | None


@dataclass(frozen=True)
class Hand:
    """The hand in play: its rules, mano and starting score, and what happened in it."""

    rules: Rules
    mano: int
    score: tuple[int, int]
    words: tuple[Word, ...] = ()
    declared: tuple[tuple[bool | None, ...], tuple[bool | None, ...]] = NO_DECLARATIONS
    """The answers to «¿pares?» and «¿juego?», by seat (None: not asked, or not answered)."""
    cards: tuple[tuple[Card, ...], ...] | None = None
    stones: StonesSeen | None = None
    read_problems: tuple[Message, ...] = ()
    """What the reader itself found wrong (and could not be sure of) in its reading."""
    corrected: bool = False
    """Whether a card was corrected by hand since the reading."""

    # -- derived --------------------------------------------------------------------------

    @cached_property
    def _derived(self) -> _Derived:
        return self._derive(strict=False)

    def check(self) -> Hand:
        """The hand itself, once its words are known to hold together (raises otherwise)."""
        self.__dict__["_derived"] = self._derive(strict=True)  # what the views would derive: kept
        return self

    @property
    def bets(self) -> HandBets:
        """The betting replayed (a fresh copy: changing it changes nothing here)."""
        return self._replay(self._declared(Lance.PARES), self._declared(Lance.JUEGO), [])

    @property
    def lance(self) -> Lance | None:
        return self._derived.bets.lance

    @property
    def asked(self) -> tuple[Lance, ...]:
        """A declaration the table needs before the betting can go on (``(Lance.PARES,)``...)."""
        return self._derived.asked

    @property
    def speaker(self) -> int | None:
        return None if self.asked else self._derived.bets.speaker

    @property
    def legal(self) -> tuple[BetWord, ...]:
        return () if self.asked else self._derived.bets.legal()

    @property
    def betting(self) -> Betting | None:
        """The lance being bet now (read it, do not change it)."""
        return self._derived.bets.betting

    @property
    def bets_over(self) -> bool:
        return self._derived.bets.over

    @property
    def outcomes(self) -> dict[Lance, Outcome]:
        return self._derived.bets.outcomes()

    @property
    def words_by_lance(self) -> dict[str, list[list[object]]]:
        return self._derived.bets.words()

    @property
    def problems(self) -> tuple[Message, ...]:
        """Why the cards read cannot be scored (empty before the reading, or when they can)."""
        return self._derived.problems

    @property
    def record(self) -> HandRecord | None:
        """The hand's ``mus-hand/1`` record, once the cards are read and no lance is half bet."""
        return self._derived.record

    @property
    def answer(self) -> Answer | None:
        return self._derived.answer

    @property
    def impossible(self) -> bool:
        return self.cards is not None and bool(self.problems)

    @property
    def scored(self) -> bool:
        return self.answer is not None and not self.impossible

    @property
    def confirm_by(self) -> tuple[int, ...]:
        """The seats that may confirm the hand (none until it is scored)."""
        d = self._derived
        if d.answer is None or d.record is None:
            return ()
        return confirm_by(d.answer, d.record)

    def _declared(self, lance: Lance) -> tuple[bool, ...] | None:
        """What each seat has in ``lance`` (pares or juego): as declared, else as the cards say;
        None while that is not known for all four."""
        given = self.declared[_jugada(lance)]
        if all(v is not None for v in given):
            return tuple(bool(v) for v in given)
        if self.cards is None or card_problems(self.cards):
            return None
        j = Jugadas([[c.rank for c in h] for h in self.cards], self.rules, self.mano)
        truth = [(s.pares_kind > 0) if lance is Lance.PARES else (s.juego > 0) for s in j.seats]
        return tuple(truth[s] if given[s] is None else bool(given[s]) for s in range(4))

    def _replay(self, pares: tuple[bool, ...] | None, juego: tuple[bool, ...] | None,
                broken: list[Message] | None = None) -> HandBets:
        """The hand's words said again, in order, with what each seat has (or declared).

        A word that does not hold raises; with ``broken`` given, it is kept there
        instead and the betting stops before it (cards read again after words that the
        first reading allowed can contradict them: the table says so and waits)."""
        bets = HandBets(self.mano, pares or (True,) * 4, juego or (True,) * 4)
        for i, w in enumerate(self.words, 1):
            lance = bets.lance
            try:
                if lance is Lance.PARES and pares is None or lance in (Lance.JUEGO, Lance.PUNTO) and juego is None:
                    raise Refused("word_before_declaring", n=i, lance=str(lance))
                try:
                    bets.say(w.seat, w.word, w.n)
                except IllegalBet as exc:
                    raise Refused("word_no_longer_valid", n=i, seat=w.seat, word=str(w.word),
                                  why=Message.of(exc).to_json()) from None
            except Refused as exc:
                if broken is None:
                    raise
                broken.append(Message.of(exc))
                break
        return bets

    def _derive(self, *, strict: bool) -> _Derived:
        pares, juego = self._declared(Lance.PARES), self._declared(Lance.JUEGO)
        broken: list[Message] = []
        bets = self._replay(pares, juego, None if strict else broken)
        asked: tuple[Lance, ...] = ()
        if bets.lance is Lance.PARES and pares is None:
            asked = (Lance.PARES,)
        elif bets.lance in (Lance.JUEGO, Lance.PUNTO) and juego is None:
            asked = (Lance.JUEGO,)
        problems: list[Message] = list(broken)
        if self.cards is not None:
            problems += list(self.read_problems) + card_problems(self.cards)
        record = answer = None
        betting = bets.betting
        if self.cards is not None and not problems and (betting is None or not betting.words):
            # lances nobody spoke in are en paso (docs/hand-record.md: a missing lance or [])
            obj: dict[str, Any] = {"format": FORMAT, "rules": self.rules.to_json(), "mano": self.mano,
                                   "score": list(self.score), "cards": [[str(c) for c in s] for s in self.cards],
                                   "bets": bets.words()}
            if any(v is not None for decl in self.declared for v in decl):
                obj["declared"] = {"pares": list(pares or ()), "juego": list(juego or ())}
            try:
                record = HandRecord.from_json(obj)
                answer = score_hand(record)
            except InvalidInput as exc:
                problems.append(Message("cannot_score", {"why": str(exc)}))
                record = answer = None
        return _Derived(bets, asked, tuple(problems), record, answer)

    # -- changing -------------------------------------------------------------------------

    def apply(self, entry: Change) -> Hand:
        """The hand after ``entry`` (a word, a declaration, a reading, a correction); raises
        :class:`~table.errors.Refused` (nothing changes) when the rules do not take it."""
        if isinstance(entry, Say):
            return self._say(entry)
        if isinstance(entry, Unsay):
            if not self.words:
                raise Refused("nothing_said")
            return replace(self, words=self.words[:-1]).check()
        if isinstance(entry, LanceOutcome):
            return self._lance(entry)
        if isinstance(entry, Declare):
            if entry.lance not in _JUGADAS or not 0 <= entry.seat <= 3:
                raise Refused("bad_declaration", lance=str(entry.lance), seat=entry.seat)
            i = _jugada(entry.lance)
            decl = list(self.declared)
            row = list(decl[i])
            row[entry.seat] = entry.says
            decl[i] = tuple(row)
            return replace(self, declared=(decl[0], decl[1])).check()
        if isinstance(entry, CardsRead):
            problems = [reading_problem(p) for p in entry.impossible]
            if entry.unknown and sum(len(seat) for seat in entry.cards) < 16:
                problems.append(Message("reader_unsure", {"n": entry.unknown}))
            return replace(self, cards=tuple(tuple(s) for s in entry.cards),
                           stones=StonesSeen(entry.pool, tuple(entry.stones)),
                           read_problems=tuple(problems), corrected=False)
        if isinstance(entry, Correct):
            return self._correct(entry)
        raise Refused("not_a_hand_entry", kind=entry.kind)

    def _say(self, cmd: Say) -> Hand:
        if self.asked:
            raise Refused("declare_first", lance=str(self.asked[0]))
        bets = self.bets
        if bets.over:
            raise Refused("bets_over")
        try:
            bets.say(cmd.seat, cmd.word, cmd.n)
        except IllegalBet as exc:
            raise Refused(exc.code, **exc.params) from None
        word = BetWord(cmd.word)
        return replace(self, words=(*self.words, Word(cmd.seat, word, cmd.n))).check()

    def _lance(self, cmd: LanceOutcome) -> Hand:
        if self.asked:
            raise Refused("declare_first", lance=str(self.asked[0]))
        if self.lance != cmd.lance:
            raise Refused("not_this_lance", lance=str(cmd.lance),
                          playing=None if self.lance is None else str(self.lance))
        if cmd.n is not None and cmd.outcome in (Ending.EN_PASO, Ending.ORDAGO):
            raise Refused("outcome_without_number", outcome=str(cmd.outcome))
        if cmd.outcome == Ending.QUERIDO and cmd.n is not None and cmd.n < 2:
            raise Refused("querido_at_least_2", n=cmd.n)
        betting = self.betting
        assert betting is not None
        said = outcome_words(betting, cmd.outcome, cmd.n, cmd.by)
        return replace(self, words=(*self.words, *said)).check()

    def _correct(self, cmd: Correct) -> Hand:
        if self.cards is None:
            raise Refused("nothing_to_correct")
        if not 0 <= cmd.seat <= 3:
            raise Refused("no_such_seat", seat=cmd.seat)
        cards = [list(s) for s in self.cards]
        hand = cards[cmd.seat]
        if cmd.index < len(hand):
            hand[cmd.index] = cmd.card
        else:
            hand.append(cmd.card)
        return replace(self, cards=tuple(tuple(s) for s in cards), corrected=True, read_problems=()).check()

    def confirmable(self, cmd: Confirm) -> None:
        """Raise unless ``cmd`` may confirm this hand (``seat`` None: the panel, allowed here)."""
        if self.impossible:
            raise Refused("table_impossible")
        if not self.scored:
            raise Refused("nothing_to_confirm")
        allowed = self.confirm_by
        if cmd.seat is not None and cmd.seat not in allowed:
            raise Refused("confirm_other_pair", seat=cmd.seat, allowed=list(allowed))

    @classmethod
    def from_record(cls, rec: HandRecord) -> Hand:
        """A confirmed hand back in play (undone): its words, declarations and cards."""
        words = tuple(w for lance in rec.lances for w in rec.bets.get(lance, ()))
        decl: list[tuple[bool | None, ...]] = list(NO_DECLARATIONS)
        for i in (0, 1):
            if rec.declared_given[i]:
                decl[i] = tuple(rec.declared[i])
        cards = tuple(tuple(Card.parse(c) for c in seat) for seat in rec.cards)
        return cls(rec.rules, rec.mano, (rec.score[0], rec.score[1]), words, (decl[0], decl[1]), cards)
