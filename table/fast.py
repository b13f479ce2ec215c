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
from table.jugadas import PARES_BONUS, PARES_KINDS, REAL_RANK, table_for
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
_H_PASO, _H_QUERIDO, _H_NO_QUERIDO, _H_ORDAGO, _H_NOT_BET = 0, 1, 2, 3, 4
_HOW = (How.PASO.value, How.QUERIDO.value, How.NO_QUERIDO.value, How.ORDAGO.value,
        How.NOT_BET.value, How.NONE.value)
_H_NONE = 5
_EN_PASO = ("una de grande en paso", "una de chica en paso")
_SAY: dict[int, str] = {}
"""Numbers as stones are said, filled as they are first needed."""


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
        if type(obj) is not dict or obj.get("declared") is not None:
            return None
        return _line(obj, text)
    except (_orjson.JSONDecodeError, InvalidInput, KeyError, TypeError, ValueError,
            IndexError, AttributeError):
        return None


_CODE = {text: 8 ** RANKS.index(card.rank) + (1 << (32 + k)) for k, (text, card) in enumerate(BY_TEXT.items())}
"""Each card's share of its seat's code: in the low 30 bits, three bits counting each
rank, so the sum of four cards names the multiset of their ranks, whatever their
order; above bit 32, a bit of its own, so sixteen cards are all different when the
sum of their codes has sixteen bits set there (a repeated card carries)."""
_RANKS = (1 << 30) - 1

Seat = tuple[int, ...]
"""A seat's jugadas for the fast path: the five lances' keys (grande, chica, pares,
juego, punto) shifted left two bits, the low two bits holding the seat's place from
mano (3 for mano, 0 for postre: so the highest of four is the winner, a tie to the
seat nearer mano); whether it holds pares and juego; then the class of its pares
bonus (0 none, par, medias, duples) and of its juego bonus (0 none, juego, treinta
y una, treinta y una real)."""
_SEATS: dict[tuple[int, object], tuple[dict[int, Seat], ...]] = {}
"""For each (reyes, real): for each place from mano (0 mano .. 3 postre), every four
ranks' :data:`Seat` by their code."""
_JUEGO_BONUS = ((0, ""), (2, "juego"), (3, "treinta y una"), (3, "treinta y una real"))
_PLACES = tuple(tuple((s - mano) & 3 for s in range(4)) for mano in range(4))
"""For each mano, each seat's place from mano."""
_PAIR_AT = tuple(tuple(((mano + 3 - t) & 3) & 1 for t in range(4)) for mano in range(4))
"""For each mano, the pair of the seat whose low bits (place from mano) are t."""


def _seats(rules: Rules) -> tuple[dict[int, Seat], ...]:
    """Every four ranks' :data:`Seat` under ``rules``, by place and code (built once for each
    ``reyes`` and ``real``)."""
    share = {rank: 8 ** RANKS.index(rank) for rank in RANKS}
    plain: dict[int, tuple[int, ...]] = {}
    for (r0, r1, r2, r3), sj in table_for(Rules(rules.reyes, rules.real)).items():
        juego = 0 if not sj.juego else 1 if sj.sum != 31 else 3 if sj.juego == REAL_RANK else 2
        plain[share[r0] + share[r1] + share[r2] + share[r3]] = (
            sj.grande << 2, sj.chica << 2, sj.pares << 2, sj.juego << 2, sj.punto << 2,
            sj.pares_kind > 0, sj.juego > 0, sj.pares_kind, juego)
    found: tuple[dict[int, Seat], ...] = tuple(
        {c: (g | t, ch | t, p | t, j | t, pt | t, hp, hj, pk, jk)
         for c, (g, ch, p, j, pt, hp, hj, pk, jk) in plain.items()} for t in (3, 2, 1, 0))
    _SEATS[(rules.reyes, rules.real)] = found
    return found


CHECKED = frozenset((reyes, real, target, penalties, False)
                    for reyes in (8, 4) for real in (False, True, "rey") for target in (40, 30, 20)
                    for penalties in ("lance", "mundial", "none"))
