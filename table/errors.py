"""The project's exceptions: one root, narrow children.

Everything the project raises on purpose derives from :class:`MusTableError`;
bad input derives from :class:`InvalidInput`, which is also a ``ValueError`` so
callers that only know Python's conventions still catch it.
"""


class MusTableError(Exception):
    """Root of every error mus-table raises on purpose."""


class InvalidInput(MusTableError, ValueError):
    """Input that cannot be accepted (a broken record, an unknown card, ...)."""


class InvalidCard(InvalidInput):
    """A card notation that names no card of the Spanish 40-card deck."""


class InvalidRecord(InvalidInput):
    """A ``mus-hand/1`` record that breaks the contract (shape, values, rules)."""


class IllegalBet(InvalidRecord):
    """A word that may not be said now in the lance (out of turn, by a seat out, ...)."""


class IncompleteLance(InvalidRecord):
    """A lance whose words stop before it is decided."""


class InvalidPartida(InvalidInput):
    """A partida (JSON lines of hand records) whose hands do not follow one another."""
