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
    assert "El 1 envida dos, el 2 no quiere, el 4 quiere. Querida a dos." in text
    assert "La gana el asiento 1 (pareja 1 y 3) con dos reyes, cuatro y as." in text  # the 3 is a rey
    assert "La gana el asiento 1 (pareja 1 y 3) con as, cuatro y dos reyes." in text
    assert "Los gana el asiento 2 (pareja 2 y 4) con duples de caballos y sietes." in text
    tanteo = lines[lines.index("El tanteo, por su orden:") + 1:]
    assert tanteo[0] == "  Dos de envite a grande, para los asientos 1 y 3: van 2 a 0."   # no «(grande)» again
    assert tanteo[2] == "  Tres de duples (pares), para los asientos 2 y 4: van 3 a 3."
    assert tanteo[5] == "  Dos de juego del compañero, para los asientos 2 y 4: van 3 a 9."
    assert lines[-1] == ("Quedan 3 a 9 (los asientos 1 y 3, tres piedras; los asientos 2 y 4, un amarraco y "
                         "cuatro piedras); nadie gana el juego en esta mano.")


def test_where_the_juego_was_won_and_what_was_not_counted() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]]},
                                      points=(37, 35)))
    text = "\n".join(explain(rec))
    assert "La pareja de los asientos 1 y 3 llega a 40 con «una de chica en paso» y gana el juego." in text
    assert "muerte dulce" not in text  # the texts' «pillando desprevenidos» cannot be read from a record
    assert "  Una de chica en paso, para los asientos 1 y 3: llega a 40." in text
    assert ("No se cuenta, porque la pareja de los asientos 1 y 3 ya había ganado el juego con «una de chica en paso» "
            "(chica), y lo que se cuenta después ya no vale:\n  Tres de duples (pares), de los asientos 2 y 4."
            in text)
    assert text.endswith("Juego para los asientos 1 y 3, por cinco piedras de diferencia: 40 a 35.")


def test_an_ordago() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]],
                                              "chica": [[0, "ordago"], [1, "quiero"]]}))
    text = "\n".join(explain(rec))
    assert "El 1: ¡órdago a la chica!, el 2 quiere. Órdago querido" in text
    assert "El órdago a la chica lo gana la pareja de los asientos 1 y 3: gana el juego." in text
    assert ("No se cuenta, porque el órdago a la chica acabó la mano: solo cuentan los dejes, que se "
            "cuentan en el acto:\n  Dos de envite a grande" in text)


def test_mistakes_and_rulings_are_said() -> None:
    rec = HandRecord.from_json(record(
        CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "envido", 2], [3, "quiero"]]},
        declared={"pares": [True] * 4}, rules={"penalties": "mundial"}))
    text = "\n".join(explain(rec))
    assert "Equivocación: el asiento 3 cantó pares sin tenerlos." in text
    assert "Regla 19: la pareja de los asientos 1 y 3 cantó pares sin tenerlos" in text


def test_every_random_hand_can_be_explained() -> None:
    rng = random.Random(3)
    for _ in range(300):
        rec = HandRecord.from_json(random_record(rng, lies=0.1, ordago=3))
        lines = explain(rec)
        assert lines[0].startswith("Mano el asiento") and all(lines)


def test_raises_are_said_as_raises() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [
        [0, "envido", 2], [1, "envido", 3], [2, "envido", 10], [3, "quiero"]]}, points=(30, 30)))
    text = "\n".join(explain(rec))
    # no «lo que sea»: a stake worth more than the juego does not end it (the Fournier rules'
    # note: «el juego no se gana ni se pierde todavía»), and the texts define no such tag
    assert "El 1 envida dos, el 2 envida tres más, el 3 envida diez más, el 4 quiere. Querida a quince." in text
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 5], [1, "no quiero"],
                                                         [3, "no quiero"]]}))
    assert "El 1 envida cinco (la mano de un niño), el 2 no quiere" in "\n".join(explain(rec))


def test_a_score_past_the_target_says_who_won_and_by_how_much() -> None:
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "envido", 100],
                                                         [2, "quiero"]]}, points=(38, 13)))
    lines = explain(rec)
    assert "la pareja de los asientos 1 y 3 está dentro." in lines[0]
    assert "  Ciento dos de envite a grande, para los asientos 1 y 3: llega a 140." in lines
    assert lines[-1] == ("Juego para los asientos 1 y 3, por ciento veintisiete piedras "
                         "de diferencia: 140 a 13.")
    assert not any("van 140" in line for line in lines)


