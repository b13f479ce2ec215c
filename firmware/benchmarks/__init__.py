"""Benchmarks behind ``mus-table bench WHAT``: one module per WHAT, each with ``run(args) -> int``.

Speed is measured here and reported as numbers, never asserted in tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def scanned_deck(folder: str | Path) -> Any:
    """A scanned deck's 40 faces to draw scenes with; a folder that lacks one is refused in one line."""
    from models.deck import load_deck
    from table.errors import InvalidInput

    faces = load_deck(Path(folder))
    if faces is None:
        raise InvalidInput(f"no complete deck of 40 faces {{rank}}_{{oro,copa,espada,basto}}.webp in {folder}")
    return faces
