"""The tanteo in strict order (spec: «The tanteo, in strict order» and its table)."""

import copy
import random
from typing import Any

from _engine_helpers import SPEC_ANSWER, SPEC_RECORD, answer, passes
from hypothesis import given, settings
from hypothesis import strategies as st

from table.answer import Answer
from table.generate import random_record
from table.record import HandRecord
from table.rules import Rules
from table.tanteo import score

CARDS = "12o 3c 1e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 10c 1o 12b"
CARDS_NO_JUEGO_BUT_SEAT_1 = "12o 1c 1e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 6o 1o 4c"
"""The spec's hand: seat 0 wins grande and chica (par de reyes, 25); seat 1 duples
of caballos and sietes (34); seat 2 nothing (22); seat 3 par de sotas and 31."""
JUEGOS = "12o 11o 10o 1e | 12c 11c 10c 7c | 4o 5o 6o 7o | 1c 4c 5c 6c"
"""Seat 0: 31; seat 1: 37 and grande; seat 3 chica; nobody has pares."""
PUNTOS = "12o 12c 1e 4b | 11o 11c 7e 1b | 5o 6c 2b 10e | 10o 4c 1o 5b"
"""Nobody has juego: seat 1 has the best punto (28)."""


def events(a: Answer) -> list[tuple[str, int, int]]:
    return [(e.lance, e.pair, e.stones) for e in a.tanteo]


def lance(a: Answer, name: str) -> tuple[int | None, str, int]:
    r = a.lances[name]
    return (r.winner, r.how, r.stones)


# -- the spec's example ---------------------------------------------------------------

def test_the_spec_example_exactly() -> None:
    got = score(HandRecord.from_json(SPEC_RECORD)).to_json()
    assert list(got) == list(SPEC_ANSWER)          # same keys, same order, no "mistakes"
    assert got["score"] == SPEC_ANSWER["score"] and got["winner"] is None
    assert got["lances"] == SPEC_ANSWER["lances"]
    assert len(got["tanteo"]) == len(SPEC_ANSWER["tanteo"])
    for ours, spec in zip(got["tanteo"], SPEC_ANSWER["tanteo"], strict=True):
        assert list(ours) == ["lance", "pair", "stones", "why"]
        assert {k: ours[k] for k in ("lance", "pair", "stones")} == \
            {k: spec[k] for k in ("lance", "pair", "stones")}
        assert ours["why"].endswith(spec["why"])    # the spec's words, said in full
    assert [e["why"] for e in got["tanteo"]] == [
        "dos de envite a grande", "una de chica en paso", "tres de duples",
        "una de par del compañero", "tres de treinta y una", "dos de juego del compañero"]


# -- every row of the tanteo table ----------------------------------------------------

def test_grande_and_chica_en_paso_one_stone() -> None:
    a = answer(CARDS, {"grande": passes(), "chica": []})
    assert lance(a, "grande") == (0, "paso", 1) and lance(a, "chica") == (0, "paso", 1)
    assert a.tanteo[0].why == "una de grande en paso"


def test_grande_querido_stake_to_the_cards() -> None:
    a = answer(CARDS, {"grande": [[0, "paso"], [1, "envido", 5], [2, "quiero"]]})
    assert lance(a, "grande") == (0, "querido", 5)
    assert a.tanteo[0].why == "cinco de envite a grande"


def test_grande_no_querido_deje_only() -> None:
    a = answer(CARDS, {"grande": [[0, "paso"], [1, "envido", 2], [2, "no quiero"],
                                  [0, "no quiero"]]})
    assert lance(a, "grande") == (1, "no querido", 1)   # worse cards, but the deje
    assert a.tanteo[0].why == "una porque no" and a.tanteo[0].pair == 1
    assert [e for e in a.tanteo if e.lance == "grande"] == [a.tanteo[0]]


