"""The ``mus-hand/1`` hand record: parsing with a one-line reason for every fault.

A record is read from JSON text (:func:`parse`) or from an already decoded object
(:meth:`HandRecord.from_json`). Reading it checks everything the contract says and
replays every lance's words, so a :class:`HandRecord` always holds a legal hand.

>>> rec = parse('{"format": "mus-hand/1", "mano": 0, "score": [0, 0], '
...             '"cards": [["12o","3c","1e","4b"], ["11o","11c","7e","7b"], '
...             '["5o","6c","2b","10e"], ["10o","10c","1o","12b"]], "bets": {}}')
>>> rec.fourth == Lance.JUEGO, rec.outcomes["grande"].how
(True, <How.PASO: 'paso'>)
>>> parse('{"format": "mus-hand/1", "mano": 4}')
Traceback (most recent call last):
...
table.errors.InvalidRecord: mano must be a seat 0-3, not 4
"""

from __future__ import annotations

import json
from typing import Any

from table._show import show
from table.betting import (
    ENVIDO,
    MAX_ENVIDO,
    MIN_ENVIDO,
    ORDAGO_QUERIDO,
    PASSED,
    UNBET,
    WORDS,
    Betting,
    Outcome,
    Word,
)
from table.cards import BY_TEXT, Card
from table.errors import IllegalBet, InvalidCard, InvalidInput, InvalidRecord
from table.jugadas import Jugadas
from table.lances import LANCES, Lance
from table.rules import Rules

try:  # a C JSON reader, for the fast path only: the strict reader decides every fault
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the engine works without it
    _orjson = None  # type: ignore[assignment]

FORMAT = "mus-hand/1"
KEYS = ("format", "rules", "mano", "score", "cards", "bets", "declared")
LANCE_KEYS: tuple[Lance, ...] = LANCES
_KEYSET = frozenset(KEYS)
_LANCESET = frozenset(LANCE_KEYS)
_RANK = {text: card.rank for text, card in BY_TEXT.items()}
_PLAYED = ((Lance.GRANDE, Lance.CHICA, Lance.PARES, Lance.JUEGO),
           (Lance.GRANDE, Lance.CHICA, Lance.PARES, Lance.PUNTO))