"""The rule sets (``reyes``, ``real``, ``target``, ``penalties``, ``deje``) the fast path
was checked on against the reference (``tests/test_fast.py``); any other — mus con deje,
a rule added later — takes the reference path, so a rule is never ignored here. The
penalties do not change a record without ``declared`` (no mistake), the only kind taken
here."""


_RULES: dict[bytes, Rules] = {}
"""Rules objects by their JSON text (a table writes the same few again and again)."""
_NO_RULES = Rules()
_WINNER = {None: b"null", 0: b"0", 1: b"1"}
_LOW = (1 << 32) - 1
"""Stones are summed for both pairs at once: pair 0 in the low 32 bits, pair 1 above."""


def _line(obj: dict[str, Any], text: bytes | str) -> bytes | None:
    """:func:`answer_line` once the text is decoded to a dict (faults raise or answer None)."""
    if obj["format"] != _FORMAT:  # JSON has no other value equal to a str than a str
        return None
    given = obj.get("rules")
    bets = obj["bets"]
    if type(bets) is not dict or not _KEYSET.issuperset(obj):
        return None
    # a repeated key (the C reader keeps the last) or a colon in a string: every colon
    # of the text must be one key of the record's objects, else the strict reader decides
    if given is None:
        colons = len(obj) + len(bets)
        rules = _NO_RULES
    elif type(given) is dict:
        colons = len(obj) + len(bets) + len(given)
        said = _dumps(given)
        rules = _RULES.get(said)  # type: ignore[assignment]
        if rules is None:
            rules = Rules.from_json(given)
            if (rules.reyes, rules.real, rules.target, rules.penalties, rules.deje) not in CHECKED:
                return None
            if len(_RULES) < 64:
                _RULES[said] = rules
    else:
        return None
    if (text.count(b":") if type(text) is bytes else text.count(":")) != colons:  # type: ignore[arg-type]
        return None
    target = rules.target
    mano = obj["mano"]
    if type(mano) is not int or mano >> 2:  # a seat 0-3 (a negative one shifts to -1)
        return None
    p0, p1 = obj["score"]
    if type(p0) is not int or type(p1) is not int or not 0 <= p0 < target > p1 >= 0:
        return None
    c0, c1, c2, c3 = obj["cards"]
    if (type(c0) is not list or type(c1) is not list or type(c2) is not list
            or type(c3) is not list or len(c0) + len(c1) + len(c2) + len(c3) != 16):
        return None  # sixteen cards, and none of the four seats has fewer than four: four each
    code = _CODE
    k0 = code[c0[0]] + code[c0[1]] + code[c0[2]] + code[c0[3]]
    k1 = code[c1[0]] + code[c1[1]] + code[c1[2]] + code[c1[3]]
    k2 = code[c2[0]] + code[c2[1]] + code[c2[2]] + code[c2[3]]
    k3 = code[c3[0]] + code[c3[1]] + code[c3[2]] + code[c3[3]]
    if ((k0 + k1 + k2 + k3) >> 32).bit_count() != 16:  # a card twice
        return None
    places = _PLACES[mano]
    tables = _SEATS.get((rules.reyes, rules.real)) or _seats(rules)
    s0 = tables[places[0]][k0 & _RANKS]
    s1 = tables[places[1]][k1 & _RANKS]
    s2 = tables[places[2]][k2 & _RANKS]
    s3 = tables[places[3]][k3 & _RANKS]
    if not _LANCESET.issuperset(bets):
        return None
    pair_at = _PAIR_AT[mano]
    played = _PLAYED
    cache = _CACHE[mano]
    plain = cache[15]
    # grande and chica: all four seats speak and hold the lance
    words = bets.get("grande")
    if words:  # looked up by the words' JSON text; replayed the first time
        if type(words) is not list:
            return None
        said = _dumps(words)
        oid = plain.get(said)
        if oid is None:
            oid = _oid(mano, 15, words, said)
    elif words is None or type(words) is list:
        oid = 0
    else:
        return None
    a, b = s0[0], s1[0]
    if b > a:
        a = b
    b = s2[0]
    if b > a:
        a = b
    b = s3[0]
    key = oid * 3 + pair_at[(b if b > a else a) & 3]
    c = played[0].get(key) or _played(0, key)
    frags, dejes, ends, dg, eg, ordago, winner = c
    if ordago:
        return _ordago(bets, 1, p0, p1, target, winner, frags, dejes, dg, s0[6] | s1[6] | s2[6] | s3[6])
    words = bets.get("chica")
    if words:  # looked up by the words' JSON text; replayed the first time
        if type(words) is not list:
            return None
        said = _dumps(words)
        oid = plain.get(said)
        if oid is None:
            oid = _oid(mano, 15, words, said)
    elif words is None or type(words) is list:
        oid = 0
    else:
        return None
    a, b = s0[1], s1[1]
    if b > a:
        a = b
    b = s2[1]
    if b > a:
        a = b
    b = s3[1]
    key = oid * 3 + pair_at[(b if b > a else a) & 3]
    f, d, e, x, y, ordago, winner = played[1].get(key) or _played(1, key)
    frags += f
    dejes += d
    ends += e
    dg += x
    eg += y
    if ordago:
        return _ordago(bets, 2, p0, p1, target, winner, frags, dejes, dg, s0[6] | s1[6] | s2[6] | s3[6])
    # pares and juego: those holding the jugada speak; its bonus goes to the pair that takes it
    seats = (s0, s1, s2, s3)
    juego_mask = s0[6] | s1[6] << 1 | s2[6] << 2 | s3[6] << 3
    for i in (2, 3 if juego_mask else 4):
        name = _NAMES[i]
        mask = (s0[5] | s1[5] << 1 | s2[5] << 2 | s3[5] << 3 if i == 2
                else juego_mask if i == 3 else 15)
        words = bets.get(name)
        if words:  # looked up by the words' JSON text; replayed the first time
            if type(words) is not list:
                return None
            said = _dumps(words)
            oid = cache[mask].get(said)
            if oid is None:
                oid = _oid(mano, mask, words, said)
        elif words is None or type(words) is list:
            oid = _SILENT[mask]
        else:
            return None
        best, b = s0[i], s1[i]
        if b > best:
            best = b
        b = s2[i]
        if b > best:
            best = b
        b = s3[i]
        if b > best:
            best = b
        card = pair_at[best & 3] if best >= 4 else 2  # 2: nobody holds it
        if i == 4:
            key = oid * 3 + card
        else:
            pair = _DEJE_PAIR[oid]
            if pair < 0:
                pair = card
            if pair < 2:
                one, other = seats[pair], seats[pair + 2]
                if other[i] > one[i]:
                    one, other = other, one
                key = ((oid * 3 + card) << 4) + (one[i + 5] << 2) + other[i + 5]
            else:
                key = (oid * 3 + card) << 4
        f, d, e, x, y, ordago, winner = played[i].get(key) or _played(i, key)
        frags += f
        dejes += d
        ends += e
        dg += x
        eg += y
        if ordago:
            return _ordago(bets, 3 if i == 2 else 4, p0, p1, target, winner, frags, dejes, dg,
                           juego_mask)
    if juego_mask:
        if bets.get("punto"):
            return None
    elif bets.get("juego"):
        return None
    gained = dg + eg
    g0, g1 = p0 + (gained & _LOW), p1 + (gained >> 32)
    if g0 >= target or g1 >= target:  # nothing after the event that reaches it counts
        return _reaching(p0, p1, target, None, frags, dejes + ends)
    head = _HEAD.get(g0 << 32 | g1)
    if head is None:
        head = _HEAD[g0 << 32 | g1] = b'{"score":[%d,%d],"winner":null,"lances":{' % (g0, g1)
    return b"".join((head, frags[:-1], b'},"tanteo":[', (dejes + ends)[:-1], b"]}\n"))


