"""The jugadas and their order (spec: «Ranking the jugadas»)."""

from itertools import permutations

import pytest

from table.jugadas import Jugadas, seat_jugadas
from table.rules import Rules

R8, R4 = Rules(reyes=8), Rules(reyes=4)
REAL = Rules(real=True)


def winner(lance: str, hands: list[tuple[int, ...]], rules: Rules = R8, mano: int = 0) -> int | None:
    return Jugadas(hands, rules, mano).best(lance)


FILL = (4, 5, 6, 7)


def test_grande_card_by_card() -> None:
    assert winner("grande", [(12, 1, 1, 4), (11, 11, 11, 11), FILL, (5, 5, 6, 6)]) == 0
    assert winner("grande", [(12, 10, 1, 1), (12, 11, 1, 1), FILL, FILL]) == 1
    assert winner("grande", [(12, 11, 7, 1), (12, 11, 7, 4), FILL, FILL]) == 1


def test_a_three_is_a_rey_only_with_eight_reyes() -> None:
    hands = [(11, 11, 11, 11), (3, 1, 1, 4), FILL, FILL]
    assert winner("grande", hands, R8) == 1
    assert winner("grande", hands, R4) == 0


def test_chica_lower_wins_and_a_two_is_an_as() -> None:
    assert winner("chica", [(12, 12, 12, 1), (2, 12, 12, 12), FILL, FILL], R8, mano=1) == 1
    assert winner("chica", [(12, 12, 12, 1), (2, 12, 12, 12), FILL, FILL], R4) == 0
    assert winner("chica", [(1, 4, 12, 12), (1, 5, 6, 7), FILL, FILL]) == 0


def test_ties_go_to_the_seat_nearer_mano() -> None:
    same = [(12, 11, 10, 7)] * 4
    for mano in range(4):
        for lance in ("grande", "chica", "juego"):
            assert winner(lance, same, mano=mano) == mano
    # mano 2: seat 3 is nearer mano than seat 0
    assert winner("pares", [(12, 12, 4, 5), (1, 4, 5, 6), FILL, (12, 12, 6, 7)], mano=2) == 3


@pytest.mark.parametrize(("better", "worse"), [
    ((12, 12, 12, 12), (12, 12, 1, 1)),   # four reyes are duples reyes-reyes
    ((12, 12, 1, 1), (11, 11, 10, 10)),  # the higher pair first
    ((11, 11, 11, 11), (11, 11, 10, 10)),
    ((4, 4, 1, 1), (12, 12, 12, 7)),      # duples beat medias
    ((4, 4, 4, 7), (12, 12, 11, 10)),     # medias beat par
    ((12, 12, 1, 6), (11, 11, 1, 6)),
    ((5, 5, 5, 1), (4, 4, 4, 12)),
])
def test_pares_order(better: tuple[int, ...], worse: tuple[int, ...]) -> None:
    assert winner("pares", [worse, better, FILL, FILL], R4) == 1
    assert winner("pares", [better, worse, FILL, FILL], R4) == 0


def test_four_reyes_beat_duples_of_reyes_and_ases() -> None:
    """Regression: an engine ranked four reyes below duples reyes-ases."""
    four = seat_jugadas((12, 12, 3, 3), R8)
    assert four.pares_name == "duples de reyes"
    assert four.pares > seat_jugadas((12, 12, 1, 2), R8).pares
    assert winner("pares", [(12, 3, 1, 2), (12, 12, 3, 3), FILL, FILL]) == 1


def test_unpaired_cards_never_count() -> None:
    assert winner("pares", [(12, 12, 1, 4), (12, 12, 11, 10), FILL, FILL]) == 0
    assert winner("pares", [(12, 12, 1, 4), (12, 12, 11, 10), FILL, FILL], mano=1) == 1


def test_no_pares_wins_nothing() -> None:
    assert winner("pares", [FILL, (1, 4, 6, 12), FILL, FILL]) is None


def test_juego_sums_and_order() -> None:
    assert seat_jugadas((3, 3, 2, 10), R8).sum == 31
    assert seat_jugadas((3, 3, 2, 10), R4).sum == 18
    ranking = [(11, 10, 10, 1), (12, 11, 6, 6), (12, 11, 10, 10),
               (11, 11, 10, 7), (12, 10, 10, 6), (12, 10, 10, 5), (12, 10, 10, 4),
               (12, 10, 7, 6)]
    sums = [seat_jugadas(h, R4).sum for h in ranking]
    assert sums == [31, 32, 40, 37, 36, 35, 34, 33]
    keys = [seat_jugadas(h, R4).juego for h in ranking]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == 8
    assert seat_jugadas((12, 10, 7, 2), R4).juego == 0   # 29: no juego


def test_plain_31_beats_40_and_is_not_the_real() -> None:
    """Regression: «31 beats 40» is just the juego order, not «la real»."""
    j = Jugadas([(12, 12, 12, 12), (11, 10, 10, 1), FILL, FILL], R8, 0)
    assert j.best("juego") == 1
    assert not j.seats[1].real


def test_the_31_real() -> None:
    hands = [(12, 11, 10, 1), (7, 7, 7, 10), FILL, FILL]
    assert winner("juego", hands, R8) == 0
    assert winner("juego", hands, REAL) == 1
    assert seat_jugadas((7, 7, 7, 3), R8).sum == 31
    assert not seat_jugadas((7, 7, 7, 3), R8).real            # a 3 never makes the real
    assert winner("juego", [(12, 11, 10, 1), (7, 7, 7, 3), FILL, FILL], REAL) == 0
    # two reales: the one nearer mano
    assert winner("juego", [(7, 7, 7, 11), (7, 7, 7, 12), FILL, FILL], REAL, mano=1) == 1


def test_punto() -> None:
    assert winner("punto", [(12, 12, 7, 1), (11, 10, 5, 4), (1, 1, 1, 1), FILL]) == 1
    assert seat_jugadas((1, 1, 2, 2), R8).punto == 4
    assert seat_jugadas((12, 12, 12, 1), R8).punto == 0      # juego: no punto


def test_keys_do_not_depend_on_card_order() -> None:
    for hand in [(12, 3, 1, 4), (7, 7, 7, 10), (5, 5, 2, 1)]:
        first = seat_jugadas(hand, REAL)
        assert all(seat_jugadas(p, REAL) == first for p in permutations(hand))


def test_ranked_puts_the_better_jugada_first() -> None:
    j = Jugadas([(4, 4, 5, 6), (1, 2, 3, 4), (12, 12, 12, 5), FILL], R4, 0)
    assert j.ranked("pares", [0, 2]) == [2, 0]
