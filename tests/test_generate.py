import random

from table.generate import random_record
from table.record import HandRecord
from table.rules import Rules


def test_records_are_legal_and_repeatable() -> None:
    rng = random.Random(9)
    for _ in range(500):
        rec = random_record(rng)
        again = HandRecord.from_json(rec).to_json()["bets"]
        assert {k: v for k, v in again.items() if v} == {k: v for k, v in rec["bets"].items() if v}
        assert "declared" not in rec
    assert random_record(random.Random(4)) == random_record(random.Random(4))


def test_lies_put_declarations_in_the_record() -> None:
    rec = random_record(random.Random(2), Rules(penalties="mundial"), lies=1.0)
    hand = HandRecord.from_json(rec)
    assert hand.declared == tuple(tuple(not b for b in held) for held in hand.holds())


def test_given_mano_and_score() -> None:
    rec = random_record(random.Random(1), Rules(target=30), mano=2, score=[29, 0])
    assert rec["mano"] == 2 and rec["score"] == [29, 0] and rec["rules"]["target"] == 30
