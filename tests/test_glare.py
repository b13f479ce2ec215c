"""models/glare.py (``mus-table bench glare``): the glare is put on the cards and counted."""

from __future__ import annotations

from models.glare import measure


def test_a_glare_on_the_cards_is_measured_on_the_same_scenes() -> None:
    clean, washed = measure(levels=(0.0, 1.0), n=1, seed=3)
    assert clean.cards == washed.cards > 0  # the same scene, only the glare differs
    assert clean.right_pct >= 90.0 and clean.wrong == 0
    # a reflection at full white on one seat's cards loses some of them, and invents none
    assert washed.right < clean.right and washed.wrong == 0
