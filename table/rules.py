"""The rules a hand is played under: the ``rules`` object of a ``mus-hand/1`` record.

Each rule is a house rule the table sets at the start of the partida, and each
value comes from a rule text (``docs/sources.md``; ``docs/hand-record.md`` says
which text each value follows).

>>> Rules.from_json({"reyes": 4, "target": 20, "real": "rey"})
Rules(reyes=4, real='rey', target=20, penalties='lance', deje=False)
>>> Rules.from_json({"reyes": 6})
Traceback (most recent call last):
...
table.errors.InvalidRecord: rules.reyes must be 8 or 4, not 6
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from table._show import show as _show
from table.errors import InvalidRecord

REYES = (8, 4)
"""8: treses are reyes and doses ases (the beginners' treatise, «el que se juega en todo el
resto de la Península»); 4: they keep their own value (the World Championship rules)."""
TARGETS = (40, 30, 20)
"""Stones that win a juego: 40 (the Fournier rules, «ocho amarracos»), 30 (the beginners'
treatise, «seis amarracos»), 20 (the Fournier rules' note: «cuando se juega a cuatro reyes,
cada Chico suele ser de veinte piedras»)."""

Real = bool | Literal["rey"]
"""The 31 real: ``False`` (not played), ``True`` (three sietes and any figure: World
Championship rule 16) or ``"rey"`` (three sietes and a rey «de barba», never a tres: the
beginners' treatise and the lances text)."""
REALS: tuple[Real, ...] = (False, True, "rey")

LANCE = "lance"
"""A false «pares sí» or «juego sí» loses its pair the lance and its envites, whatever the
partner holds; a hidden jugada does not count (the beginners' treatise, the lances text)."""
MUNDIAL = "mundial"
"""Rule 19 of the World Championship rules («equivocaciones»), case by case."""
NONE = "none"
"""No penalty: the cards decide among the seats that hold the jugada. The default of the
records written before ``lance`` was (they keep their meaning); no rule text plays it."""
PENALTIES = (LANCE, MUNDIAL, NONE)


@dataclass(frozen=True, slots=True)
class Rules:
    """``reyes`` 8 or 4; ``real`` the 31 real (``False``, ``True``: with any figure,
    ``"rey"``: with a rey only) beats every other 31; ``target`` 40, 30 or 20 stones win a
    juego; ``penalties`` what a false declaration costs (``"lance"``, ``"mundial"``,
    ``"none"``); ``deje`` mus con deje (one more stone when a raise is refused in pares,
    juego or punto)."""

    reyes: int = 8
    real: Real = False
    target: int = 40
    penalties: str = LANCE
    deje: bool = False

    def __post_init__(self) -> None:
        _check("reyes", self.reyes, REYES)
        if not any(type(self.real) is type(r) and self.real == r for r in REALS):
            raise InvalidRecord(f'rules.real must be false, true or "rey", not {_show(self.real)}',
                                code="rules_value", params={"rule": "real", "choices": 'false, true o "rey"',
                                                            "value": _show(self.real)})
        _check("target", self.target, TARGETS)
        _check("penalties", self.penalties, PENALTIES)
        if type(self.deje) is not bool:
            raise InvalidRecord(f"rules.deje must be true or false, not {_show(self.deje)}", code="rules_value",
                                params={"rule": "deje", "choices": "true o false", "value": _show(self.deje)})

    @classmethod
    def from_json(cls, obj: Any) -> Rules:
        """Read the record's ``rules`` object; every key is optional, any other key is refused."""
        if obj is None:
            return DEFAULT
        if not isinstance(obj, dict):
            raise InvalidRecord(f"rules must be an object, not {_show(obj)}", code="rules_object",
                                params={"value": _show(obj)})
        for k in obj:
            if k not in _KEYS:
                raise InvalidRecord(
                    f"rules: unknown rule {_show(k)} (known: {', '.join(KEYS)})", code="rules_unknown",
                    params={"key": _show(k), "keys": ", ".join(KEYS)})
        key = (obj.get("reyes", 8), obj.get("real", False), obj.get("target", 40),
               obj.get("penalties", LANCE), obj.get("deje", False))
        if tuple(map(type, key)) in _TYPES:  # exact types: 8.0 or 1 must not hit the cache
            cached = _CACHE.get(key)
            if cached is not None:
                return cached
        return cls(*key)

    def to_json(self) -> dict[str, Any]:
        """Every rule, explicitly (a record written by the table carries them all)."""
        return {"reyes": self.reyes, "real": self.real, "target": self.target,
                "penalties": self.penalties, "deje": self.deje}


KEYS = ("reyes", "real", "target", "penalties", "deje")
_KEYS = frozenset(KEYS)
_TYPES = frozenset(((int, bool, int, str, bool), (int, str, int, str, bool)))


def _check(name: str, value: object, allowed: tuple[object, ...]) -> None:
    if type(value) is not type(allowed[0]) or value not in allowed:
        shown = [_show(a) for a in allowed]
        choices = ", ".join(shown[:-1]) + " or " + shown[-1]
        raise InvalidRecord(f"rules.{name} must be {choices}, not {_show(value)}", code="rules_value",
                            params={"rule": name, "choices": ", ".join(shown[:-1]) + " o " + shown[-1],
                                    "value": _show(value)})


DEFAULT = Rules()
_CACHE: dict[tuple[object, ...], Rules] = {
    (r, real, t, p, d): Rules(r, real, t, p, d)
    for r in REYES for real in REALS for t in TARGETS for p in PENALTIES for d in (False, True)
}
