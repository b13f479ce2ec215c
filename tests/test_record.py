"""Reading mus-hand/1 records: every fault refused with a one-line reason naming it."""

import copy
import json
import random
from typing import Any

import pytest
from _engine_helpers import SPEC_RECORD, record
from hypothesis import given, settings
from hypothesis import strategies as st

from table.errors import IllegalBet, IncompleteLance, InvalidInput, InvalidRecord
from table.explain import explain
from table.generate import random_record
from table.record import HandRecord, loads, parse
from table.tanteo import score

CARDS = "12o 3c 1e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 10c 1o 12b"
NO_JUEGO = "12o 12c 1e 4b | 11o 11c 7e 1b | 5o 6c 2b 10e | 10o 4c 1o 5b"
ONE_PARES = "12o 11c 1e 4b | 11o 10c 7e 6b | 5o 6c 2b 10e | 10o 10b 1o 12b"


def refused(obj: Any, message: str, cls: type[Exception] = InvalidRecord) -> str:
    with pytest.raises(cls) as info:
        if isinstance(obj, (str, bytes)):
            parse(obj)
        else:
            HandRecord.from_json(obj)
    text = str(info.value)
    assert message in text
    assert "\n" not in text
    return text


def with_(**changes: Any) -> dict[str, Any]:
    rec = copy.deepcopy(SPEC_RECORD)
    for k, v in changes.items():
        if v is None:
            del rec[k]
        else:
            rec[k] = v
    return rec


def test_the_spec_record_reads() -> None:
    rec = HandRecord.from_json(SPEC_RECORD)
    assert rec.mano == 0 and rec.score == (0, 0) and rec.fourth == "juego"
    assert rec.outcomes["grande"].how == "querido"
    assert HandRecord.from_json(rec.to_json()).to_json() == rec.to_json()


@pytest.mark.parametrize(("text", "message"), [
    ("{", "bad JSON: Expecting property name"),
    ('{"mano": 0,}', "bad JSON"),
    ("", "empty: there is no record"),
    (" \n\t", "empty: only blank space, no record"),
    ('{"mano": NaN}', "bad JSON: NaN is not a JSON value"),
    ('{"mano": 0, "mano": 1}', 'bad JSON: key "mano" appears twice'),
    (b"\xff\xfe", "bad JSON: not UTF-8"),
    ("[" * 100000, "bad JSON"),
    ("[1, 2]", "a hand record is a JSON object"),
])
def test_bad_json(text: str, message: str) -> None:
    refused(text, message)


@pytest.mark.parametrize(("changes", "message"), [
    ({"format": None}, 'missing key "format"'),
    ({"format": "mus-hand/2"}, 'format must be "mus-hand/1", not "mus-hand/2"'),
    ({"mano": None}, 'missing key "mano"'),
    ({"mano": 4}, "mano must be a seat 0-3, not 4"),
    ({"mano": True}, "mano must be a seat 0-3, not true"),
    ({"score": [40, 0]}, "score: pair 0 has 40, which is not between 0 and 39"),
    ({"score": [0, -1]}, "score: pair 1 has -1"),
    ({"score": [0]}, "score must be [stones of pair 0, stones of pair 1]"),
    ({"score": [0, 1.5]}, "score must be"),
    ({"rules": {"target": 30}, "score": [30, 0]}, "not between 0 and 29"),
    ({"rules": {"reyes": 8, "reales": True}}, 'rules: unknown rule "reales"'),
    ({"cards": None}, 'missing key "cards"'),
    ({"cards": [["12o"]] * 4}, "cards: seat 0 has 1 cards, not 4"),
    ({"cards": [["12o", "3c", "1e", "4b"]]}, "cards must be a list of four seats' cards, not 1 seats"),
    ({"cards": "12o"}, "cards must be a list"),
    ({"cards": [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
                ["5o", "6c", "2b", "9e"], ["10o", "10c", "1o", "12b"]]},
     "cards: seat 2: not a card: \"9e\" (index must be 1-7, 10, 11 or 12)"),
    ({"cards": [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
                ["5o", "6c", "2b", 10], ["10o", "10c", "1o", "12b"]]}, "cards: seat 2: not a card: 10"),
    ({"cards": [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
                ["5o", "6c", "2b", "12o"], ["10o", "10c", "1o", "12b"]]},
     "cards: 12o appears twice (seat 0 and seat 2)"),
    ({"bets": None}, 'missing key "bets"'),
    ({"bets": {"mus": []}}, 'bets: unknown lance "mus"'),
    ({"bets": []}, "bets must be an object of lances"),
    ({"extra": 1}, 'unknown key "extra"'),
    ({"declared": {"pares": [True, True]}}, "declared.pares must be four true/false"),
    ({"declared": {"envite": [True] * 4}}, 'declared: unknown key "envite"'),
])
def test_record_faults(changes: dict[str, Any], message: str) -> None:
    refused(with_(**changes), message)


