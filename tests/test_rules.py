import pytest

from table.errors import InvalidRecord
from table.rules import Rules


def test_defaults() -> None:
    assert Rules.from_json(None) == Rules.from_json({}) == Rules(8, False, 40, "lance", False)


def test_every_key() -> None:
    r = Rules.from_json({"reyes": 4, "real": True, "target": 30, "penalties": "mundial",
                         "deje": True})
    assert (r.reyes, r.real, r.target, r.penalties, r.deje) == (4, True, 30, "mundial", True)
    assert Rules.from_json(r.to_json()) == r


@pytest.mark.parametrize("real", [False, True, "rey"])
@pytest.mark.parametrize("target", [40, 30, 20])
@pytest.mark.parametrize("penalties", ["lance", "mundial", "none"])
def test_every_house_rule_round_trips(real: object, target: int, penalties: str) -> None:
    r = Rules.from_json({"real": real, "target": target, "penalties": penalties})
    assert r.to_json()["real"] == real and type(r.to_json()["real"]) is type(real)
    assert Rules.from_json(r.to_json()) == r


def test_an_old_record_saying_none_keeps_its_meaning() -> None:
    # records written before "lance" was the default carry every rule, "none" included
    assert Rules.from_json({"reyes": 8, "real": False, "target": 40, "penalties": "none"}).penalties == "none"


@pytest.mark.parametrize(("obj", "message"), [
    ({"reye": 8}, 'unknown rule "reye"'),
    ({"reyes": 6}, "rules.reyes must be 8 or 4, not 6"),
    ({"reyes": 8.0}, "rules.reyes must be 8 or 4, not 8.0"),
    ({"reyes": True}, "rules.reyes must be 8 or 4, not true"),
    ({"real": 1}, 'rules.real must be false, true or "rey", not 1'),
    ({"real": "figura"}, 'rules.real must be false, true or "rey", not "figura"'),
    ({"target": 35}, "rules.target must be 40, 30 or 20, not 35"),
    ({"penalties": "fournier"}, 'rules.penalties must be "lance", "mundial" or "none"'),
    ({"deje": 1}, "rules.deje must be true or false, not 1"),
    ([8], "rules must be an object"),
])
def test_a_misspelt_rule_is_refused(obj: object, message: str) -> None:
    with pytest.raises(InvalidRecord, match=message.replace("(", r"\(").replace(".", r"\.")):
        Rules.from_json(obj)