def test_chica_querido_and_no_querido() -> None:
    a = answer(CARDS, {"chica": [[0, "envido", 2], [1, "envido", 3], [2, "quiero"]]})
    assert lance(a, "chica") == (0, "querido", 5)
    a = answer(CARDS, {"chica": [[0, "envido", 2], [1, "envido", 3], [2, "no quiero"],
                                 [0, "no quiero"]]})
    assert lance(a, "chica") == (1, "no querido", 2)


def test_pares_en_paso_bonus_to_the_winner() -> None:
    a = answer(CARDS, {"pares": [[0, "paso"], [1, "paso"], [3, "paso"]]})
    assert lance(a, "pares") == (1, "paso", 4)


def test_pares_querido_stake_then_bonus_better_first() -> None:
    a = answer(CARDS, {"pares": [[0, "envido", 2], [1, "quiero"]]})
    assert lance(a, "pares") == (1, "querido", 6)
    pares = [(e.stones, e.why, e.seat) for e in a.tanteo if e.lance == "pares"]
    assert pares == [(2, "dos de envite a pares", None), (3, "tres de duples", 1),
                     (1, "una de par del compañero", 3)]


def test_pares_no_querido_bonus_to_the_dejes_pair() -> None:
    a = answer(CARDS, {"pares": [[0, "envido", 2], [1, "no quiero"], [3, "no quiero"]]})
    assert lance(a, "pares") == (0, "no querido", 2)    # deje 1 + seat 0's par 1
    assert [(e.pair, e.why) for e in a.tanteo if e.lance == "pares"] == [
        (0, "una porque no"), (0, "una de par")]
    assert a.tanteo[0].why == "una porque no"           # the deje counts first of all


def test_pares_not_bet_and_none() -> None:
    one = "12o 11c 1e 4b | 11o 10c 7e 6b | 5o 6c 2b 10e | 10o 10b 1o 12b"
    assert lance(answer(one), "pares") == (1, "not bet", 1)
    assert lance(answer(JUEGOS), "pares") == (None, "none", 0)


def test_juego_rows() -> None:
    assert lance(answer(JUEGOS), "juego") == (0, "paso", 3)
    a = answer(JUEGOS, {"juego": [[0, "envido", 2], [1, "envido", 2], [0, "quiero"]]})
    assert lance(a, "juego") == (0, "querido", 7)
    assert [e.why for e in a.tanteo if e.lance == "juego"] == [
        "cuatro de envite a juego", "tres de treinta y una"]
    a = answer(JUEGOS, {"juego": [[0, "paso"], [1, "envido", 2], [0, "no quiero"]]})
    assert lance(a, "juego") == (1, "no querido", 3)     # deje 1 + seat 1's 37 (2)
    assert lance(answer(CARDS), "juego") == (1, "not bet", 5)
    assert lance(answer(PUNTOS), "punto")[1] == "paso"   # nobody has juego: punto


def test_punto_rows() -> None:
    assert lance(answer(PUNTOS), "punto") == (1, "paso", 1)
    a = answer(PUNTOS, {"punto": [[0, "envido", 3], [1, "quiero"]]})
    assert lance(a, "punto") == (1, "querido", 4)
    assert [e.why for e in a.tanteo if e.lance == "punto"] == [
        "tres de envite a punto", "una de punto"]
    a = answer(PUNTOS, {"punto": [[0, "envido", 3], [1, "no quiero"], [3, "no quiero"]]})
    assert lance(a, "punto") == (0, "no querido", 2)     # «dos de punto y miedo»
    assert [e.why for e in a.tanteo if e.lance == "punto"] == ["una porque no", "una de punto"]
    assert "punto" in a.lances and "juego" not in a.lances


def test_the_real_only_when_the_rules_say_so() -> None:
    cards = "12o 11o 10o 1e | 7c 7b 7e 10c | 4o 5o 6o 7o | 1c 4c 5c 6c"
    plain = answer(cards, {"juego": [[0, "envido", 2], [1, "quiero"]]})
    real = answer(cards, {"juego": [[0, "envido", 2], [1, "quiero"]]}, rules={"real": True})
    assert plain.lances["juego"].winner == 0 and real.lances["juego"].winner == 1
    assert real.tanteo[-1].why == "tres de treinta y una real"


