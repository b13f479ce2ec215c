"""vision.felt's numeric helpers: the same numbers as numpy's, faster."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.felt import BRACKET_FROM, BRACKET_STEP, _pair, median, percentile


@settings(max_examples=300, deadline=None)
@given(arrays(st.sampled_from([np.float32, np.float64]), st.integers(1, 400),
              elements=st.floats(-1e6, 1e6, width=32, allow_nan=False)))
def test_median_is_numpys_to_the_bit(values: np.ndarray) -> None:
    got, want = median(values), np.median(values)
    assert got == want and type(got) is type(want)


def test_median_of_a_large_image_and_its_odd_cases() -> None:
    rng = np.random.default_rng(3)
    mag = np.abs(rng.normal(0, 0.05, (600, 701))).astype(np.float32)  # an even and an odd count
    for values in (mag, mag[1:], mag.astype(np.float64), np.zeros(10, np.float32)):
        assert median(values) == np.median(values)
    with_nan = mag.ravel().copy()
    with_nan[5] = np.nan
    assert np.isnan(median(with_nan))
    ints = rng.integers(0, 255, 1001).astype(np.uint8)  # not floats: numpy's own
    assert median(ints) == np.median(ints)


@settings(max_examples=300, deadline=None)
@given(arrays(st.sampled_from([np.float32, np.float64]), st.integers(1, 400),
              elements=st.floats(-1e6, 1e6, width=32, allow_nan=False)),
       st.sampled_from([0, 0.5, 1, 10, 25, 33.3, 50, 66.6666, 90, 99.5, 100]))
def test_percentile_is_numpys_to_the_bit(values: np.ndarray, q: float) -> None:
    got, want = percentile(values, q), np.percentile(values, q)
    assert got == want and type(got) is type(want)


def test_percentile_of_a_large_image_and_what_goes_to_numpy() -> None:
    rng = np.random.default_rng(4)
    log = np.log(rng.integers(0, 256, (480, 481)).astype(np.float32) + 30.0)
    for q in (0.5, 25, 90, 99.5):
        assert percentile(log, q) == np.percentile(log, q)
    assert percentile(log, np.float64(90.0)) == np.percentile(log, np.float64(90.0))  # not a Python number
    with_nan = log.ravel().copy()
    with_nan[7] = np.nan
    assert np.isnan(percentile(with_nan, 90))


def test_bracketed_ranks_are_the_sorted_values_even_where_the_sample_misleads() -> None:
    rng = np.random.default_rng(5)
    n = 4 * BRACKET_FROM + 1
    misleading = np.ones(n, np.float32)
    misleading[::BRACKET_STEP] = 0.0  # the sample sees only zeros: its bracket misses, the whole array is taken
    cases = [rng.exponential(1.0, n).astype(np.float32), rng.integers(0, 4, n).astype(np.float64),
             np.sort(rng.normal(0, 1, n)).astype(np.float32), misleading]
    for values in cases:
        ordered = np.sort(values)
        for r in (1, n // 10, n // 2, n // 2 + 1, n - 1):
            below, at = _pair(values, r)
            assert below == ordered[r - 1] and at == ordered[r]
        assert median(values) == np.median(values) and median(values[1:]) == np.median(values[1:])
        assert percentile(values, 37.5) == np.percentile(values, 37.5)
