"""How a value from a record is quoted in a one-line error message."""

from __future__ import annotations

import json


def show(value: object, limit: int = 40) -> str:
    """The value as JSON would write it, on one line, cut to ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[: limit - 3] + "..."
