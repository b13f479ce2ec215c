"""The batch scorer's fast path answers exactly what the reference path answers, or steps aside."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from typing import Any

import orjson
import pytest
from _engine_helpers import SPEC_RECORD, record
from hypothesis import given, settings
from hypothesis import strategies as st

from table.errors import InvalidInput
from table.fast import _outcome, answer, answer_line
from table.generate import random_record
from table.lances import How, Lance
from table.record import _lance, parse
from table.rules import Rules
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


rules_st = st.builds(Rules, st.sampled_from((8, 4)), st.sampled_from((False, True, "rey")),
                     st.sampled_from((40, 30, 20)), st.sampled_from(("lance", "mundial", "none")))


def test_the_fast_path_knows_exactly_the_rule_sets_checked_here() -> None:
    """Every rule set drawn by ``rules_st`` is in ``CHECKED`` and nothing else: a rule added
    to ``Rules`` (a new key or value) is refused by the fast path until checked here."""
    import table.fast as fast
    from table.rules import KEYS, PENALTIES, REALS, REYES, TARGETS

    drawn = {(r, real, t, p, False) for r in (8, 4) for real in (False, True, "rey")
             for t in (40, 30, 20) for p in ("lance", "mundial", "none")}
    assert fast.CHECKED == drawn
    assert KEYS == ("reyes", "real", "target", "penalties", "deje")
    assert (REYES, REALS, TARGETS, set(PENALTIES)) == (
        (8, 4), (False, True, "rey"), (40, 30, 20), {"lance", "mundial", "none"})


def test_a_rule_set_not_checked_takes_the_reference_path() -> None:
    rec = copy.deepcopy(SPEC_RECORD)
    rec["rules"] = {"deje": True}
    rec["bets"]["pares"] = [[0, "paso"], [1, "envido", 2], [0, "envido", 2], [1, "no quiero"],
                            [3, "no quiero"]]
    text = json.dumps(rec)
    assert answer_line(text.encode()) is None   # mus con deje: the reference scores it
    assert reference(text)["tanteo"][0]["why"] == "dos porque no y una de deje"  # in the act
    rec["rules"] = {"deje": False}
    assert answer_line(json.dumps(rec).encode()) is not None


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), rules_st, st.sampled_from((0.0, 0.3, 1.0, 6.0)), st.booleans())
def test_every_rule_set_answers_the_same(seed: int, rules: Rules, ordago: float, near: bool) -> None:
    """4 and 8 reyes, the 31 real or not, to 30 or 40, rule 19 or none, órdagos, and scores
    near the target (the tanteo stops at the event that reaches it)."""
    rng = random.Random(seed)
    points = [rng.randrange(rules.target - 6, rules.target), rng.randrange(rules.target)] if near else None
    rec = random_record(rng, rules, ordago=ordago, score=points)
    text = json.dumps(rec)
    assert answer_line(text.encode()) is not None
    same(text)


@pytest.mark.parametrize("real", [False, True, "rey"])
@pytest.mark.parametrize("reyes", [8, 4])
@pytest.mark.parametrize("figure", ["12b", "10b"])
@pytest.mark.parametrize("juego", [[], [[0, "envido", 2], [1, "quiero"]], [[0, "paso"], [1, "paso"], [2, "paso"]]])
def test_the_31_real_answers_the_same(real: object, reyes: int, figure: str,
                                      juego: list[list[Any]]) -> None:
    rec = record(f"7o 7c 7e {figure} | 11b 12o 12c 1e | 10o 10c 1o 12e | 2o 3c 4e 5b",
                 {"juego": juego}, rules={"reyes": reyes, "real": real})
    text = json.dumps(rec)
    assert answer_line(text.encode()) is not None
    same(text)
    line = answer_line(text.encode())
    real_here = real is True or (real == "rey" and figure == "12b")
    assert line is not None and (b"treinta y una real" in line) == real_here  # however bet


word_st = st.one_of(
    st.tuples(st.integers(0, 3), st.sampled_from(["paso", "quiero", "no quiero", "ordago", "envido"])).map(list),
    st.tuples(st.integers(0, 3), st.just("envido"), st.integers(1, 12)).map(list),
    st.tuples(st.one_of(st.booleans(), st.integers(-1, 5)), st.sampled_from(["paso", "Paso", "ordago"])).map(list),
    st.tuples(st.integers(0, 3), st.just("envido"), st.one_of(st.booleans(), st.floats(2, 3))).map(list),
    st.tuples(st.integers(0, 3), st.just("ordago"), st.integers(2, 3)).map(list))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3), st.integers(0, 15), st.lists(word_st, max_size=7))
def test_the_small_betting_machine_ends_a_lance_as_the_reference_does(
        mano: int, mask: int, words: list[Any]) -> None:
    """Any words, legal or not, for any mano and seats that may speak: the same outcome
    as :class:`table.betting.Betting`, or a refusal wherever the reference refuses."""
    try:
        _, ref = _lance(Lance.PARES, mano, mask, words)
    except InvalidInput:
        ref = None
    if not words:
        return
    mine = _outcome(mano, mask, json.loads(json.dumps(words)))
    if ref is None:
        assert mine is None
    else:
        assert mine == (list(How).index(ref.how), ref.stake, ref.deje, ref.pair)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(("grande", "chica", "pares", "juego", "punto")),
       st.sampled_from([False, 0, "", {}, None, [], [[]], [[0]], "paso", 1.5]))
def test_an_odd_lance_value_after_an_ordago_or_anywhere_is_judged_as_the_reference_does(
        seed: int, lance: str, value: Any) -> None:
    rng = random.Random(seed)
    rec = random_record(rng, ordago=6.0)
    rec["bets"][lance] = value
    same(json.dumps(rec))


def test_a_batch_through_the_command_is_the_reference_byte_for_byte(tmp_path: Any) -> None:
    """``score --jsonl`` on random records, blank lines and bad ones: every line is what
    the reference path writes for it."""
    from firmware.commands.score import _compact

    rng = random.Random(8)
    lines = []
    for k in range(300):
        rec = random_record(rng, ordago=rng.choice((0.3, 3.0)), lies=0.2 if k % 7 == 0 else 0.0)
        lines.append(json.dumps(rec))
        if k % 50 == 0:
            lines += ["", "   ", '{"format": "mus-hand/1", "mano": 9}']
    path = tmp_path / "batch.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "score", "--jsonl", str(path)],
                          capture_output=True, check=False)
    assert done.returncode == 2  # the bad lines
    expected = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj: dict[str, Any] = score(parse(line)).to_json()
        except InvalidInput as exc:
            obj = {"error": f"line {number}: {exc}"}
        expected.append(_compact(obj))
    assert done.stdout == b"".join(expected)


def test_the_caches_start_afresh_when_full_and_answer_the_same(monkeypatch: Any) -> None:
    import table.fast as fast

    monkeypatch.setattr(fast, "_CACHE_SIZE", 5)  # every table fills and is emptied many times
    # fresh tables, so that the outcomes met by the tests before are met again here
    start = [(fast._H_PASO, 0, 0, None), (fast._H_NOT_BET, 0, 0, None)]
    monkeypatch.setattr(fast, "_OUTCOMES", list(start))
    monkeypatch.setattr(fast, "_OUTCOME_ID", {o: k for k, o in enumerate(start)})
    monkeypatch.setattr(fast, "_DEJE_PAIR", [-1, -1])
    monkeypatch.setattr(fast, "_CACHE", tuple(tuple({} for _ in range(16)) for _ in range(4)))
    monkeypatch.setattr(fast, "_PLAYED", ({}, {}, {}, {}, {}))
    rng = random.Random(13)
    for _ in range(300):
        text = json.dumps(random_record(rng, ordago=2.0))
        assert answer_line(text.encode()) is not None
        same(text)
    assert len(fast._OUTCOMES) <= 5 and all(len(t) <= 5 for t in fast._PLAYED)