_HEAD: dict[int, bytes] = {}
"""The start of an answer line by its score (fewer than target stones each: a few
hundred lines)."""


def _oid(mano: int, mask: int, words: list[Any], said: bytes) -> int:
    """The outcome of a lance's words not met before (an index in :data:`_OUTCOMES`),
    replayed and kept by their JSON text ``said``; raises ValueError where the reference
    path must decide."""
    oid = _replay(mano, mask, words)
    if oid is None:
        raise ValueError
    cache = _CACHE[mano][mask]
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[bytes(memoryview(said))] = oid  # a copy: the C writer's bytes keep spare room
    return oid


_AFTER = tuple(tuple((*("grande", "chica", "pares", fourth)[after:], other) for after in range(5))
               for fourth, other in (("punto", "juego"), ("juego", "punto")))
"""For a hand without juego and with it, and each lance: the lances after it, and the
one not played: none may have words once an órdago is accepted."""


def _ordago(bets: dict[str, Any], after: int, p0: int, p1: int, target: int, winner: int | None,
            frags: bytes, dejes: bytes, dg: int, juego: int) -> bytes | None:
    """The answer line of a hand ended by an accepted órdago before lance ``after``:
    only the dejes count, the órdago's winner wins the juego unless a deje won it."""
    left = _AFTER[bool(juego)][after]
    for name in left[:-1]:  # the lances left: lists of words, and empty
        words = bets.get(name)
        if words is not None and (type(words) is not list or words):
            return None
    if bets.get(left[-1]):  # the lance not played: no words
        return None
    g0, g1 = p0 + (dg & _LOW), p1 + (dg >> 32)
    if g0 >= target or g1 >= target:
        return _reaching(p0, p1, target, winner, frags, dejes)
    return b'{"score":[%d,%d],"winner":%b,"lances":{%b},"tanteo":[%b]}\n' % (
        g0, g1, _WINNER[winner], frags[:-1], dejes[:-1])


