"""What people at the table ask the loop to do: typed commands, parsed from the display's JSON.

Every command is a small frozen value with ``to_json()`` (the body the web
posts, and what the journal keeps) and :func:`parse_command` reads one back;
a bad body is refused with :class:`CommandRefused` and a one-line reason, in
Spanish as a player reads it. The loop refuses commands the engine refuses
with the same error, and then changes nothing.

>>> parse_command({"kind": "say", "seat": 1, "word": "envido", "n": 5})
Say(seat=1, word='envido', n=5)
>>> parse_command({"kind": "correct", "seat": 2, "index": 0, "card": "12o"}).to_json()
{'kind': 'correct', 'seat': 2, 'index': 0, 'card': '12o'}
>>> parse_command({"kind": "say", "seat": 7, "word": "paso"})
Traceback (most recent call last):
...
firmware.table_commands.CommandRefused: asiento 7 no existe (0-3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from table.cards import Card
from table.errors import InvalidCard, InvalidInput
from table.lances import LANCES, Lance

WORDS = ("paso", "envido", "quiero", "no quiero", "ordago")
OUTCOMES = ("en paso", "querido", "no querido", "ordago")
"""How a lance ended, entered in one step (:class:`LanceOutcome`)."""


class CommandRefused(InvalidInput):
    """A command the table does not accept now; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Say:
    """One word in the lance in play: ``paso``, ``envido`` (``n`` >= 2), ``quiero``, ``no quiero``, ``ordago``."""

    kind: ClassVar[str] = "say"
    seat: int
    word: str
    n: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat, "word": self.word}
        if self.n is not None:
            out["n"] = self.n
        return out


@dataclass(frozen=True, slots=True)
class Unsay:
    """Take back the last word said in this hand."""

    kind: ClassVar[str] = "unsay"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class LanceOutcome:
    """How the lance in play ended, in one step; it becomes legal words.

    * ``en paso``: everybody passed;
    * ``querido`` (``n``): an envite of ``n`` accepted (``by``: the seat that bet it);
    * ``no querido`` (``n``): the pair of seat ``by`` takes ``n`` stones at once (the deje);
    * ``ordago``: an órdago accepted (``by``: the seat that called it).
    """

    kind: ClassVar[str] = "lance"
    lance: Lance
    outcome: str
    n: int | None = None
    by: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "lance": self.lance, "outcome": self.outcome}
        if self.n is not None:
            out["n"] = self.n
        if self.by is not None:
            out["by"] = self.by
        return out


@dataclass(frozen=True, slots=True)
class Declare:
    """What ``seat`` said when asked «¿pares?» or «¿juego?»."""

    kind: ClassVar[str] = "declare"
    seat: int
    lance: Lance
    says: bool

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "lance": self.lance, "says": self.says}


@dataclass(frozen=True, slots=True)
class Read:
    """Read the cards now (the panel's «leer», or a re-read after a fix on the table)."""

    kind: ClassVar[str] = "read"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Correct:
    """Card ``index`` (0-3) of ``seat`` is really ``card``; ``index`` 4 or more adds a card the camera missed."""

    kind: ClassVar[str] = "correct"
    seat: int
    index: int
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "index": self.index, "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class Confirm:
    """A player of the other pair confirms the scored hand; ``seat`` None is the panel's button."""

    kind: ClassVar[str] = "confirm"
    seat: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class UndoHand:
    """Take back the last confirmed hand (an entry of its own: nothing is deleted)."""

    kind: ClassVar[str] = "undo_hand"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class NewPartida:
    """Close the partida (won or not) and start a new one at 0-0, mano at seat 0."""

    kind: ClassVar[str] = "new_partida"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class LearnFrame:
    """Take frame ``k`` (0, 1, 2) of the deck laid out on the mat (docs/mat.md, «Learning a deck»)."""

    kind: ClassVar[str] = "learn_frame"
    k: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k}


@dataclass(frozen=True, slots=True)
class LearnDeck:
    """Learn the deck from the three frames taken, and keep it as ``name``."""

    kind: ClassVar[str] = "learn_deck"
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name}


@dataclass(frozen=True, slots=True)
class LearnCancel:
    """Leave deck learning; back to the table."""

    kind: ClassVar[str] = "learn_cancel"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class UseDeck:
    """Read with the learnt deck ``name`` from now on (``None``: the card model alone); kept across restarts."""

    kind: ClassVar[str] = "use_deck"
    name: str | None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name}


