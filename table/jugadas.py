"""The jugadas of a seat's four cards in each lance, and who wins a lance.

Every jugada is reduced to one integer key per lance, higher is better, so that
a lance is won by the highest key and a tie by the seat nearer mano. The keys
depend on the ranks only (suits never count, the 31 real included), so they are
computed once for each of the 715 multisets of four ranks and looked up.

>>> j = Jugadas([(12, 3, 1, 4), (11, 11, 7, 7), (5, 6, 2, 10), (10, 10, 1, 12)], DEFAULT, 0)
>>> j.best("grande"), j.best("chica"), j.best("pares"), j.best("juego")
(0, 0, 1, 3)
>>> j.seats[1].pares_name, j.seats[3].sum
('duples de caballos y sietes', 31)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement

from table.cards import RANKS
from table.rules import DEFAULT, Real, Rules

LANCES = ("grande", "chica", "pares", "juego", "punto")

PAR, MEDIAS, DUPLES = 1, 2, 3
PARES_KINDS = {PAR: "par", MEDIAS: "medias", DUPLES: "duples"}
PARES_BONUS = {0: 0, PAR: 1, MEDIAS: 2, DUPLES: 3}

JUEGO_ORDER = (33, 34, 35, 36, 37, 40, 32, 31)
"""Juego sums from worst to best (there is no 38 or 39 with four cards)."""
_JUEGO_RANK = {total: i + 1 for i, total in enumerate(JUEGO_ORDER)}
REAL_RANK = len(JUEGO_ORDER) + 1
"""The juego key of the 31 real where it is valid: above every other 31."""

_PLURAL = {1: "ases", 2: "doses", 3: "treses", 4: "cuatros", 5: "cincos", 6: "seises",
           7: "sietes", 10: "sotas", 11: "caballos", 12: "reyes"}


@dataclass(frozen=True, slots=True)
class SeatJugadas:
    """What one seat's four cards hold in every lance (keys: higher is better)."""

    ranks: tuple[int, ...]
    """The four printed ranks, high to low (``reyes: 8`` shows in the keys, not here)."""
    grande: int
    chica: int
    pares: int
    """0 without pares."""
    pares_kind: int
    """0, :data:`PAR`, :data:`MEDIAS` or :data:`DUPLES`."""
    pares_name: str
    """``"duples de reyes y ases"``, ``"medias de sotas"``, ``"par de cincos"`` or ``""``."""
    sum: int
    """The juego sum: figures 10, others their index (with ``reyes: 8`` a 3 is 10, a 2 is 1)."""
    juego: int
    """0 without juego, else its place in 33 < 34 < ... < 37 < 40 < 32 < 31 (< 31 real)."""
    real: bool
    """The 31 real (three 7s and a 10, 11 or 12; with ``real: "rey"`` a 12 only; a 3 never),
    whether or not the rules make it valid."""
    punto: int
    """The sum when it is 30 or less (no juego), else 0."""

    @property
    def pares_bonus(self) -> int:
        return PARES_BONUS[self.pares_kind]

    @property
    def juego_bonus(self) -> int:
        return 0 if not self.juego else 3 if self.sum == 31 else 2

    def key(self, lance: str) -> int:
        """The seat's key in ``lance`` (0: it does not hold that jugada)."""
        return getattr(self, lance)  # type: ignore[no-any-return]


_ORDER = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
_BY_STRENGTH = {i + 1: rank for i, rank in enumerate(_ORDER)}


def _strengths(reyes: int) -> dict[int, int]:
    """Rank -> grande strength 1..10 (with ``reyes: 8`` a 3 is a 12 and a 2 a 1)."""
    table = {rank: i + 1 for i, rank in enumerate(_ORDER)}
    if reyes == 8:
        table[3], table[2] = table[12], table[1]
    return table


def strength(rank: int, reyes: int) -> int:
    """How high ``rank`` is at grande, 1 (as) to 10 (rey); a 3 is a rey with 8 reyes."""
    return _STRENGTHS[reyes][rank]


def _value(rank: int, reyes: int) -> int:
    if rank >= 10 or (rank == 3 and reyes == 8):
        return 10
    if rank == 2 and reyes == 8:
        return 1
    return rank


