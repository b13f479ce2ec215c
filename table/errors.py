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
