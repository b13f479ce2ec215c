"""The answer of a plain record, straight from its JSON text: the batch scorer's fast path.

``mus-table score --jsonl`` spends most of its time on the few shapes of record a
table writes again and again. :func:`answer_line` takes such a record (decoded by
a C JSON reader; no ``declared``, so no mistakes and no rule 19) and gives the
answer's JSON line with no intermediate objects:

- each seat's four cards are summed into a code naming the multiset of their ranks,
  and one precomputed tuple per code gives every lance's key at once, shifted left
  two bits with room for the seat's place from mano, so the winner of a lance is the
  ``max`` of four integers (a tie goes to the seat nearer mano, as the rules say);
- each lance's words are replayed by a small integer state machine
  (:func:`_replay`, the same rules as :class:`table.betting.Betting`), once per
  distinct (mano, seats, words): later ones are looked up by the words' JSON text;
- the tanteo is counted as :func:`table.tanteo.score` counts it.

Anything else — any fault, any unusual shape, any word the small machine does not
take — answers ``None`` and the caller takes the reference path
(:func:`table.record.parse`, :func:`table.tanteo.score`), which also names every
fault. Tests check both paths give the same answer, byte for byte, on random and
mutated records.

>>> answer(b'{"format": "mus-hand/1", "mano": 0, "score": [0, 0], "bets": {}, "cards": '
...        b'[["12o","3c","1e","4b"], ["11o","11c","7e","7b"], ["5o","6c","2b","10e"], '
...        b'["10o","10c","1o","12b"]]}')["score"]
[2, 9]
>>> answer(b'{"format": "mus-hand/1", "mano": 4}') is None
True
"""

from __future__ import annotations

from typing import Any

from table.cards import BY_TEXT, RANKS
from table.errors import InvalidInput
from table.jugadas import PARES_BONUS, PARES_KINDS, table_for
from table.lances import How
from table.numerals import stones
from table.rules import Rules

try:
    import orjson as _orjson

    _dumps = _orjson.dumps
    _loads = _orjson.loads
    _OPTIONS = _orjson.OPT_NON_STR_KEYS | _orjson.OPT_APPEND_NEWLINE
except ImportError:  # pragma: no cover - without orjson there is no fast path
    _orjson = None  # type: ignore[assignment]

_FORMAT = "mus-hand/1"  # table.record.FORMAT (not imported: the fast path starts fast)
_KEYSET = frozenset(("format", "rules", "mano", "score", "cards", "bets", "declared"))
_LANCESET = frozenset(("grande", "chica", "pares", "juego", "punto"))
_NAMES = ("grande", "chica", "pares", "juego", "punto")
_WITH_JUEGO = (0, 1, 2, 3)
_WITH_PUNTO = (0, 1, 2, 4)
_H_PASO, _H_QUERIDO, _H_NO_QUERIDO, _H_ORDAGO, _H_NOT_BET = 0, 1, 2, 3, 4
_HOW = (How.PASO.value, How.QUERIDO.value, How.NO_QUERIDO.value, How.ORDAGO.value,
        How.NOT_BET.value, How.NONE.value)
_H_NONE = 5
_TIE = tuple(tuple(3 - ((s - mano) & 3) for s in range(4)) for mano in range(4))
"""For each mano, each seat's place from mano as a tie-break: 3 for mano, 0 for postre."""
_SEAT_AT = tuple(tuple((mano + 3 - t) & 3 for t in range(4)) for mano in range(4))
"""For each mano, the seat whose tie-break is t."""
_EN_PASO = ("una de grande en paso", "una de chica en paso")
_SAY: dict[int, str] = {}
"""Numbers as stones are said, filled as they are first needed."""
_DEJE_WHY: dict[int, str] = {}
_ENVITE_WHY: tuple[dict[int, str], ...] = ({}, {}, {}, {}, {})


def _say(n: int) -> str:
    said = _SAY.get(n)
    if said is None:
        said = _SAY[n] = stones(n)
    return said


def answer(text: bytes | str) -> dict[str, Any] | None:
    """The answer's JSON object for a plain, valid record; None: take the reference path."""
    line = answer_line(text)
    return None if line is None else _loads(line)  # type: ignore[no-any-return]


