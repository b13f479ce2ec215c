"""The betting of a lance, word by word (spec: «Betting, lance by lance»)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.betting import (
    NO_QUIERO,
    QUIERO,
    Betting,
    HandBets,
    Outcome,
    Word,
    replay,
)
from table.errors import IllegalBet, IncompleteLance


def run(words: list[tuple], mano: int = 0, lance: str = "grande", seats=(0, 1, 2, 3)) -> Outcome:
    return replay(lance, mano, [list(w) for w in words], seats)


def test_all_pass_is_en_paso() -> None:
    assert run([(0, "paso"), (1, "paso"), (2, "paso"), (3, "paso")]).how == "paso"
    assert run([]).how == "paso"


def test_speaking_order_starts_at_mano() -> None:
    b = Betting("chica", mano=2)
    order = []
    while not b.done:
        order.append(b.speaker)
        b.say(b.speaker, "paso")  # type: ignore[arg-type]
    assert order == [2, 3, 0, 1]


def test_answers_go_round_the_table_from_the_bettor() -> None:
    b = Betting("grande", mano=0).say(0, "paso").say(1, "envido", 2)
    assert b.speaker == 2
    assert b.after(2, NO_QUIERO).speaker == 0
    b = Betting("grande", mano=0).say(0, "paso").say(1, "paso").say(2, "envido", 2)
    assert b.speaker == 3
    assert b.after(3, NO_QUIERO).speaker == 1


def test_querido_at_the_standing_total() -> None:
    o = run([(0, "envido", 2), (1, "envido", 5), (2, "quiero")])
    assert (o.how, o.stake) == ("querido", 7)
    assert run([(0, "envido")] + [(1, "quiero")]).stake == 2     # envido defaults to 2


@pytest.mark.parametrize(("words", "deje", "pair"), [
    ([(0, "envido", 2), (1, "no quiero"), (3, "no quiero")], 1, 0),
    ([(0, "ordago"), (1, "no quiero"), (3, "no quiero")], 1, 0),
    # envido 2, «5 más», no quiero: 2
    ([(0, "envido", 2), (1, "envido", 5), (2, "no quiero"), (0, "no quiero")], 2, 1),
    # envido 2, «5 más», «que sean 10» by the first bettor, no quiero: 7
    ([(0, "envido", 2), (1, "envido", 5), (2, "no quiero"), (0, "envido", 3),
      (1, "no quiero"), (3, "no quiero")], 7, 0),
    # an órdago over a standing 4, refused: 4
    ([(0, "envido", 4), (1, "ordago"), (2, "no quiero"), (0, "no quiero")], 4, 1),
])
def test_deje_is_the_total_before_the_refused_raise(words, deje: int, pair: int) -> None:
    """Regression: engines counted every deje as 1."""
    o = run(words)
    assert (o.how, o.deje, o.pair) == ("no querido", deje, pair)


def test_reraise_after_one_no_quiero() -> None:
    """Regression: a raise by the second answerer after the first said no quiero.

    The seat that said no quiero is out: the re-raise is answered by its partner alone.
    """
    b = Betting("grande", mano=0)
    for w in [(0, "envido", 2), (1, "no quiero"), (3, "envido", 5)]:
        b.say(*w)
    assert b.speaker == 0                       # from seat 3: 0, then 2
    b.say(0, "no quiero").say(2, "envido", 10)  # total 17
    assert b.speaker == 3 and b.out(1)          # seat 1 is out: only 3 answers
    with pytest.raises(IllegalBet, match="seat 1 said no quiero and is out"):
        b.after(1, QUIERO)
    assert b.after(3, NO_QUIERO).outcome == Outcome("no querido", deje=7, pair=0, bettor=2)
    assert b.after(3, QUIERO).outcome == Outcome("querido", stake=17, bettor=2)


def test_one_quiero_of_the_pair_is_enough() -> None:
    o = run([(0, "envido", 2), (1, "no quiero"), (3, "quiero")])
    assert (o.how, o.stake) == ("querido", 2)


def test_ordago_accepted_and_nothing_over_it() -> None:
    b = Betting("chica", 1).say(1, "ordago")
    assert b.legal() == ("quiero", "no quiero")
    with pytest.raises(IllegalBet, match="nothing can be raised over an órdago"):
        b.after(2, "envido", 2)
    with pytest.raises(IllegalBet, match="nothing can be raised"):
        b.after(2, "ordago")
    assert b.after(2, QUIERO).outcome == Outcome("ordago", bettor=1)


@pytest.mark.parametrize(("words", "message"), [
    ([(1, "paso")], "it is seat 0's turn, not seat 1's"),
    ([(0, "quiero")], "nobody has bet yet"),
    ([(0, "no quiero")], "nobody has bet yet"),
    ([(0, "envido", 2), (1, "paso")], "paso is not an answer"),
    ([(0, "envido", 2), (3, "quiero")], "it is seat 1's turn"),
    ([(0, "envido", 2), (2, "quiero")], "it is seat 1's turn"),
    ([(0, "envido", 1)], "from 2 to 1000"),
    ([(0, "envido", 1001)], "from 2 to 1000, not 1001"),
    ([(0, "paso", 3)], "only envido takes a number"),
    ([(0, "envido", 2), (1, "quiero"), (2, "paso")], "already decided"),
    ([(0, "bueno")], "unknown word"),
])
def test_illegal_words(words, message: str) -> None:
    with pytest.raises(IllegalBet, match=message):
        run(words)


def test_a_failed_word_changes_nothing() -> None:
    b = Betting("grande", 0).say(0, "envido", 2)
    with pytest.raises(IllegalBet):
        b.say(1, "paso")
    assert b.speaker == 1 and len(b.words) == 1


def test_incomplete_lances_are_refused() -> None:
    with pytest.raises(IncompleteLance, match="seat 2 has yet to speak"):
        run([(0, "paso"), (1, "paso")])
    with pytest.raises(IncompleteLance, match="seat 3 has yet to answer"):
        run([(0, "envido", 2), (1, "no quiero")])


def test_pares_only_between_seats_that_have_them() -> None:
    b = Betting("pares", 0, seats=(1, 2))
    assert b.speaker == 1
    with pytest.raises(IllegalBet, match="seat 0 may not speak in pares"):
        b.after(0, "paso")
    assert run([(1, "envido", 2), (2, "quiero")], lance="pares", seats=(1, 2)).stake == 2
    # seat 3 has no pares: a bet by seat 2 is answered by seat 1 alone
    b = Betting("pares", 0, seats=(0, 1, 2)).say(0, "paso").say(1, "paso").say(2, "envido", 2)
    assert b.speaker == 1


@pytest.mark.parametrize("seats", [(0, 2), (1,), ()])
def test_not_bet_unless_both_pairs_have_it(seats) -> None:
    b = Betting("juego", 0, seats=seats)
    assert b.done and b.outcome == Outcome("not bet") and b.legal() == ()


def test_legal_words() -> None:
    b = Betting("grande", 0)
    assert b.legal() == ("paso", "envido", "ordago")
    assert b.after(0, "envido", 3).legal() == ("quiero", "no quiero", "envido", "ordago")


def test_after_leaves_the_state_alone() -> None:
    b = Betting("grande", 0)
    c = b.after(0, "envido", 2)
    assert b.speaker == 0 and b.words == [] and c.speaker == 1


def test_hand_bets_runs_the_lances_in_order_and_skips_the_unbet() -> None:
    h = HandBets(0, pares=[True, False, True, False], juego=[False] * 4)
    assert h.lances == ("grande", "chica", "pares", "punto")
    for _ in range(4):
        h.say(h.speaker, "paso")  # type: ignore[arg-type]
    assert h.lance == "chica"
    for _ in range(4):
        h.say(h.speaker, "paso")  # type: ignore[arg-type]
    assert h.lance == "punto"    # pares: only pair 0 has them, not bet
    h.say(0, "ordago").say(1, "quiero")
    assert h.over and h.speaker is None and h.legal() == ()
    with pytest.raises(IllegalBet, match="over"):
        h.say(0, "paso")


def test_an_accepted_ordago_ends_the_hand() -> None:
    h = HandBets(2, pares=[True] * 4, juego=[True] * 4)
    h.say(2, "ordago").say(3, "quiero")
    assert h.over
    assert list(h.outcomes()) == ["grande"]


def play_randomly(rng: random.Random, h: HandBets) -> HandBets:
    steps = 0
    while not h.over:
        seat, legal = h.speaker, h.legal()
        assert seat is not None and legal
        word = rng.choice(legal)
        h.say(seat, word, rng.choice((2, 3, 5, 10)) if word == "envido" else None)
        steps += 1
        assert steps < 500
    return h


@settings(max_examples=250, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mano=st.integers(0, 3),
       pares=st.lists(st.booleans(), min_size=4, max_size=4),
       juego=st.lists(st.booleans(), min_size=4, max_size=4))
def test_random_legal_betting_always_ends_each_lance(seed: int, mano: int, pares, juego) -> None:
    h = play_randomly(random.Random(seed), HandBets(mano, pares, juego))
    outcomes = h.outcomes()
    played = list(outcomes)
    assert played == list(h.lances[: len(played)])
    if len(played) < 4:
        assert outcomes[played[-1]].how == "ordago"
    # replay of the live words gives the live result
    for lance, outcome in outcomes.items():
        words = [Word(*w) for w in h.words()[lance]]  # type: ignore[arg-type]
        seats = h.lance_betting(lance).seats
        assert replay(lance, mano, words, seats) == outcome


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mano=st.integers(0, 3),
       seats=st.sets(st.integers(0, 3), min_size=2))
def test_legal_says_exactly_what_say_accepts(seed: int, mano: int, seats: set[int]) -> None:
    rng = random.Random(seed)
    b = Betting("pares", mano, seats)
    while True:
        for seat in range(4):
            for word in ("paso", "envido", "quiero", "no quiero", "ordago"):
                allowed = seat == b.speaker and word in b.legal()
                before = (b.speaker, b.legal(), list(b.words), b.outcome)
                try:
                    b.after(seat, word)
                    accepted = True
                except IllegalBet:
                    accepted = False
                assert accepted == allowed, (seat, word, b.speaker, b.legal())
                assert (b.speaker, b.legal(), list(b.words), b.outcome) == before
        if b.done:
            break
        word = rng.choice(b.legal())
        b.say(b.speaker, word, 3 if word == "envido" else None)  # type: ignore[arg-type]