def test_a_31_with_a_tres_is_never_real() -> None:
    cards = "12o 11o 10o 1e | 7c 7b 7e 3c | 4o 5o 6o 7o | 1c 4c 5c 6c"
    a = answer(cards, rules={"real": True})
    assert a.lances["juego"].winner == 0


# -- strict order, and the juego won at an event ----------------------------------------

def test_a_deje_in_pares_counts_before_the_grande_stake() -> None:
    a = answer(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]],
                       "pares": [[0, "paso"], [1, "envido", 2], [0, "no quiero"]]},
               points=(38, 39))
    assert a.winner == 1 and a.score == (38, 40)
    assert events(a) == [("pares", 1, 1)]
    assert a.not_counted[0].why == "dos de envite a grande"
    assert a.lances["grande"].stones == 2                 # worth it, not counted


def test_the_first_pair_to_reach_the_target_wins_and_nothing_after_counts() -> None:
    a = answer(CARDS, {"grande": [[0, "envido", 2], [1, "no quiero"], [3, "quiero"]]},
               points=(37, 35))
    assert a.winner == 0 and a.score == (40, 35)
    assert events(a) == [("grande", 0, 2), ("chica", 0, 1)]
    assert [e.lance for e in a.not_counted] == ["pares", "pares", "juego", "juego"]
    assert a.won_at == a.tanteo[-1]


def test_stake_before_bonus_can_decide_the_juego() -> None:
    # pair 1 at 36: the pares stake (2) and then duples (3) pass 40 at the bonus
    a = answer(CARDS, {"pares": [[0, "envido", 2], [1, "quiero"]]}, points=(0, 36))
    assert events(a)[-2:] == [("pares", 1, 2), ("pares", 1, 3)]
    assert a.score == (2, 41) and a.winner == 1


def test_target_thirty() -> None:
    a = answer(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]]}, points=(28, 0),
               rules={"target": 30})
    assert a.winner == 0 and a.score == (30, 0) and len(a.tanteo) == 1


# -- the órdago ---------------------------------------------------------------------

def test_ordago_accepted_ends_the_hand() -> None:
    a = answer(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]],
                       "chica": [[0, "paso"], [1, "ordago"], [2, "quiero"]]}, points=(5, 6))
    assert a.winner == 0                                  # seat 0 wins chica with the cards
    assert list(a.lances) == ["grande", "chica"]
    assert lance(a, "chica") == (0, "ordago", 0)
    assert a.score == (5, 6) and a.tanteo == ()
    assert [e.why for e in a.not_counted] == ["dos de envite a grande"]
    assert a.to_json()["lances"]["chica"] == {"winner": 0, "how": "ordago", "stones": 0}


def test_a_deje_that_won_the_juego_beats_a_later_ordago() -> None:
    a = answer(CARDS, {"grande": [[0, "paso"], [1, "envido", 2], [2, "no quiero"],
                                  [0, "no quiero"]],
                       "chica": [[0, "ordago"], [1, "quiero"]]}, points=(0, 39))
    assert a.winner == 1 and a.score == (0, 40)           # the deje came first


def test_ordago_refused_is_a_refused_bet() -> None:
    a = answer(CARDS, {"grande": [[0, "envido", 4], [1, "ordago"], [2, "no quiero"],
                                  [0, "no quiero"]]})
    assert lance(a, "grande") == (1, "no querido", 4)
    assert a.tanteo[0].why == "cuatro porque no"


def test_ordago_in_pares_won_by_the_cards() -> None:
    a = answer(CARDS, {"pares": [[0, "ordago"], [1, "quiero"]]})
    assert a.winner == 1 and list(a.lances) == ["grande", "chica", "pares"]


# -- declarations: the texts' rule (penalties "lance", the default) -------------------

NONE = {"penalties": "none"}

