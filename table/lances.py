"""The lances of a hand and the ways a lance ends, as small typed values.

Both are :class:`enum.StrEnum`: a member *is* its JSON spelling, so it compares
equal to the string (``Lance.PARES == "pares"``), keys a dict the same way, and
``json.dumps`` writes it as the record and the answer spell it.

>>> Lance.parse("pares")
<Lance.PARES: 'pares'>
>>> Lance.JUEGO == "juego", f"{Lance.CHICA}", Lance.PUNTO.jugada
(True, 'chica', False)
>>> How("no querido")
<How.NO_QUERIDO: 'no querido'>
"""

from __future__ import annotations

import enum

from table.errors import InvalidRecord


class Lance(enum.StrEnum):
    """Grande, chica, pares, juego or punto (punto only when nobody has juego)."""

    GRANDE = "grande"
    CHICA = "chica"
    PARES = "pares"
    JUEGO = "juego"
    PUNTO = "punto"

    @classmethod
    def parse(cls, text: object) -> Lance:
        """The lance named ``text``; :class:`~table.errors.InvalidRecord` otherwise."""
        try:
            return cls(text)  # type: ignore[arg-type]
        except ValueError:
            from table._show import show
            raise InvalidRecord(f"unknown lance {show(text)} "
                                f"(lances: {', '.join(cls)})") from None

    @property
    def jugada(self) -> bool:
        """Pares and juego: only the seats that have (declared) the jugada speak, and
        only if both pairs have one."""
        return self is Lance.PARES or self is Lance.JUEGO

    @property
    def everyone(self) -> bool:
        """Grande and chica: every seat holds a jugada in them."""
        return self is Lance.GRANDE or self is Lance.CHICA

    @property
    def a(self) -> str:
        """«a grande», «a pares», «al juego», «al punto»: as in «órdago a la grande»."""
        return _A[self]

    @property
    def the(self) -> str:
        """«la grande», «los pares», «el juego»: the lance named in a sentence."""
        return _THE[self]

    @property
    def of(self) -> str:
        """«de la grande», «de los pares», «del juego»."""
        return "del " + self.value if _THE[self].startswith("el ") else "de " + _THE[self]

    @property
    def heading(self) -> str:
        """«Grande», «Pares»... (the lance as a heading)."""
        return self.value.capitalize()


_A = {Lance.GRANDE: "a la grande", Lance.CHICA: "a la chica", Lance.PARES: "a pares",
      Lance.JUEGO: "al juego", Lance.PUNTO: "al punto"}

_THE = {Lance.GRANDE: "la grande", Lance.CHICA: "la chica", Lance.PARES: "los pares",
        Lance.JUEGO: "el juego", Lance.PUNTO: "el punto"}

LANCES: tuple[Lance, ...] = tuple(Lance)
"""In the order they are played (juego or punto, never both)."""


class How(enum.StrEnum):
    """How a lance ended, as the answer's ``how`` says it."""

    PASO = "paso"
    """Everybody passed: en paso."""
    QUERIDO = "querido"
    """An envite accepted: the lance is worth its stake at the end."""
    NO_QUERIDO = "no querido"
    """An envite refused: the bettor's pair took the deje at once."""
    ORDAGO = "ordago"
    """An órdago accepted: the hand ends, the lance's winner wins the juego."""
    NOT_BET = "not bet"
    """Only one pair has the jugada (pares, juego): nobody bets, its bonus counts."""
    NONE = "none"
    """Nobody has the jugada."""
