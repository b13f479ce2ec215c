"""A table's journal entries folded into its partidas: the hands that count, in order.

The table journals one entry per accepted change (``docs/events.md``, «The
journal»): ``(seq, partida, kind, at, body)``. A ``confirm`` entry holds the
hand's ``mus-hand/1`` record and its answer; an ``undo_hand`` takes the last
confirmed hand of its partida back. The table's own journal and the hub's copy
of it fold their entries here, so both export a partida the same way.

>>> entries = [(1, 1, "new_partida", "t", {"mano": 0}),
...            (5, 1, "confirm", "t", {"record": {"n": 1}, "answer": {}}),
...            (6, 1, "confirm", "t", {"record": {"n": 2}, "answer": {}}),
...            (7, 1, "undo_hand", "t", {})]
>>> [record for record, _ in partida_hands(entries, 1)]
[{'n': 1}]
>>> partida_starts(entries)
{1: ('t', {'mano': 0})}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Entry = tuple[int, int, str, str, dict[str, Any]]
"""``(seq, partida, kind, at, body)``: one journal entry, its body as JSON values."""


def partida_hands(entries: Iterable[Entry], partida: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The confirmed hands of ``partida`` that count (undone ones left out), in order: each
    hand's record and the answer kept with it, as JSON values."""
    out: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for _, p, kind, _, body in entries:
        if p != partida:
            continue
        if kind == "confirm":
            out.append((body["record"], body["answer"]))
        elif kind == "undo_hand" and out:
            out.pop()
    return out


def partida_starts(entries: Iterable[Entry]) -> dict[int, tuple[str, dict[str, Any]]]:
    """Each partida's first ``new_partida`` entry: when it started and its body (rules, format, mano)."""
    starts: dict[int, tuple[str, dict[str, Any]]] = {}
    for _, p, kind, at, body in entries:
        if kind == "new_partida" and p not in starts:
            starts[p] = (at, body)
    return starts