ISSUE_FALSE_PARES: dict[str, Any] = {
    "format": "mus-hand/1", "mano": 0, "score": [0, 0],
    "cards": [["1o", "4o", "5o", "6o"], ["12o", "4c", "4e", "5c"], ["7o", "11e", "11o", "1c"],
              ["6c", "7c", "10c", "11c"]],
    "bets": {"pares": [[0, "envido", 2], [1, "quiero"]]},
    "declared": {"pares": [True, True, True, False]}}
"""Seat 0 says «pares sí» with none and envida; its partner's caballos are better than
seat 1's cuatros."""
ISSUE_FALSE_JUEGO: dict[str, Any] = {
    "format": "mus-hand/1", "mano": 0, "score": [0, 0],
    "cards": [["12o", "11o", "5o", "4o"], ["12c", "11c", "4c", "5c"], ["1o", "1c", "6o", "7o"],
              ["10o", "6c", "7c", "2o"]],
    "bets": {}, "declared": {"juego": [True, False, False, False]}}
"""Seat 0 says «juego sí» with 29; nobody has juego."""


def test_issue_false_pares_the_lance_and_its_envite_go_to_the_others() -> None:
    # «la pareja perderá ese lance y los envites que en él pudiera haber realizado, aunque
    # las cartas del compañero sean mejores que las de los contrarios»
    a = score(HandRecord.from_json(ISSUE_FALSE_PARES))
    assert a.lances["pares"].to_json() == {"winner": 1, "how": "querido", "stones": 3}
    assert [(e.pair, e.why) for e in a.tanteo if e.lance == "pares"] == [
        (1, "dos de envite a pares"), (1, "una de par")]
    assert a.lances["pares"].lost_by == (0,) and a.score == (1, 6)
    # with no penalty the partner's caballos would have won it for the liar's pair
    free = score(HandRecord.from_json({**ISSUE_FALSE_PARES, "rules": NONE}))
    assert free.lances["pares"].winner == 0


def test_issue_false_juego_when_nobody_has_it_punto_is_counted() -> None:
    # nobody has juego: «se apuesta al punto»; the pair that said «juego sí» loses it
    a = score(HandRecord.from_json(ISSUE_FALSE_JUEGO))
    assert "juego" not in a.lances
    assert a.lances["punto"].to_json() == {"winner": 1, "how": "not bet", "stones": 1}
    assert a.tanteo[-1].to_json() == {"lance": "punto", "pair": 1, "stones": 1,
                                      "why": "una de punto"}
    assert a.score == (3, 1)


def test_false_pares_refused_envite_the_liars_deje_goes_to_the_others() -> None:
    # seat 2 says «pares sí» without them and envida; pair 1 refuses: the envite is lost
    a = answer(CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "envido", 2], [3, "no quiero"],
                                 [1, "no quiero"]]},
               declared={"pares": [True, True, True, True]})
    assert lance(a, "pares") == (1, "no querido", 5)       # the deje 1 + duples 3 + par 1
    assert [(e.pair, e.why) for e in a.tanteo if e.lance == "pares"] == [
        (1, "una porque no, por pares mal cantados"), (1, "tres de duples"),
        (1, "una de par del compañero")]
    assert not any(e.pair == 0 for e in a.tanteo if e.lance == "pares")


def test_false_pares_the_others_deje_stays_theirs_in_the_act() -> None:
    a = answer(CARDS, {"pares": [[0, "paso"], [1, "envido", 2], [2, "no quiero"],
                                 [0, "no quiero"]]},
               declared={"pares": [True, True, True, True]})
    assert a.tanteo[0].to_json() == {"lance": "pares", "pair": 1, "stones": 1, "why": "una porque no"}
    assert lance(a, "pares") == (1, "no querido", 5)


def test_false_pares_en_paso_the_others_count_their_pares_only() -> None:
    a = answer(CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "paso"], [3, "paso"]]},
               declared={"pares": [True, True, True, True]})
    assert lance(a, "pares") == (1, "paso", 4)