def test_estamos_dentro_punto_y_miedo_and_the_stones_in_amarracos() -> None:
    rec = HandRecord.from_json(record(PUNTOS, {"punto": [[0, "envido", 2], [1, "no quiero"],
                                                         [3, "no quiero"]]}, points=(30, 33)))
    lines = explain(rec)
    assert ("  Punto: El 1 envida dos, el 2 no quiere, el 4 no quiere. No querido: punto y miedo, la "
            "pareja de los asientos 1 y 3 se lleva una porque no, y la de punto al final. La pareja de los asientos 1 y 3 roba el punto: las cartas eran de los asientos 2 y 4.") in lines
    assert ("  Una de chica en paso, para los asientos 2 y 4: van 32 a 34.") in lines
    assert "  Una de par (pares), para los asientos 1 y 3: van 33 a 34." in lines
    rec = HandRecord.from_json(record(PUNTOS, {}, points=(34, 35)))
    lines = explain(rec)
    assert "  Una de grande en paso, para los asientos 1 y 3: van 35 a 35." in lines
    assert ("  Una de chica en paso, para los asientos 2 y 4: van 35 a 36. «Estamos dentro», "
            "dice la pareja de los asientos 2 y 4.") in lines
    assert "  Una de par (pares), para los asientos 1 y 3: van 36 a 36. «Estamos dentro», dice la pareja de los asientos 1 y 3." in lines
    # «estamos dentro»: the amarracos go back to the centre, each pair keeps its piedras
    assert lines[-1].startswith("Quedan 36 a 37 (los asientos 1 y 3, dentro y una piedra; "
                                "los asientos 2 y 4, dentro y dos piedras)")


def test_a_tie_goes_to_mano() -> None:
    rec = HandRecord.from_json(record("12o 11o 5o 4o | 12c 11c 5c 4c | 1e 2e 6e 7e | 1b 2b 6b 7b",
                                      {}, mano=1))
    text = "\n".join(explain(rec))
    assert ("La gana el asiento 2 (pareja 2 y 4) con rey, caballo, cinco y cuatro; empata con el asiento 1, "
            "y gana la mano.") in text


def test_an_annulled_ordago_and_a_penalty_are_said_as_rule_19_says_them() -> None:
    rec = HandRecord.from_json(record(
        CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "ordago"], [3, "quiero"]]},
        declared={"pares": [True] * 4}, rules={"penalties": "mundial"}))
    lines = explain(rec)
    text = "\n".join(lines)
    assert "el 3: ¡órdago a pares!, el 4 quiere. Se anula lo jugado (regla 19)" in text
    assert "Regla 19: el órdago a pares se anula con lo jugado a pares" in text
    assert "por deje" not in text and "órdago acabó la mano" not in text
    assert "  Una de deje por pares mal cantados, para los asientos 2 y 4: van 2 a 1." in lines


def test_no_penalty_is_ever_said_por_deje() -> None:
    rng = random.Random(11)
    for _ in range(400):
        rec = HandRecord.from_json(random_record(rng, Rules(penalties="mundial"), lies=0.3))
        assert not any("por deje" in line for line in explain(rec))


def test_a_deje_counted_in_the_act_says_why_an_earlier_lance_did_not_count() -> None:
    # pair 0 at 39 takes the deje of pares during the bets: chica, before pares in order, is
    # counted at the end of the hand, too late
    rec = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]],
                                              "pares": [[0, "envido", 2], [1, "no quiero"],
                                                        [3, "no quiero"]]}, points=(39, 0)))
    lines = explain(rec)
    text = "\n".join(lines)
    assert "los dejes en el acto, cuando se rehúsa el envite" in text
    assert "  Una porque no (pares), para los asientos 1 y 3, en el acto: llega a 40." in lines
    assert ("  La grande y la chica van antes que los pares, pero el deje de los pares se contó en "
            "el acto, durante los envites, y la grande y la chica se cuentan al final de la mano."
            in lines)
    assert "La pareja de los asientos 1 y 3 roba los pares: las cartas eran de los asientos 2 y 4." in text


def test_every_tie_names_its_seats_and_who_wins_it() -> None:
    same = "12o 11o 7o 6o | 12c 11c 7c 6c | 12e 11e 7e 6e | 12b 11b 7b 6b"
    text = "\n".join(explain(HandRecord.from_json(record(same, mano=2))))
    assert "La gana el asiento 3 (pareja 1 y 3) con rey, caballo, siete y seis; empata con los asientos 4, 1 y 2, y gana la mano." in text
    # mano (seat 0) has the worst grande; seats 1 and 2 tie for the best: seat 1 is nearer mano
    cards = "4o 5o 6o 1o | 12o 11c 7c 6c | 12c 11o 7e 6e | 4e 5e 6b 1e"
    text = "\n".join(explain(HandRecord.from_json(record(cards))))
    assert ("Grande: En paso. La gana el asiento 2 (pareja 2 y 4) con rey, caballo, siete y seis; "
            "empatan los asientos 2 y 3: gana el más cercano a la mano.") in text
    assert ("Chica: En paso. La gana el asiento 1 (pareja 1 y 3) con as, cuatro, cinco y seis; "
            "empata con el asiento 4, y gana la mano.") in text


