"""Measure every held-out deck in one run, with how far the wrong share could honestly be: ``python -m models.evaluate_wide``.

``models.evaluate_learnt`` measures a deck or two at a time; the targets,
though, are for every deck never seen in training, and a wrong share of
0.05 % is shown only by many cards with (almost) none wrong. This reads
each held-out drawn style (``models.deck.HELD_OUT_STYLES``) and every
``--deck-dir`` scanned deck (with ``--model`` a card model trained without
it, as ``--no-fournier`` makes one for Fournier 1878), out of the box and
learnt, exactly as ``models.evaluate_learnt`` does, each deck with its own
seeds (``--seed`` plus :data:`DECK_SEED_STEP` times its place), and reports
per deck and in total: cards right, wrong and unknown, hands (scenes) all
right, and the exact one-sided upper bound on the wrong share
(Clopper-Pearson, :func:`upper_bound`; with 0 wrong of n cards it is about
3/n at 95 %) and lower bound on the right share, so a figure can say
whether a target is *shown*, not only met on the cards read.

It is a measuring tool: slow (see the model card for its run time per 100
scenes), never run by the tests (they check only the bound's arithmetic).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from models.deck import HELD_OUT_STYLES, DeckStyle
from models.evaluate_learnt import measure, scanned_decks
from table.cards import Card
from vision.classifier import CardClassifier

DECK_SEED_STEP = 101
"""Deck ``i`` (in the order measured) learns from seed ``--seed + DECK_SEED_STEP * i`` and reads the next one."""
CONFIDENCE = 0.95
"""The bounds are one-sided at this confidence."""
WAYS = ("model alone", "learnt")
"""The ways ``models.evaluate_learnt.measure`` reads a deck: out of the box, and with the deck learnt."""


@dataclass(frozen=True, slots=True)
class Targets:
    """Issue 24's targets on held-out decks from full-resolution stills, as shares."""

    right_out_of_box: float = 0.90
    wrong_out_of_box: float = 0.001
    right_learnt: float = 0.997
    wrong_learnt: float = 0.0005
    hands_learnt: float = 0.95


TARGETS = Targets()


def _log_binom_cdf(k: int, n: int, p: float) -> float:
    """log P(X <= k) for X ~ Binomial(n, p), 0 < p < 1, summed in logs (n may be tens of thousands)."""
    lp, lq = math.log(p), math.log1p(-p)
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
             for i in range(k + 1)]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def upper_bound(k: int, n: int, confidence: float = CONFIDENCE) -> float:
    """The exact (Clopper-Pearson) one-sided upper bound on a share seen ``k`` times in ``n``.

    The share p at which seeing ``k`` or fewer has probability ``1 - confidence``:
    no share above it would give so few but that rarely. With ``k = 0`` it is
    ``1 - (1 - confidence) ** (1 / n)``, about 3/n at 95 %.

    >>> round(upper_bound(0, 3000), 6)
    0.000998
    >>> round(upper_bound(1, 10), 4)
    0.3942
    """
    if not 0 <= k <= n or n == 0:
        raise ValueError(f"k={k} of n={n}")
    if k == n:
        return 1.0
    alpha = 1.0 - confidence
    if k == 0:
        return 1.0 - alpha ** (1.0 / n)
    lo, hi = k / n, 1.0
    target = math.log(alpha)
    for _ in range(100):  # P(X <= k) falls as p rises: bisect for where it crosses alpha
        mid = (lo + hi) / 2
        if _log_binom_cdf(k, n, mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


def lower_bound(k: int, n: int, confidence: float = CONFIDENCE) -> float:
    """The exact one-sided lower bound on a share seen ``k`` times in ``n`` (the upper bound of the rest).

    >>> round(lower_bound(10, 10), 4) == round(1 - upper_bound(0, 10), 4)
    True
    """
    return 1.0 - upper_bound(n - k, n, confidence)


@dataclass(frozen=True, slots=True)
class Counts:
    """Cards and hands read one way, on one deck or on all."""

    cards: int
    right: int
    wrong: int
    hands: int
    hands_all_right: int

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.cards + other.cards, self.right + other.right, self.wrong + other.wrong,
                      self.hands + other.hands, self.hands_all_right + other.hands_all_right)

    @property
    def unknown(self) -> int:
        """Cards neither read right nor read wrong (a card read wrong is counted as wrong only)."""
        return max(0, self.cards - self.right - self.wrong)

    def report(self, right_target: float, wrong_target: float, confidence: float = CONFIDENCE) -> dict[str, object]:
        """Percentages, the bounds, and whether each target is met on these cards and shown by them."""
        wrong_ub = upper_bound(min(self.wrong, self.cards), self.cards, confidence)
        right_lb = lower_bound(self.right, self.cards, confidence)
        return {
            **asdict(self),
            "unknown": self.unknown,
            "right_pct": round(100 * self.right / self.cards, 2),
            "wrong_pct": round(100 * self.wrong / self.cards, 3),
            "unknown_pct": round(100 * self.unknown / self.cards, 2),
            "hands_all_right_pct": round(100 * self.hands_all_right / max(1, self.hands), 1),
            f"right_lower_{round(100 * confidence)}_pct": round(100 * right_lb, 2),
            f"wrong_upper_{round(100 * confidence)}_pct": round(100 * wrong_ub, 3),
            "right_target_met": self.right / self.cards >= right_target,
            "right_target_shown": right_lb >= right_target,
            "wrong_target_met": self.wrong / self.cards <= wrong_target,
            "wrong_target_shown": wrong_ub <= wrong_target,
        }


