"""The tournament's formats, by property: a liguilla meets everyone once, byes are fair, a
knockout ends with one pair, the standings' tie-breaks hold."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.tournament import (
    Result,
    assign_tables,
    crossed,
    groups,
    knockout_round,
    round_robin,
    standings,
    swiss_round,
)
from table.errors import InvalidInput

sizes = st.integers(min_value=2, max_value=17)


def _play(pairings: list[tuple[int, int | None]], rng: random.Random) -> list[Result]:
    out = []
    for a, b in pairings:
        if b is None:
            out.append(Result(a, None))
            continue
        ja, jb = rng.choice([(3, rng.randrange(3)), (rng.randrange(3), 3)])
        out.append(Result(a, b, ja, jb, a if ja > jb else b))
    return out


def _once_a_round(pairings: list[tuple[int, int | None]]) -> bool:
    seen = [p for pair in pairings for p in pair if p is not None]
    return len(seen) == len(set(seen))


@given(sizes)
def test_a_liguilla_meets_every_pair_once_and_byes_once_each(n: int) -> None:
    pairs = list(range(1, n + 1))
    rounds = round_robin(pairs)
    met = Counter(frozenset(m) for r in rounds for m in r if m[1] is not None)
    assert set(met) == {frozenset((a, b)) for a in pairs for b in pairs if a < b}
    assert set(met.values()) == {1}
    assert all(_once_a_round(r) and {p for m in r for p in m if p is not None} | {m[0] for m in r} <= set(pairs)
               for r in rounds)
    byes = Counter(m[0] for r in rounds for m in r if m[1] is None)
    assert byes == (Counter(pairs) if n % 2 else Counter())


@given(sizes, st.integers(1, 4), st.integers(0, 10_000))
def test_groups_are_a_public_draw_of_near_equal_size(n: int, g: int, seed: int) -> None:
    pairs = list(range(n))
    if g > max(1, n // 2):
        with pytest.raises(InvalidInput):
            groups(pairs, g, seed)
        return
    drawn = groups(pairs, g, seed)
    assert sorted(p for grp in drawn for p in grp) == pairs
    assert max(map(len, drawn)) - min(map(len, drawn)) <= 1
    assert drawn == groups(pairs, g, seed)  # anyone can draw it again from the seed


@settings(max_examples=60)
@given(sizes, st.integers(1, 3), st.integers(0, 10_000))
def test_a_knockout_with_lives_ends_with_one_pair_and_fair_byes(n: int, lives: int, seed: int) -> None:
    pairs = list(range(n))
    rng = random.Random(seed)
    results: list[Result] = []
    for r in range(10 * n * lives):
        pairings = knockout_round(pairs, results, f"{seed}-{r}", lives=lives)
        if not pairings:
            break
        assert _once_a_round(pairings)
        losses = Counter(x.b if x.winner == x.a else x.a for x in results if x.b is not None)
        alive = [p for p in pairs if losses[p] < lives]
        assert sorted(p for m in pairings for p in m if p is not None) == sorted(alive)
        byes = Counter(x.a for x in results if x.b is None)
        for a, b in pairings:
            if b is None:  # no second bye before every pair still in had one
                assert byes[a] == min(byes[p] for p in alive)
        results += _play(pairings, rng)
    else:
        raise AssertionError("the knockout never ended")
    losses = Counter(x.b if x.winner == x.a else x.a for x in results if x.b is not None)
    assert [p for p in pairs if losses[p] < lives] and sum(losses[p] < lives for p in pairs) == 1
    assert all(v <= lives for v in losses.values())


@settings(max_examples=60)
@given(sizes, st.integers(0, 10_000))
def test_swiss_rounds_byes_never_twice_before_all(n: int, seed: int) -> None:
    pairs = list(range(n))
    rng = random.Random(seed)
    results: list[Result] = []
    for r in range(min(n, 6)):
        pairings = swiss_round(pairs, results, f"{seed}-{r}")
        assert _once_a_round(pairings) and len([p for m in pairings for p in m if p is not None]) == n
        results += _play(pairings, rng)
        byes = Counter(x.a for x in results if x.b is None)
        assert max(byes[p] for p in pairs) - min(byes[p] for p in pairs) <= 1


@given(st.integers(2, 8), st.integers(0, 10_000))
def test_standings_order_by_wins_then_juegos_then_head_to_head(n: int, seed: int) -> None:
    rng = random.Random(seed)
    pairs = list(range(n))
    results = [x for rnd in round_robin(pairs) for x in _play(rnd, rng)]
    table = standings(pairs, results)
    assert sorted(s.pair for s in table) == pairs
    keys = [(s.won, s.juegos) for s in table]
    assert keys == sorted(keys, reverse=True)
    for s, t in zip(table, table[1:], strict=False):
        if (s.won, s.juegos) == (t.won, t.juegos):
            ahead = sum(1 for x in results if {x.a, x.b} == {s.pair, t.pair} and x.winner == s.pair)
            behind = sum(1 for x in results if {x.a, x.b} == {s.pair, t.pair} and x.winner == t.pair)
            if ahead != behind and all((u.won, u.juegos) != (s.won, s.juegos) or u.pair in (s.pair, t.pair)
                                       for u in table):
                assert ahead > behind


def test_head_to_head_breaks_a_tie_on_wins_and_juegos() -> None:
    results = [Result(1, 2, 3, 2, 1), Result(2, 3, 3, 2, 2), Result(3, 1, 3, 2, 3)]
    assert [s.pair for s in standings([3, 2, 1], results)] == [3, 2, 1]  # a cycle: registration order
    results = [Result(1, 2, 2, 3, 2), Result(1, 3, 3, 0, 1), Result(2, 3, 0, 3, 3)]
    # 1: 1 win, 5 juegos; 2: 1 win, 3 juegos; 3: 1 win, 3 juegos — 2 and 3 tied; 3 beat 2
    assert [s.pair for s in standings([1, 2, 3], results)] == [1, 3, 2]


def test_tables_are_assigned_and_byes_need_none() -> None:
    drawn = assign_tables([(1, 2), (3, None), (4, 5)], ["mesa-1", "mesa-2"])
    assert drawn == [("mesa-1", (1, 2)), ("mesa-2", (4, 5)), (None, (3, None))]
    with pytest.raises(InvalidInput, match="2 partidas y solo 1 mesas"):
        assign_tables([(1, 2), (4, 5)], ["mesa-1"])


@given(st.integers(1, 3), st.integers(2, 5), st.integers(0, 10_000))
def test_crossed_rounds_meet_first_against_second_of_another_group(pairs_of_groups: int, size: int,
                                                                   seed: int) -> None:
    ids = list(range(2 * pairs_of_groups * size))
    drawn = groups(ids, 2 * pairs_of_groups, seed)
    group_of = {p: g for g, members in enumerate(drawn) for p in members}
    pairings = crossed(drawn)
    assert len(pairings) == 2 * pairs_of_groups and _once_a_round(pairings)
    for a, b in pairings:
        assert b is not None and group_of[a] != group_of[b]
        assert drawn[group_of[a]][0] == a and drawn[group_of[b]][1] == b
    with pytest.raises(InvalidInput):
        crossed(drawn[:1])