def _reaching(p0: int, p1: int, target: int, ordago: int | None, frags: bytes,
              events: bytes) -> bytes:
    """The answer line when a pair reaches the target: the tanteo stops at that event
    (``ordago``: the pair that won an accepted órdago, if any)."""
    score = [p0, p1]
    winner = None
    tanteo = []
    for ev in _loads(b"[" + events[:-1] + b"]"):
        p = ev["pair"]
        score[p] += ev["stones"]
        tanteo.append(ev)
        if score[p] >= target:
            winner = p
            break
    if ordago is not None and winner is None:
        winner = ordago
    return b'{"score":[%d,%d],"winner":%b,"lances":{%b},"tanteo":%b}\n' % (
        score[0], score[1], _WINNER[winner], frags[:-1], _dumps(tanteo))


Played = tuple[bytes, bytes, bytes, int, int, bool, "int | None"]
"""What one lance adds to the answer: its entry in ``lances``, its deje event and its
events at the end of the hand (JSON text, each followed by a comma, or empty), the
stones of its deje and of its events at the end (both pairs at once, see
:data:`_LOW`), whether an órdago was accepted in it, and the pair that wins it."""
_PLAYED: tuple[dict[int, Played], ...] = ({}, {}, {}, {}, {})
"""For each lance, what it adds, by a key made of its outcome (an index in
:data:`_OUTCOMES`), the pair its cards give it and, in pares and juego, the bonus
classes of the pair's seats that count it, better first."""


