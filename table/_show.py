"""How a value from a record is quoted in a one-line error message.

At most ``limit`` characters whatever the value: a 10 MB string, an integer of
thousands of digits, a list nested ten thousand deep or a lone surrogate are
quoted as a short, printable piece of themselves.

>>> show("12x"), show([1, "\\ud800"]), show("a" * 100, 10)
('"12x"', '[1, "\\\\ud800"]', '"aaaaaa...')
>>> show(10 ** 5000)
'<an integer of 5001 digits>'
"""

from __future__ import annotations

import json
import math

_MAX_DEPTH = 20


def show(value: object, limit: int = 40) -> str:
    """The value as JSON would write it, on one line, cut to ``limit`` characters."""
    pieces: list[str] = []
    _write(value, pieces, limit + 1, 0)
    text = "".join(pieces)
    # a lone surrogate cannot be written out as UTF-8: keep it as its escape
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
