"""The project's exceptions: one root, narrow children, each with a code and its arguments.

Everything the project raises on purpose derives from :class:`MusTableError`;
bad input derives from :class:`InvalidInput`, which is also a ``ValueError`` so
callers that only know Python's conventions still catch it.

Every error carries a ``code`` (a short name, the same in every language) and
its ``params`` (the values the sentence needs). The message (``str(exc)``) is
for whoever reads a log or the command line; what a player reads is made at the
edges from the code and its params (``web/strings.py``, in Spanish), so no
sentence of the engine reaches the table.

>>> exc = Refused("not_turn", lance="grande", speaker=3, seat=2)
>>> exc.code, exc.params
('not_turn', {'lance': 'grande', 'speaker': 3, 'seat': 2})
>>> Message.of(exc).to_json()
{'code': 'not_turn', 'args': {'lance': 'grande', 'speaker': 3, 'seat': 2}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class MusTableError(Exception):
    """Root of every error mus-table raises on purpose."""

    code: str = "error"
    """What went wrong, as a name the edges look up (each class has its own default)."""

    def __init__(self, *args: object, code: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        super().__init__(*args)
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = dict(params or {})


class InvalidInput(MusTableError, ValueError):
    """Input that cannot be accepted (a broken record, an unknown card, ...)."""

    code = "invalid"


class InvalidCard(InvalidInput):
    """A card notation that names no card of the Spanish 40-card deck."""

    code = "invalid_card"


class InvalidRecord(InvalidInput):
    """A ``mus-hand/1`` record that breaks the contract (shape, values, rules)."""

    code = "invalid_record"


class IllegalBet(InvalidRecord):
    """A word that may not be said now in the lance (out of turn, by a seat out, ...)."""

    code = "illegal_bet"


class IncompleteLance(InvalidRecord):
    """A lance whose words stop before it is decided."""

    code = "incomplete_lance"


class InvalidPartida(InvalidInput):
    """A partida (JSON lines of hand records) whose hands do not follow one another."""

    code = "invalid_partida"


class Refused(InvalidInput):
    """A change the table does not take now (a word out of turn, a confirmation by the
    wrong pair...): nothing changed. Made from a code and its params only."""

    code = "refused"

    def __init__(self, code: str, /, **params: Any) -> None:
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
        super().__init__(f"{code}: {shown}" if shown else code, code=code, params=params)


@dataclass(frozen=True, slots=True)
class Message:
    """Something a person reads, as a code and its arguments (the edges word it).

    Problems of a table that cannot be scored, faults and refusals are carried
    this way through the state, the journal's replays and the events.
    """

    code: str
    args: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, exc: MusTableError) -> Message:
        return cls(exc.code, dict(exc.params))

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "args": dict(self.args)}
