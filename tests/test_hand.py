"""The hand in play (table/hand.py): one ``apply`` for live commands and replays, and who confirms."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.betting import BetWord, HandBets
from table.cards import Card
from table.entries import CardsRead, Confirm, Correct, Declare, LanceOutcome, Say, Unsay
from table.errors import Refused
from table.generate import random_record
from table.hand import Hand, Phase, card_problems, confirm_by, reading_problem
from table.jugadas import Jugadas
from table.lances import Lance
from table.record import HandRecord
from table.rules import Rules
from table.tanteo import score

HAND = [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
        ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]]


def cards(rows: list[list[str]]) -> CardsRead:
    return CardsRead(tuple(tuple(Card.parse(c) for c in seat) for seat in rows))


def fresh(mano: int = 0, score_: tuple[int, int] = (0, 0), rules: Rules | None = None) -> Hand:
    return Hand(rules or Rules(), mano, score_)


def test_words_bring_the_lances_in_order_and_a_wrong_turn_is_refused_with_a_code() -> None:
    h = fresh()
    assert (h.lance, h.speaker) == (Lance.GRANDE, 0)
    with pytest.raises(Refused) as refused:
        h.apply(Say(2, "paso"))
    assert (refused.value.code, refused.value.params) == ("not_turn", {"lance": "grande", "seat": 2, "speaker": 0})
    h = h.apply(Say(0, "paso")).apply(Say(1, "envido", 3))
    assert (h.speaker, h.legal) == (2, (BetWord.QUIERO, BetWord.NO_QUIERO, BetWord.ENVIDO, BetWord.ORDAGO))
    assert h.apply(Unsay()).speaker == 1 and h.speaker == 2  # a value: apply never changes it


def test_pares_is_asked_before_the_cards_and_the_cards_answer_it() -> None:
    h = fresh().apply(LanceOutcome(Lance.GRANDE, "en paso")).apply(LanceOutcome(Lance.CHICA, "en paso"))
    assert h.asked == (Lance.PARES,) and h.speaker is None and h.legal == ()
    with pytest.raises(Refused, match="declare_first"):
        h.apply(Say(0, "paso"))
    read = h.apply(cards(HAND))
    assert read.asked == () and read.scored and read.record is not None
    assert read.answer == score(read.record)


@pytest.mark.parametrize(("rows", "codes"), [
    ([["12o", "3c", "1e", "4b"], ["12o", "11c", "7e", "7b"], ["5o", "6c", "2b"], ["10o", "10c", "1o", "12b"]],
     ["card_repeated", "seat_cards"]),
    ([["12o", "3c", "1e", "4b", "2o"], ["11o", "11c", "7e", "7b"], ["5o", "6c", "2b", "10e"],
      ["10o", "10c", "1o", "12b"]], ["seat_cards"]),
])
def test_an_impossible_table_says_why_as_codes_and_is_never_scored(rows: list[list[str]], codes: list[str]) -> None:
    h = fresh().apply(cards(rows))
    assert [m.code for m in h.problems] == codes and h.impossible and h.answer is None
    with pytest.raises(Refused, match="table_impossible"):
        h.confirmable(Confirm(0))


def test_a_correction_fixes_an_impossible_table() -> None:
    rows = [list(s) for s in HAND]
    rows[1][0] = "12o"
    h = fresh().apply(cards(rows))
    assert h.impossible
    fixed = h.apply(Correct(1, 0, Card.parse("11o")))
    assert fixed.scored and fixed.corrected and [list(map(str, s)) for s in fixed.cards or ()] == HAND


def test_the_readers_lines_become_codes() -> None:
    assert reading_problem("card 1o seen 3 times (seat 1, seat 2 and outside)").args == {
        "card": "1o", "times": 3, "seats": [1, 2], "outside": True}
    assert reading_problem("the mat is upside down").code == "reader_problem"
    assert card_problems([[Card.parse("1o")] * 4, [], [], []])[0].code == "card_repeated"


def test_a_declaration_that_breaks_words_already_said_is_refused() -> None:
    h = fresh().apply(LanceOutcome(Lance.GRANDE, "en paso")).apply(LanceOutcome(Lance.CHICA, "en paso"))
    for seat, says in enumerate((True, True, True, False)):
        h = h.apply(Declare(seat, Lance.PARES, says))
    h = h.apply(Say(0, "envido", 2))  # then seat 0 says it had no pares after all
    with pytest.raises(Refused, match="word_no_longer_valid"):
        h.apply(Declare(0, Lance.PARES, False))


# -------------------------------------------------------------------------------------- who confirms


def _played(obj: dict[str, Any]) -> Hand:
    """A record played into a hand word by word, as a table gets it (declarations first)."""
    rec = HandRecord.from_json(obj)
    h = Hand(rec.rules, rec.mano, rec.score).apply(cards(obj["cards"]))
    for lance in rec.lances:
        for w in rec.bets.get(lance, ()):
            h = h.apply(Say(w.seat, w.word, w.n))
    return h


def _ordago_at(lance: Lance, rng: random.Random) -> dict[str, Any]:
    """A random hand whose first lances pass and whose ``lance`` ends in an accepted órdago."""
    rules = Rules()
    while True:
        rec = random_record(rng, rules, ordago=0.0, mano=rng.randrange(4), score=[rng.randrange(40), rng.randrange(40)])
        j = Jugadas([[Card.parse(c).rank for c in s] for s in rec["cards"]], rules, rec["mano"])
        pares = [s.pares_kind > 0 for s in j.seats]
        juego = [s.juego > 0 for s in j.seats]
        bets = HandBets(rec["mano"], pares, juego)
        while bets.lance is not None and bets.lance != lance:
            bets.say(bets.speaker, "paso")  # type: ignore[arg-type]
        if bets.lance != lance:
            continue  # this hand does not play that lance (pares not held by both pairs...)
        bets.say(bets.speaker, "ordago")  # type: ignore[arg-type]
        bets.say(bets.speaker, "quiero")  # type: ignore[arg-type]
        rec["bets"] = bets.words()
        return rec


@pytest.mark.parametrize("lance", [Lance.GRANDE, Lance.CHICA, Lance.PARES, Lance.JUEGO, Lance.PUNTO])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_after_an_accepted_ordago_the_pair_that_lost_it_confirms(lance: Lance, seed: int) -> None:
    rec = _ordago_at(lance, random.Random(seed))
    h = _played(rec)
    assert h.scored and h.answer is not None
    lost = 1 - h.answer.lances[lance].winner  # type: ignore[operator]
    assert h.answer.winner == 1 - lost  # the órdago won the juego
    assert h.confirm_by == (lost, lost + 2)
    with pytest.raises(Refused, match="confirm_other_pair"):
        h.confirmable(Confirm(1 - lost))  # the winners may not confirm their own órdago
    h.confirmable(Confirm(lost + 2))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_any_hand_is_confirmed_by_the_pair_it_went_against(seed: int) -> None:
    rng = random.Random(seed)
    rec = random_record(rng, Rules(), mano=rng.randrange(4), score=[rng.randrange(40), rng.randrange(40)])
    h = _played(rec)
    ans, record = h.answer, h.record
    assert ans is not None and record is not None
    gain = [ans.score[p] - record.score[p] for p in (0, 1)]
    if ans.winner is not None:
        want = (1 - ans.winner, 3 - ans.winner)  # the juego's losers, whatever the stones
    elif gain[0] == gain[1]:
        want = (0, 1, 2, 3)
    else:
        loser = 0 if gain[0] < gain[1] else 1
        want = (loser, loser + 2)
    assert h.confirm_by == want == confirm_by(ans, record)
    for seat in range(4):
        if seat in want:
            h.confirmable(Confirm(seat))
        else:
            with pytest.raises(Refused):
                h.confirmable(Confirm(seat))


def test_a_juego_won_by_fewer_stones_is_confirmed_by_the_pair_that_lost_it() -> None:
    # pair 1 at 38 wins grande's envite of 2 and the juego; pair 0 had more stones coming (its pares)
    obj = {"format": "mus-hand/1", "mano": 0, "score": [0, 38], "cards": HAND,
           "bets": {"grande": [[0, "envido", 2], [1, "quiero"]]}}
    h = _played(obj)
    assert h.answer is not None and h.answer.winner is not None
    assert h.confirm_by == (1 - h.answer.winner, 3 - h.answer.winner)


def test_phase_values_are_the_contracts_spelling() -> None:
    assert [str(p) for p in Phase] == ["playing", "reading", "impossible", "scored", "over", "learning"]


def test_cards_read_again_that_contradict_words_said_make_the_table_wait_not_break() -> None:
    """Words said in pares after a reading (the cards told who has pares); a second reading where
    seat 0 has none: the hand is impossible, saying which word no longer holds, and never scored."""
    h = fresh().apply(LanceOutcome(Lance.GRANDE, "en paso")).apply(LanceOutcome(Lance.CHICA, "en paso"))
    h = h.apply(cards(HAND))  # seat 0 holds 12o and 3c: a pair of reyes (8 reyes)
    h = h.apply(Say(0, "envido", 2)).apply(Say(1, "quiero"))
    assert h.scored
    other = [list(s) for s in HAND]
    other[0][1] = "5c"
    again = h.apply(cards(other))
    assert again.impossible and not again.scored and again.answer is None
    assert [m.code for m in again.problems] == ["word_no_longer_valid"]
    assert again.problems[0].args["n"] == 9 and again.problems[0].args["seat"] == 0
    with pytest.raises(Refused, match="word_no_longer_valid"):
        again.apply(Correct(2, 0, Card.parse("4c")))  # a correction that still leaves the word broken
    assert again.apply(Correct(0, 1, Card.parse("3c"))).scored  # the card as it was: the words hold again