@pytest.mark.parametrize(("bets", "message", "cls"), [
    ({"grande": [[1, "paso"]]}, 'bets.grande, word 1 [1, "paso"]: it is seat 0\'s turn', IllegalBet),
    ({"grande": [[0, "envido", 2], [1, "paso"]]}, "bets.grande, word 2", IllegalBet),
    ({"grande": [[0, "paso"], [1, "paso"]]}, "bets.grande: incomplete: seat 2 has yet to speak",
     InvalidRecord),
    ({"chica": [[0, "envido", 2], [1, "no quiero"]]},
     "bets.chica: incomplete: seat 3 has yet to answer", InvalidRecord),
    ({"grande": [[0, "envido", 2], [1, "quiero"], [2, "paso"]]}, "already decided", IllegalBet),
    ({"grande": [[0, "envida"]]}, 'unknown word "envida"', InvalidRecord),
    ({"grande": [[0, "envido\u200b"]]}, 'unknown word "envido\\u200b"', InvalidRecord),  # seen
    ({"grande": [[0, "paso\u2028"]]}, 'unknown word "paso\\u2028"', InvalidRecord),
    ({"grande": [[4, "paso"]]}, "the seat must be 0-3, not 4", InvalidRecord),
    ({"grande": [["0", "paso"]]}, 'the seat must be 0-3, not "0"', InvalidRecord),
    ({"grande": [[0, "paso", 2]]}, "only envido takes a number", InvalidRecord),
    ({"grande": [[0, "envido", 1]]}, "from 2 to 1000, not 1", InvalidRecord),
    ({"grande": [[0, "envido", 2.0]]}, "from 2 to 1000, not 2.0", InvalidRecord),
    ({"grande": [[0]]}, 'a word is [seat, word] or [seat, "envido", n]', InvalidRecord),
    ({"grande": "paso"}, "bets.grande must be a list of words", InvalidRecord),
    ({"pares": [[0, "paso"], [1, "paso"], [2, "paso"], [3, "paso"]]},
     "seat 2 may not speak in pares: it has not declared pares", IllegalBet),
    ({"punto": [[0, "paso"]]}, "bets.punto: punto is played only when nobody has juego, and seat 1",
     InvalidRecord),
    ({"grande": [[0, "ordago"], [1, "quiero"]], "chica": [[0, "paso"]]},
     "bets.chica: the hand ended with the órdago accepted in grande", InvalidRecord),
])
def test_word_faults(bets: dict[str, Any], message: str, cls: type[Exception]) -> None:
    refused(record(CARDS, bets), message, cls)


def test_juego_words_when_nobody_has_juego() -> None:
    refused(record(NO_JUEGO, {"juego": [[0, "paso"]]}), "bets.juego: nobody has (declared) juego")
    rec = HandRecord.from_json(record(NO_JUEGO, {"punto": [[0, "envido", 2], [1, "quiero"]],
                                                 "juego": []}))
    assert rec.fourth == "punto" and rec.outcomes["punto"].stake == 2


