"""How a value from a record is quoted in a one-line error message.

At most ``limit`` characters whatever the value: a 10 MB string, an integer of
thousands of digits, a list nested ten thousand deep or a lone surrogate are
quoted as a short, printable piece of themselves.

>>> show("12x"), show([1, "\\ud800"]), show("a" * 100, 10)
('"12x"', '[1, "\\\\ud800"]', '"aaaaaa...')
>>> show(10 ** 5000)
'<an integer of 5001 digits>'

Characters a reader cannot see (a zero-width space, a line or paragraph separator, a
control character, a non-breaking space) are written as their escape, so that
``unknown word "envido\\u200b"`` says what is wrong:

>>> show("envido\\u200b"), show("a\\u2028b\\x85")
('"envido\\\\u200b"', '"a\\\\u2028b\\\\u0085"')
"""

from __future__ import annotations

import json
import math
import unicodedata

_MAX_DEPTH = 20


def show(value: object, limit: int = 40) -> str:
    """The value as JSON would write it, on one line, cut to ``limit`` characters."""
    pieces: list[str] = []
    _write(value, pieces, limit + 1, 0)
    text = "".join(pieces)
    # a lone surrogate cannot be written out as UTF-8: keep it as its escape
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    if not text.isprintable():
        text = "".join(_visible(c) for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def visible(text: str) -> str:
    """``text`` with every character a reader cannot see (zero-width, line separators,
    controls, a non-breaking space) written as its escape, so a message stays one line and
    says what is really there.

    >>> visible("palabra desconocida: envido\u200b")
    'palabra desconocida: envido\\\\u200b'
    """
    return text if text.isprintable() else "".join(_visible(c) for c in text)


def _visible(c: str) -> str:
    """A character as itself, or as its escape when a reader would not see it."""
    if c.isprintable() and unicodedata.category(c) != "Cf":
        return c
    n = ord(c)
    return f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}"


def _size(pieces: list[str]) -> int:
    return sum(map(len, pieces))


def _write(value: object, pieces: list[str], budget: int, depth: int) -> None:
    """Append ``value``'s JSON to ``pieces`` until about ``budget`` characters are written."""
    if _size(pieces) > budget:
        return
    if isinstance(value, bool) or value is None:
        pieces.append(json.dumps(value))
    elif isinstance(value, int):
        pieces.append(_integer(value))
    elif isinstance(value, float):
        pieces.append(repr(value) if math.isfinite(value) else str(value))
    elif isinstance(value, str):
        pieces.append(json.dumps(value[:budget], ensure_ascii=False)
                      + ("" if len(value) <= budget else "..."))
    elif isinstance(value, (list, tuple, dict)):
        if depth >= _MAX_DEPTH:
            pieces.append("...")
            return
        items = list(value.items()) if isinstance(value, dict) else list(value[:budget])
        pieces.append("{" if isinstance(value, dict) else "[")
        for i, item in enumerate(items[:budget]):
            if _size(pieces) > budget:
                break
            if i:
                pieces.append(", ")
            if isinstance(value, dict):
                key, inner = item
                _write(str(key), pieces, budget, depth + 1)
                pieces.append(": ")
                _write(inner, pieces, budget, depth + 1)
            else:
                _write(item, pieces, budget, depth + 1)
        pieces.append("}" if isinstance(value, dict) else "]")
    else:
        pieces.append(type(value).__name__)


def _integer(n: int) -> str:
    if -(10 ** 30) < n < 10 ** 30:
        return str(n)
    digits = int(abs(n).bit_length() * math.log10(2)) + 1
    if 10 ** (digits - 1) > abs(n):
        digits -= 1
    return f"<an integer of {digits} digits>"
