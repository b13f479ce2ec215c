"""``mus-table bench score``: hands scored per second on one core.

Random legal records are made first (by playing the betting state machine, see
:mod:`table.generate`), then timed twice: parse + score from the decoded object,
and from the JSON text. Numbers only, never a pass/fail.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

DEFAULT_N = 20_000


def _rate(fn: Callable[[Any], Any], items: list[Any]) -> float:
    """Hands per second of this process's CPU time (one core), best of three runs.

    CPU time, not wall time: on a shared machine the wall clock also counts the
    time other processes held the core.
    """
    best = 0.0
    for _ in range(3):
        t0 = time.process_time()
        for item in items:
            fn(item)
        best = max(best, len(items) / max(time.process_time() - t0, 1e-9))
    return best


def measure(n: int = DEFAULT_N, seed: int = 1) -> dict[str, Any]:
    from table.generate import random_record
    from table.record import HandRecord, parse
    from table.tanteo import score

    rng = random.Random(seed)
    records = [random_record(rng) for _ in range(n)]
    texts = [json.dumps(r) for r in records]
    return {
        "hands": n,
        "seed": seed,
        "from_dict_per_s": round(_rate(lambda r: score(HandRecord.from_json(r)), records)),
        "from_json_per_s": round(_rate(lambda t: score(parse(t)), texts)),
        "answer_json_per_s": round(_rate(
            lambda t: json.dumps(score(parse(t)).to_json(), ensure_ascii=False), texts)),
    }


def run(args: argparse.Namespace) -> int:
    n = args.n or DEFAULT_N
    figures = measure(n, args.seed)
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{n} random legal hands (seed {args.seed}), per second of one core's CPU time, "
              f"best of 3:")
        print(f"  parse + score from a dict:        {figures['from_dict_per_s']:>9,} hands/s")
        print(f"  parse + score from JSON text:     {figures['from_json_per_s']:>9,} hands/s")
        print(f"  ... and the answer written as JSON: {figures['answer_json_per_s']:>7,} hands/s")
    return 0
