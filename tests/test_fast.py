"""The batch scorer's fast path answers exactly what the reference path answers, or steps aside."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import orjson
from _engine_helpers import SPEC_RECORD
from hypothesis import given, settings
from hypothesis import strategies as st

from table.errors import InvalidInput
from table.fast import answer, answer_line
from table.generate import random_record
from table.record import parse
from table.tanteo import score


def reference(text: str) -> dict[str, Any] | None:
    try:
        return score(parse(text)).to_json()
    except InvalidInput:
        return None


def same(text: str) -> None:
    """The fast path's line is the reference answer's compact line, byte for byte."""
    fast = answer_line(text.encode())
    if fast is None:
        return
    ref = reference(text)
    assert ref is not None, f"the fast path answered a record the reference refuses: {text[:200]}"
    assert fast == orjson.dumps(ref, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)
    assert answer(text) == orjson.loads(fast)


def test_random_records_answer_the_same_and_take_the_fast_path() -> None:
    rng = random.Random(21)
    taken = 0
    for _ in range(1500):
        rec = random_record(rng, ordago=rng.choice((0.3, 1, 5)))
        text = json.dumps(rec, ensure_ascii=rng.random() < 0.5)
        same(text)
        taken += answer(text.encode()) is not None
    assert taken == 1500  # every plain legal record is answered by the fast path


def test_declarations_and_odd_shapes_take_the_reference_path() -> None:
    rng = random.Random(5)
    rec = random_record(rng, lies=0.3)
    assert "declared" in rec and answer(json.dumps(rec).encode()) is None
    text = json.dumps(SPEC_RECORD)
    assert answer(text.replace('"mano": 0', '"mano": 0, "mano": 0').encode()) is None  # repeated key
    assert answer(b"\xef\xbb\xbf" + text.encode()) is None  # a BOM: the strict reader decides
    assert answer(b"[1, 2]") is None and answer(b"{") is None
    assert answer(text.encode()) == reference(text)


def _mutate(rng: random.Random, obj: Any, value: Any) -> Any:
    if isinstance(obj, dict) and obj and rng.random() < 0.8:
        key = rng.choice(list(obj))
        if rng.random() < 0.15:
            del obj[key]
        else:
            obj[key] = _mutate(rng, obj[key], value)
        return obj
    if isinstance(obj, list) and obj and rng.random() < 0.8:
        i = rng.randrange(len(obj))
        roll = rng.random()
        if roll < 0.15:
            del obj[i]
        elif roll < 0.3:
            obj.insert(i, copy.deepcopy(value))
        else:
            obj[i] = _mutate(rng, obj[i], value)
        return obj
    return copy.deepcopy(value)


values = st.none() | st.booleans() | st.integers(-3, 41) | st.floats(allow_nan=False) | st.sampled_from(
    ["paso", "envido", "quiero", "no quiero", "ordago", "12o", "3c", "1e", "grande", "pares", "juego",
     "punto", "mus-hand/1", ""]) | st.lists(st.integers(0, 3), max_size=3) | st.just({})


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.lists(values, min_size=1, max_size=3))
def test_mutated_records_never_get_an_answer_the_reference_would_not_give(
        seed: int, garbage: list[Any]) -> None:
    rng = random.Random(seed)
    rec = random_record(rng)
    for value in garbage:
        rec = _mutate(rng, rec, value)
    same(json.dumps(rec))
