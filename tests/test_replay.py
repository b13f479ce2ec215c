"""A partida followed hand by hand (table.match.follow) and told (table.partida)."""

from __future__ import annotations

import json
import random

import pytest
from _engine_helpers import SPEC_RECORD

from table.errors import InvalidPartida
from table.generate import random_record
from table.match import Partida, replay
from table.partida import hand_json, hand_line, narrate, result, summary_json
from table.record import HandRecord
from table.rules import Rules


def partida_lines(rng: random.Random, rules: Rules, juegos: int = 3, vacas: int = 1,
                  mano: int = 0) -> list[str]:
    """A random partida played to its end, as JSON lines."""
    p = Partida(rules, mano, juegos, vacas)
    lines = []
    while not p.over:
        rec = random_record(rng, rules, mano=p.mano, score=list(p.score))
        p.play(HandRecord.from_json(rec))
        lines.append(json.dumps(rec))
    return lines


def ordago_hand(mano: int) -> dict[str, object]:
    """The spec's cards, an órdago a la grande by mano accepted: pair 0 wins the juego."""
    return {**SPEC_RECORD, "mano": mano, "score": [0, 0],
            "bets": {"grande": [[mano, "ordago"], [(mano + 1) % 4, "quiero"]]}}


def test_hands_follow_mano_rotates_score_carries_and_resets_after_a_juego() -> None:
    lines = partida_lines(random.Random(4), Rules(), mano=2)
    partida, played = replay(lines)
    assert partida.over and len(played) == len(lines)
    for before, after in zip(played, played[1:], strict=False):
        assert after.record.mano == (before.record.mano + 1) % 4
        assert after.record.score == (before.answer.score if before.answer.winner is None else (0, 0))
        assert after.record.rules == before.record.rules
    assert played[0].record.mano == 2 and played[-1].won[-1] == ("partida", partida.winner)
    juegos = sum(1 for p in played if p.answer.winner is not None)
    assert juegos == sum(played[-1].juegos) and max(played[-1].juegos) == 3


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: {**r, "mano": (r["mano"] + 2) % 4, "bets": {}},
     r"line 7: mano should be seat (\d), not (\d)"),
    (lambda r: {**r, "score": [r["score"][0], (r["score"][1] + 1) % 30]},
     r"line 7: score should be \[\d+, \d+\]( \(a juego was just won\))?, not"),
    (lambda r: {**r, "rules": {**r["rules"], "real": True}},
     r"line 7: rules.real should be false as in the hands before, not true"),
])
def test_the_first_line_that_does_not_follow_is_named(change: object, message: str) -> None:
    lines = partida_lines(random.Random(9), Rules(target=30, real=False), juegos=4)
    assert len(lines) > 8
    bad = list(lines)
    bad[6] = json.dumps(change(json.loads(lines[6])))  # type: ignore[operator]
    with pytest.raises(InvalidPartida, match=message) as exc:
        replay(bad, juegos=4)
    if "mano" in message:
        rec = json.loads(lines[6])
        assert str(exc.value) == f"line 7: mano should be seat {rec['mano']}, not {(rec['mano'] + 2) % 4}"


def test_nothing_after_the_partida_and_a_partida_starts_at_0_0() -> None:
    lines = [json.dumps(ordago_hand(m)) for m in range(3)]
    with pytest.raises(InvalidPartida, match="line 3: the partida ended at line 2"):
        replay(lines, juegos=2)
    with pytest.raises(InvalidPartida, match=r"line 1: a partida starts at \[0, 0\], not \[1, 1\]"):
        replay([json.dumps({**SPEC_RECORD, "score": [1, 1]})])


def test_juegos_and_vacas_are_settings() -> None:
    lines = [json.dumps(ordago_hand(m % 4)) for m in range(8)]
    partida, played = replay(lines[:4], juegos=4)  # the championship: four juegos
    assert partida.over and len(played) == 4 and played[-1].juegos == (4, 0)
    partida, played = replay(lines[:6], juegos=2, vacas=3)
    assert [p.won for p in played[:2]] == [(("juego", 0),), (("juego", 0), ("vaca", 0))]
    assert played[1].juegos == (2, 0) and played[2].juegos == (1, 0) and played[3].vacas == (2, 0)
    assert partida.over and len(played) == 6 and partida.vaca_results == [(2, 0)] * 3
    with pytest.raises(InvalidPartida, match="line 7: the partida ended at line 6"):
        replay(lines[:7], juegos=2, vacas=3)


def test_the_partida_told_hand_by_hand() -> None:
    first = {**SPEC_RECORD, "bets": {"grande": SPEC_RECORD["bets"]["grande"]}}
    lines = [json.dumps(first), json.dumps({**ordago_hand(1), "score": [3, 9]}),
             json.dumps(ordago_hand(2))]
    partida, played = replay(lines, juegos=3)
    text = narrate(partida, played)
    assert text[0] == "Partida a 3 juegos, a 40 piedras, 8 reyes; primera mano el asiento 1."
    assert text[1] == "Mano 1 (línea 1), mano el asiento 1: van 3 a 9."
    assert text[2] == ("Mano 2 (línea 2), mano el asiento 2: juego para los asientos 1 y 3, "
                       "por el órdago (iban 3 a 9). Juegos: 1 a 0.")
    assert text[-1] == "La partida sigue tras 3 manos: van 0 a 0, juegos 2 a 0."
    full = narrate(partida, played, full=True)
    assert "Mano 2 (línea 2):" in full and "  Grande: El 2: ¡órdago a la grande!, el 3 quiere." \
        " Órdago querido: se enseñan las cartas." in "\n".join(full)
    one = narrate(partida, played, hand=2)
    assert one[0] == "Mano 2 (línea 2):" and one[-1] == text[2] and len(one) < len(full)


def test_the_json_answers_and_the_summary() -> None:
    lines = [json.dumps(ordago_hand(m)) for m in range(3)]
    partida, played = replay(lines)
    first = hand_json(played[0])
    assert first["answer"]["winner"] == 0 and first["answer"]["lances"]["grande"]["how"] == "ordago"
    assert first["won"] == {"juego": 0} and first["score"] == [0, 0] and first["juegos"] == [1, 0]
    last = hand_json(played[-1])
    assert last["won"] == {"juego": 0, "vaca": 0, "partida": 0} and last["juegos"] == [3, 0]
    summary = summary_json(partida, played)["summary"]
    assert summary["winner"] == 0 and summary["over"] and summary["juegos"] == [3, 0]
    assert summary["format"] == {"juegos": 3, "vacas": 1} and summary["hands"] == 3
    assert result(partida, played) == "La pareja de los asientos 1 y 3 gana la partida, 3 juegos a 0, en 3 manos."
    assert summary["result"] == result(partida, played)
    assert hand_line(played[-1], 3).endswith("Juegos: 3 a 0: partida para los asientos 1 y 3. ¡Zapatería! "
                                          "La pareja de los asientos 2 y 4 no ha ganado un solo juego.")
    assert "Zamora" in hand_line(played[1], 3) and "Zamora" not in hand_line(played[1], juegos=4)
    partida, played = replay([json.dumps(ordago_hand(m)) for m in range(4)], juegos=2, vacas=2)
    assert hand_line(played[1], 2).endswith("Juegos: 2 a 0: vaca para los asientos 1 y 3. Vacas: 1 a 0.")
    assert hand_line(played[3], 2).endswith(
        "Juegos: 2 a 0: vaca para los asientos 1 y 3. Vacas: 2 a 0: partida para los asientos 1 y 3.")
