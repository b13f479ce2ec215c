"""The partida in play (table/game.py): one ``apply`` for commands and journal replays, as a state machine."""

from __future__ import annotations

import random
from dataclasses import replace
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
    Reopen,
    Say,
    UndoHand,
    Unsay,
    entry_from_json,
    partida_hands,
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
    st.builds(Reopen, st.integers(0, 5)),
)


def _view(g: Game) -> Any:
    """What a game holds, with the confirmed hands' records as JSON (a record compares by identity)."""
    def hands(hs: Any) -> list[Any]:
        return [(h.n, h.partida, h.record.to_json(), h.answer, h.at, h.by) for h in hs]
    def one(x: Game) -> Any:
        return (x.partida_id, x.partida, x.hand, hands(x.confirmed), x.first_mano, x.names, x.started)
    return one(g), {k: one(v) for k, v in g.closed.items()}


@settings(max_examples=60, deadline=None)
@given(st.lists(_ENTRIES, max_size=50), st.integers(0, 10**6))
@example(["hand", "hand", UndoHand(), Unsay(), "hand", "hand", START, "hand"], 3)  # confirmed hands, always
@example(["hand", "cards", START, "hand", Reopen(1), "hand", START, Reopen(2), Reopen(1), "hand"], 5)
def test_any_entries_accepted_replay_from_their_json_to_the_same_game(entries: list[Any], seed: int) -> None:
    """A refused entry leaves the game as it was (a value: nothing to undo); the accepted ones,
    written as the journal writes them and read back, rebuild exactly the same game."""
    _live_and_replayed(entries, seed)


_SWITCHES = st.one_of(st.just("hand"), st.just(START), st.tuples(st.just("reopen"), st.integers(0, 3)),
                      st.just(UndoHand()), st.just("cards"), st.just(Unsay()),
                      st.builds(Say, st.integers(0, 3), st.sampled_from(["paso", "envido", "ordago"]), st.none()))


@settings(max_examples=60, deadline=None)
@given(st.lists(_SWITCHES, min_size=4, max_size=30), st.integers(0, 10**6))
def test_partidas_closed_and_reopened_in_any_order_replay_to_the_same_game(entries: list[Any], seed: int) -> None:
    """New partidas and reopens among hands, undos and words in play: live and replayed from the
    journal's bodies, the same game (every partida's hands, score and hand in play); and the
    hands of every partida are those a fold of the entries by their partida number gives."""
    g, kept = _live_and_replayed(entries, seed)
    ids = [1]
    rows = []
    for kind, body in kept:  # the partida each entry is journaled under: the one in play after it
        if kind == "new_partida":
            ids.append(max(ids) + 1)
            now = ids[-1]
        elif kind == "reopen":
            now = body["partida"]
        else:
            now = rows[-1][1] if rows else 1
        rows.append((len(rows) + 1, now, kind, "t", body))
    for k in {1, *(r[1] for r in rows)}:
        assert [h.record.to_json() for h in g.hands(k)] == [r for r, _ in partida_hands(rows, k)]


def _live_and_replayed(entries: list[Any], seed: int) -> tuple[Game, list[tuple[str, dict[str, Any]]]]:
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
        if isinstance(e, tuple):  # one of the partidas closed (a won one among them: refused)
            e = Reopen(sorted(g.closed)[e[1] % len(g.closed)] if g.closed else e[1] + 1)
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
    return g, kept


def _played(seed: int, hands: int, start: NewPartida = START) -> Game:
    """A game with ``hands`` confirmed hands of random play (none winning the partida: target 40)."""
    rng = random.Random(seed)
    g = Game.start(start, at="t0")
    for _ in range(hands):
        g = _hand(g, rng)
        g = g.apply(Confirm(g.hand.confirm_by[0]), at="t")
        assert not g.over
    return g


def test_a_closed_partida_is_reopened_as_it_was_left_and_the_one_in_play_closed_in_its_turn() -> None:
    first = _played(4, 2)
    mid = _hand(first, random.Random(9))  # the hand in play has its cards and words when it is closed
    assert mid.phase is Phase.SCORED
    second = mid.apply(NewPartida(Rules(target=30), 3, 1, 2, ("Jon", "", "Ane", "")), at="t1")
    assert second.partida_id == 2 and second.partida.score == [0, 0] and second.started == "t1"
    back = second.apply(Reopen(1), at="t3")
    assert back.partida_id == 1 and back.partida == mid.partida and back.hand == mid.hand
    assert back.confirmed == mid.confirmed and back.started == "t0" and back.rules == Rules()
    assert sorted(back.closed) == [2] and back.closed[2].names == ("Jon", "", "Ane", "")
    # the hand in play comes back scored, and play goes on: confirmed, it is hand 3 of partida 1
    on = back.apply(Confirm(back.hand.confirm_by[0]), at="t4")
    assert on.partida.hands == 3 and [h.n for h in on.confirmed] == [1, 2, 3]
    assert {h.partida for h in on.confirmed} == {1}
    # the partida closed by the reopen is itself re-openable, as it was
    again = on.apply(Reopen(2))
    assert again.partida_id == 2 and again.names == ("Jon", "", "Ane", "") and again.rules == Rules(target=30)
    assert again.hands(1) == on.confirmed and again.hands() == ()
    # a new partida after all that takes the next number never used
    assert again.apply(START).partida_id == 3
    # two reopens there and back are no change at all
    assert _view(second.apply(Reopen(1)).apply(Reopen(2))) == _view(second)


def test_what_cannot_be_reopened_is_refused_and_changes_nothing() -> None:
    g = _played(6, 1)
    with pytest.raises(Refused) as exc:
        g.apply(Reopen(1))
    assert exc.value.code == "reopen_in_play" and exc.value.params == {"partida": 1}
    with pytest.raises(Refused) as exc:
        g.apply(Reopen(7))
    assert exc.value.code == "reopen_unknown"


def test_a_won_partida_is_not_reopened_and_says_who_won_it() -> None:
    rng = random.Random(7)
    g = Game.start(NewPartida(Rules(), 1, 1, 2, ("Jon", "Iker", "Ane", "Mikel")))
    for _ in range(400):
        if g.over:
            break
        g = _hand(g, rng)
        g = g.apply(Confirm(g.hand.confirm_by[-1]))
    assert g.over
    w = g.partida.winner
    new = g.apply(START)
    with pytest.raises(Refused) as exc:
        new.apply(Reopen(1))
    assert exc.value.code == "reopen_won"
    assert exc.value.params == {"partida": 1, "winner": w, "pair": ["Jon y Ane", "Iker y Mikel"][w]}
    # from a won partida in play, an unfinished one comes back (the won one is closed, as won)
    unfinished = _played(3, 1)
    done = unfinished.apply(NewPartida(Rules(), 1, 1, 2))
    done = replace(done, partida=g.partida, confirmed=g.confirmed)  # the partida in play is won
    back = done.apply(Reopen(1))
    assert back.partida_id == 1 and back.closed[2].over and not back.over


def test_the_list_of_partidas_says_which_may_be_reopened() -> None:
    g = _played(2, 2)
    g = g.apply(NewPartida(Rules(), 3, 1, 1, ("Jon", "", "Ane", "")), at="t5")
    lines = g.partidas()
    assert [(p.id, p.hands, p.in_play, p.reopenable) for p in lines] == [(1, 2, False, True), (2, 0, True, False)]
    one = lines[0].to_json()
    assert one["score"] == list(g.closed[1].partida.score) and one["mano"] == 2 and one["names"] is None
    assert one["started"] == "t0" and lines[1].to_json()["names"] == ["Jon", "", "Ane", ""]