def test_false_pares_ordago_goes_to_the_others() -> None:
    # seat 0's par de reyes is better than... nothing: seat 2 lied, pair 0 loses the órdago
    cards = "12o 12c 1e 4b | 5o 5c 7e 1b | 11o 6c 2b 10e | 10o 4c 1o 6b"
    a = answer(cards, {"pares": [[0, "ordago"], [1, "quiero"]]},
               declared={"pares": [True, True, True, False]})
    assert a.ordago == "pares" and a.winner == 1 and lance(a, "pares") == (1, "ordago", 0)


def test_false_declarations_in_both_pairs_the_lance_is_nobodys() -> None:
    a = answer(CARDS, {"pares": [[0, "envido", 2], [1, "quiero"]]},
               declared={"pares": [True, True, True, True], "juego": [False, True, True, True]})
    assert lance(a, "pares") == (1, "querido", 6)           # only seat 2 lied about pares
    juego = a.lances["juego"]                               # seat 2 (pair 0) lied about juego
    assert (juego.winner, juego.lost_by) == (1, (0,))
    both = answer(CARDS, {"pares": [[0, "envido", 2], [1, "quiero"]]},
                  declared={"pares": [True, True, True, True], "juego": [True, True, False, True]})
    # seat 0 (pair 0) lied about juego, nobody of pair 1 did: pair 1 takes it
    assert both.lances["juego"].winner == 1
    nobody = answer(PUNTOS, {"juego": [[0, "envido", 2], [1, "quiero"]]},
                    declared={"juego": [True, True, False, False]})
    assert "juego" not in nobody.lances and nobody.lances["punto"].lost_by == (0, 1)
    assert nobody.lances["punto"].winner is None and not [e for e in nobody.tanteo if e.lance == "punto"]


def test_a_hidden_jugada_does_not_count() -> None:
    # seat 3 hides its 31: «perderá la ocasión de jugar estos lances»
    a = answer(CARDS, declared={"juego": [False, True, False, False]})
    assert [(m.seat, m.why) for m in a.mistakes] == [(3, "no cantó juego teniéndolo")]
    assert lance(a, "juego") == (1, "not bet", 2)           # seat 1's 34 only
    assert any("no cuenta" in r for r in a.rulings)


def test_no_penalty_mode_the_cards_decide() -> None:
    a = answer(CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "envido", 2], [3, "quiero"]]},
               declared={"pares": [True, True, True, True]}, rules=NONE)
    assert a.to_json()["mistakes"] == [
        {"seat": 2, "lance": "pares", "declared": True, "why": "cantó pares sin tenerlos"}]
    assert lance(a, "pares") == (1, "querido", 6)
    a = answer(CARDS, declared={"juego": [False, True, False, False]}, rules=NONE)
    assert lance(a, "juego") == (1, "not bet", 5)
    a = answer(PUNTOS, declared={"juego": [True, False, False, False]}, rules=NONE)
    assert lance(a, "juego") == (None, "none", 0) and "punto" not in a.lances


def test_no_mistakes_key_when_declarations_are_true() -> None:
    a = answer(CARDS, declared={"pares": [True, True, False, True], "juego": [False, True, False, True]})
    assert "mistakes" not in a.to_json()


def test_mus_con_deje_a_refused_raise_in_pares_adds_a_stone() -> None:
    bets = {"grande": [[0, "envido", 2], [1, "envido", 3], [2, "no quiero"], [0, "no quiero"]],
            "pares": [[0, "paso"], [1, "envido", 2], [0, "envido", 2], [1, "no quiero"],
                      [3, "no quiero"]]}
    plain = answer(CARDS, {"pares": bets["pares"]})
    assert plain.tanteo[0].to_json() == {"lance": "pares", "pair": 0, "stones": 2, "why": "dos porque no"}
    a = answer(CARDS, bets, rules={"deje": True})
    assert a.tanteo[0].why == "dos porque no"               # grande: never (only pares, juego, punto)
    assert a.tanteo[1].to_json() == {"lance": "pares", "pair": 0, "stones": 3,
                                     "why": "dos porque no y una de deje"}
    first = answer(CARDS, {"pares": [[0, "paso"], [1, "envido", 2], [0, "no quiero"]]},
                   rules={"deje": True})
    assert first.tanteo[0].why == "una porque no"           # a first envite refused: no raise


