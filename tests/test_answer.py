from _engine_helpers import answer

from table.answer import Answer, Event, LanceResult, Mistake

CARDS = "12o 3c 1e 4b | 11o 11c 7e 7b | 5o 6c 2b 10e | 10o 10c 1o 12b"


def test_to_json_has_the_spec_keys_in_order() -> None:
    a = Answer(score=(1, 0), winner=None,
               lances={"grande": LanceResult("grande", 0, "paso", 1, seat=0)},
               tanteo=(Event("grande", 0, 1, "una de grande en paso", "paso"),))
    assert a.to_json() == {
        "score": [1, 0], "winner": None,
        "lances": {"grande": {"winner": 0, "how": "paso", "stones": 1}},
        "tanteo": [{"lance": "grande", "pair": 0, "stones": 1, "why": "una de grande en paso"}]}


def test_mistakes_only_when_there_are_any() -> None:
    m = Mistake(2, "pares", True, "cantó pares sin tenerlos")
    a = Answer((0, 0), None, {}, (), mistakes=(m,))
    assert a.to_json()["mistakes"] == [
        {"seat": 2, "lance": "pares", "declared": True, "why": "cantó pares sin tenerlos"}]
    assert "mistakes" not in Answer((0, 0), None, {}, ()).to_json()


def test_won_at_is_the_event_that_reached_the_target() -> None:
    a = answer(CARDS, points=(39, 0))
    assert a.winner == 0 and a.won_at == a.tanteo[0] and a.tanteo[0].why == "una de grande en paso"
    assert answer(CARDS).won_at is None
    ordago = answer(CARDS, {"grande": [[0, "ordago"], [1, "quiero"]]})
    assert ordago.winner == 0 and ordago.won_at is None