def test_pares_words_when_only_one_pair_has_them() -> None:
    refused(record(ONE_PARES, {"pares": [[3, "paso"]]}),
            "bets.pares: not bet (only pair 1 has (declared) pares), but the record has words")


def test_incomplete_is_its_own_class() -> None:
    from table.betting import replay
    with pytest.raises(IncompleteLance):
        replay("grande", 0, [[0, "paso"]])


def test_missing_and_empty_lances_are_en_paso() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": []}))
    assert all(o.how in ("paso", "not bet") for o in rec.outcomes.values())


def test_declarations_decide_who_may_bet() -> None:
    # seat 2 has no pares but says so: it may bet, and seat 0 who has them stays silent
    rec = record(CARDS, {"pares": [[1, "paso"], [2, "envido", 2], [3, "quiero"]]},
                 declared={"pares": [False, True, True, True]})
    assert HandRecord.from_json(rec).outcomes["pares"].stake == 2


# -- fuzz: only InvalidInput may ever escape the parser ----------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 50) | st.floats(allow_nan=False)
    | st.sampled_from(["paso", "envido", "quiero", "no quiero", "ordago", "12o", "1e", "mus-hand/1",
                       "grande", "pares", "juego", "punto", "reyes", ""]) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(["format", "mano", "score", "cards", "bets", "rules",
                                       "declared", "grande", "pares", "juego", "reyes", "x"]),
                      children, max_size=6),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_garbage_objects_only_raise_invalid_input(obj: Any) -> None:
    try:
        HandRecord.from_json(obj)
    except InvalidInput as exc:
        assert "\n" not in str(exc)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60) | st.binary(max_size=60))
def test_garbage_text_only_raises_invalid_input(text: str | bytes) -> None:
    try:
        parse(text)
    except InvalidInput as exc:
        assert "\n" not in str(exc)


def _mutate(rng: random.Random, obj: Any, garbage: list[Any]) -> Any:
    """Replace, drop or add one node somewhere inside a valid record."""
    garbage = [copy.deepcopy(rng.choice(garbage))]  # a fresh node: never a cycle
    if isinstance(obj, dict) and obj and rng.random() < 0.8:
        key = rng.choice(list(obj))
        roll = rng.random()
        if roll < 0.2:
            del obj[key]
        elif roll < 0.5:
            obj[key] = rng.choice(garbage)
        else:
            obj[key] = _mutate(rng, obj[key], garbage)
        return obj
    if isinstance(obj, list) and obj and rng.random() < 0.8:
        i = rng.randrange(len(obj))
        roll = rng.random()
        if roll < 0.2:
            del obj[i]
        elif roll < 0.35:
            obj.insert(i, rng.choice(garbage))
        elif roll < 0.6:
            obj[i] = rng.choice(garbage)
        else:
            obj[i] = _mutate(rng, obj[i], garbage)
        return obj
    return rng.choice(garbage)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(json_values, min_size=1, max_size=4))
def test_mutated_records_only_raise_invalid_input(seed: int, garbage: list[Any]) -> None:
    rng = random.Random(seed)
    rec = random_record(rng, lies=0.1)
    for _ in range(rng.randint(1, 3)):
        rec = _mutate(rng, rec, garbage + [0, 1, 3, "paso", "quiero", "12o", [], {}])
    try:
        hand = HandRecord.from_json(rec)
    except InvalidInput as exc:
        assert "\n" not in str(exc)
    else:  # whatever is accepted can be scored and explained
        assert score(hand).to_json()["score"] and explain(hand)
    try:
        parse(json.dumps(rec))
    except InvalidInput:
        pass


def test_loads_rejects_huge_integers_cleanly() -> None:
    with pytest.raises(InvalidRecord, match="bad JSON"):
        loads("1" * 5000)
