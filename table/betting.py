"""The betting of a lance, word by word: who speaks now, what they may say, how it ends.

One :class:`Betting` follows one lance. Live, the table asks it after every word
«who speaks now, and what may they say?» (:attr:`Betting.speaker`,
:meth:`Betting.legal`); in replay, a record's words are fed to it one by one
(:func:`replay`). :class:`HandBets` chains the four lances of a hand.

>>> b = Betting("grande", mano=0)
>>> b.speaker, [str(w) for w in b.legal()]
(0, ['paso', 'envido', 'ordago'])
>>> b.say(0, "envido", 2).say(1, "no quiero").speaker
3
>>> b.say(3, "quiero").outcome
Outcome(how=<How.QUERIDO: 'querido'>, stake=2, deje=0, pair=None, bettor=0)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from table._show import show
from table.errors import IllegalBet, IncompleteLance
from table.lances import How, Lance


class BetWord(enum.StrEnum):
    """The words of the betting, spelt as in a record (no accent on ``ordago``)."""

    PASO = "paso"
    ENVIDO = "envido"
    """Takes a number: the first bet of a lance bets n, a later one raises by n («n más»)."""
    QUIERO = "quiero"
    NO_QUIERO = "no quiero"
    ORDAGO = "ordago"


PASO, ENVIDO, QUIERO, NO_QUIERO, ORDAGO = (
    BetWord.PASO, BetWord.ENVIDO, BetWord.QUIERO, BetWord.NO_QUIERO, BetWord.ORDAGO)
WORDS: tuple[BetWord, ...] = tuple(BetWord)
MIN_ENVIDO = 2
MAX_ENVIDO = 1000
"""The largest n an envido may say (see ``docs/decisions-engine.md``): any stake of the
target or more already wins the juego, so a larger number changes no result; the bound
keeps every total a short number that can be printed and said."""

# how a lance ended (the answer's "how")
EN_PASO, QUERIDO, NO_QUERIDO, ORDAGO_QUERIDO, NOT_BET = (
    How.PASO, How.QUERIDO, How.NO_QUERIDO, How.ORDAGO, How.NOT_BET)

_OPEN, _ANSWER, _DONE = 0, 1, 2
_FOUR = (0, 1, 2, 3)
_ALL = frozenset(_FOUR)
_NOBODY: frozenset[int] = frozenset()
_ORDERS = tuple(tuple((mano + i) % 4 for i in range(4)) for mano in range(4))


def _setup(mano: int, mask: int) -> tuple[frozenset[int], tuple[int, ...], bool]:
    seats = frozenset(s for s in range(4) if mask >> s & 1)
    return seats, tuple(s for s in _ORDERS[mano] if s in seats), len({s & 1 for s in seats}) == 2


_SETUPS = tuple(tuple(_setup(mano, mask) for mask in range(16)) for mano in range(4))
"""For each mano and set of seats (a bit mask): the seats, their speaking order, and
whether the lance can be bet (both pairs among them)."""
_JUGADA = frozenset((Lance.PARES, Lance.JUEGO))


class Word(NamedTuple):
    """One word said in a lance: ``[seat, word]`` or ``[seat, "envido", n]`` in a record.

    An immutable value (a named tuple: cheap to make on the replay's hot path).
    """

    seat: int
    word: BetWord
    n: int | None = None

    def to_json(self) -> list[object]:
        word = self.word.value if isinstance(self.word, BetWord) else self.word
        return [self.seat, word] if self.n is None else [self.seat, word, self.n]

    def __str__(self) -> str:
        return f"{self.seat} {self.word}" + ("" if self.n is None else f" {self.n}")


class Outcome(NamedTuple):
    """How a lance's betting ended.

    ``how``: ``paso`` (all passed), ``querido`` (accepted at ``stake``), ``no querido``
    (rejected: ``pair`` took ``deje`` stones at once), ``ordago`` (an órdago accepted:
    the hand ends) or ``not bet`` (fewer than both pairs hold the jugada).
    ``bettor`` is the seat whose bet was accepted or rejected.
    """

    how: How
    stake: int = 0
    deje: int = 0
    pair: int | None = None
    bettor: int | None = None


PASSED = Outcome(EN_PASO)
_PASOS = tuple(Word(seat, PASO) for seat in range(4))
_QUIEROS = tuple(Word(seat, QUIERO) for seat in range(4))
_NO_QUIEROS = tuple(Word(seat, NO_QUIERO) for seat in range(4))
UNBET = Outcome(NOT_BET)


class Betting:
    """The betting state of one lance (mutable; :meth:`after` gives a changed copy).

    ``seats`` are the seats that may speak: all four in grande, chica and punto; in
    pares and juego those that have (declared) the jugada. When they are not from
    both pairs the lance is not bet: it starts decided, ``not bet``.
    """

    __slots__ = ("lance", "mano", "seats", "_order", "_next", "_phase", "_out", "bettor",
                 "total", "ordago", "_before", "bets", "_queue", "outcome", "words")

    def __init__(self, lance: str, mano: int, seats: Iterable[int] = _FOUR) -> None:
        self.lance = Lance(lance)
        self.mano = mano
        if seats is _FOUR:
            self.seats, self._order, bettable = _ALL, _ORDERS[mano], True
        else:
            mask = 0
            for seat in seats:
                if type(seat) is not int or not 0 <= seat <= 3:
                    raise ValueError(f"not a seat: {show(seat)}")
                mask |= 1 << seat
            self.seats, self._order, bettable = _SETUPS[mano][mask]
        self._next = 0
        self._out: frozenset[int] = _NOBODY
        self.bettor: int | None = None
        """The seat whose bet stands now."""
        self.total = 0
        """The standing total (an órdago keeps the total that stood before it)."""
        self.ordago = False
        self._before = 0
        self.bets = 0
        self._queue: tuple[int, ...] = ()
        self.outcome: Outcome | None = None
        """Set once the lance is decided."""
        self.words: list[Word] = []
        if not bettable:
            self._phase, self.outcome = _DONE, UNBET
        else:
            self._phase = _OPEN

    # -- asking ------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self._phase == _DONE

    @property
    def speaker(self) -> int | None:
        """The seat that speaks now (None once the lance is decided)."""
        if self._phase == _OPEN:
            return self._order[self._next]
        if self._phase == _ANSWER:
            return self._queue[0]
        return None

    def legal(self) -> tuple[BetWord, ...]:
        """The words the speaker may say now (``envido`` takes 2 <= n <= MAX_ENVIDO)."""
        if self._phase == _OPEN:
            return (PASO, ENVIDO, ORDAGO)
        if self._phase == _ANSWER:
            return (QUIERO, NO_QUIERO) if self.ordago else (QUIERO, NO_QUIERO, ENVIDO, ORDAGO)
        return ()

    @property
    def deje(self) -> int | None:
        """What «no quiero» to the bet standing would give the bettor's pair now: 1 for a
        first envite, else what stood before the last raise (None while nothing is bet).

        >>> b = Betting("grande", 0).say(0, "envido", 2)
        >>> b.deje
        1
        >>> b.say(1, "envido", 3).deje, b.total
        (2, 5)
        """
        if self._phase != _ANSWER:
            return None
        return 1 if self.bets == 1 else self._before

    def out(self, seat: int) -> bool:
        """Whether ``seat`` said «no quiero» and is out of the lance."""
        return seat in self._out

    def waiting(self) -> str:
        """What the lance waits for, in words (for an incomplete record)."""
        if self._phase == _DONE:
            return "nothing: it is decided"
        if self._phase == _OPEN:
            return f"seat {self.speaker} has yet to speak"
        return f"seat {self.speaker} has yet to answer the {self._bet_name()}"

    def _bet_name(self) -> str:
        return "órdago" if self.ordago else f"envite of {self.total}"

    # -- saying ------------------------------------------------------------------

    def say(self, seat: int, word: str, n: int | None = None) -> Betting:
        """Apply one word; raise :class:`IllegalBet` (state unchanged) if it may not be said."""
        if word == ENVIDO and n is None:
            n = MIN_ENVIDO
        raise_ok = (n is None if word == ORDAGO else
                    word == ENVIDO and type(n) is int and MIN_ENVIDO <= n <= MAX_ENVIDO)
        phase = self._phase
        if phase == _OPEN:
            if seat == self._order[self._next]:
                if word == PASO and n is None:
                    self._next += 1
                    if self._next == len(self._order):
                        self._phase, self.outcome = _DONE, PASSED
                    self.words.append(_PASOS[seat])
                    return self
                if raise_ok:
                    self._bet(seat, word, n)
                    self.words.append(Word(seat, word if word.__class__ is BetWord else BetWord(word), n))
                    return self
        elif phase == _ANSWER and seat == self._queue[0]:
            if word == QUIERO and n is None:
                self._phase = _DONE
                self.outcome = (Outcome(ORDAGO_QUERIDO, bettor=self.bettor) if self.ordago else
                                Outcome(QUERIDO, stake=self.total, bettor=self.bettor))
                self.words.append(_QUIEROS[seat])
                return self
            if word == NO_QUIERO and n is None:
                self._no_quiero(seat)
                self.words.append(_NO_QUIEROS[seat])
                return self
            if raise_ok and not self.ordago:
                self._bet(seat, word, n)
                self.words.append(Word(seat, word if word.__class__ is BetWord else BetWord(word), n))
                return self
        raise self._why_not(seat, word, n)

    def _why_not(self, seat: int, word: str, n: int | None) -> IllegalBet:
        """Why ``word`` may not be said now (the state is left unchanged): the error, with
        its code and params for the edges to word."""
        def no(code: str, message: str, **params: object) -> IllegalBet:
            return IllegalBet(message, code=code, params={"lance": str(self.lance), "seat": seat, **params})

        if self._phase == _DONE:
            return no("lance_decided", f"the lance is already decided ({self._ended()}): no more words")
        if seat not in self.seats:
            if self.lance in _JUGADA:
                return no("seat_without_jugada",
                          f"seat {seat} may not speak in {self.lance}: it has not declared {self.lance}")
            return no("no_such_seat", f"seat {show(seat)} is not a seat (0-3)")
        if seat in self._out:
            return no("seat_out", f"seat {seat} said no quiero and is out of the lance")
        if seat != self.speaker:
            return no("not_turn", f"it is seat {self.speaker}'s turn, not seat {seat}'s", speaker=self.speaker)
        if word not in WORDS:
            return no("unknown_word", _unknown(word), word=str(word))
        if word == ENVIDO and (type(n) is not int or not MIN_ENVIDO <= n <= MAX_ENVIDO):
            return no("envido_number", f"envido takes a whole number from {MIN_ENVIDO} to {MAX_ENVIDO}, "
                      f"not {show(n)}", least=MIN_ENVIDO, most=MAX_ENVIDO)
        if word != ENVIDO and n is not None:
            return no("number_only_envido", f"only envido takes a number, not {show(word)}", word=str(word))
        if self._phase == _OPEN:
            return no("nobody_bet", f"nobody has bet yet: seat {seat} may say paso, envido or ordago, not {word}",
                      word=str(word))
        if word == PASO:
            return no("paso_no_answer", f"paso is not an answer to the {self._bet_name()}: seat {seat} "
                      f"may say quiero, no quiero, envido n or ordago", ordago=self.ordago, total=self.total)
        return no("over_ordago", "nothing can be raised over an órdago: quiero or no quiero")

    def _no_quiero(self, seat: int) -> None:
        self._out = self._out | {seat}  # out of the lance
        self._queue = self._queue[1:]
        if not self._queue:  # every answering seat still in said no quiero: refused
            bettor = self.bettor
            assert bettor is not None
            self._phase = _DONE
            self.outcome = Outcome(NO_QUERIDO, deje=1 if self.bets == 1 else self._before,
                                   pair=bettor & 1, bettor=bettor)

    def _bet(self, seat: int, word: str, n: int | None) -> None:
        self._before = self.total
        self.bets += 1
        self.bettor = seat
        if word == ORDAGO:
            self.ordago = True
        else:
            assert n is not None
            self.total = n if self.bets == 1 else self.total + n
        seats, out = self.seats, self._out
        first, second = (seat + 1) & 3, (seat + 3) & 3  # round the table from the bettor
        if first in seats and first not in out:
            self._queue = (first, second) if second in seats and second not in out else (first,)
        else:
            self._queue = (second,)  # the other pair always has a seat still in the lance
        self._phase = _ANSWER

    def _ended(self) -> str:
        o = self.outcome
        assert o is not None
        if o.how == QUERIDO:
            return f"querido at {o.stake}"
        if o.how == NO_QUERIDO:
            return f"no querido, {o.deje} to pair {o.pair}"
        return {EN_PASO: "en paso", ORDAGO_QUERIDO: "órdago accepted", NOT_BET: "not bet"}[o.how]

    def copy(self) -> Betting:
        other = object.__new__(Betting)
        for name in Betting.__slots__:
            setattr(other, name, getattr(self, name))
        other.words = list(self.words)
        return other

    def after(self, seat: int, word: str, n: int | None = None) -> Betting:
        """A copy with one more word said (``self`` is left as it was)."""
        return self.copy().say(seat, word, n)


def _unknown(word: object) -> str:
    return f"unknown word {show(word)} (words: paso, envido, quiero, no quiero, ordago)"


def replay(lance: str, mano: int, words: Iterable[Word | Sequence[object]],
           seats: Iterable[int] = (0, 1, 2, 3)) -> Outcome:
    """The outcome of a lance's whole list of words; raise if a word is illegal or the
    lance is left undecided (:class:`IncompleteLance`)."""
    b = Betting(lance, mano, seats)
    for w in words:
        if isinstance(w, Word):
            b.say(w.seat, w.word, w.n)
        else:
            b.say(*w)  # type: ignore[arg-type]
    if b.outcome is None:
        if not b.words:
            return PASSED  # no words: nobody bet (en paso)
        raise IncompleteLance(f"{lance} is incomplete: {b.waiting()}")
    return b.outcome


class HandBets:
    """The betting of a whole hand, lance after lance, for the table to drive live.

    ``pares`` and ``juego`` are the four seats' declarations («¿pares?», «¿juego?»):
    they say who may speak in pares and juego, and whether punto is played instead.
    """

    __slots__ = ("mano", "lances", "_bettings", "_i")

    def __init__(self, mano: int, pares: Sequence[bool], juego: Sequence[bool]) -> None:
        self.mano = mano
        fourth = Lance.JUEGO if any(juego) else Lance.PUNTO
        self.lances: tuple[Lance, ...] = (Lance.GRANDE, Lance.CHICA, Lance.PARES, fourth)
        self._bettings = {
            Lance.GRANDE: Betting(Lance.GRANDE, mano),
            Lance.CHICA: Betting(Lance.CHICA, mano),
            Lance.PARES: Betting(Lance.PARES, mano, (s for s in range(4) if pares[s])),
            fourth: Betting(fourth, mano, (s for s in range(4) if juego[s]))
            if fourth == Lance.JUEGO else Betting(Lance.PUNTO, mano),
        }
        self._i = 0
        self._skip()

    def _skip(self) -> None:
        while self._i < 4 and self._bettings[self.lances[self._i]].done:
            o = self._bettings[self.lances[self._i]].outcome
            if o is not None and o.how == ORDAGO_QUERIDO:
                self._i = 4  # an accepted órdago ends the hand
                return
            self._i += 1

    @property
    def lance(self) -> Lance | None:
        """The lance being bet now (None once the hand's betting is over)."""
        return self.lances[self._i] if self._i < 4 else None

    @property
    def betting(self) -> Betting | None:
        return self._bettings[self.lances[self._i]] if self._i < 4 else None

    @property
    def over(self) -> bool:
        return self._i >= 4

    @property
    def speaker(self) -> int | None:
        b = self.betting
        return None if b is None else b.speaker

    def legal(self) -> tuple[BetWord, ...]:
        b = self.betting
        return () if b is None else b.legal()

    def say(self, seat: int, word: str, n: int | None = None) -> HandBets:
        b = self.betting
        if b is None:
            raise IllegalBet("the hand's betting is over", code="bets_over")
        b.say(seat, word, n)
        self._skip()
        return self

    def lance_betting(self, lance: str) -> Betting:
        return self._bettings[Lance(lance)]

    def words(self) -> dict[str, list[list[object]]]:
        """The ``bets`` object of the hand's record."""
        return {lance: [w.to_json() for w in self._bettings[lance].words] for lance in self.lances}

    def outcomes(self) -> dict[Lance, Outcome]:
        """Each decided lance's outcome, in order (none after an accepted órdago)."""
        out: dict[Lance, Outcome] = {}
        for lance in self.lances:
            outcome = self._bettings[lance].outcome
            if outcome is None:
                break
            out[lance] = outcome
            if outcome.how == ORDAGO_QUERIDO:
                break
        return out