class HandRecord:
    """One hand, read and checked: rules, mano, score, cards, the words of each lance,
    the declarations, and each lance's betting outcome."""

    __slots__ = ("rules", "mano", "score", "cards", "bets", "declared", "declared_given",
                 "jugadas", "fourth", "outcomes", "ordago")

    rules: Rules
    mano: int
    score: tuple[int, int]
    cards: tuple[tuple[str, ...], ...]
    """Four cards per seat, indexed by seat, in the record's notation."""
    bets: dict[Lance, tuple[Word, ...]]
    """The words of each lance played (none after an accepted órdago)."""
    declared: tuple[tuple[bool, ...], tuple[bool, ...]]
    """What each seat said to «¿pares?» and «¿juego?» (the truth where not given)."""
    declared_given: tuple[bool, bool]
    """Whether the record said ``declared.pares``, ``declared.juego`` (the seats were asked)."""
    jugadas: Jugadas
    fourth: Lance
    """``juego`` when somebody has (declared) juego, else ``punto``."""
    outcomes: dict[Lance, Outcome]
    """Each lance that was played, in order (none after an accepted órdago)."""
    ordago: Lance | None
    """The lance where an órdago was accepted (the hand ended there), if any."""

    @classmethod
    def from_json(cls, obj: Any) -> HandRecord:
        """Check a decoded record; raise :class:`~table.errors.InvalidRecord` naming the fault."""
        if not isinstance(obj, dict):
            raise _bad("record_not_object", f"a hand record is a JSON object, not {show(obj)}", value=show(obj))
        for key in obj:
            if key not in _KEYSET:
                raise _bad("record_unknown_key", f"unknown key {show(key)} (a {FORMAT} record has "
                                    f"{', '.join(KEYS)})", key=show(key), keys=", ".join(KEYS))
        fmt = _need(obj, "format")
        if fmt != FORMAT or type(fmt) is not str:
            raise _bad("record_format", f"format must be {show(FORMAT)}, not {show(fmt)}", value=show(fmt))
        self = cls.__new__(cls)
        rules = self.rules = Rules.from_json(obj.get("rules"))
        mano = _need(obj, "mano")
        if type(mano) is not int or not 0 <= mano <= 3:
            raise _bad("record_mano", f"mano must be a seat 0-3, not {show(mano)}", value=show(mano))
        self.mano = mano
        self.score = _score(_need(obj, "score"), rules.target)
        self.cards, ranks = _cards(_need(obj, "cards"))
        self.jugadas = jugadas = Jugadas(ranks, rules, mano)
        seats = jugadas.seats
        truth_pares = tuple(s.pares_kind > 0 for s in seats)
        truth_juego = tuple(s.juego > 0 for s in seats)
        declared = obj.get("declared")
        if declared is None:
            self.declared = (truth_pares, truth_juego)
            self.declared_given = (False, False)
        else:
            self.declared, self.declared_given = _declared(declared, truth_pares, truth_juego)
        self._replay(_need(obj, "bets"))
        return self

    def _replay(self, bets: Any) -> None:
        if not isinstance(bets, dict):
            raise _bad("record_bets", f"bets must be an object of lances, not {show(bets)}", value=show(bets))
        for key in bets:
            if key not in _LANCESET:
                raise _bad("record_unknown_lance", f"bets: unknown lance {show(key)} "
                                    f"(lances: {', '.join(LANCE_KEYS)})", key=show(key),
                           lances=", ".join(LANCE_KEYS))
        decl_pares, decl_juego = self.declared
        juego = decl_juego[0] or decl_juego[1] or decl_juego[2] or decl_juego[3]
        lances = _PLAYED[0] if juego else _PLAYED[1]
        self.fourth = lances[3]
        other = Lance.PUNTO if juego else Lance.JUEGO
        if bets.get(other):
            if other is Lance.PUNTO:
                holders = [s for s in range(4) if decl_juego[s]]
                raise _bad("record_punto_with_juego",
                           f"bets.punto: punto is played only when nobody has juego, and seat "
                           f"{holders[0]} has (declared) juego", seat=holders[0])
            raise _bad("record_juego_without_juego", "bets.juego: nobody has (declared) juego: the lance is punto")
        mano = self.mano
        self.bets = {}
        self.outcomes = {}
        self.ordago = None
        masks = (15, 15, _mask(decl_pares), _mask(decl_juego) if juego else 15)
        for lance, mask in zip(lances, masks, strict=True):
            words = bets.get(lance)
            if words is None:
                words = ()
            elif type(words) is not list:
                raise _bad("record_words", f"bets.{lance} must be a list of words, not {show(words)}",
                           lance=str(lance), value=show(words))
            if self.ordago is not None:
                if words:
                    raise _bad("record_after_ordago", f"bets.{lance}: the hand ended with the órdago accepted "
                                        f"in {self.ordago}: no more words", lance=str(lance),
                               ordago=str(self.ordago))
                continue
            said, outcome = _lance(lance, mano, mask, words)
            self.bets[lance] = said
            self.outcomes[lance] = outcome
            if outcome.how is ORDAGO_QUERIDO:
                self.ordago = lance

    @property
    def lances(self) -> tuple[Lance, ...]:
        """The lances of this hand, in order: grande, chica, pares, juego or punto."""
        return _PLAYED[0] if self.fourth is Lance.JUEGO else _PLAYED[1]

    def holds(self) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
        """What the cards hold: pares and juego of each seat."""
        seats = self.jugadas.seats
        return (tuple(s.pares_kind > 0 for s in seats), tuple(s.juego > 0 for s in seats))

    def to_json(self) -> dict[str, Any]:
        """The record as the table would write it (rules in full, declarations if given)."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules.to_json(),
            "mano": self.mano,
            "score": list(self.score),
            "cards": [list(c) for c in self.cards],
            "bets": {lance: [w.to_json() for w in words] for lance, words in self.bets.items()},
        }
        if any(self.declared_given):
            declared: dict[str, list[bool]] = {}
            if self.declared_given[0]:
                declared["pares"] = list(self.declared[0])
            if self.declared_given[1]:
                declared["juego"] = list(self.declared[1])
            out["declared"] = declared
        return out

    def __repr__(self) -> str:
        return f"<HandRecord mano={self.mano} score={list(self.score)} cards={self.cards}>"


def _bad(code: str, message: str, **params: Any) -> InvalidRecord:
    """A fault of the record: ``message`` for a log, ``code`` and ``params`` for the edges to word."""
    return InvalidRecord(message, code=code, params=params)


def _need(obj: dict[str, Any], key: str) -> Any:
    try:
        return obj[key]
    except KeyError:
        raise _bad("record_missing_key", f"missing key {show(key)}", key=show(key)) from None


def _score(value: Any, target: int) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or any(type(v) is not int for v in value)):
        raise _bad("record_score", f"score must be [stones of pair 0, stones of pair 1], not {show(value)}",
                   value=show(value))
    for pair, stones in enumerate(value):
        if not 0 <= stones < target:
            raise _bad("record_score_range", f"score: pair {pair} has {stones}, which is not between 0 and "
                                f"{target - 1} (the juego is to {target})", pair=pair, stones=stones,
                       most=target - 1, target=target)
    return (value[0], value[1])


def _cards(value: Any) -> tuple[tuple[tuple[str, ...], ...], list[tuple[int, ...]]]:
    try:  # the common case: four lists of four known, distinct cards
        if type(value) is list and len(value) == 4 and all(
                type(h) is list and len(h) == 4 for h in value):
            flat = value[0] + value[1] + value[2] + value[3]
            if len(set(flat)) == 16:
                r = [_RANK[c] for c in flat]
                return ((tuple(value[0]), tuple(value[1]), tuple(value[2]), tuple(value[3])),
                        [tuple(r[0:4]), tuple(r[4:8]), tuple(r[8:12]), tuple(r[12:16])])
    except (KeyError, TypeError):
        pass  # the checks below name the fault
    if not isinstance(value, list) or len(value) != 4:
        n = len(value) if isinstance(value, list) else None
        raise _bad("record_cards", "cards must be a list of four seats' cards"
                   + (f", not {n} seats" if n is not None else f", not {show(value)}"),
                   value=f"{n} listas" if n is not None else show(value))
    seen: dict[str, int] = {}
    ranks: list[tuple[int, ...]] = []
    for seat, hand in enumerate(value):
        if not isinstance(hand, list):
            raise _bad("record_seat_cards", f"cards: seat {seat} must be a list of four cards, not {show(hand)}",
                       seat=seat, value=show(hand))
        if len(hand) != 4:
            raise _bad("record_seat_count", f"cards: seat {seat} has {len(hand)} cards, not 4", seat=seat,
                       count=len(hand))
        row = []
        for text in hand:
            rank = _RANK.get(text) if type(text) is str else None
            if rank is None:
                try:
                    Card.parse(text)
                except InvalidCard as exc:
                    raise _bad("record_not_card", f"cards: seat {seat}: {exc}", seat=seat, value=show(text)) from None
                raise _bad("record_not_card", f"cards: seat {seat}: not a card: {show(text)}", seat=seat,
                           value=show(text))
            if text in seen:
                raise _bad("record_card_twice", f"cards: {text} appears twice (seat {seen[text]} and seat {seat})",
                           card=text, seats=[seen[text], seat])
            seen[text] = seat
            row.append(rank)
        ranks.append(tuple(row))
    return tuple(tuple(h) for h in value), ranks


def _declared(value: Any, pares: tuple[bool, ...], juego: tuple[bool, ...]
              ) -> tuple[tuple[tuple[bool, ...], tuple[bool, ...]], tuple[bool, bool]]:
    if not isinstance(value, dict):
        raise _bad("record_declared", f"declared must be an object with pares and/or juego, not {show(value)}",
                   value=show(value))
    for key in value:
        if key not in (Lance.PARES, Lance.JUEGO):
            raise _bad("record_declared_key", f"declared: unknown key {show(key)} (keys: pares, juego)",
                       key=show(key))
    out = []
    for key, truth in ((Lance.PARES, pares), (Lance.JUEGO, juego)):
        v = value.get(key)
        if v is None:
            out.append(truth)
            continue
        if not isinstance(v, list) or len(v) != 4 or any(type(b) is not bool for b in v):
            raise _bad("record_declared_list", f"declared.{key} must be four true/false, one per seat, "
                       f"not {show(v)}", lance=str(key), value=show(v))
        out.append(tuple(v))
    return (out[0], out[1]), (value.get(Lance.PARES) is not None, value.get(Lance.JUEGO) is not None)


def _mask(seats: tuple[bool, ...]) -> int:
    return seats[0] | seats[1] << 1 | seats[2] << 2 | seats[3] << 3


_LANCE_CACHE: dict[tuple[int, int, bytes], tuple[tuple[Word, ...], Outcome]] = {}
"""Lances already replayed, by (mano, seats that may speak, the words as JSON).