def test_the_31_real_with_a_rey_only_or_any_figure() -> None:
    cards = "12o 11c 1e 10b | 7o 7c 7e 10o | 4o 5c 6e 2b | 4c 5o 6c 1c"
    rey = "12o 11c 1e 10b | 7o 7c 7e 12c | 4o 5c 6e 2b | 4c 5o 6c 1c"
    assert answer(cards, rules={"real": True}).lances["juego"].winner == 1
    assert answer(cards, rules={"real": "rey"}).lances["juego"].winner == 0   # a sota is no rey
    a = answer(rey, rules={"real": "rey"})
    assert a.lances["juego"].winner == 1 and a.tanteo[-1].why == "tres de treinta y una real"
    tres = "12o 11c 1e 10b | 7o 7c 7e 3c | 4o 5c 6e 2b | 4c 5o 6c 1c"
    assert answer(tres, rules={"real": "rey"}).lances["juego"].winner == 0    # «no sirve el Tres»


def test_a_juego_of_twenty() -> None:
    a = answer(CARDS, points=(18, 0), rules={"target": 20})
    assert a.winner == 0 and a.score == (20, 0) and a.won_at is not None
    assert a.won_at.why == "una de chica en paso"


MUNDIAL = {"penalties": "mundial"}


def test_mundial_false_pares_partner_and_opponents_have_them() -> None:
    a = answer(CARDS, {"pares": [[0, "paso"], [1, "paso"], [2, "envido", 2], [3, "quiero"]]},
               declared={"pares": [True, True, True, True]}, rules=MUNDIAL)
    assert lance(a, "pares") == (1, "no querido", 5)      # deje 1 + duples 3 + par 1
    assert [e.why for e in a.tanteo if e.lance == "pares"][0] == "una de deje por pares mal cantados"
    assert a.rulings


def test_mundial_false_pares_partner_without_them() -> None:
    a = answer(CARDS, {"pares": [[1, "paso"], [2, "envido", 10], [3, "quiero"]]},
               declared={"pares": [False, True, True, True]}, rules=MUNDIAL)
    assert lance(a, "pares") == (1, "not bet", 4)         # the envite is void


def test_mundial_false_juego_when_nobody_has_it() -> None:
    a = answer(PUNTOS, declared={"juego": [True, False, False, False]}, rules=MUNDIAL)
    assert lance(a, "punto") == (1, "no querido", 2) and "juego" not in a.lances


def test_mundial_hidden_juego_when_nobody_else_has_it() -> None:
    cards = "12o 12c 11e 1e | 11o 11c 7e 1b | 5o 6c 2b 10e | 10o 4c 1o 5b"
    a = answer(cards, {"punto": [[0, "envido", 2], [1, "quiero"]]},
               declared={"juego": [False] * 4}, rules=MUNDIAL)
    assert lance(a, "juego") == (0, "not bet", 3) and "punto" not in a.lances
    none = answer(cards, {"punto": [[0, "envido", 2], [1, "quiero"]]},
                  declared={"juego": [False] * 4})
    assert lance(none, "punto") == (1, "querido", 3)      # seat 0 has no punto to win with


def test_mundial_hidden_juego_partner_without_and_opponents_with() -> None:
    a = answer(JUEGOS, declared={"juego": [False, True, False, False]}, rules=MUNDIAL)
    assert lance(a, "juego") == (1, "no querido", 3)      # deje 1 + seat 1's 37


