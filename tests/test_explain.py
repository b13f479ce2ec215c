import random

from _engine_helpers import SPEC_RECORD, record

from table.explain import explain
from table.generate import random_record
from table.record import HandRecord

CARDS = "12o 3c 1e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 10c 1o 12b"


def test_the_spec_hand_step_by_step() -> None:
    lines = explain(HandRecord.from_json(SPEC_RECORD))
    text = "\n".join(lines)
    assert "El 0 envida dos, el 1 no quiere, el 3 quiere. Querida a dos." in text
    assert "La gana el asiento 0 (pareja 0) con rey, tres, cuatro y as." in text
    assert "Los gana el asiento 1 (pareja 1) con duples de caballos y sietes." in text
    tanteo = lines[lines.index("El tanteo, por su orden:") + 1:]
    assert tanteo[0] == "  Dos de envite a grande (grande), para la pareja 0: van 2 a 0."
    assert tanteo[5] == "  Dos de juego del compañero (juego), para la pareja 1: van 3 a 9."
    assert lines[-1] == "Quedan 3 a 9; nadie gana el juego en esta mano."


def test_where_the_juego_was_won_and_what_was_not_counted() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]]},
                                      points=(37, 35)))
    text = "\n".join(explain(rec))
    assert "La pareja 0 llega a 40 con «una de chica en paso» y gana el juego." in text
    assert "No se cuenta, porque el juego ya estaba ganado:\n  Tres de duples (pares), de la pareja 1." in text
    assert text.endswith("Queda 40 a 35: juego para la pareja 0 (asientos 0 y 2).")


def test_an_ordago() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]],
                                              "chica": [[0, "ordago"], [1, "quiero"]]}))
    text = "\n".join(explain(rec))
    assert "El 0 echa órdago, el 1 quiere. Órdago querido" in text
    assert "El órdago a chica la gana la pareja 0: gana el juego." in text
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