The outcome of a lance depends on nothing else (not even which lance it is: the
lances are bet alike, only who may speak differs), and tables say the same few sequences
of words again and again («paso, paso, paso, paso»): most lances are looked up, not
replayed. The key is the words written back as JSON, so ``0`` and ``false``, ``2`` and
``2.0`` stay different keys. Only legal lances are stored; bounded in size."""
_LANCE_CACHE_SIZE = 50_000


def _lance(lance: Lance, mano: int, mask: int, words: Any) -> tuple[tuple[Word, ...], Outcome]:
    """The words of one lance checked by replaying them, and how the lance ended."""
    if not words:  # nobody spoke: en paso, or not bet when one pair alone may speak
        return _SILENT[mask]
    key = None
    if _orjson is not None:
        try:
            key = (mano, mask, _orjson.dumps(words))
        except TypeError:  # not plain JSON values (a caller's own objects): no cache
            key = None
        else:
            found = _LANCE_CACHE.get(key)
            if found is not None:
                return found
    seats = range(4) if mask == 15 else [s for s in range(4) if mask >> s & 1]
    betting = Betting(lance, mano, seats)
    if betting.done and words:
        held = {s & 1 for s in betting.seats}
        if held:
            pair = held.pop()
            raise _bad("record_not_bet_pair", f"bets.{lance}: not bet (only pair {pair} has (declared) "
                       f"{lance}), but the record has words", lance=str(lance), pair=pair)
        raise _bad("record_not_bet", f"bets.{lance}: not bet (nobody has (declared) {lance}), but the record "
                   "has words", lance=str(lance))
    say = betting.say
    for i, raw in enumerate(words, 1):
        w = _word(lance, i, raw)
        try:
            say(w.seat, w.word, w.n)
        except IllegalBet as exc:
            raise IllegalBet(f"bets.{lance}, word {i} {show(raw)}: {exc}", code="record_illegal_word",
                             params={"lance": str(lance), "i": i, "raw": show(raw),
                                     "cause": {"code": exc.code, "args": exc.params}}) from None
    outcome = betting.outcome
    if outcome is None:
        if words:
            raise _bad("record_incomplete", f"bets.{lance}: incomplete: {betting.waiting()}",
                       lance=str(lance), speaker=betting.speaker, open=not betting.bets)
        outcome = PASSED
    found = (tuple(betting.words), outcome)
    if key is not None:
        if len(_LANCE_CACHE) >= _LANCE_CACHE_SIZE:
            _LANCE_CACHE.clear()
        _LANCE_CACHE[key] = found
    return found


_SILENT = tuple(((), PASSED if mask & 0b0101 and mask & 0b1010 else UNBET) for mask in range(16))
"""A lance without words, by the seats that may speak (a bit mask): both pairs among
them, en paso; else not bet."""

_WORD_CACHE = {(seat, word.value): Word(seat, word, 2 if word == ENVIDO else None)
               for seat in range(4) for word in WORDS}


def _word(lance: Lance, i: int, raw: Any) -> Word:
    """One word of a lance (fast for well-formed words; the checks name any fault)."""
    if type(raw) is list:
        if len(raw) == 2:
            seat, word = raw
            if type(seat) is int and type(word) is str:
                w = _WORD_CACHE.get((seat, word))
                if w is not None:
                    return w
        elif len(raw) == 3:
            seat, word, n = raw
            if (type(seat) is int and 0 <= seat <= 3 and word == ENVIDO and type(n) is int
                    and MIN_ENVIDO <= n <= MAX_ENVIDO):
                return Word(seat, ENVIDO, n)
    where = f"bets.{lance}, word {i} {show(raw)}"
    here = {"lance": str(lance), "i": i, "raw": show(raw)}
    if not isinstance(raw, list) or not 2 <= len(raw) <= 3:
        raise _bad("record_word_shape", f'{where}: a word is [seat, word] or [seat, "envido", n]', **here)
    seat, word = raw[0], raw[1]
    if type(seat) is not int or not 0 <= seat <= 3:
        raise _bad("record_word_seat", f"{where}: the seat must be 0-3, not {show(seat)}", value=show(seat),
                   **here)
    if type(word) is not str or word not in WORDS:
        raise _bad("record_word_unknown", f"{where}: unknown word {show(word)} "
                   f"(words: {', '.join(WORDS)})", value=show(word), **here)
    if word != ENVIDO:
        raise _bad("record_word_number", f"{where}: only envido takes a number", **here)
    raise _bad("record_word_envido", f"{where}: envido takes a whole number from {MIN_ENVIDO} to "
               f"{MAX_ENVIDO}, not {show(raw[2])}", least=MIN_ENVIDO, most=MAX_ENVIDO, value=show(raw[2]), **here)


def _no_constants(name: str) -> Any:
    raise _bad("json_constant", f"bad JSON: {name} is not a JSON value", value=name)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _bad("json_key_twice", f"bad JSON: key {show(k)} appears twice in an object", key=show(k))
            seen.add(k)
    return out


def loads(text: str | bytes) -> Any:
    """Decode JSON text strictly (no NaN, no repeated keys); one-line error otherwise."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise _bad("json_not_utf8", f"bad JSON: not UTF-8 text ({exc.reason} at byte {exc.start})",
                       byte=exc.start) from None
    if not text.strip():
        raise (_bad("record_empty", "empty: there is no record") if not text
               else _bad("record_blank", "empty: only blank space, no record"))
    try:
        return json.loads(text, parse_constant=_no_constants, object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        raise _bad("json_bad", f"bad JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                   what=exc.msg, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise _bad("json_deep", "bad JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with too many digits
        if isinstance(exc, InvalidRecord):
            raise
        if "integer string conversion" in str(exc):
            raise _bad("json_digits", "bad JSON: a number of more than 4300 digits") from None
        raise _bad("json_bad_value", f"bad JSON: {show(str(exc).splitlines()[0], 80)[1:-1]}",
                   what=show(str(exc).splitlines()[0], 80)[1:-1]) from None


def _keys(obj: dict[str, Any]) -> int:
    """How many keys the objects a record may hold have (itself, rules, bets, declared)."""
    n = len(obj)
    for name in ("rules", "bets", "declared"):
        inner = obj.get(name)
        if type(inner) is dict:
            n += len(inner)
    return n


def parse(text: str | bytes) -> HandRecord:
    """Read one record from JSON text.

    Fast path: a C JSON reader, taken only when it cannot have hidden a fault the strict
    reader refuses: every ``:`` of the text must be one key of the record's own objects
    (a repeated key, which the C reader drops, or a colon inside a string, makes the
    counts differ). Anything else, and every fault, goes the strict way, so the
    messages are the same either way.
    """
    if _orjson is not None:
        try:
            obj = _orjson.loads(text)
        except (_orjson.JSONDecodeError, TypeError):
            obj = None
        if type(obj) is dict:
            colons = text.count(b":") if isinstance(text, bytes) else text.count(":")
            if colons == _keys(obj):
                try:
                    return HandRecord.from_json(obj)
                except InvalidInput:
                    pass  # the strict reading below names the fault
    return HandRecord.from_json(loads(text))
