import pytest

from table.cards import DECK, Card, Suit
from table.errors import InvalidCard, InvalidInput


def test_deck_has_forty_distinct_cards_in_model_order() -> None:
    assert len(set(DECK)) == 40
    assert [c.index for c in DECK] == list(range(40))
    assert str(DECK[0]) == "1o" and str(DECK[-1]) == "12b"


@pytest.mark.parametrize("text", ["12o", "1e", "10b", "7c", "3o"])
def test_notation_round_trips(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert eval(repr(card)) == card


@pytest.mark.parametrize("text", ["8o", "9c", "13e", "0b", "12x", "", "o", "012o", "1", " 1o"])
def test_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(InvalidCard):
        Card.parse(text)
    assert issubclass(InvalidCard, InvalidInput) and issubclass(InvalidCard, ValueError)


def test_spanish_names() -> None:
    assert Card.parse("12o").spanish == "rey de oros"
    assert Card(10, Suit.BASTOS).spanish == "sota de bastos"
