"""What a posted body may be: its size per route, its nesting, its shape; checked before use.

Every JSON route of the app posts a small flat object (a PIN, a command, a
time). So a body is refused

- by its size, from ``Content-Length`` (or as a chunked body grows), before it
  is read: :func:`body_limit` gives each route its limit, which the server
  (:mod:`web.server`) applies while the bytes arrive and the app again;
- by its nesting, before it is parsed: Python's ``json`` recurses, and 60 KB
  of ``[`` would end in a ``RecursionError`` (:func:`nesting_depth`);
- by its shape: an object of short keys and scalar values, or one list or
  object of scalars (:func:`parse_object`), so that nothing downstream meets
  a list where it expects a word.

Each refusal is a :class:`BadBody` carrying the code of its Spanish line
(``web.strings``); the app answers 400 with that line and logs one line.

>>> parse_object(b'{"kind": "say", "seat": 0, "word": "paso"}')
{'kind': 'say', 'seat': 0, 'word': 'paso'}
>>> parse_object(b'{"kind": "say", "seat": [[0]]}')
Traceback (most recent call last):
...
web.body.BadBody: body_shape
>>> nesting_depth(b'{"a": "[[[[", "b": [1, [2]]}')
3
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from table.errors import InvalidInput


@dataclass(frozen=True)
class BodyLimits:
    """How many bytes each route's body may have (the rest of the server's tuning is in web.server)."""

    small: int = 1024
    """``/api/unlock``, ``/api/lock``, ``/api/clock``, ``/api/pin``: a PIN or a number."""
    command: int = 4096
    """``/api/command``: one command, a few short fields."""
    other: int = 64 * 1024
    """Any other route that takes a body (settings and the like)."""
    no_body: int = 0
    """GET and the rest: nothing to read."""
    max_depth: int = 4
    """Nesting of arrays and objects a control body may have at most."""
    max_any_depth: int = 32
    """Nesting any JSON the app parses may have (Python's parser recurses: 1000 levels crash it)."""
    upload: int = 400 * 2**20
    """``/api/update``'s release archive, for an unlocked session's request only (web.settings)."""
    max_keys: int = 32
    max_string: int = 256
    max_int: int = 10**15
    """Integers beyond this are refused (no command counts this high; a phone's ms clock is ~1.8e12)."""


LIMITS = BodyLimits()

SMALL_ROUTES = frozenset({"/api/unlock", "/api/lock", "/api/clock", "/api/pin"})
UPLOAD_ROUTES = frozenset({"/api/update"})


def body_limit(method: str, path: str, limits: BodyLimits = LIMITS, *, table: bool = False) -> int:
    """The most bytes the body of a ``method`` request to ``path`` may have; ``table``: the
    request comes from a session unlocked with the PIN (only it may upload a release).

    >>> body_limit("POST", "/api/command"), body_limit("POST", "/api/unlock"), body_limit("GET", "/")
    (4096, 1024, 0)
    """
    if method.upper() not in ("POST", "PUT", "PATCH"):
        return limits.no_body
    if path in UPLOAD_ROUTES:
        return limits.upload if table else limits.other
    if path in SMALL_ROUTES:
        return limits.small
    if path == "/api/command":
        return limits.command
    return limits.other


class BadBody(InvalidInput):
    """A body that is not what its route takes; ``code`` names its Spanish line in web.strings."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


_STRUCTURE = re.compile(rb'[\[\]{}"\\]')


def nesting_depth(raw: bytes) -> int:
    """How deep arrays and objects nest in ``raw`` (brackets inside strings do not count).

    Linear and without recursion, so it is safe on any input; invalid JSON
    gets a number too (the parser refuses it afterwards).
    """
    depth = deepest = 0
    in_string = False
    skip = -1  # the byte after a backslash in a string is taken as it is
    for m in _STRUCTURE.finditer(raw):
        i = m.start()
        if i == skip:
            continue
        c = raw[i]
        if in_string:
            if c == 0x5C:  # backslash
                skip = i + 1
            elif c == 0x22:  # quote
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif c in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse_json(raw: bytes, limits: BodyLimits = LIMITS) -> Any:
    """``raw`` as JSON, refused (:class:`BadBody`) when too deep or not JSON at all."""
    if nesting_depth(raw) > limits.max_depth:
        raise BadBody("body_deep")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise BadBody("body_json") from None


def _scalar_ok(value: Any, limits: BodyLimits) -> bool:
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int):
        return abs(value) <= limits.max_int
    if isinstance(value, float):
        return math.isfinite(value) and abs(value) <= limits.max_int
    if isinstance(value, str):
        return len(value) <= limits.max_string
    return False


def _value_ok(value: Any, depth: int, limits: BodyLimits) -> bool:
    if isinstance(value, list):
        return depth > 0 and len(value) <= limits.max_keys and all(
            _value_ok(v, depth - 1, limits) for v in value)
    if isinstance(value, dict):
        return depth > 0 and len(value) <= limits.max_keys and all(
            len(k) <= 64 and _value_ok(v, depth - 1, limits) for k, v in value.items())
    return _scalar_ok(value, limits)


def parse_object(raw: bytes, limits: BodyLimits = LIMITS) -> dict[str, Any]:
    """``raw`` as a JSON object of at most ``max_keys`` short keys, each value a scalar or one
    list or object of scalars (a new partida's ``rules`` and ``names``)."""
    obj = parse_json(raw, limits)
    if not isinstance(obj, dict) or not _value_ok(obj, 2, limits):
        raise BadBody("body_shape")
    return obj
