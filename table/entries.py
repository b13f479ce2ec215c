"""What changes a table: the entries of its journal, as small typed values.

Every change a table takes — a word, a lance ended in one step, a seat's «¿pares?»
answered, the cards read, a card corrected, a confirmation, an undo, a new
partida — is one of these values. The same value is checked against the hand
in play when a person asks for it (:meth:`table.game.Game.apply`) and replayed
from the journal on a restart, so nothing is accepted live and read otherwise
later. ``to_json()`` is the journal's body; :func:`entry_from_json` reads it back.

>>> entry_from_json("say", {"kind": "say", "seat": 1, "word": "envido", "n": 5})
Say(seat=1, word='envido', n=5)
>>> Correct(2, 0, Card.parse("12o")).to_json()
{'kind': 'correct', 'seat': 2, 'index': 0, 'card': '12o'}

The journal's rows, ``(seq, partida, kind, at, body)``, are folded into
partidas here too (:func:`partida_hands`, :func:`partida_starts`). A ``confirm`` entry holds the
hand's ``mus-hand/1`` record and its answer; an ``undo_hand`` takes the last
confirmed hand of its partida back; a ``reopen`` closes the partida in play and takes an
earlier one back into play, so the entries after it carry that partida's number again and
fold into it. The table's own journal and the hub's copy
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

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from table.cards import BY_TEXT, Card
from table.errors import InvalidInput, Refused
from table.lances import Lance
from table.rules import Rules


class Ending(enum.StrEnum):
    """How a lance ended, entered in one step (:class:`LanceOutcome`)."""

    EN_PASO = "en paso"
    QUERIDO = "querido"
    NO_QUERIDO = "no querido"
    ORDAGO = "ordago"


@dataclass(frozen=True, slots=True)
class Say:
    """One word in the lance in play: ``paso``, ``envido`` (``n`` >= 2), ``quiero``, ``no quiero``, ``ordago``."""

    kind: ClassVar[str] = "say"
    seat: int
    word: str
    n: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat, "word": str(self.word)}
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
        out: dict[str, Any] = {"kind": self.kind, "lance": str(self.lance), "outcome": str(self.outcome)}
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
        return {"kind": self.kind, "seat": self.seat, "lance": str(self.lance), "says": self.says}


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
    """A player of the pair the hand went against confirms it; ``seat`` None is the panel's button."""

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
    """Close the partida (won or not) and start a new one at 0-0.

    As a person's command it has at most the house rules agreed for the partida;
    the table fills in the rest (its configured rules, format and first mano)
    before it is journaled.
    """

    kind: ClassVar[str] = "new_partida"
    rules: Rules | None = None
    juegos: int | None = None
    vacas: int | None = None
    mano: int | None = None
    names: tuple[str, str, str, str] | None = None
    """The players' names by seat (``""``: none given), said wherever a person reads a seat."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.rules is not None:
            out["rules"] = self.rules.to_json()
        for key in ("juegos", "vacas", "mano"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.names is not None:
            out["names"] = list(self.names)
        return out


@dataclass(frozen=True, slots=True)
class Reopen:
    """Take closed partida ``partida`` back into play where it was left (its score, mano, names and
    hand in play); the partida in play is closed in its turn, listed and re-openable. A partida
    already won is not re-opened (:meth:`table.game.Game.apply` says why)."""

    kind: ClassVar[str] = "reopen"
    partida: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "partida": self.partida}


@dataclass(frozen=True, slots=True)
class CardsRead:
    """What the camera read at the end of a hand: the cards by seat, the stones it
    counted (the pool and each seat), the reader's own problems (docs/mat.md's
    ``impossible`` lines, kept as they came) and how many cards it was not sure of."""

    kind: ClassVar[str] = "cards"
    cards: tuple[tuple[Card, ...], ...]
    pool: int = 0
    stones: tuple[int, ...] = (0, 0, 0, 0)
    impossible: tuple[str, ...] = ()
    unknown: int = 0
    stale: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Other keys of a journaled body, kept as they were."""

    def to_json(self) -> dict[str, Any]:
        return {"cards": [[str(c) for c in seat] for seat in self.cards],
                "stones": {"pool": self.pool, "seats": list(self.stones)},
                "impossible": list(self.impossible), "unknown": self.unknown, "stale": self.stale,
                **self.extra}


