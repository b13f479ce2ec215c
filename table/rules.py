"""The rules a hand is played under: the ``rules`` object of a ``mus-hand/1`` record.

>>> Rules.from_json({"reyes": 4, "target": 30})
Rules(reyes=4, real=False, target=30, penalties='none')
>>> Rules.from_json({"reyes": 6})
Traceback (most recent call last):
...
table.errors.InvalidRecord: rules.reyes must be 8 or 4, not 6
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from table._show import show as _show
from table.errors import InvalidRecord

REYES = (8, 4)
TARGETS = (40, 30)
PENALTIES = ("none", "mundial")


@dataclass(frozen=True, slots=True)
class Rules:
    """``reyes`` 8 (treses are reyes, doses are ases) or 4; ``real`` makes the 31 real
    (three sietes and a figure) beat every other 31; ``target`` 40 or 30 stones win a
    juego; ``penalties`` ``"none"`` or ``"mundial"`` (rule 19 of the World Championship)."""

    reyes: int = 8
    real: bool = False
    target: int = 40
    penalties: str = "none"

    def __post_init__(self) -> None:
        _check("reyes", self.reyes, REYES)
        if type(self.real) is not bool:
            raise InvalidRecord(f"rules.real must be true or false, not {_show(self.real)}")
        _check("target", self.target, TARGETS)
        _check("penalties", self.penalties, PENALTIES)

    @classmethod
    def from_json(cls, obj: Any) -> Rules:
        """Read the record's ``rules`` object; every key is optional, any other key is refused."""
        if obj is None:
            return DEFAULT
        if not isinstance(obj, dict):
            raise InvalidRecord(f"rules must be an object, not {_show(obj)}")
        for k in obj:
            if k not in _KEYS:
                raise InvalidRecord(
                    f"rules: unknown rule {_show(k)} (known: reyes, real, target, penalties)")
        key = (obj.get("reyes", 8), obj.get("real", False), obj.get("target", 40),
               obj.get("penalties", "none"))
        if tuple(map(type, key)) == _TYPES:  # exact types: 8.0 or 1 must not hit the cache
            cached = _CACHE.get(key)
            if cached is not None:
                return cached
        return cls(*key)

    def to_json(self) -> dict[str, Any]:
        """Every rule, explicitly (a record written by the table carries them all)."""
        return {"reyes": self.reyes, "real": self.real, "target": self.target,
                "penalties": self.penalties}


_KEYS = frozenset(("reyes", "real", "target", "penalties"))
_TYPES = (int, bool, int, str)


def _check(name: str, value: object, allowed: tuple[object, ...]) -> None:
    if type(value) is not type(allowed[0]) or value not in allowed:
        choices = " or ".join(_show(a) for a in allowed)
        raise InvalidRecord(f"rules.{name} must be {choices}, not {_show(value)}")


DEFAULT = Rules()
_CACHE: dict[tuple[object, ...], Rules] = {
    (r, real, t, p): Rules(r, real, t, p)
    for r in REYES for real in (False, True) for t in TARGETS for p in PENALTIES
}