def counts_of(way: Mapping[str, object]) -> Counts:
    """The counts of one way of one deck as ``models.evaluate_learnt.measure`` gives them."""
    return Counts(*(int(way[k]) for k in ("cards", "right", "wrong", "scenes", "scenes_all_right")))


def wide_decks(deck_dirs: list[Path]) -> dict[str, DeckStyle | Mapping[Card, np.ndarray]]:
    """Every deck never in training: the held-out drawn styles and each scanned ``deck_dirs`` deck."""
    decks: dict[str, DeckStyle | Mapping[Card, np.ndarray]] = dict(HELD_OUT_STYLES)
    decks.update(scanned_decks(deck_dirs))
    return decks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.evaluate_wide", description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=100, help="scenes read per deck (and way)")
    parser.add_argument("--seed", type=int, required=True,
                        help="first seed (use a fresh one: 2024 is the one the figures were tuned on)")
    parser.add_argument("--deck-dir", type=Path, action="append", default=[],
                        help="also a scanned deck (read with --model trained without it)")
    parser.add_argument("--model", type=Path, default=None, help="the card model (default: the installed one)")
    parser.add_argument("--only", action="append", default=[], help="measure only these decks (by name)")
    parser.add_argument("--px-per-mm", type=float, default=2.9, help="the reading frames' resolution")
    parser.add_argument("--learn-px-per-mm", type=float, default=1.45, help="the learning frames' resolution")
    parser.add_argument("--learnt-only", action="store_true", help="skip the out-of-the-box read")
    parser.add_argument("--json", type=Path, default=None, help="also write the whole report here")
    a = parser.parse_args(argv)
    model = CardClassifier(a.model, threads=1, ends=True)
    started = time.perf_counter()
    decks: dict[str, dict[str, object]] = {}
    totals: dict[str, Counts] = {}
    dropped: dict[str, int] = {}  # cards dropped silently (issue 24's item 3: none may be)
    for i, (name, deck) in enumerate(wide_decks(a.deck_dir).items()):
        if a.only and name not in a.only:
            continue
        seed = a.seed + DECK_SEED_STEP * i
        t0 = time.perf_counter()
        got = measure(name, deck, a.scenes, seed, model, a.px_per_mm, a.learn_px_per_mm,
                      out_of_box=not a.learnt_only)
        row: dict[str, object] = {"seed": seed, "wall_s": round(time.perf_counter() - t0, 1),
                                  "learn_cpu_s": got["learn_cpu_s"], "learning_refused": got["learning_refused"]}
        for way in WAYS:
            if way not in got:
                continue
            w: Mapping[str, object] = got[way]
            c = counts_of(w)
            totals[way] = totals[way] + c if way in totals else c
            silent = w["cards_silent"]
            assert isinstance(silent, int)
            dropped[way] = dropped.get(way, 0) + silent
            row[way] = {**_report(way, c), "silent": silent, "wrong_cases": w["wrong_cases"],
                        "unknown_cases": w["unknown_cases"], "silent_cases": w["silent_cases"]}
        decks[name] = row
        print(json.dumps({"deck": name, **row}), flush=True)
    report = {
        "command": {k: (str(v) if isinstance(v, Path) else [str(x) for x in v] if isinstance(v, list) else v)
                    for k, v in vars(a).items() if k != "json"},
        "confidence": CONFIDENCE,
        "decks": decks,
        "total": {way: {**_report(way, c), "silent": dropped.get(way, 0)} for way, c in totals.items()},
        "wall_s": round(time.perf_counter() - started, 1),
    }
    print(json.dumps({"total": report["total"], "wall_s": report["wall_s"]}), flush=True)
    if a.json is not None:
        a.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


def _report(way: str, c: Counts) -> dict[str, object]:
    if way == "learnt":
        out = c.report(TARGETS.right_learnt, TARGETS.wrong_learnt)
        out["hands_target_met"] = c.hands_all_right >= TARGETS.hands_learnt * c.hands
        return out
    return c.report(TARGETS.right_out_of_box, TARGETS.wrong_out_of_box)


if __name__ == "__main__":
    sys.exit(main())
