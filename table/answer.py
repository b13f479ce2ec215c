"""What the scorer answers for a hand: the spec's answer object, as dataclasses.

:meth:`Answer.to_json` gives exactly the spec's keys, in its order: ``score``,
``winner``, ``lances`` (``winner``, ``how``, ``stones``), ``tanteo`` (``lance``,
``pair``, ``stones``, ``why``), and ``mistakes`` only when there are any. The rest
(who won each lance by the cards, what was not counted, the rulings applied)
is for the juez's narration (:mod:`table.explain`) and the display.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# kinds of tanteo events
DEJE, PASO_STONE, ENVITE, BONUS, PUNTO_STONE, PENALTY = (
    "deje", "paso", "envite", "bonus", "punto", "penalty")


@dataclass(slots=True)
class Event:
    """Stones counted to a pair at one moment of the tanteo."""

    lance: str
    pair: int
    stones: int
    why: str
    """In the players' words: «dos de envite a grande», «tres de duples», «una porque no»."""
    kind: str = ENVITE
    seat: int | None = None
    """Whose jugada earned a bonus (None for other events)."""

    def to_json(self) -> dict[str, Any]:
        return {"lance": self.lance, "pair": self.pair, "stones": self.stones, "why": self.why}


@dataclass(slots=True)
class LanceResult:
    """How one lance went: who wins it, how, and everything it is worth to its winner."""

    lance: str
    winner: int | None
    """The pair that wins it (by cards, deje or órdago); None when nobody holds the jugada."""
    how: str
    """``paso``, ``querido``, ``no querido``, ``ordago``, ``not bet`` or ``none``."""
    stones: int
    """Counted or not; a deje included; 0 for an accepted órdago (worth the juego)."""
    seat: int | None = None
    """The seat whose cards win it (None when won by a deje, a ruling, or by nobody)."""
    stake: int = 0
    """The accepted envite (querido), else 0."""
    deje: int = 0
    """The stones taken at once when the envite was refused (no querido), else 0."""
    annulled: bool = False
    """Rule 19 annulled what was played in it (envites, deje, an órdago)."""
    penalty: bool = False
    """Rule 19 gave it to the other pair with a penalty deje (``how`` says ``no querido``)."""
    lost_by: tuple[int, ...] = ()
    """The pairs that lost it by a false «sí» (``penalties: "lance"``): it went to the
    other pair with its envites, or to nobody when both pairs said one."""

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "how": self.how, "stones": self.stones}


@dataclass(slots=True)
class Mistake:
    """A declaration («¿pares?», «¿juego?») that the cards contradict."""

    seat: int
    lance: str
    """``pares`` or ``juego``."""
    declared: bool
    why: str
    """«cantó pares sin tenerlos», «no cantó juego teniéndolo», ..."""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "lance": self.lance, "declared": self.declared, "why": self.why}


@dataclass(slots=True)
class Answer:
    """The scorer's answer for one hand."""

    score: tuple[int, int]
    """Both pairs' stones after the events that counted."""
    winner: int | None
    """The pair that won the juego in this hand, or None."""
    lances: dict[str, LanceResult]
    tanteo: tuple[Event, ...]
    """The events that counted, in order."""
    mistakes: tuple[Mistake, ...] = ()
    start: tuple[int, int] = (0, 0)
    target: int = 40
    not_counted: tuple[Event, ...] = ()
    """Events that would have counted but for the juego being won (or the órdago)."""
    ordago: str | None = None
    """The lance where an órdago was accepted, if any."""
    rulings: tuple[str, ...] = ()
    """The rulings on false declarations applied (``penalties``), in Spanish."""

    @property
    def won_at(self) -> Event | None:
        """The event at which the juego was won (None if it was not, or by an órdago)."""
        if self.winner is None or not self.tanteo:
            return None
        last = self.tanteo[-1]
        if last.pair == self.winner and self.score[self.winner] >= self.target:
            return last
        return None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "score": list(self.score),
            "winner": self.winner,
            "lances": {name: r.to_json() for name, r in self.lances.items()},
            "tanteo": [e.to_json() for e in self.tanteo],
        }
        if self.mistakes:
            out["mistakes"] = [m.to_json() for m in self.mistakes]
        return out
