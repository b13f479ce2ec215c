import pytest

from table.errors import InvalidRecord
from table.rules import Rules


def test_defaults() -> None:
    assert Rules.from_json(None) == Rules.from_json({}) == Rules(8, False, 40, "none")


def test_every_key() -> None:
    r = Rules.from_json({"reyes": 4, "real": True, "target": 30, "penalties": "mundial"})
    assert (r.reyes, r.real, r.target, r.penalties) == (4, True, 30, "mundial")
    assert Rules.from_json(r.to_json()) == r


@pytest.mark.parametrize(("obj", "message"), [
    ({"reye": 8}, 'unknown rule "reye"'),
    ({"reyes": 6}, "rules.reyes must be 8 or 4, not 6"),
    ({"reyes": 8.0}, "rules.reyes must be 8 or 4, not 8.0"),
    ({"reyes": True}, "rules.reyes must be 8 or 4, not true"),
    ({"real": 1}, "rules.real must be true or false, not 1"),
    ({"target": 35}, "rules.target must be 40 or 30, not 35"),
    ({"penalties": "fournier"}, 'rules.penalties must be "none" or "mundial"'),
    ([8], "rules must be an object"),
])
def test_a_misspelt_rule_is_refused(obj: object, message: str) -> None:
    with pytest.raises(InvalidRecord, match=message.replace("(", r"\(").replace(".", r"\.")):
        Rules.from_json(obj)
