from _engine_helpers import answer, record

from table.match import Partida
from table.record import HandRecord
from table.rules import Rules
from table.tanteo import score
from table.vocabulary import (
    answer_names,
    envite_name,
    hand_names,
    juegos_names,
    match_names,
    robbed,
    score_names,
)

CARDS = "12o 3c 1e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 10c 1o 12b"


def test_hand_names() -> None:
    assert hand_names((12, 12, 12, 1)) == ["solomillo"]
    assert hand_names((3, 12, 3, 2)) == ["solomillo"]                 # 8 reyes
    assert hand_names((3, 12, 3, 2), Rules(reyes=4)) == []
    assert hand_names((4, 5, 6, 7)) == ["tío Perete", "ciego"]
    assert hand_names((7, 7, 7, 10), Rules(real=True)) == ["la real"]
    assert hand_names((7, 7, 7, 10)) == []
    assert hand_names((1, 2, 5, 10)) == ["toribio"]                  # a 2 is an as: a par
    assert hand_names((1, 1, 5, 10)) == ["toribio"]                  # a par, not ciego


def test_score_names() -> None:
    assert score_names(35) == [] and score_names(36) == ["estamos dentro"]
    assert score_names(39) == ["estamos dentro"] and score_names(26, 30) == ["estamos dentro"]
    assert score_names(19) == ["gandul"] and score_names(40) == ["estamos fuera"]


def test_no_muerte_dulce_a_record_cannot_tell_it() -> None:
    # the treatise's «muerte dulce» needs «pillando desprevenidos a los contrarios»: an exact
    # finish alone is not it, and a record cannot say who was caught unawares
    exact = answer(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]]}, points=(38, 0))
    assert exact.score == (40, 0) and answer_names(exact) == ["estamos fuera"]


def test_punto_y_miedo_and_tran_tran() -> None:
    puntos = "12o 12c 1e 4b | 11o 11c 7e 1b | 5o 6c 2b 10e | 10o 4c 1o 5b"
    a = answer(puntos, {"punto": [[0, "envido", 2], [1, "no quiero"], [3, "no quiero"]]})
    assert "punto y miedo" in answer_names(a)
    assert "tran-tran" in answer_names(answer(puntos))
    assert "tran-tran" not in answer_names(a)


def test_robar_la_chica() -> None:
    rec = HandRecord.from_json(record(CARDS, {"chica": [[0, "paso"], [1, "envido", 2],
                                                        [2, "no quiero"], [0, "no quiero"]]}))
    assert robbed(rec, score(rec)) == ["robar la chica"]


def test_zapateria_and_zamora() -> None:
    p = Partida(Rules())
    p.won_juegos = [2, 0]
    assert match_names(p) == ["dos a cero, y Zamora de portero"]
    p.vaca_results, p.won_juegos = [(3, 0)], [0, 0]
    assert match_names(p) == ["zapatería"]
    p.vaca_results = [(3, 1)]
    assert match_names(p) == []
    one = Partida(Rules(), juegos=1)
    one.vaca_results = [(1, 0)]
    assert match_names(one) == []          # «los tres juegos seguidos»: not a vaca of one juego
    assert juegos_names((3, 0), 3, (3, 0)) == ["zapatería"]
    assert juegos_names((0, 2), 3) == ["dos a cero, y Zamora de portero"]
    assert juegos_names((0, 2), 4) == []


def test_envite_names() -> None:
    assert envite_name(5) == "la mano de un niño" and envite_name(18) == "los dientes del choto"
    assert envite_name(2) is None
