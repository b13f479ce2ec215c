"""What people at the table ask the loop to do: typed commands, parsed from the display's JSON.

Every command is a small frozen value with ``to_json()`` (the body the web
posts) and :func:`parse_command` reads one back. The commands that change the
game (a word, a lance in one step, a declaration, a correction, a
confirmation, an undo, a new partida, a closed partida re-opened) are the game's own entries
(:mod:`table.entries`), checked and applied by :class:`table.game.Game`; the
others (``read``, the juez's call, deck learning) are the table's. A bad body,
like a command the rules refuse, raises :class:`CommandRefused`: a code, its
arguments and (``str``) one line of Spanish as a player reads it
(:mod:`web.strings`); nothing changes.

>>> parse_command({"kind": "say", "seat": 1, "word": "envido", "n": 5})
Say(seat=1, word='envido', n=5)
>>> parse_command({"kind": "correct", "seat": 2, "index": 0, "card": "12o"}).to_json()
{'kind': 'correct', 'seat': 2, 'index': 0, 'card': '12o'}
>>> parse_command({"kind": "say", "seat": 7, "word": "paso"})
Traceback (most recent call last):
...
firmware.table_commands.CommandRefused: el asiento 7 no existe (en la orden, 0-3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from table.cards import Card
from table.entries import (
    Confirm,
    Correct,
    Declare,
    Ending,
    LanceOutcome,
    NewPartida,
    Reopen,
    Say,
    UndoHand,
    Unsay,
    seat_names,
)
from table.errors import InvalidCard, InvalidRecord, Message, Refused
from table.lances import LANCES, Lance
from table.rules import Rules
from web.strings import say

__all__ = ["OUTCOMES", "WORDS", "Command", "CommandRefused", "Confirm", "Correct", "Declare", "LanceOutcome",
           "CallJudge", "LearnCancel", "LearnDeck", "LearnFrame", "LearnStart", "NewPartida", "Read", "Reopen",
           "Say",
           "UndoHand", "Unsay", "parse_command"]

WORDS = ("paso", "envido", "quiero", "no quiero", "ordago")
OUTCOMES = tuple(str(e) for e in Ending)
"""How a lance ended, entered in one step (:class:`LanceOutcome`)."""


class CommandRefused(Refused):
    """A command the table does not accept now: a code and its params, and (``str``) the
    reason in one line of Spanish, as a player reads it. Nothing changed."""

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__(code, **params)
        self.args = (say(code, params),)

    @classmethod
    def of(cls, exc: Refused) -> CommandRefused:
        """The same refusal, worded (a refusal of the engine, for the table)."""
        return exc if isinstance(exc, CommandRefused) else cls(exc.code, **exc.params)

    @property
    def message(self) -> Message:
        return Message(self.code, dict(self.params))


@dataclass(frozen=True, slots=True)
class Read:
    """Read the cards now (the panel's «leer», or a re-read after a fix on the table)."""

    kind: ClassVar[str] = "read"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class CallJudge:
    """«Llamar al juez»: the table asks for the juez (the hub shows the call and sends the answer)."""

    kind: ClassVar[str] = "call_judge"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class LearnStart:
    """Start learning a deck (or go on), showing frame ``k`` (0, 1, 2) to be laid out: the table
    stops reading hands meanwhile (the cards laid out for learning are no hand), and whoever lays
    the cards (a person, the synthetic table) knows which frame the display draws."""

    kind: ClassVar[str] = "learn_start"
    k: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k}


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


Command = (Say | Unsay | LanceOutcome | Declare | Read | Correct | Confirm | UndoHand | NewPartida | Reopen
           | CallJudge | LearnStart | LearnFrame | LearnDeck | LearnCancel | UseDeck)

_KINDS: dict[str, type] = {c.kind: c for c in (Say, Unsay, LanceOutcome, Declare, Read, Correct, Confirm,
                                                UndoHand, NewPartida, Reopen, CallJudge, LearnStart, LearnFrame,
                                                LearnDeck, LearnCancel, UseDeck)}


