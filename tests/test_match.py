import json
import random

import pytest
from _engine_helpers import SPEC_RECORD

from table.errors import InvalidPartida
from table.generate import random_record
from table.match import Partida, read_partida, write_partida
from table.record import HandRecord
from table.rules import Rules
from table.tanteo import score


def ordago(mano: int) -> dict[str, list[list[object]]]:
    """Órdago a grande by mano, accepted: seat 0's cards (rey, tres, cuatro, as) win it."""
    return {"grande": [[mano, "ordago"], [(mano + 1) % 4, "quiero"]]}


def play_partida(rng: random.Random, partida: Partida, max_hands: int = 2000) -> list[HandRecord]:
    """Random hands that follow from one another until the partida is won."""
    records = []
    while not partida.over and len(records) < max_hands:
        head = partida.next_hand()
        rec = random_record(rng, partida.rules, mano=head["mano"], score=head["score"])
        hand = HandRecord.from_json(rec)
        partida.play(hand)
        records.append(hand)
    return records


def test_mano_moves_every_hand_and_the_score_carries() -> None:
    p = Partida(Rules(), mano=2)
    hand = HandRecord.from_json({**SPEC_RECORD, "mano": 2, "bets": {}})
    answer, won = p.play(hand)
    assert won == [] and p.mano == 3 and p.score == list(answer.score) and p.hands == 1


def test_a_juego_resets_the_score_and_counts_toward_the_vaca() -> None:
    p = Partida(Rules(), juegos=2, vacas=2)
    results = []
    while not p.over:
        rec = HandRecord.from_json({**SPEC_RECORD, **p.next_hand(), "bets": ordago(p.mano)})
        results.append(p.play(rec)[1])
    # the grande órdago goes to whoever holds the spec's seat-0 cards: pair 0 always
    assert results[0] == [("juego", 0)]
    assert results[1] == [("juego", 0), ("vaca", 0)]
    assert results[3] == [("juego", 0), ("vaca", 0), ("partida", 0)]
    assert p.winner == 0 and p.won_vacas == [2, 0] and p.vaca_results == [(2, 0), (2, 0)]
    assert p.score == [0, 0] and p.mano == 0


def test_hands_must_follow_from_one_another() -> None:
    p = Partida(Rules(), mano=0)
    with pytest.raises(InvalidPartida, match="mano should be seat 0, not 1"):
        p.play(HandRecord.from_json({**SPEC_RECORD, "mano": 1, "bets": {}}))
    with pytest.raises(InvalidPartida, match=r"score should be \[0, 0\], not \[1, 0\]"):
        p.play(HandRecord.from_json({**SPEC_RECORD, "score": [1, 0]}))
    with pytest.raises(InvalidPartida, match="rules.target should be 40 as in the hands before, not 30"):
        p.play(HandRecord.from_json({**SPEC_RECORD, "rules": {"target": 30}}))


def test_settings_are_checked() -> None:
    with pytest.raises(InvalidPartida, match="juegos must be"):
        Partida(juegos=0)
    with pytest.raises(InvalidPartida, match="mano must be"):
        Partida(mano=4)


def test_random_partidas_end_and_round_trip_as_json_lines() -> None:
    rng = random.Random(7)
    for target in (40, 30):
        p = Partida(Rules(target=target), mano=rng.randrange(4), juegos=3, vacas=2)
        records = play_partida(rng, p)
        assert p.over and max(p.won_vacas) == 2
        text = write_partida(records)
        again, answers = read_partida(text, juegos=3, vacas=2)
        assert again.winner == p.winner and again.vaca_results == p.vaca_results
        assert len(answers) == len(records) == again.hands
        assert answers[-1].to_json() == score(records[-1]).to_json()


def test_read_partida_names_the_bad_line() -> None:
    first = dict(SPEC_RECORD)
    second = {**SPEC_RECORD, "mano": 3, "score": [3, 9], "bets": {}}
    text = json.dumps(first) + "\n\n" + json.dumps(second) + "\n"
    with pytest.raises(InvalidPartida, match="line 3: mano should be seat 1, not 3"):
        read_partida(text)
    with pytest.raises(InvalidPartida, match="line 1: a partida starts at"):
        read_partida(json.dumps({**SPEC_RECORD, "score": [1, 1]}))
    with pytest.raises(InvalidPartida, match="line 1: bad JSON"):
        read_partida("{")
    with pytest.raises(InvalidPartida, match="no hands"):
        read_partida("\n")


def test_no_hands_after_the_partida_is_won() -> None:
    lines = [json.dumps({**SPEC_RECORD, "mano": m, "bets": ordago(m)}) for m in range(4)]
    with pytest.raises(InvalidPartida, match="line 4: the partida ended at line 3 \\(won by pair 0\\): no hand may follow"):
        read_partida("\n".join(lines), juegos=3)
