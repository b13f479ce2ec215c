import pytest

from table.numerals import stones


@pytest.mark.parametrize(("n", "words"), [
    (1, "una"), (2, "dos"), (7, "siete"), (16, "dieciséis"), (21, "veintiuna"),
    (31, "treinta y una"), (40, "cuarenta"), (100, "cien"), (101, "ciento una"),
    (250, "doscientas cincuenta"), (1000, "mil"), (2021, "dos mil veintiuna"),
])
def test_stones_in_words(n: int, words: str) -> None:
    assert stones(n) == words


def test_huge_numbers_stay_digits() -> None:
    assert stones(10**6) == "1000000"