def test_the_stones_at_dentro_are_as_the_felt_keeps_them() -> None:
    rec = HandRecord.from_json(record(PUNTOS, points=(34, 30)))
    closing = explain(rec)[-1]
    # pair 0 ends at 36: dentro, the amarracos back to the centre, one piedra kept
    assert closing.startswith("Quedan 36 a 32 (los asientos 1 y 3, dentro y una piedra; los asientos 2 y 4, seis "
                              "amarracos y dos piedras)")
    rec = HandRecord.from_json(record(PUNTOS, points=(37, 30)))
    assert "los asientos 1 y 3, dentro y cuatro piedras" in explain(rec)[-1]


def test_a_false_declaration_is_said_and_no_invented_phrase() -> None:
    rec = HandRecord.from_json(record(
        "12o 1c 5e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 10c 1o 12b",
        {"pares": [[0, "envido", 2], [1, "quiero"]]}, declared={"pares": [True, True, True, True]}))
    text = "\n".join(explain(rec))
    assert "Pares: El 1 envida dos, el 2 quiere. Queridos a dos. Los gana la pareja de los asientos 2 y 4: la pareja de los asientos 1 y 3 los pierde por la equivocación." in text
    assert "Los asientos 1 y 3 cantaron pares sin tenerlos: la pareja de los asientos 1 y 3 pierde el lance y sus envites" in text
    big = HandRecord.from_json(record(CARDS, {"grande": [[0, "envido", 40], [1, "quiero"]]},
                                      points=(10, 10)))
    assert "lo que sea" not in "\n".join(explain(big))


def test_tran_tran() -> None:
    text = "\n".join(explain(HandRecord.from_json(record(PUNTOS))))
    assert "  Tran-tran: un lance tras otro en paso." in text


def test_a_lance_nobody_may_take_says_what_was_bet_and_no_deje() -> None:
    # both pairs said «juego sí» without it; nobody has juego: the punto is nobody's
    cards = "12o 11o 5o 4o | 12c 11c 4c 5c | 1o 1c 6o 7o | 10o 6c 7c 2o"
    rec = HandRecord.from_json(record(cards, {"juego": [[0, "envido", 2], [1, "envido", 3],
                                                        [0, "no quiero"]]},
                                      declared={"juego": [True, True, False, False]}))
    lines = explain(rec)
    assert ("  Punto (se cantó juego, pero nadie lo tiene): El 1 envida dos, el 2 envida tres más, "
            "el 1 no quiere. No querido. No es de nadie: las dos parejas se equivocaron.") in lines
    assert "  Pares: No se juega: solo una pareja los tiene. Los gana el asiento 3 (pareja 1 y 3) con par de ases." in lines
    assert not [line for line in lines if "porque no" in line]


def test_a_hidden_jugada_is_no_tie() -> None:
    cards = "12o 3c 5e 4b | 12c 3o 6e 7b | 1o 6c 2b 10e | 10o 11c 1c 5b"  # seats 0 and 1: par de reyes
    said = [line for line in explain(HandRecord.from_json(record(cards))) if "Pares" in line]
    assert said[0].endswith("con par de reyes; empata con el asiento 2, y gana la mano.")
    hidden = record(cards, declared={"pares": [True, False, False, False]})   # seat 1 hides it
    said = [line for line in explain(HandRecord.from_json(hidden)) if "Pares" in line]
    assert said[0].endswith("con par de reyes.")


def test_seats_said_1_to_4_and_the_players_by_name_where_given() -> None:
    """The record keeps seats 0-3; a person reads 1-4, or the names of «Nueva partida». A pair
    is said by its players only when both have names, as on the display."""
    rec = HandRecord.from_json(SPEC_RECORD)
    plain = explain(rec)
    assert plain[0].startswith("Mano el asiento 1. La pareja de los asientos 1 y 3 contra la pareja de "
                               "los asientos 2 y 4; van 0 a 0")
    assert not any("asiento 0" in line or "el 0 " in line or "pareja 0" in line for line in plain)
    named = explain(rec, names=("Jon", "Iker", "Ane", ""))
    assert named[0].startswith("Mano Jon (asiento 1). La pareja de Jon y Ane contra la pareja de los "
                               "asientos 2 y 4;")
    text = "\n".join(named)
    assert "Jon envida dos, Iker no quiere, el 4 quiere." in text
    assert "Los gana Iker (asiento 2, pareja 2 y 4) con duples de caballos y sietes." in text
    assert "  Dos de envite a grande, para Jon y Ane: van 2 a 0." in named
    assert named[-1] == ("Quedan 3 a 9 (Jon y Ane, tres piedras; los asientos 2 y 4, un amarraco y "
                         "cuatro piedras); nadie gana el juego en esta mano.")
    assert explain(rec, names=("", "", "", "")) == plain == explain(rec, names=None)