def test_mundial_an_annulled_lance_annuls_its_ordago() -> None:
    # seat 2 says «pares sí» without them, its partner and the opponents hold pares:
    # «cualquier jugada a pares quedará invalidada», the órdago with it; the hand goes on
    a = answer(CARDS, {"grande": [[0, "envido", 2], [1, "quiero"]],
                       "pares": [[0, "paso"], [1, "paso"], [2, "ordago"], [3, "quiero"]]},
               declared={"pares": [True, True, True, True]}, rules=MUNDIAL)
    assert a.winner is None and a.ordago is None and not a.not_counted
    pares = a.lances["pares"]
    assert (pares.winner, pares.how, pares.annulled, pares.penalty) == (1, "no querido", True, True)
    assert [e.why for e in a.tanteo] == [
        "dos de envite a grande", "una de chica en paso", "una de deje por pares mal cantados",
        "tres de duples", "una de par del compañero", "tres de treinta y una",
        "dos de juego del compañero"]
    assert a.lances["juego"].how == "not bet"  # juego was never asked: by the cards
    assert a.score == (3, 10) and any("el órdago a pares se anula" in r for r in a.rulings)


def test_mundial_ordago_stands_where_rule_19_leaves_the_lance_as_played() -> None:
    # seat 3 hides its par de sotas: «no valdrán esos pares»; the órdago between the
    # seats that declared stands, and seat 1's duples win it
    a = answer(CARDS, {"pares": [[0, "ordago"], [1, "quiero"]]},
               declared={"pares": [True, True, False, False]}, rules=MUNDIAL)
    assert a.ordago == "pares" and a.winner == 1 and a.lances["pares"].how == "ordago"
    assert not a.lances["pares"].annulled and a.rulings[0].startswith("regla 19: pares no cantados")


def test_mundial_hidden_juego_annuls_an_ordago_al_punto() -> None:
    # seat 1 hides its 31 and nobody else has juego: «se invalidarán las jugadas habidas a PUNTO»
    a = answer(CARDS_NO_JUEGO_BUT_SEAT_1, {"punto": [[0, "ordago"], [1, "quiero"]]},
               declared={"juego": [False, False, False, False]}, rules=MUNDIAL)
    assert a.ordago is None and a.winner is None
    assert a.lances["juego"].annulled and a.lances["juego"].winner == 1
    assert "punto" not in a.lances and a.tanteo[-1].why == "dos de juego"


def test_a_declaration_never_asked_is_no_mistake() -> None:
    # an órdago a la grande accepted ends the hand before «¿pares?» and «¿juego?»
    a = answer(CARDS, {"grande": [[0, "ordago"], [1, "quiero"]]},
               declared={"pares": [True] * 4, "juego": [False] * 4}, rules=MUNDIAL)
    assert a.mistakes == () and a.rulings == () and a.winner == 0
    # after an órdago a pares, «¿juego?» was never asked
    a = answer(CARDS, {"pares": [[0, "paso"], [1, "ordago"], [0, "quiero"]]},
               declared={"juego": [True] * 4})
    assert a.mistakes == () and a.ordago == "pares"


# -- properties ---------------------------------------------------------------------

SUITS = "ocbe"


def _suits(rec: dict[str, Any], perm: str) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    table = dict(zip(SUITS, perm, strict=True))
    out["cards"] = [[c[:-1] + table[c[-1]] for c in seat] for seat in rec["cards"]]
    return out


def _rotate(rec: dict[str, Any]) -> dict[str, Any]:
    """Every seat moves one place round the table: the pairs swap."""
    out = copy.deepcopy(rec)
    out["cards"] = [rec["cards"][(s - 1) % 4] for s in range(4)]
    out["mano"] = (rec["mano"] + 1) % 4
    out["score"] = rec["score"][::-1]
    out["bets"] = {k: [[(w[0] + 1) % 4, *w[1:]] for w in v] for k, v in rec["bets"].items()}
    if "declared" in rec:
        out["declared"] = {k: [v[(s - 1) % 4] for s in range(4)] for k, v in rec["declared"].items()}
    return out


