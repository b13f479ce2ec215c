"""Random legal hand records, made by playing the betting state machine word by word.

For property tests and the benchmark: every record it makes is legal by
construction (each word is one the machine says may be said then).

>>> import random
>>> from table.record import HandRecord
>>> rec = HandRecord.from_json(random_record(random.Random(1)))
>>> len(rec.outcomes) >= 1
True
"""

from __future__ import annotations

import random
from typing import Any

from table.betting import ENVIDO, NO_QUIERO, ORDAGO, PASO, QUIERO, HandBets
from table.cards import BY_TEXT
from table.jugadas import Jugadas
from table.record import FORMAT
from table.rules import PENALTIES, REALS, REYES, TARGETS, Rules

_CARDS = tuple(BY_TEXT)
_WEIGHTS = {PASO: 6, ENVIDO: 3, ORDAGO: 0.3, QUIERO: 4, NO_QUIERO: 4}
_AMOUNTS = (2, 2, 2, 3, 4, 5, 10)


def random_rules(rng: random.Random) -> Rules:
    """Any rule set (mus con deje aside: the fast path leaves it to the reference)."""
    return Rules(rng.choice(REYES), rng.choice(REALS), rng.choice(TARGETS), rng.choice(PENALTIES))


def random_record(rng: random.Random, rules: Rules | None = None, *, lies: float = 0.0,
                  ordago: float = 1.0, mano: int | None = None,
                  score: list[int] | None = None) -> dict[str, Any]:
    """A random legal ``mus-hand/1`` record as a dict.

    ``lies``: the chance that each seat's declaration of pares or juego is false
    (then ``declared`` is in the record). ``ordago``: scales how often órdago is said.
    ``mano`` and ``score``: the hand's (random where not given).
    """
    rules = rules or random_rules(rng)
    cards = rng.sample(_CARDS, 16)
    hands = [cards[i:i + 4] for i in (0, 4, 8, 12)]
    if mano is None:
        mano = rng.randrange(4)
    if score is None:
        score = [rng.randrange(rules.target), rng.randrange(rules.target)]
    j = Jugadas([[BY_TEXT[c].rank for c in h] for h in hands], rules, mano)
    pares = [s.pares_kind > 0 for s in j.seats]
    juego = [s.juego > 0 for s in j.seats]
    record: dict[str, Any] = {"format": FORMAT, "rules": rules.to_json(), "mano": mano,
                              "score": score, "cards": hands}
    if lies:
        pares = [b != (rng.random() < lies) for b in pares]
        juego = [b != (rng.random() < lies) for b in juego]
        record["declared"] = {"pares": pares, "juego": juego}
    bets = HandBets(mano, pares, juego)
    while not bets.over:
        seat = bets.speaker
        assert seat is not None
        legal = bets.legal()
        weights = [_WEIGHTS[w] * (ordago if w == ORDAGO else 1) for w in legal]
        word = rng.choices(legal, weights)[0]
        bets.say(seat, word, rng.choice(_AMOUNTS) if word == ENVIDO else None)
    record["bets"] = bets.words()
    return record
