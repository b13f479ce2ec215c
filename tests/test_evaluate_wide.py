"""The wide measure's arithmetic (models/evaluate_wide.py): the exact bounds, and what a count shows.

The measure itself renders and reads thousands of scenes and is never run here."""

from __future__ import annotations

import math

import pytest

from models.evaluate_wide import Counts, lower_bound, upper_bound


@pytest.mark.parametrize("n", [1, 10, 3000, 40_000])
def test_with_none_seen_the_bound_is_where_none_in_n_has_a_five_per_cent_chance(n: int) -> None:
    b = upper_bound(0, n)
    assert (1 - b) ** n == pytest.approx(0.05)
    if n >= 3000:
        assert b == pytest.approx(3 / n, rel=0.01)  # the rule of three


@pytest.mark.parametrize(("k", "n"), [(1, 10), (3, 5000), (100, 1000)])
def test_the_bound_leaves_five_per_cent_for_seeing_so_few(k: int, n: int) -> None:
    p = upper_bound(k, n)
    at_most_k = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))
    assert at_most_k == pytest.approx(0.05, rel=1e-6)
    assert k / n < p < upper_bound(k + 1, n)
    assert lower_bound(n - k, n) == pytest.approx(1 - p)


def test_a_target_is_shown_only_when_the_bound_meets_it_not_the_share() -> None:
    few = Counts(cards=2000, right=1990, wrong=0, hands=125, hands_all_right=120)
    many = few + Counts(cards=2000, right=2000, wrong=0, hands=125, hands_all_right=125)
    assert many == Counts(4000, 3990, 0, 250, 245) and many.unknown == 10
    r_few, r_many = few.report(0.9, 0.001), many.report(0.9, 0.001)
    assert r_few["wrong_target_met"] and not r_few["wrong_target_shown"]  # 0 of 2000: below 0.15 %, no more
    assert r_many["wrong_target_shown"] and not many.report(0.9, 0.0005)["wrong_target_shown"]
    assert r_many["right_target_shown"] and r_many["right_pct"] == 99.75