def _mirror(a: dict[str, Any]) -> dict[str, Any]:
    flip = lambda p: None if p is None else 1 - p  # noqa: E731
    out = {"score": a["score"][::-1], "winner": flip(a["winner"]),
           "lances": {k: {**v, "winner": flip(v["winner"])} for k, v in a["lances"].items()},
           "tanteo": [{**e, "pair": 1 - e["pair"]} for e in a["tanteo"]]}
    if "mistakes" in a:
        out["mistakes"] = _seat_order([{**m, "seat": (m["seat"] + 1) % 4} for m in a["mistakes"]])
    return out


def _seat_order(mistakes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(mistakes, key=lambda m: (m["lance"], m["seat"]))


def _score(rec: dict[str, Any]) -> dict[str, Any]:
    return score(HandRecord.from_json(rec)).to_json()


seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=250, deadline=None)
@given(seeds, st.permutations(SUITS), st.sampled_from([0.0, 0.15]))
def test_suits_never_matter(seed: int, perm: list[str], lies: float) -> None:
    rec = random_record(random.Random(seed), lies=lies)
    assert _score(_suits(rec, "".join(perm))) == _score(rec)


@settings(max_examples=250, deadline=None)
@given(seeds, st.sampled_from([0.0, 0.15]))
def test_swapping_the_pairs_seats_mirrors_the_answer(seed: int, lies: float) -> None:
    rec = random_record(random.Random(seed), lies=lies)
    rotated = _score(_rotate(rec))
    if "mistakes" in rotated:
        rotated["mistakes"] = _seat_order(rotated["mistakes"])
    assert rotated == _mirror(_score(rec))


@settings(max_examples=250, deadline=None)
@given(seeds, st.integers(0, 12))
def test_the_tanteo_never_passes_the_target_by_more_than_the_last_event(seed: int, gap: int) -> None:
    rng = random.Random(seed)
    rec = random_record(rng, lies=0.05)
    target = rec["rules"]["target"]
    rec["score"] = [max(0, target - 1 - rng.randint(0, gap)), max(0, target - 1 - rng.randint(0, gap))]
    a = score(HandRecord.from_json(rec))
    running = list(rec["score"])
    for i, ev in enumerate(a.tanteo):
        assert all(p < target for p in running)          # nothing counts once the juego is won
        running[ev.pair] += ev.stones
        if i == len(a.tanteo) - 1 and a.winner is not None and a.ordago is None:
            assert running[a.winner] >= target > running[a.winner] - ev.stones
    assert tuple(running) == a.score
    if a.winner is None:
        assert all(p < target for p in a.score)
    if a.ordago is None and a.winner is None:
        assert a.not_counted == ()


@settings(max_examples=300, deadline=None)
@given(seeds, st.sampled_from([0.15, 0.4, 1.0]), st.sampled_from([0.3, 1.0, 4.0]), st.booleans())
def test_under_the_texts_rule_a_pair_never_gains_by_its_own_false_declaration(
        seed: int, lies: float, ordago: float, near: bool) -> None:
    """«Pares sí» or «juego sí» without them: the pair takes nothing from that lance (no
    deje, stake, bonus or punto, counted or not), never wins it, nor an órdago in it."""
    rng = random.Random(seed)
    rules = Rules(rng.choice((8, 4)), rng.choice((False, True, "rey")), rng.choice((40, 30, 20)))
    points = [rng.randrange(rules.target - 4, rules.target), rng.randrange(rules.target)] if near else None
    rec = random_record(rng, rules, lies=lies, ordago=ordago, score=points)
    a = score(HandRecord.from_json(rec))
    assert rules.penalties == "lance"
    for m in a.mistakes:
        if not m.declared:
            continue
        p = m.seat & 1
        scored = "pares" if m.lance == "pares" else ("juego" if "juego" in a.lances else "punto")
        result = a.lances[scored]
        assert result.winner != p and p in result.lost_by
        assert not [e for e in (*a.tanteo, *a.not_counted) if e.lance == scored and e.pair == p]
        if a.ordago is not None and a.ordago in (m.lance, scored):
            reached = a.tanteo and a.score[p] >= a.target
            assert a.winner != p or reached