Command = (Say | Unsay | LanceOutcome | Declare | Read | Correct | Confirm | UndoHand | NewPartida
           | LearnFrame | LearnDeck | LearnCancel | UseDeck)

_KINDS: dict[str, type] = {c.kind: c for c in (Say, Unsay, LanceOutcome, Declare, Read, Correct, Confirm,
                                                UndoHand, NewPartida, LearnFrame, LearnDeck, LearnCancel,
                                                UseDeck)}


def _seat(obj: dict[str, Any], key: str = "seat", optional: bool = False) -> int | None:
    v = obj.get(key)
    if v is None and optional:
        return None
    if type(v) is not int or not 0 <= v <= 3:
        raise CommandRefused(f"asiento {v} no existe (0-3)" if type(v) is int
                             else f"falta el asiento ({key}: 0-3)")
    return v


def _n(obj: dict[str, Any], least: int = 1) -> int | None:
    v = obj.get("n")
    if v is None:
        return None
    if type(v) is not int or v < least:
        raise CommandRefused(f"n debe ser un número entero de al menos {least}, no {v!r}")
    return v


def parse_command(obj: Any) -> Command:
    """Build a typed command from the JSON body the display posts (see docs/events.md)."""
    if not isinstance(obj, dict):
        raise CommandRefused("una orden es un objeto JSON con «kind»")
    kind = obj.get("kind")
    cls = _KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise CommandRefused(f"orden desconocida: {kind!r} (órdenes: {', '.join(_KINDS)})")
    if cls is Say:
        word = obj.get("word")
        if word not in WORDS:
            raise CommandRefused(f"palabra desconocida: {word!r} (paso, envido, quiero, no quiero, ordago)")
        seat = _seat(obj)
        assert seat is not None
        n = _n(obj, 2)
        if word == "envido":
            return Say(seat, word, 2 if n is None else n)
        if n is not None:
            raise CommandRefused(f"solo envido lleva número, no {word}")
        return Say(seat, word)
    if cls is LanceOutcome:
        lance, outcome = obj.get("lance"), obj.get("outcome")
        if lance not in LANCES:
            raise CommandRefused(f"lance desconocido: {lance!r} ({', '.join(LANCES)})")
        if outcome not in OUTCOMES:
            raise CommandRefused(f"final desconocido: {outcome!r} ({', '.join(OUTCOMES)})")
        return LanceOutcome(Lance(lance), outcome, _n(obj), _seat(obj, "by", optional=True))
    if cls is Declare:
        lance, says = obj.get("lance"), obj.get("says")
        if lance not in (Lance.PARES, Lance.JUEGO):
            raise CommandRefused(f"solo se declaran pares o juego, no {lance!r}")
        if type(says) is not bool:
            raise CommandRefused("«says» es true o false")
        seat = _seat(obj)
        assert seat is not None
        return Declare(seat, Lance(lance), says)
    if cls is Correct:
        seat = _seat(obj)
        assert seat is not None
        index = obj.get("index")
        if type(index) is not int or not 0 <= index <= 7:
            raise CommandRefused(f"«index» es la carta 0-3 del asiento (4 o más: añadir), no {index!r}")
        try:
            card = Card.parse(obj.get("card"))  # type: ignore[arg-type]
        except InvalidCard as exc:
            raise CommandRefused(f"carta no válida: {exc}") from None
        return Correct(seat, index, card)
    if cls is Confirm:
        return Confirm(_seat(obj, optional=True))
    if cls is LearnFrame:
        k = obj.get("k")
        if k not in (0, 1, 2) or type(k) is not int:
            raise CommandRefused(f"la foto del mazo es la 0, 1 o 2, no {k!r}")
        return LearnFrame(k)
    if cls is LearnDeck:
        name = obj.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 64:
            raise CommandRefused("el mazo necesita un nombre (hasta 64 letras)")
        return LearnDeck(name.strip())
    if cls is UseDeck:
        name = obj.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 64):
            raise CommandRefused("«name» es el nombre de un mazo aprendido, o null para ninguno")
        return UseDeck(name.strip() if name is not None else None)
    return cls()  # type: ignore[no-any-return]