def _compute(ranks: tuple[int, ...], reyes: int, real: Real) -> SeatJugadas:
    st = _strengths(reyes)
    s = sorted((st[r] for r in ranks), reverse=True)
    grande = ((s[0] * 11 + s[1]) * 11 + s[2]) * 11 + s[3]
    a = s[::-1]
    chica = -(((a[0] * 11 + a[1]) * 11 + a[2]) * 11 + a[3])
    counts: dict[int, int] = {}
    for v in s:
        counts[v] = counts.get(v, 0) + 1
    shown = _BY_STRENGTH  # a pares name says reyes and ases for treses and doses with 8 reyes
    groups = sorted(((n, v) for v, n in counts.items() if n >= 2), reverse=True)
    kind, hi, lo, name = 0, 0, 0, ""
    if groups and groups[0][0] == 4:
        kind, hi, lo = DUPLES, groups[0][1], groups[0][1]
        name = f"duples de {_PLURAL[shown[hi]]}"
    elif len(groups) == 2:
        kind, hi, lo = DUPLES, max(groups[0][1], groups[1][1]), min(groups[0][1], groups[1][1])
        name = f"duples de {_PLURAL[shown[hi]]} y {_PLURAL[shown[lo]]}"
    elif groups and groups[0][0] == 3:
        kind, hi = MEDIAS, groups[0][1]
        name = f"medias de {_PLURAL[shown[hi]]}"
    elif groups:
        kind, hi = PAR, groups[0][1]
        name = f"par de {_PLURAL[shown[hi]]}"
    pares = (kind * 11 + hi) * 11 + lo if kind else 0
    total = sum(_value(r, reyes) for r in ranks)
    is_real = sorted(ranks)[:3] == [7, 7, 7] and max(ranks) >= (12 if real == "rey" else 10)
    juego = 0
    if total >= 31:
        juego = REAL_RANK if (is_real and real) else _JUEGO_RANK[total]
    return SeatJugadas(
        ranks=tuple(sorted(ranks, reverse=True)), grande=grande, chica=chica, pares=pares,
        pares_kind=kind, pares_name=name, sum=total, juego=juego, real=is_real,
        punto=total if total <= 30 else 0,
    )


_STRENGTHS = {reyes: _strengths(reyes) for reyes in (8, 4)}
_TABLES: dict[tuple[int, Real], dict[tuple[int, ...], SeatJugadas]] = {}


def table_for(rules: Rules) -> dict[tuple[int, ...], SeatJugadas]:
    """The jugadas of every four ranks (sorted high to low) under ``rules``, built once."""
    key = (rules.reyes, rules.real)
    found = _TABLES.get(key)
    if found is None:
        found = {}
        for combo in combinations_with_replacement(sorted(RANKS, reverse=True), 4):
            found[combo] = _compute(combo, rules.reyes, rules.real)
        _TABLES[key] = found
    return found


def seat_jugadas(ranks: Iterable[int], rules: Rules = DEFAULT) -> SeatJugadas:
    """The jugadas of four ranks (any order)."""
    return table_for(rules)[tuple(sorted(ranks, reverse=True))]


_EVERYONE = frozenset(("grande", "chica"))
_NO_KEY = -(1 << 30)


class Jugadas:
    """The four seats' jugadas in one hand, and the winner of each lance."""

    __slots__ = ("seats", "mano", "order")

    def __init__(self, ranks: Sequence[Iterable[int]], rules: Rules, mano: int) -> None:
        table = table_for(rules)
        self.seats: tuple[SeatJugadas, ...] = tuple(
            table[tuple(sorted(r, reverse=True))] for r in ranks)
        self.mano = mano
        self.order: tuple[int, ...] = tuple((mano + i) % 4 for i in range(4))
        """Seats in speaking order: ties go to the earlier one."""

    def best(self, lance: str, among: Iterable[int] | None = None) -> int | None:
        """The seat that wins ``lance`` by the cards, among ``among`` (default: all four);
        None when none of them holds the jugada (pares, juego, punto)."""
        if among is None:
            order: Iterable[int] = self.order
        else:
            allowed = among if isinstance(among, (list, tuple, set, frozenset)) else list(among)
            order = [s for s in self.order if s in allowed]
        best_seat = None
        best_key = _NO_KEY if lance in _EVERYONE else 0  # chica keys are negative
        seats = self.seats
        for seat in order:  # speaking order: a tie stays with the seat nearer mano
            k = getattr(seats[seat], lance)
            if k > best_key:
                best_seat, best_key = seat, k
        return best_seat

    def ranked(self, lance: str, seats: Iterable[int]) -> list[int]:
        """``seats`` that hold the jugada of ``lance``, best first (ties: nearer mano first)."""
        pos = {s: i for i, s in enumerate(self.order)}
        held = [s for s in seats if lance in ("grande", "chica") or getattr(self.seats[s], lance)]
        return sorted(held, key=lambda s: (-getattr(self.seats[s], lance), pos[s]))

    def holds(self, lance: str, seat: int) -> bool:
        """Whether ``seat`` holds a jugada in ``lance`` (always true in grande and chica)."""
        return lance in ("grande", "chica") or bool(getattr(self.seats[seat], lance))
