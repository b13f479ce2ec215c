import random

from _engine_helpers import SPEC_RECORD, record

from table.explain import explain
from table.generate import random_record
from table.record import HandRecord
from table.rules import Rules

CARDS = "12o 3c 1e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 10c 1o 12b"
PUNTOS = "12o 12c 1e 4b | 11o 11c 7e 1b | 5o 6c 2b 10e | 10o 4c 1o 5b"


def test_the_spec_hand_step_by_step() -> None:
    lines = explain(HandRecord.from_json(SPEC_RECORD))
    text = "\n".join(lines)
    assert "El 0 envida dos, el 1 no quiere, el 3 quiere. Querida a dos." in text
    assert "La gana el asiento 0 (pareja 0) con rey, tres, cuatro y as." in text
    assert "Los gana el asiento 1 (pareja 1) con duples de caballos y sietes." in text
    tanteo = lines[lines.index("El tanteo, por su orden:") + 1:]
    assert tanteo[0] == "  Dos de envite a grande (grande), para la pareja 0: van 2 a 0."
    assert tanteo[5] == "  Dos de juego del compañero (juego), para la pareja 1: van 3 a 9."
    assert lines[-1] == ("Quedan 3 a 9 (la pareja 0, tres piedras; la pareja 1, un amarraco y "
                         "cuatro piedras); nadie gana el juego en esta mano.")


def test_where_the_juego_was_won_and_what_was_not_counted() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]]},
                                      points=(37, 35)))
    text = "\n".join(explain(rec))
    assert "La pareja 0 llega a 40 justas con «una de chica en paso» y gana el juego: muerte dulce." in text
    assert "  Una de chica en paso (chica), para la pareja 0: llega a 40." in text
    assert "No se cuenta, porque el juego ya estaba ganado:\n  Tres de duples (pares), de la pareja 1." in text
    assert text.endswith("Juego para la pareja 0 (asientos 0 y 2), por cinco piedras de diferencia: 40 a 35.")


def test_an_ordago() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]],
                                              "chica": [[0, "ordago"], [1, "quiero"]]}))
    text = "\n".join(explain(rec))
    assert "El 0: ¡órdago a la chica!, el 1 quiere. Órdago querido" in text
    assert "El órdago a la chica la gana la pareja 0: gana el juego." in text
    assert "No se cuenta, porque el órdago acabó la mano:\n  Dos de envite a grande" in text


def test_mistakes_and_rulings_are_said() -> None:
    rec = HandRecord.from_json(record(
        CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "envido", 2], [3, "quiero"]]},
        declared={"pares": [True] * 4}, rules={"penalties": "mundial"}))
    text = "\n".join(explain(rec))
    assert "Equivocación: el asiento 2 cantó pares sin tenerlos." in text
    assert "Regla 19: la pareja 0 cantó pares sin tenerlos" in text


def test_every_random_hand_can_be_explained() -> None:
    rng = random.Random(3)
    for _ in range(300):
        rec = HandRecord.from_json(random_record(rng, lies=0.1, ordago=3))
        lines = explain(rec)
        assert lines[0].startswith("Mano el asiento") and all(lines)


def test_raises_are_said_as_raises_and_what_is_worth_the_juego() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [
        [0, "envido", 2], [1, "envido", 3], [2, "envido", 10], [3, "quiero"]]}, points=(30, 30)))
    text = "\n".join(explain(rec))
    assert "El 0 envida dos, el 1 envida tres más, el 2 envida diez más (lo que sea: el envite ya vale el juego), el 3 quiere. Querida a quince." in text
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 5], [1, "no quiero"],
                                                         [3, "no quiero"]]}))
    assert "El 0 envida cinco (la mano de un niño), el 1 no quiere" in "\n".join(explain(rec))


def test_a_score_past_the_target_says_who_won_and_by_how_much() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "envido", 100],
                                                         [2, "quiero"]]}, points=(38, 13)))
    lines = explain(rec)
    assert "la pareja 0 está dentro." in lines[0]
    assert "  Ciento dos de envite a grande (grande), para la pareja 0: llega a 140." in lines
    assert lines[-1] == ("Juego para la pareja 0 (asientos 0 y 2), por ciento veintisiete piedras "
                         "de diferencia: 140 a 13.")
    assert not any("van 140" in line for line in lines)


def test_estamos_dentro_punto_y_miedo_and_the_stones_in_amarracos() -> None:
    rec = HandRecord.from_json(record(PUNTOS, {"punto": [[0, "envido", 2], [1, "no quiero"],
                                                         [3, "no quiero"]]}, points=(30, 33)))
    lines = explain(rec)
    assert ("  Punto: El 0 envida dos, el 1 no quiere, el 3 no quiere. No querido: punto y miedo, la "
            "pareja 0 (asientos 0 y 2) se lleva una porque no, y la de punto al final.") in lines
    assert ("  Una de chica en paso (chica), para la pareja 1: van 32 a 34.") in lines
    assert "  Una de par (pares), para la pareja 0: van 33 a 34." in lines
    rec = HandRecord.from_json(record(PUNTOS, {}, points=(34, 35)))
    lines = explain(rec)
    assert "  Una de grande en paso (grande), para la pareja 0: van 35 a 35." in lines
    assert ("  Una de chica en paso (chica), para la pareja 1: van 35 a 36. «Estamos dentro», "
            "dice la pareja 1.") in lines
    assert "  Una de par (pares), para la pareja 0: van 36 a 36. «Estamos dentro», dice la pareja 0." in lines
    assert lines[-1].startswith("Quedan 36 a 37 (la pareja 0, siete amarracos y una piedra; "
                                "la pareja 1, siete amarracos y dos piedras)")


def test_a_tie_goes_to_mano() -> None:
    rec = HandRecord.from_json(record("12o 11o 5o 4o | 12c 11c 5c 4c | 1e 2e 6e 7e | 1b 2b 6b 7b",
                                      {}, mano=1))
    text = "\n".join(explain(rec))
    assert ("La gana el asiento 1 (pareja 1) con rey, caballo, cinco y cuatro; empata el asiento 0, "
            "y gana la mano.") in text


def test_an_annulled_ordago_and_a_penalty_are_said_as_rule_19_says_them() -> None:
    rec = HandRecord.from_json(record(
        CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "ordago"], [3, "quiero"]]},
        declared={"pares": [True] * 4}, rules={"penalties": "mundial"}))
    lines = explain(rec)
    text = "\n".join(lines)
    assert "el 2: ¡órdago a pares!, el 3 quiere. Se anula lo jugado (regla 19)" in text
    assert "Regla 19: el órdago a pares se anula con lo jugado a pares" in text
    assert "por deje" not in text and "órdago acabó la mano" not in text
    assert "  Una de deje por pares mal cantados (pares), para la pareja 1: van 2 a 1." in lines


def test_no_penalty_is_ever_said_por_deje() -> None:
    rng = random.Random(11)
    for _ in range(400):
        rec = HandRecord.from_json(random_record(rng, Rules(penalties="mundial"), lies=0.3))
        assert not any("por deje" in line for line in explain(rec))
