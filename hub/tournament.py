"""The tournament's formats: liguilla, knockout with lives, Swiss; fair byes; standings.

What public club reglamentos of mus tournaments do (``docs/hub.md``):

* **liguilla**: pairs drawn into groups, each group a round robin (every pair
  plays every other once), then the best go on (crossed semi-finals);
* **knockout**: a pair is out after ``lives`` lost partidas (1: plain knockout;
  2: with a losers' bracket; 3: «eliminación a tres derrotas»); each round pairs
  the pairs still in with the same number of losses first, no rematch where
  it can be helped;
* **Swiss** (optional): every round, pairs with the same wins meet, no rematch;
* **byes**: with an odd number of pairs one rests; no pair rests a second time
  before every pair has rested once;
* **standings**: partidas won, then juegos won, then head to head.

The draw is public: it takes a seed, said aloud or posted, so anyone can draw
it again. Pure functions on pair ids; :mod:`hub.app` keeps the rounds.

>>> [sorted(m) for m in round_robin([1, 2, 3, 4])[0]]
[[1, 4], [2, 3]]
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from table.errors import InvalidInput

Pairing = tuple[int, int | None]
"""Two pairs that meet (the first sits as pair 0), or a pair and None: its bye."""


class Format(StrEnum):
    LIGUILLA = "liguilla"
    CROSSED = "cruces"
    """After the liguilla: the first of each group against the second of the next (crossed semi-finals)."""
    KNOCKOUT = "knockout"
    SWISS = "swiss"


def round_robin(pairs: Sequence[int]) -> list[list[Pairing]]:
    """Every round of a round robin (the circle method): each pair meets each other once;
    with an odd number, each pair has exactly one bye."""
    ids: list[int | None] = list(pairs)
    if len(set(ids)) != len(ids):
        raise InvalidInput("una pareja aparece dos veces en la liguilla")
    if len(ids) < 2:
        return []
    if len(ids) % 2:
        ids.append(None)
    n = len(ids)
    rounds: list[list[Pairing]] = []
    for r in range(n - 1):
        out: list[Pairing] = []
        for i in range(n // 2):
            a, b = ids[i], ids[n - 1 - i]
            if a is None:
                a, b = b, a
            assert a is not None
            if b is not None and r % 2 and i == 0:
                a, b = b, a  # the fixed pair changes side every other round
            out.append((a, b))
        rounds.append(out)
        ids = [ids[0], ids[-1], *ids[1:-1]]
    return rounds


def groups(pairs: Sequence[int], n_groups: int, seed: int | str) -> list[list[int]]:
    """Pairs drawn into ``n_groups`` groups of sizes differing by one at most (a public draw)."""
    if not 1 <= n_groups <= max(1, len(pairs) // 2):
        raise InvalidInput(f"{n_groups} grupos no caben en {len(pairs)} parejas (al menos 2 por grupo)")
    order = list(pairs)
    random.Random(str(seed)).shuffle(order)
    return [order[g::n_groups] for g in range(n_groups)]


@dataclass(frozen=True)
class Result:
    """A partida played: the pairs, the juegos each won, the winner (None: not played, a bye)."""

    a: int
    b: int | None
    juegos_a: int = 0
    juegos_b: int = 0
    winner: int | None = None


def _bye(alive: list[int], byes: Counter[int], rng: random.Random) -> int:
    """Who rests: one of the pairs that rested least (never a second bye before all had one)."""
    fewest = min(byes[p] for p in alive)
    return rng.choice(sorted(p for p in alive if byes[p] == fewest))


def _pair_up(order: list[int], met: set[frozenset[int]]) -> list[Pairing]:
    """Pairs in order, each with the first after it it has not met (if any: else the next)."""
    rest = list(order)
    out: list[Pairing] = []
    while rest:
        a = rest.pop(0)
        k = next((i for i, b in enumerate(rest) if frozenset((a, b)) not in met), 0)
        out.append((a, rest.pop(k)))
    return out


def byes_of(results: Iterable[Result]) -> Counter[int]:
    return Counter(r.a for r in results if r.b is None)


def _met(results: Iterable[Result]) -> set[frozenset[int]]:
    return {frozenset((r.a, r.b)) for r in results if r.b is not None}


def knockout_round(pairs: Sequence[int], results: Sequence[Result], seed: int | str, *,
                   lives: int = 1) -> list[Pairing]:
    """The next round of a knockout where a pair is out after ``lives`` losses: the pairs
    still in, those with as many losses together, no rematch where it can be helped, a fair
    bye when they are odd. Empty when one pair (or none) is left: the tournament is won."""
    if lives < 1:
        raise InvalidInput("una pareja queda fuera tras 1 derrota al menos")
    losses = losses_of(results)
    alive = [p for p in pairs if losses[p] < lives]
    if len(alive) < 2:
        return []
    rng = random.Random(str(seed))
    out: list[Pairing] = []
    byes = byes_of(results)
    if len(alive) % 2:
        bye = _bye(alive, byes, rng)
        alive.remove(bye)
        out.append((bye, None))
    rng.shuffle(alive)
    alive.sort(key=lambda p: losses[p])
    return _pair_up(alive, _met(results)) + out


def swiss_round(pairs: Sequence[int], results: Sequence[Result], seed: int | str) -> list[Pairing]:
    """The next round of a Swiss system: pairs with as many wins meet, no rematch where it can
    be helped, a fair bye (to one of the lowest) when they are odd."""
    wins = Counter(r.winner for r in results if r.winner is not None)
    rng = random.Random(str(seed))
    order = list(pairs)
    rng.shuffle(order)
    order.sort(key=lambda p: -wins[p])
    out: list[Pairing] = []
    if len(order) % 2:
        byes = byes_of(results)
        fewest = min(byes[p] for p in order)
        bye = next(p for p in reversed(order) if byes[p] == fewest)
        order.remove(bye)
        out.append((bye, None))
    return _pair_up(order, _met(results)) + out


def losses_of(results: Iterable[Result]) -> Counter[int]:
    """Partidas lost by each pair (a knockout's brackets: 0 losses, 1 loss...)."""
    return Counter(loser for r in results if (loser := _loser(r)) is not None)


def _loser(r: Result) -> int | None:
    if r.b is None or r.winner is None:
        return None
    return r.b if r.winner == r.a else r.a


@dataclass(frozen=True)
class Standing:
    pair: int
    played: int
    won: int
    juegos: int
    juegos_against: int
    byes: int


def standings(pairs: Sequence[int], results: Sequence[Result]) -> list[Standing]:
    """The table: partidas won, then juegos won, then head to head among the pairs still tied
    (partidas won between them), then the pair's number (the registration order).

    >>> [s.pair for s in standings([1, 2, 3], [Result(1, 2, 1, 3, 2), Result(2, 3, 3, 2, 2),
    ...                                        Result(3, 1, 3, 0, 3)])]
    [2, 3, 1]
    """
    won: Counter[int] = Counter()
    juegos: Counter[int] = Counter()
    against: Counter[int] = Counter()
    played: Counter[int] = Counter()
    for r in results:
        if r.b is None:
            continue
        played[r.a] += 1
        played[r.b] += 1
        juegos[r.a] += r.juegos_a
        juegos[r.b] += r.juegos_b
        against[r.a] += r.juegos_b
        against[r.b] += r.juegos_a
        if r.winner is not None:
            won[r.winner] += 1
    byes = byes_of(results)
    rows = [Standing(p, played[p], won[p], juegos[p], against[p], byes[p]) for p in pairs]
    rows.sort(key=lambda s: (-s.won, -s.juegos))
    out: list[Standing] = []
    i = 0
    while i < len(rows):  # head to head within each group of pairs tied on both
        j = i
        while j < len(rows) and (rows[j].won, rows[j].juegos) == (rows[i].won, rows[i].juegos):
            j += 1
        tied = {s.pair for s in rows[i:j]}
        h2h = Counter(r.winner for r in results
                      if r.b is not None and r.a in tied and r.b in tied and r.winner is not None)
        out.extend(sorted(rows[i:j], key=lambda s: (-h2h[s.pair], list(pairs).index(s.pair))))
        i = j
    return out


def crossed(group_tables: Sequence[Sequence[int]]) -> list[Pairing]:
    """The crossed round after a liguilla: groups taken two by two (A-B, C-D...), the first of
    each against the second of the other. ``group_tables``: each group's pairs in standings order.

    >>> crossed([[1, 2, 3], [4, 5, 6]])
    [(1, 5), (4, 2)]
    """
    if len(group_tables) < 2 or len(group_tables) % 2 or any(len(g) < 2 for g in group_tables):
        raise InvalidInput("los cruces necesitan un número par de grupos, de al menos dos parejas cada uno")
    out: list[Pairing] = []
    for a, b in zip(group_tables[0::2], group_tables[1::2], strict=True):
        out += [(a[0], b[1]), (b[0], a[1])]
    return out


def assign_tables(pairings: Sequence[Pairing], tables: Sequence[str]) -> list[tuple[str | None, Pairing]]:
    """The round's partidas at the tables, in order; a bye needs no table."""
    playing = [p for p in pairings if p[1] is not None]
    if len(playing) > len(tables):
        raise InvalidInput(f"hay {len(playing)} partidas y solo {len(tables)} mesas")
    out: list[tuple[str | None, Pairing]] = list(zip(tables, playing, strict=False))
    return out + [(None, p) for p in pairings if p[1] is None]
