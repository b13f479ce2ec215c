"""The answer of a plain record, straight from its JSON text: the batch scorer's fast path.

``mus-table score --jsonl`` spends most of its time on the few shapes of record a
table writes again and again. :func:`answer` takes such a record (decoded by a C
JSON reader; no ``declared``, so no mistakes and no rule 19) and gives the
answer's JSON object with no intermediate objects: the jugadas looked up, each
lance's words replayed once and cached (:func:`table.record._lance`), the
tanteo counted as :func:`table.tanteo.score` counts it. Anything else — any
fault, any unusual shape — answers ``None`` and the caller takes the reference
path (:func:`table.record.parse`, :func:`table.tanteo.score`), which also names
every fault. A test checks both paths give the same answer, byte for byte, on
random and mutated records.

>>> answer(b'{"format": "mus-hand/1", "mano": 0, "score": [0, 0], "bets": {}, "cards": '
...        b'[["12o","3c","1e","4b"], ["11o","11c","7e","7b"], ["5o","6c","2b","10e"], '
...        b'["10o","10c","1o","12b"]]}')["score"]
[2, 9]
>>> answer(b'{"format": "mus-hand/1", "mano": 4}') is None
True
"""

from __future__ import annotations

from typing import Any

from table.betting import NO_QUERIDO, NOT_BET, ORDAGO_QUERIDO, QUERIDO
from table.cards import RANKS
from table.errors import InvalidInput
from table.jugadas import PARES_BONUS, PARES_KINDS, SeatJugadas, table_for
from table.lances import How, Lance
from table.numerals import stones
from table.record import _KEYSET, _LANCE_CACHE, _LANCESET, _RANK, _SILENT, FORMAT, _keys, _lance
from table.rules import Rules

try:
    import orjson as _orjson

    _dumps = _orjson.dumps
except ImportError:  # pragma: no cover - without orjson there is no fast path
    _orjson = None  # type: ignore[assignment]

_GRANDE, _CHICA, _PARES, _JUEGO, _PUNTO = "grande", "chica", "pares", "juego", "punto"
_WITH_JUEGO = (Lance.GRANDE, Lance.CHICA, Lance.PARES, Lance.JUEGO)
_WITH_PUNTO = (Lance.GRANDE, Lance.CHICA, Lance.PARES, Lance.PUNTO)
_GRANDE_L, _CHICA_L, _PUNTO_L = Lance.GRANDE, Lance.CHICA, Lance.PUNTO
_EN_PASO = {"grande": "una de grande en paso", "chica": "una de chica en paso"}
_CACHE = _LANCE_CACHE
_IN_ORDER = tuple(tuple(tuple(s for s in ((mano + i) % 4 for i in range(4)) if mask >> s & 1)
                        for mask in range(16)) for mano in range(4))
"""For each mano and set of seats (a bit mask): those seats in speaking order."""
_SAY: dict[int, str] = {}
"""Numbers as stones are said, filled as they are first needed."""
_NAMES = {True: tuple(x.value for x in _WITH_JUEGO), False: tuple(x.value for x in _WITH_PUNTO)}
_HOW = {h: h.value for h in How}


def _say(n: int) -> str:
    said = _SAY.get(n)
    if said is None:
        said = _SAY[n] = stones(n)
    return said


