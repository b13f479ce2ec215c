"""The partida in play (table/game.py): one ``apply`` for commands and journal replays, as a state machine."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from table.cards import BY_TEXT, Card
from table.entries import (
    CardsRead,
    Confirm,
    Correct,
    Declare,
    LanceOutcome,
    NewPartida,
    Say,
    UndoHand,
    Unsay,
    entry_from_json,
)
from table.errors import Refused
from table.game import Game, expected_stones, pair_stones, stones_check
from table.generate import random_record
from table.hand import Phase
from table.lances import Lance
from table.record import HandRecord
from table.rules import Rules

START = NewPartida(Rules(), 3, 1, 0)


def _cards(rows: list[list[str]]) -> CardsRead:
    return CardsRead(tuple(tuple(Card.parse(c) for c in seat) for seat in rows))


def _hand(g: Game, rng: random.Random) -> Game:
    """One random legal hand played into ``g`` up to scored (cards first: they answer the declarations)."""
    obj = random_record(rng, g.rules, mano=g.hand.mano, score=list(g.hand.score))
    rec = HandRecord.from_json(obj)
    g = g.apply(_cards(obj["cards"]))
    for lance in rec.lances:
        for w in rec.bets.get(lance, ()):
            g = g.apply(Say(w.seat, w.word, w.n))
    return g


def test_a_confirmed_hand_moves_the_partida_on_and_undo_brings_it_back() -> None:
    rng = random.Random(2)
    g = _hand(Game.start(START), rng)
    assert g.phase is Phase.SCORED
    answer = g.hand.answer
    done = g.apply(Confirm(g.hand.confirm_by[0]), at="t")
    assert done.partida.hands == 1 and done.hand.mano == 1 and done.confirmed[0].answer == answer
    assert g.partida.hands == 0  # the game before is as it was
    back = done.apply(UndoHand())
    assert back.phase is Phase.SCORED and back.hand.answer == answer and back.partida.hands == 0
    assert back.hand.mano == 0 and back.confirmed == ()
    with pytest.raises(Refused, match="nothing_to_undo"):
        back.apply(UndoHand())


def test_a_partida_is_played_to_its_end_and_then_refuses_hands() -> None:
    rng = random.Random(7)
    g = Game.start(NewPartida(Rules(), 1, 1, 2))
    for _ in range(400):
        if g.over:
            break
        g = _hand(g, rng)
        g = g.apply(Confirm(g.hand.confirm_by[-1]))
    assert g.over and g.phase is Phase.OVER and g.partida.winner in (0, 1)
    with pytest.raises(Refused, match="partida_over"):
        g.apply(Say(g.hand.mano, "paso"))
    new = g.apply(NewPartida(Rules(), 1, 1, 0))
    assert new.partida_id == 2 and new.hands(1) == g.confirmed and new.hands() == ()


def test_stones_as_a_pair_keeps_them() -> None:
    assert pair_stones(23, 40) == (4, 3, False) and pair_stones(36, 40)[2]
    g = Game.start(START).apply(CardsRead(_cards([["1o"]] * 4).cards, 0, (0, 0, 1, 0)))
    assert [(s.seat, s.diff) for s in stones_check(g.hand, 40, (0, 1))] == [(2, 1)]
    assert expected_stones([0, 0], 40) == [0, 0, 0, 0]


_ENTRIES = st.one_of(
    st.builds(Say, st.integers(0, 3), st.sampled_from(["paso", "envido", "quiero", "no quiero", "ordago"]),
              st.none() | st.integers(2, 5)),
    st.builds(LanceOutcome, st.sampled_from(list(Lance)), st.sampled_from(["en paso", "querido", "no querido",
                                                                          "ordago"]),
              st.integers(1, 6) | st.none(), st.integers(0, 3) | st.none()),
    st.builds(Declare, st.integers(0, 3), st.sampled_from([Lance.PARES, Lance.JUEGO]), st.booleans()),
    st.builds(Correct, st.integers(0, 3), st.integers(0, 4), st.sampled_from(list(BY_TEXT.values()))),
    st.builds(Confirm, st.integers(0, 3) | st.none()),
    st.just(Unsay()), st.just(UndoHand()), st.just(START), st.just("cards"), st.just("short"), st.just("hand"),
)


def _view(g: Game) -> Any:
    """What a game holds, with the confirmed hands' records as JSON (a record compares by identity)."""
    def hands(hs: Any) -> list[Any]:
        return [(h.n, h.partida, h.record.to_json(), h.answer, h.at, h.by) for h in hs]
    return (g.partida_id, g.partida, g.hand, hands(g.confirmed), {k: hands(v) for k, v in g.done.items()},
            g.first_mano)


@settings(max_examples=60, deadline=None)
@given(st.lists(_ENTRIES, max_size=50), st.integers(0, 10**6))
@example(["hand", "hand", UndoHand(), Unsay(), "hand", "hand", START, "hand"], 3)  # confirmed hands, always
def test_any_entries_accepted_replay_from_their_json_to_the_same_game(entries: list[Any], seed: int) -> None:
    """A refused entry leaves the game as it was (a value: nothing to undo); the accepted ones,
    written as the journal writes them and read back, rebuild exactly the same game."""
    rng = random.Random(seed)
    g = Game.start(START)
    kept: list[tuple[str, dict[str, Any]]] = []
    for e in entries:
        if e == "hand" and not g.over:  # a whole legal hand, word by word, then whoever may confirms
            obj = random_record(rng, g.rules, mano=g.hand.mano, score=list(g.hand.score))
            rec = HandRecord.from_json(obj)
            steps: list[Any] = [_cards(obj["cards"])]
            steps += [Say(w.seat, w.word, w.n) for lance in rec.lances for w in rec.bets.get(lance, ())]
            for step in steps:
                try:
                    kept.append((step.kind, g.body(step)))
                    g = g.apply(step, at="t")
                except Refused:  # the hand in play had words already: this one does not follow
                    kept.pop()
                    break
            if g.hand.scored:
                e = Confirm(g.hand.confirm_by[rng.randrange(len(g.hand.confirm_by))])
            else:
                continue
        if e == "hand":
            continue
        if e in ("cards", "short"):
            rows = random_record(rng, Rules(), mano=0, score=[0, 0])["cards"]
            if e == "short":
                rows[rng.randrange(4)].pop()
            e = _cards(rows)
        before = g
        try:
            g = g.apply(e, at="t")
        except Refused as exc:
            assert exc.code and g is before
            continue
        kept.append((e.kind, before.body(e)))
    again = Game.start(START)
    for kind, body in kept:
        again = again.apply(entry_from_json(kind, body), at="t", replay=True)
    assert _view(again) == _view(g)
