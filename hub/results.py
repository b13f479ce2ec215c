"""From what the tables played to the tournament's results: partidas replayed, rulings applied.

A match's partida is the first one its table started after the round was
drawn. It becomes the round's result once the losing pair has confirmed it:
the partida's last hand is confirmed by a seat of the pair it went against
(``docs/events.md``, ``confirm_by``), which for the hand that won the partida
is the losing pair — the table's «firma del acta». Where that hand went even
(or the panel's button confirmed it), the juez records the losing pair's
signature on the console. The juez's rulings count on top: a partida lost
gives the match to the other pair; a juego awarded or lost moves one juego.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hub.store import Store
from hub.tournament import Result
from table.entries import journaled_names, partida_hands, partida_starts
from table.errors import InvalidInput
from table.match import Partida, Played, replay
from table.partida import juegos_won, narrate


class RulingKind(StrEnum):
    """What a juez decides (recorded by the hub, never written into a table's journal)."""

    WARNING = "warning"
    JUEGO_AWARDED = "juego_awarded"
    JUEGO_LOST = "juego_lost"
    PARTIDA_LOST = "partida_lost"
    NOTE = "note"
    SIGNED = "signed"
    """The losing pair signed the result before the juez (the table could not say it)."""


RULING_TEXT = {
    RulingKind.WARNING: "amonestación",
    RulingKind.JUEGO_AWARDED: "juego concedido",
    RulingKind.JUEGO_LOST: "juego quitado",
    RulingKind.PARTIDA_LOST: "partida perdida",
    RulingKind.NOTE: "nota",
    RulingKind.SIGNED: "acta firmada ante el juez",
}


@dataclass(frozen=True)
class PartidaView:
    """A partida the hub holds of a table: replayed as ``mus-table replay`` does."""

    table: str
    id: int
    started: str
    partida: Partida | None
    played: list[Played]
    last_seat: int | None
    """The seat that confirmed the last hand (None: the panel's button, or no hand)."""
    names: tuple[str, ...] = ()
    """The players' names by seat, as the table's «Nueva partida» journaled them (empty: none)."""

    @property
    def over(self) -> bool:
        return self.partida is not None and self.partida.over

    @property
    def juegos(self) -> tuple[int, int]:
        return juegos_won(self.played) if self.played else (0, 0)

    def narration(self, *, full: bool = True) -> list[str]:
        if self.partida is None or not self.played:
            return ["Sin manos confirmadas todavía."]
        return narrate(self.partida, self.played, full=full, names=self.names)

    def signed(self) -> bool:
        """Whether the losing pair confirmed the hand that ended the partida."""
        if not self.over or self.partida is None or self.partida.winner is None or self.last_seat is None:
            return False
        return self.last_seat % 2 != self.partida.winner


def partida_view(store: Store, table: str, partida: int) -> PartidaView:
    entries = store.entries(table)
    starts = partida_starts(entries)
    if partida not in starts:
        raise InvalidInput(f"la mesa {table} no tiene partida {partida}")
    started, body = starts[partida]
    names = journaled_names(body)
    hands = partida_hands(entries, partida)
    last_seat = None
    for _, p, kind, _, b in entries:
        if p == partida and kind == "confirm":
            last_seat = b.get("seat")
    if not hands:
        return PartidaView(table, partida, started, None, [], None, names)
    lines = [json.dumps(record) for record, _ in hands]
    state, played = replay(lines, int(body.get("juegos", 3)), int(body.get("vacas", 1)))
    return PartidaView(table, partida, started, state, played, last_seat, names)


def match_partida(store: Store, match: dict[str, Any]) -> PartidaView | None:
    """The partida a match is played in: the first its table started after the draw."""
    if not match.get("table_name"):
        return None
    starts = store.partidas(match["table_name"])
    after = sorted(p for p, (at, _) in starts.items() if at >= (match.get("drawn_at") or ""))
    if not after:
        return None
    return partida_view(store, match["table_name"], after[0])


def result_of(store: Store, match: dict[str, Any], rulings: list[dict[str, Any]]) -> tuple[Result, bool, str]:
    """A match's result, whether it counts (signed, or decided by the juez), and a line saying so."""
    a, b = match["pair_a"], match["pair_b"]
    if b is None:
        return Result(a, None), True, "descansa"
    view = match_partida(store, match)
    mine = [r for r in rulings if view is not None and r["table"] == match["table_name"]
            and r["partida"] == view.id]
    juegos = list(view.juegos) if view is not None else [0, 0]
    for r in mine:
        if r["pair"] in (0, 1):
            if r["kind"] == RulingKind.JUEGO_AWARDED:
                juegos[r["pair"]] += 1
            elif r["kind"] == RulingKind.JUEGO_LOST:
                juegos[r["pair"]] = max(0, juegos[r["pair"]] - 1)
    lost = next((r for r in reversed(mine) if r["kind"] == RulingKind.PARTIDA_LOST and r["pair"] in (0, 1)), None)
    ids = (a, b)
    if lost is not None:
        return Result(a, b, juegos[0], juegos[1], ids[1 - lost["pair"]]), True, "decidida por el juez"
    if view is None or not view.over or view.partida is None or view.partida.winner is None:
        return Result(a, b, juegos[0], juegos[1]), False, "en juego" if view is not None else "sin empezar"
    winner = ids[view.partida.winner]
    signed = view.signed() or any(r["kind"] == RulingKind.SIGNED for r in mine)
    return (Result(a, b, juegos[0], juegos[1], winner), signed,
            "firmada" if signed else "terminada: falta la firma de la pareja perdedora")


def seats(store: Store) -> dict[str, list[str]]:
    """The pairs' names the current round's draw sat at each table (pair 0 first)."""
    matches = store.matches()
    current = max((m["round"] for m in matches), default=0)
    names = {p["id"]: p["name"] for p in store.pairs()}
    return {m["table_name"]: [names[m["pair_a"]], names[m["pair_b"]]] for m in matches
            if m["round"] == current and m["table_name"] and m["pair_b"] is not None}


def results(store: Store) -> list[tuple[dict[str, Any], Result, bool, str]]:
    """Every match of the tournament with its result (see :func:`result_of`)."""
    rulings = store.rulings()
    return [(m, *result_of(store, m, rulings)) for m in store.matches()]