def _played(i: int, key: int) -> Played:
    """Build (and keep) what lance ``i`` adds for ``key`` (see :data:`_PLAYED`)."""
    if i == 2 or i == 3:
        first, second = key >> 2 & 3, key & 3
        oid, card = divmod(key >> 4, 3)
    else:
        first = second = 0
        oid, card = divmod(key, 3)
    how, stake, deje, deje_pair = _OUTCOMES[oid]
    name = _NAMES[i]
    pair = None if card == 2 else card
    worth = 0
    deje_ev: dict[str, Any] | None = None
    end: list[dict[str, Any]] = []

    def event(stones: int, why: str) -> None:
        end.append({"lance": name, "pair": pair, "stones": stones, "why": why})

    def bonus() -> None:
        for k, cls in enumerate((first, second)):
            if cls:
                value, kind = ((PARES_BONUS[cls], PARES_KINDS[cls]) if i == 2
                               else _JUEGO_BONUS[cls])
                event(value, f"{_say(value)} de {kind}" + (" del compañero" if k else ""))

    if how == _H_NO_QUERIDO:
        pair = deje_pair
        deje_ev = {"lance": name, "pair": pair, "stones": deje, "why": f"{_say(deje)} porque no"}
        if i == 4:
            event(1, "una de punto")
        elif i >= 2:
            bonus()
    elif how == _H_ORDAGO or pair is None:
        if pair is None and how == _H_NOT_BET:
            how = _H_NONE
    elif how == _H_QUERIDO:
        event(stake, f"{_say(stake)} de envite a {name}")
        if i == 4:
            event(1, "una de punto")
        elif i >= 2:
            bonus()
    elif i < 2:
        event(1, _EN_PASO[i])
    elif i == 4:
        event(1, "una de punto")
    else:
        bonus()
    worth = (deje if deje_ev else 0) + sum(e["stones"] for e in end)
    entry = b'"%b":%b,' % (name.encode(), _dumps({"winner": pair, "how": _HOW[how], "stones": worth}))
    gains = [0, 0]
    for e in end:
        gains[e["pair"]] += e["stones"]
    if max(gains[0], gains[1], deje) >= 1 << 31:
        raise ValueError("too many stones to sum in 32 bits")  # the reference path says it
    found: Played = (entry, _dumps(deje_ev) + b"," if deje_ev else b"",
                     b"".join(_dumps(e) + b"," for e in end),
                     (deje << 32 if deje_pair else deje) if deje_ev else 0,
                     gains[0] + (gains[1] << 32), how == _H_ORDAGO, pair)
    table = _PLAYED[i]
    if len(table) >= _CACHE_SIZE:
        table.clear()
    table[key] = found
    return found


_Outcome = tuple[int, int, int, "int | None"]
"""How a lance's betting ended: (how, stake, deje, the pair that took the deje)."""
_OUTCOMES: list[_Outcome] = [(_H_PASO, 0, 0, None), (_H_NOT_BET, 0, 0, None)]
"""Every outcome met so far, each once: an outcome is named by its index here."""
_OUTCOME_ID: dict[_Outcome, int] = {o: k for k, o in enumerate(_OUTCOMES)}
_DEJE_PAIR: list[int] = [-1, -1]
"""For each outcome: the pair that took the deje (no querido), else -1."""
_SILENT = tuple(0 if mask & 0b0101 and mask & 0b1010 else 1 for mask in range(16))
"""A lance without words, by the seats that may speak: both pairs among them, en paso
(outcome 0); else not bet (outcome 1)."""
_CACHE: tuple[tuple[dict[bytes, int], ...], ...] = tuple(tuple({} for mask in range(16))
                                                         for mano in range(4))
"""Lances already replayed: for each mano and set of seats that may speak (a bit mask),
their outcomes by the words as JSON text (so ``0`` and ``false``, ``2`` and ``2.0``
stay different keys). Only legal lances."""
_CACHE_SIZE = 50_000
_ORDER = tuple(tuple(tuple(s for s in ((mano + k) % 4 for k in range(4)) if mask >> s & 1)
                     for mask in range(16)) for mano in range(4))
"""For each mano and set of seats (a bit mask): those seats in speaking order."""
_OPEN, _ANSWER = 0, 1


def _replay(mano: int, mask: int, words: list[Any]) -> int | None:
    """:func:`_outcome`, named by its index in :data:`_OUTCOMES`."""
    found = _outcome(mano, mask, words)
    if found is None:
        return None
    oid = _OUTCOME_ID.get(found)
    if oid is None:
        if len(_OUTCOMES) >= _CACHE_SIZE:  # every table keyed by outcomes starts afresh
            del _OUTCOMES[2:], _DEJE_PAIR[2:]
            _OUTCOME_ID.clear()
            _OUTCOME_ID.update({o: k for k, o in enumerate(_OUTCOMES)})
            for by_mask in _CACHE:
                for cache in by_mask:
                    cache.clear()
            for table in _PLAYED:
                table.clear()
        oid = _OUTCOME_ID[found] = len(_OUTCOMES)
        _OUTCOMES.append(found)
        _DEJE_PAIR.append(-1 if found[3] is None else found[3])
    return oid


def _outcome(mano: int, mask: int, words: list[Any]) -> _Outcome | None:
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
