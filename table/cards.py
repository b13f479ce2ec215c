"""Cards of the Spanish 40-card deck and their notation.

A card is its printed index followed by its suit letter, as in the
``mus-hand/1`` record: ``12o`` rey de oros, ``1e`` as de espadas.

>>> Card.parse("12o")
Card.parse('12o')
>>> str(Card.parse("10b"))
'10b'
>>> len(DECK)
40
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from table._show import show
from table.errors import InvalidCard


class Suit(enum.Enum):
    """The four suits, valued by their notation letter."""

    OROS = "o"
    COPAS = "c"
    ESPADAS = "e"
    BASTOS = "b"

    @property
    def spanish(self) -> str:
        return {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}[self.value]


RANKS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
"""Printed indices of the deck, in the order the model's classes use."""

RANK_NAMES: dict[int, str] = {
    1: "as", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis", 7: "siete",
    10: "sota", 11: "caballo", 12: "rey",
}


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One card: its printed index (1-7, 10, 11, 12) and its suit."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise InvalidCard(f"no card has index {show(self.rank)} in the Spanish 40-card deck",
                              params={"value": show(self.rank)})

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card from its notation (``"12o"``); raise :class:`InvalidCard` otherwise."""
        if not isinstance(text, str) or len(text) < 2:
            raise InvalidCard(f"not a card: {show(text)}", params={"value": show(text)})
        rank_text, suit_text = text[:-1], text[-1]
        try:
            suit = Suit(suit_text)
        except ValueError:
            raise InvalidCard(f"not a card: {show(text)} (suit must be o, c, e or b)",
                              params={"value": show(text)}) from None
        if not rank_text.isdigit() or (len(rank_text) > 1 and rank_text[0] == "0"):
            raise InvalidCard(f"not a card: {show(text)}", params={"value": show(text)})
        rank = int(rank_text)
        if rank not in RANKS:
            raise InvalidCard(f"not a card: {show(text)} (index must be 1-7, 10, 11 or 12)",
                              params={"value": show(text)})
        return cls(rank, suit)

    @property
    def index(self) -> int:
        """Position of the card in :data:`DECK` (the card model's class id)."""
        return SUITS.index(self.suit) * len(RANKS) + RANKS.index(self.rank)

    @property
    def spanish(self) -> str:
        """The card as players name it: ``"rey de oros"``."""
        return f"{RANK_NAMES[self.rank]} de {self.suit.spanish}"

    def __str__(self) -> str:
        return f"{self.rank}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


SUITS: tuple[Suit, ...] = (Suit.OROS, Suit.COPAS, Suit.ESPADAS, Suit.BASTOS)

DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
"""The 40 cards, suit by suit (oros, copas, espadas, bastos), ranks 1-7, 10-12.

This order is the class order of the card model (``models/cards.onnx``).
"""

BY_TEXT: dict[str, Card] = {str(card): card for card in DECK}
"""Each card by its notation, for parsing many cards fast (``BY_TEXT["12o"]``)."""