def answer_line(text: bytes | str) -> bytes | None:
    """The answer as one compact JSON line (UTF-8, newline ended), what ``score --jsonl``
    writes for it; None: take the reference path."""
    if _orjson is None:
        return None
    try:
        obj = _loads(text)
    except (_orjson.JSONDecodeError, TypeError):
        return None
    if type(obj) is not dict or obj.get("declared") is not None:
        return None
    colons = text.count(b":") if isinstance(text, bytes) else text.count(":")
    n = len(obj)
    inner = obj.get("rules")
    if type(inner) is dict:
        n += len(inner)
    inner = obj.get("bets")
    if type(inner) is dict:
        n += len(inner)
    if colons != n:  # a repeated key or a colon in a string: the strict reader decides
        return None
    if not _KEYSET.issuperset(obj):
        return None
    try:
        found = _answer(obj)
    except (InvalidInput, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    return None if found is None else _dumps(found, option=_OPTIONS)


_CODE = {text: 8 ** RANKS.index(card.rank) for text, card in BY_TEXT.items()}
"""Each card's share of its seat's code: three bits counting each rank, so the sum of
four cards names the multiset of their ranks, whatever their order."""

Seat = tuple[Any, ...]
"""A seat's jugadas for the fast path: the five lances' keys (grande, chica, pares,
juego, punto) shifted left two bits, whether it holds pares and juego, then its pares
bonus (stones, why, why as the partner's) and its juego bonus (the same)."""
_SEATS: dict[tuple[int, bool], dict[int, Seat]] = {}


def _seats(rules: Rules) -> dict[int, Seat]:
    """Every four ranks' :data:`Seat` under ``rules``, by their code (built once)."""
    out: dict[int, Seat] = {}
    for ranks, sj in table_for(rules).items():
        pv, pname = PARES_BONUS[sj.pares_kind], PARES_KINDS.get(sj.pares_kind, "")
        if sj.sum == 31:
            jv, jname = 3, "treinta y una real" if (sj.real and rules.real) else "treinta y una"
        else:
            jv, jname = 2, "juego"
        out[sum(8 ** RANKS.index(r) for r in ranks)] = (
            sj.grande << 2, sj.chica << 2, sj.pares << 2, sj.juego << 2, sj.punto << 2,
            sj.pares_kind > 0, sj.juego > 0,
            pv, f"{_say(pv)} de {pname}", f"{_say(pv)} de {pname} del compañero",
            jv, f"{_say(jv)} de {jname}", f"{_say(jv)} de {jname} del compañero")
    _SEATS[(rules.reyes, rules.real)] = out
    return out


_RULES: dict[bytes, Rules] = {}
"""Rules objects by their JSON text (a table writes the same few again and again)."""
_NO_RULES = Rules()


def _answer(obj: dict[str, Any]) -> dict[str, Any] | None:
    if obj["format"] != _FORMAT or type(obj["format"]) is not str:
        return None
    given = obj.get("rules")
    if given is None:
        rules = _NO_RULES
    else:
        key = _dumps(given)
        rules = _RULES.get(key)  # type: ignore[assignment]
        if rules is None:
            rules = Rules.from_json(given)
            if len(_RULES) < 64:
                _RULES[key] = rules
    target = rules.target
    mano = obj["mano"]
    if type(mano) is not int or not 0 <= mano <= 3:
        return None
    points = obj["score"]
    if (type(points) is not list or len(points) != 2 or type(points[0]) is not int
            or type(points[1]) is not int or not 0 <= points[0] < target
            or not 0 <= points[1] < target):
        return None
    cards = obj["cards"]
    if type(cards) is not list or len(cards) != 4:
        return None
    c0, c1, c2, c3 = cards
    if (type(c0) is not list or type(c1) is not list or type(c2) is not list
            or type(c3) is not list or len(c0) != 4 or len(c1) != 4 or len(c2) != 4
            or len(c3) != 4):
        return None
    flat = c0 + c1 + c2 + c3
    if len(set(flat)) != 16:
        return None
    code = _CODE
    table = _SEATS.get((rules.reyes, rules.real)) or _seats(rules)
    s0 = table[code[c0[0]] + code[c0[1]] + code[c0[2]] + code[c0[3]]]
    s1 = table[code[c1[0]] + code[c1[1]] + code[c1[2]] + code[c1[3]]]
    s2 = table[code[c2[0]] + code[c2[1]] + code[c2[2]] + code[c2[3]]]
    s3 = table[code[c3[0]] + code[c3[1]] + code[c3[2]] + code[c3[3]]]
    seats = (s0, s1, s2, s3)
    bets = obj["bets"]
    if type(bets) is not dict or not _LANCESET.issuperset(bets):
        return None
    pares_mask = s0[5] | s1[5] << 1 | s2[5] << 2 | s3[5] << 3
    juego_mask = s0[6] | s1[6] << 1 | s2[6] << 2 | s3[6] << 3
    if juego_mask:
        lances, masks = _WITH_JUEGO, (15, 15, pares_mask, juego_mask)
        if bets.get("punto"):
            return None
    else:
        lances, masks = _WITH_PUNTO, (15, 15, pares_mask, 15)
        if bets.get("juego"):
            return None
    ties = _TIE[mano]
    t0, t1, t2, t3 = ties
    seat_at = _SEAT_AT[mano]
    cache = _CACHE
    out_lances: dict[str, dict[str, Any]] = {}
    dejes: list[dict[str, Any]] = []
    ending: list[dict[str, Any]] = []
    ordago = False
    last_winner: int | None = None
    for i, mask in zip(lances, masks):  # noqa: B905 - both are four long
        name = _NAMES[i]
        words = bets.get(name)
        if ordago:
            if words:
                return None
            continue
        if not words:
            if words is not None and type(words) is not list:
                return None
            o = _SILENT[mask]
        else:
            if type(words) is not list:
                return None
            o = cache.get((mano, mask, _dumps(words)))  # type: ignore[assignment]
            if o is None:
                o = _replay(mano, mask, words)  # type: ignore[assignment]
                if o is None:
                    return None
                if len(cache) >= _CACHE_SIZE:
                    cache.clear()
                cache[(mano, mask, _dumps(words))] = o
        how = o[0]
        # who wins it by the cards: the highest key, a tie to the seat nearer mano
        best = max(s0[i] | t0, s1[i] | t1, s2[i] | t2, s3[i] | t3)
        if i < 2 or best >= 4:  # grande and chica: everyone; else a key 0 holds nothing
            pair = seat_at[best & 3] & 1
        else:
            pair = None
        worth = 0
        if how == _H_NO_QUERIDO:
            pair = o[3]
            worth = deje = o[2]
            why = _DEJE_WHY.get(deje)
            if why is None:
                why = _DEJE_WHY[deje] = f"{_say(deje)} porque no"
            dejes.append({"lance": name, "pair": pair, "stones": deje, "why": why})
            if i == 4:
                ending.append({"lance": name, "pair": pair, "stones": 1, "why": "una de punto"})
                worth += 1
            elif i >= 2:
                worth += _bonus(ending, name, i, pair, seats, ties)
        elif how == _H_ORDAGO or pair is None:
            if pair is None and how == _H_NOT_BET:
                how = _H_NONE
        elif how == _H_QUERIDO:
            worth = stake = o[1]
            whys = _ENVITE_WHY[i]
            why = whys.get(stake)
            if why is None:
                why = whys[stake] = f"{_say(stake)} de envite a {name}"
            ending.append({"lance": name, "pair": pair, "stones": stake, "why": why})
            if i == 4:
                ending.append({"lance": name, "pair": pair, "stones": 1, "why": "una de punto"})
                worth += 1
            elif i >= 2:
                worth += _bonus(ending, name, i, pair, seats, ties)
        elif i < 2:
            ending.append({"lance": name, "pair": pair, "stones": 1, "why": _EN_PASO[i]})
            worth = 1
        elif i == 4:
            ending.append({"lance": name, "pair": pair, "stones": 1, "why": "una de punto"})
            worth = 1
        else:
            worth = _bonus(ending, name, i, pair, seats, ties)
        out_lances[name] = {"winner": pair, "how": _HOW[how], "stones": worth}
        if how == _H_ORDAGO:
            ordago = True
            last_winner = pair
    score = [points[0], points[1]]
    events = dejes if ordago else dejes + ending
    gained = [0, 0]
    for ev in events:
        gained[ev["pair"]] += ev["stones"]
    winner: int | None = None
    if score[0] + gained[0] < target and score[1] + gained[1] < target:
        score[0] += gained[0]
        score[1] += gained[1]
        tanteo = events
    else:  # somebody reaches the target: nothing after that event counts
        tanteo = []
        for ev in events:
            p = ev["pair"]
            score[p] += ev["stones"]
            tanteo.append(ev)
            if score[p] >= target:
                winner = p
                break
    if ordago and winner is None:
        winner = last_winner
    return {"score": score, "winner": winner, "lances": out_lances, "tanteo": tanteo}


def _bonus(out: list[dict[str, Any]], name: str, i: int, pair: int, seats: tuple[Seat, ...],
           ties: tuple[int, ...]) -> int:
    """As :func:`table.tanteo._bonus`: each seat of ``pair`` holding the jugada of lance
    ``i`` (pares 2, juego 3), better first (a tie: nearer mano first), appended to
    ``out``; the stones they are worth."""
    a, b = seats[pair], seats[pair + 2]
    ka, kb = a[i], b[i]
    at = 7 if i == 2 else 10  # where the bonus of this lance starts in a Seat
    if not ka:
        if not kb:
            return 0
        out.append({"lance": name, "pair": pair, "stones": b[at], "why": b[at + 1]})
        return b[at]  # type: ignore[no-any-return]
    if not kb:
        out.append({"lance": name, "pair": pair, "stones": a[at], "why": a[at + 1]})
        return a[at]  # type: ignore[no-any-return]
    if kb | ties[pair + 2] > ka | ties[pair]:
        a, b = b, a
    out.append({"lance": name, "pair": pair, "stones": a[at], "why": a[at + 1]})
    out.append({"lance": name, "pair": pair, "stones": b[at], "why": b[at + 2]})
    return a[at] + b[at]  # type: ignore[no-any-return]



_Outcome = tuple[int, int, int, "int | None"]
"""How a lance's betting ended: (how, stake, deje, the pair that took the deje)."""
_SILENT: tuple[_Outcome, ...] = tuple(
    (_H_PASO if mask & 0b0101 and mask & 0b1010 else _H_NOT_BET, 0, 0, None) for mask in range(16))
"""A lance without words, by the seats that may speak: both pairs among them, en paso."""
_CACHE: dict[tuple[int, int, bytes], _Outcome] = {}
"""Lances already replayed, by (mano, seats that may speak, the words as JSON text: so
``0`` and ``false``, ``2`` and ``2.0`` stay different keys). Only legal lances."""
_CACHE_SIZE = 50_000
_ORDER = tuple(tuple(tuple(s for s in ((mano + k) % 4 for k in range(4)) if mask >> s & 1)
                     for mask in range(16)) for mano in range(4))
"""For each mano and set of seats (a bit mask): those seats in speaking order."""
_OPEN, _ANSWER = 0, 1


def _replay(mano: int, mask: int, words: list[Any]) -> _Outcome | None:
    """How a lance's words end it, by the rules of :class:`table.betting.Betting`;
    None for any word it may not say, a lance left undecided or words after it is
    decided (the reference path names the fault)."""
    if not (mask & 0b0101 and mask & 0b1010):
        return None  # not bet, yet the record has words
    order = _ORDER[mano][mask]
    phase, nxt, last = _OPEN, 0, len(order)
    out = bets = total = before = bettor = 0
    ordago = False
    queue: tuple[int, ...] = ()
    result: _Outcome | None = None
    for w in words:
        if result is not None or type(w) is not list:
            return None
        if len(w) == 2:
            seat, word = w
            n = 2
            if word == "ordago":
                n = 0
            elif word != "envido" and word != "paso" and word != "quiero" and word != "no quiero":
                return None
        elif len(w) == 3:
            seat, word, n = w
            if word != "envido" or type(n) is not int or not 2 <= n <= 1000:
                return None
        else:
            return None
        if type(seat) is not int:
            return None
        if phase == _OPEN:
            if seat != order[nxt]:
                return None
            if word == "paso":
                if len(w) != 2:
                    return None
                nxt += 1
                if nxt == last:
                    result = (_H_PASO, 0, 0, None)
                continue
            if word != "envido" and word != "ordago":
                return None
        else:
            if seat != queue[0]:
                return None
            if word == "quiero":
                result = (_H_ORDAGO, 0, 0, None) if ordago else (_H_QUERIDO, total, 0, None)
                continue
            if word == "no quiero":
                out |= 1 << seat
                queue = queue[1:]
                if not queue:
                    result = (_H_NO_QUERIDO, 0, 1 if bets == 1 else before, bettor & 1)
                continue
            if ordago or word == "paso":
                return None
        # a bet: envido n or ordago
        before = total
        bets += 1
        bettor = seat
        if word == "ordago":
            ordago = True
        else:
            total = n if bets == 1 else total + n
        first, second = (seat + 1) & 3, (seat + 3) & 3  # round the table from the bettor
        if mask >> first & 1 and not out >> first & 1:
            queue = (first, second) if mask >> second & 1 and not out >> second & 1 else (first,)
        else:
            queue = (second,)
        phase = _ANSWER
    return result