def _seat(obj: dict[str, Any], key: str = "seat", optional: bool = False) -> int | None:
    v = obj.get(key)
    if v is None and optional:
        return None
    if type(v) is not int or not 0 <= v <= 3:
        raise (CommandRefused("no_such_seat", seat=v) if type(v) is int else CommandRefused("seat_missing", key=key))
    return v


def _n(obj: dict[str, Any], least: int = 1) -> int | None:
    v = obj.get("n")
    if v is None:
        return None
    if type(v) is not int or v < least:
        raise CommandRefused("bad_number", least=least, value=repr(v))
    return v


def parse_command(obj: Any) -> Command:
    """Build a typed command from the JSON body the display posts (see docs/events.md)."""
    if not isinstance(obj, dict):
        raise CommandRefused("not_an_object")
    kind = obj.get("kind")
    cls = _KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise CommandRefused("unknown_command", kind=repr(kind))
    if cls is Say:
        word = obj.get("word")
        if word is None:
            raise CommandRefused("word_missing")
        if word not in WORDS:
            raise CommandRefused("unknown_word", word=repr(word))
        seat = _seat(obj)
        assert seat is not None
        n = _n(obj, 2)
        if word == "envido":
            return Say(seat, word, 2 if n is None else n)
        if n is not None:
            raise CommandRefused("number_only_envido", word=word)
        return Say(seat, word)
    if cls is LanceOutcome:
        lance, outcome = obj.get("lance"), obj.get("outcome")
        if lance not in LANCES:
            raise CommandRefused("unknown_lance", lance=repr(lance))
        if outcome not in OUTCOMES:
            raise CommandRefused("unknown_outcome", outcome=repr(outcome))
        return LanceOutcome(Lance(lance), outcome, _n(obj), _seat(obj, "by", optional=True))
    if cls is Declare:
        lance, says = obj.get("lance"), obj.get("says")
        if lance not in (Lance.PARES, Lance.JUEGO):
            raise CommandRefused("bad_declaration", lance=repr(lance))
        if type(says) is not bool:
            raise CommandRefused("says_bool")
        seat = _seat(obj)
        assert seat is not None
        return Declare(seat, Lance(lance), says)
    if cls is Correct:
        seat = _seat(obj)
        assert seat is not None
        index = obj.get("index")
        if type(index) is not int or not 0 <= index <= 7:
            raise CommandRefused("bad_index", index=repr(index))
        try:
            card = Card.parse(obj.get("card"))  # type: ignore[arg-type]
        except InvalidCard:
            raise CommandRefused("bad_card", card=repr(obj.get("card"))) from None
        return Correct(seat, index, card)
    if cls is Confirm:
        return Confirm(_seat(obj, optional=True))
    if cls is NewPartida:
        names = None
        if obj.get("names") is not None:
            try:
                names = seat_names(obj["names"])
            except Refused as exc:
                raise CommandRefused(exc.code, **exc.params) from None
        if obj.get("rules") is None:
            return NewPartida(names=names)
        try:
            return NewPartida(Rules.from_json(obj["rules"]), names=names)
        except InvalidRecord as exc:
            raise CommandRefused("bad_rules", why=str(exc)) from None
    if cls is Reopen:
        k = obj.get("partida")
        if type(k) is not int or k < 1:
            raise CommandRefused("bad_partida", partida=repr(k))
        return Reopen(k)
    if cls is LearnFrame or cls is LearnStart:
        k = obj.get("k", 0 if cls is LearnStart else None)
        if k not in (0, 1, 2) or type(k) is not int:
            raise CommandRefused("learn_frame_k", k=repr(k))
        return cls(k)  # type: ignore[no-any-return]
    if cls is LearnDeck:
        name = obj.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 64:
            raise CommandRefused("deck_name")
        return LearnDeck(name.strip())
    if cls is UseDeck:
        name = obj.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 64):
            raise CommandRefused("deck_name")
        return UseDeck(name.strip() if name is not None else None)
    return cls()  # type: ignore[no-any-return]