def answer(text: bytes | str) -> dict[str, Any] | None:
    """The answer's JSON object for a plain, valid record; None: take the reference path."""
    if _orjson is None:
        return None
    try:
        obj = _orjson.loads(text)
    except (_orjson.JSONDecodeError, TypeError):
        return None
    if type(obj) is not dict or obj.get("declared") is not None:
        return None
    colons = text.count(b":") if isinstance(text, bytes) else text.count(":")
    if colons != _keys(obj):  # a repeated key or a colon in a string: the strict reader decides
        return None
    if not _KEYSET.issuperset(obj):
        return None
    try:
        return _answer(obj)
    except (InvalidInput, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


_CODE = {text: 8 ** RANKS.index(rank) for text, rank in _RANK.items()}
"""Each card's share of its seat's code: three bits counting each rank, so the sum of
four cards names the multiset of their ranks, whatever their order."""
_BY_CODE: dict[tuple[int, bool], dict[int, SeatJugadas]] = {}


def _by_code(rules: Rules) -> dict[int, SeatJugadas]:
    """The jugadas of every four ranks under ``rules``, by their code."""
    table = {sum(8 ** RANKS.index(r) for r in ranks): sj for ranks, sj in table_for(rules).items()}
    _BY_CODE[(rules.reyes, rules.real)] = table
    return table


_RULES: dict[bytes, Rules] = {}
"""Rules objects by their JSON text (a table writes the same few again and again)."""


def _answer(obj: dict[str, Any]) -> dict[str, Any] | None:
    if obj.get("format") != FORMAT or type(obj["format"]) is not str:
        return None
    given = obj.get("rules")
    rules = _RULES.get(_orjson.dumps(given)) if type(given) is dict else None
    if rules is None:
        rules = Rules.from_json(given)
        if type(given) is dict and len(_RULES) < 64:
            _RULES[_orjson.dumps(given)] = rules
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
    table = _BY_CODE.get((rules.reyes, rules.real)) or _by_code(rules)
    seats: tuple[SeatJugadas, ...] = (
        table[code[c0[0]] + code[c0[1]] + code[c0[2]] + code[c0[3]]],
        table[code[c1[0]] + code[c1[1]] + code[c1[2]] + code[c1[3]]],
        table[code[c2[0]] + code[c2[1]] + code[c2[2]] + code[c2[3]]],
        table[code[c3[0]] + code[c3[1]] + code[c3[2]] + code[c3[3]]])
    bets = obj["bets"]
    if type(bets) is not dict:
        return None
    if not _LANCESET.issuperset(bets):
        return None
    s0, s1, s2, s3 = seats
    pares_mask = ((s0.pares_kind > 0) | (s1.pares_kind > 0) << 1 | (s2.pares_kind > 0) << 2
                  | (s3.pares_kind > 0) << 3)
    juego_mask = (s0.juego > 0) | (s1.juego > 0) << 1 | (s2.juego > 0) << 2 | (s3.juego > 0) << 3
    if juego_mask:
        lances, masks = _WITH_JUEGO, (15, 15, pares_mask, juego_mask)
        if bets.get(_PUNTO):
            return None
    else:
        lances, masks = _WITH_PUNTO, (15, 15, pares_mask, 15)
        if bets.get(_JUEGO):
            return None
    in_order = _IN_ORDER[mano]
    out_lances: dict[str, dict[str, Any]] = {}
    dejes: list[tuple[str, int, int, str]] = []
    ending: list[tuple[str, int, int, str]] = []
    ordago = False
    last_winner: int | None = None
    for lance, name, mask in zip(lances, _NAMES[lances is _WITH_JUEGO], masks, strict=True):
        words = bets.get(name)
        if words is None:
            words = ()
        elif type(words) is not list:
            return None
        if ordago:
            if words:
                return None
            continue
        if not words:
            o = _SILENT[mask][1]
        else:
            found = _CACHE.get((mano, mask, _dumps(words)))
            o = (found if found is not None else _lance(lance, mano, mask, words))[1]
        how = o.how
        # who wins it by the cards: the best key, ties to the seat nearer mano (punto is
        # played only when nobody has juego: every seat has a punto)
        holders = in_order[mask]
        seat = None
        everyone = lance is _GRANDE_L or lance is _CHICA_L
        best = -(1 << 30) if everyone else 0
        for s in holders:
            k = getattr(seats[s], name)
            if k > best:
                seat, best = s, k
        pair = None if seat is None else seat & 1
        worth = 0
        if how is NO_QUERIDO:
            pair = o.pair
            worth = deje = o.deje
            dejes.append((name, pair, deje, f"{_say(deje)} porque no"))  # type: ignore[arg-type]
            if lance is _PUNTO_L:
                ending.append((name, pair, 1, "una de punto"))  # type: ignore[arg-type]
                worth += 1
            elif not everyone:
                worth += _bonus(ending, name, pair, holders, seats, rules)  # type: ignore[arg-type]
        elif how is ORDAGO_QUERIDO or pair is None:
            if pair is None and how is NOT_BET:
                how = How.NONE
        elif how is QUERIDO:
            worth = o.stake
            ending.append((name, pair, worth, f"{_say(worth)} de envite a {name}"))
            if lance is _PUNTO_L:
                ending.append((name, pair, 1, "una de punto"))
                worth += 1
            elif not everyone:
                worth += _bonus(ending, name, pair, holders, seats, rules)
        elif everyone:
            ending.append((name, pair, 1, _EN_PASO[name]))
            worth = 1
        elif lance is _PUNTO_L:
            ending.append((name, pair, 1, "una de punto"))
            worth = 1
        else:
            worth = _bonus(ending, name, pair, holders, seats, rules)
        out_lances[name] = {"winner": pair, "how": _HOW[how], "stones": worth}
        if how is ORDAGO_QUERIDO:
            ordago = True
            last_winner = pair
    score = [points[0], points[1]]
    winner: int | None = None
    tanteo = []
    for ev in dejes if ordago else dejes + ending:
        p = ev[1]
        score[p] += ev[2]
        tanteo.append({"lance": ev[0], "pair": p, "stones": ev[2], "why": ev[3]})
        if score[p] >= target:
            winner = p
            break
    if ordago and winner is None:
        winner = last_winner
    return {"score": score, "winner": winner, "lances": out_lances, "tanteo": tanteo}


def _bonus(out: list[tuple[str, int, int, str]], lance: str, pair: int, holders: tuple[int, ...],
           seats: tuple[SeatJugadas, ...], rules: Rules) -> int:
    """As :func:`table.tanteo._bonus`: each seat of ``pair`` holding the jugada, better
    first, appended to ``out``; the stones they are worth."""
    mine = [s for s in holders if s & 1 == pair]
    if len(mine) == 2 and getattr(seats[mine[1]], lance) > getattr(seats[mine[0]], lance):
        mine.reverse()  # holders are in speaking order: the better first, a tie to mano
    total = 0
    for i, s in enumerate(mine):
        sj = seats[s]
        if lance == _PARES:
            value, name = PARES_BONUS[sj.pares_kind], PARES_KINDS[sj.pares_kind]
        elif sj.sum == 31:
            value, name = 3, "treinta y una real" if (sj.real and rules.real) else "treinta y una"
        else:
            value, name = 2, "juego"
        out.append((lance, pair, value, f"{_say(value)} de {name}" + (" del compañero" if i else "")))
        total += value
    return total
