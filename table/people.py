"""Seats and pairs as a person reads them, in the display's own words.

Records, answers and JSON keep seats 0-3 and pairs 0-1; a person reads seats 1-4
(seat ``s`` said ``s + 1``), a seat by its player's name where the partida has one
(«Jon (asiento 1)»), and a pair by its seats («los asientos 1 y 3») or, when both
its players have names, by them («Jon y Ane»): the same words as the display, /watch
and the overlay (``web/strings.py``: ``seat_the``, ``seat_named``,
``pair_seats_phrase``, ``pair_named``). ``names``: one per seat, empty where none.

>>> seat(0), seat(2, ("Jon", "", "Ane", ""))
('el asiento 1', 'Ane (asiento 3)')
>>> speaker(1), speaker(0, ("Jon", "", "Ane", ""))
('el 2', 'Jon')
>>> seats([1, 2, 3]), seats([0, 3], ("Jon", "", "", ""))
('los asientos 2, 3 y 4', 'Jon (asiento 1) y el asiento 4')
>>> pair(0), pair(1), pair(0, ("Jon", "", "Ane", "")), pair(1, ("Jon", "", "Ane", ""))
('los asientos 1 y 3', 'los asientos 2 y 4', 'Jon y Ane', 'los asientos 2 y 4')
>>> the_pair(1), seat_in_pair(2), seat_in_pair(2, ("Jon", "", "Ane", ""))
('la pareja de los asientos 2 y 4', 'el asiento 3 (pareja 1 y 3)', 'Ane (asiento 3, pareja Jon y Ane)')
"""

from __future__ import annotations

from collections.abc import Sequence

Names = Sequence[str] | None
"""A name per seat (0-3), empty where the player gave none; ``None``: no names at all."""


def name(s: int, names: Names = None) -> str:
    """The player's name at seat ``s``, or ``""``."""
    if not names or not 0 <= s < len(names):
        return ""
    return (names[s] or "").strip()


def seat(s: int, names: Names = None) -> str:
    """«el asiento 2», or «Jon (asiento 2)»."""
    n = name(s, names)
    return f"{n} (asiento {s + 1})" if n else f"el asiento {s + 1}"


def speaker(s: int, names: Names = None) -> str:
    """Who says a word at the table: «el 2» («el 2 envida dos»), or «Jon»."""
    return name(s, names) or f"el {s + 1}"


def seats(ss: Sequence[int], names: Names = None) -> str:
    """«el asiento 2», «los asientos 1, 2 y 4»; with names each seat said as :func:`seat`."""
    if len(ss) == 1:
        return seat(ss[0], names)
    if any(name(s, names) for s in ss):
        said = [seat(s, names) for s in ss]
        return ", ".join(said[:-1]) + f" y {said[-1]}"
    return "los asientos " + ", ".join(str(s + 1) for s in ss[:-1]) + f" y {ss[-1] + 1}"


def pair(p: int, names: Names = None) -> str:
    """Pair ``p`` as the display says it: «los asientos 1 y 3», or «Jon y Ane»."""
    a, b = name(p, names), name(p + 2, names)
    return f"{a} y {b}" if a and b else f"los asientos {p + 1} y {p + 3}"


def the_pair(p: int, names: Names = None) -> str:
    """Pair ``p`` as the subject of a sentence: «la pareja de los asientos 1 y 3»."""
    return f"la pareja de {pair(p, names)}"


def pair_short(p: int, names: Names = None) -> str:
    """Pair ``p`` in few words: «1 y 3», or «Jon y Ane» (the display's buttons)."""
    a, b = name(p, names), name(p + 2, names)
    return f"{a} y {b}" if a and b else f"{p + 1} y {p + 3}"


def seat_in_pair(s: int, names: Names = None) -> str:
    """A seat with its pair: «el asiento 3 (pareja 1 y 3)», «Ane (asiento 3, pareja Jon y Ane)»."""
    n = name(s, names)
    if n:
        return f"{n} (asiento {s + 1}, pareja {pair_short(s & 1, names)})"
    return f"el asiento {s + 1} (pareja {pair_short(s & 1, names)})"