Change = Say | Unsay | LanceOutcome | Declare | Correct | Confirm | UndoHand | NewPartida | Reopen | CardsRead
"""One change of the game: the body of a journal entry, typed."""

Entry = tuple[int, int, str, str, dict[str, Any]]
"""``(seq, partida, kind, at, body)``: one journal entry, its body as JSON values."""


def _int(body: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
    v = body.get(key, default)
    if v is not None and type(v) is not int:
        raise InvalidInput(f"{key} must be a whole number, not {v!r}")
    return v


MAX_NAME = 24
"""The longest player's name kept (letters, accents and spaces are all fine)."""


def seat_names(names: object) -> tuple[str, str, str, str]:
    """Four players' names by seat, each stripped of surrounding spaces (``""``: none given).

    >>> seat_names(["Jon", " Ane ", "", "Iñaki"])
    ('Jon', 'Ane', '', 'Iñaki')
    >>> seat_names(["Jon"])
    Traceback (most recent call last):
    ...
    table.errors.Refused: bad_names
    """
    if not isinstance(names, list | tuple) or len(names) != 4 or not all(isinstance(n, str) for n in names):
        raise Refused("bad_names")
    out = tuple(" ".join(n.split()) for n in names)
    if any(len(n) > MAX_NAME for n in out):
        raise Refused("name_too_long", most=MAX_NAME)
    return (out[0], out[1], out[2], out[3])


def journaled_names(body: Mapping[str, Any]) -> tuple[str, ...]:
    """The names a ``new_partida`` body holds, checked as when they were given; ``()`` where it
    holds none (or none a table would have taken: a copy from elsewhere is not trusted).

    >>> journaled_names({"names": ["Jon", "", "Ane", ""]}), journaled_names({"names": "Jon"})
    (('Jon', '', 'Ane', ''), ())
    """
    if body.get("names") is None:
        return ()
    try:
        return seat_names(body["names"])
    except InvalidInput:
        return ()


def entry_from_json(kind: str, body: Mapping[str, Any]) -> Change:
    """The entry a journal row holds (``kind`` and its JSON ``body``)."""
    try:
        if kind == "say":
            return Say(int(body["seat"]), str(body["word"]), _int(body, "n"))
        if kind == "unsay":
            return Unsay()
        if kind == "lance":
            return LanceOutcome(Lance(body["lance"]), str(body["outcome"]), _int(body, "n"), _int(body, "by"))
        if kind == "declare":
            return Declare(int(body["seat"]), Lance(body["lance"]), bool(body["says"]))
        if kind == "correct":
            return Correct(int(body["seat"]), int(body["index"]), BY_TEXT[body["card"]])
        if kind == "confirm":
            return Confirm(_int(body, "seat"))
        if kind == "undo_hand":
            return UndoHand()
        if kind == "new_partida":
            names = body.get("names")
            return NewPartida(Rules.from_json(body.get("rules")), _int(body, "juegos", 3), _int(body, "vacas", 1),
                              _int(body, "mano", 0), None if names is None else seat_names(names))
        if kind == "reopen":
            partida = _int(body, "partida")
            if partida is None:
                raise KeyError("partida")
            return Reopen(partida)
        if kind == "cards":
            st = body.get("stones") or {}
            known = {"cards", "stones", "impossible", "unknown", "stale"}
            return CardsRead(tuple(tuple(BY_TEXT[c] for c in seat) for seat in body["cards"]),
                             int(st.get("pool", 0)), tuple(int(n) for n in st.get("seats", (0, 0, 0, 0))),
                             tuple(body.get("impossible", ())), int(body.get("unknown", 0)),
                             bool(body.get("stale", False)), {k: v for k, v in body.items() if k not in known})
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, InvalidInput):
            raise
        raise InvalidInput(f"a journal entry {kind!r} that cannot be read: {exc}") from None
    raise InvalidInput(f"unknown journal entry {kind!r}")


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
