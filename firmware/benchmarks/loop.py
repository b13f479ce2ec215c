"""``mus-table bench loop [--n N]``: from the cards lying still to a score ready to confirm, on one core.

For each of N hands the synthetic table deals, the hand is bet, the cards are
laid face up; the frames are rendered before the clock starts (the renderer
stands in for the camera). Then the clock runs from the first still frame:
the watcher's frames until it says «read», the still, the reading, the loop's
scoring and the event with the whole state, until the state says ``scored``.
Printed: the compute time (median, p95), the processor time it took (what a
busy machine cannot inflate: on a shared machine the wall-clock time includes
waiting for a core) and, separately, the time the watcher waits for stillness
at the configured frame rate (``still_frames / fps``), which is a setting, not
work. Numbers only: never a pass or a fail.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import cv2
import numpy as np

from firmware.benchmarks.read import _stats

HELP = "time from the cards lying still to the confirmed-ready score, on one core"


def run(args: argparse.Namespace) -> int:
    from firmware.synthetic import SyntheticTable
    from firmware.table_commands import Say
    from firmware.table_loop import LoopSettings, Phase, TableLoop
    from firmware.watcher import Watcher, WatchSettings
    from table.cards import Card
    from table.generate import random_record
    from table.record import HandRecord
    from table.rules import Rules
    from vision.calibration import calibrate
    from vision.classifier import CardClassifier
    from vision.reading import TableReader

    n = args.n or 10
    cv2.setNumThreads(1)
    classifier = CardClassifier(threads=1)
    rng = random.Random(args.seed)
    settings = WatchSettings()
    fps = 8.0
    compute: list[float] = []
    cpu: list[float] = []
    read_ms: list[float] = []
    scored = 0
    for i in range(n):
        table = SyntheticTable(args.seed + i)
        loop = TableLoop(LoopSettings(), reader=TableReader(classifier=classifier))
        rec = HandRecord.from_json(random_record(rng, Rules(), mano=0, score=[0, 0]))
        table.show([[Card.parse(c) for c in seat] for seat in rec.cards])
        table.moving_frames = 0
        frames = [table.grab() for _ in range(settings.still_frames + 1)]
        still = table.still()
        assert still is not None and all(f is not None for f in frames)
        watcher = Watcher(settings, loop.mat)
        cal = calibrate(frames[0].image, loop.mat)  # type: ignore[union-attr]
        for lance in rec.lances:  # the words were said during the hand, before the cards lay still
            for w in rec.bets.get(lance, ()):
                if loop.state().bets.asked:
                    break
                loop.submit(Say(w.seat, w.word, w.n))
        loop.attach_camera(lambda: still)  # noqa: B023 - used in this iteration only
        t0, c0 = time.perf_counter(), time.process_time()
        for f in frames:
            if watcher.feed(f.image, cal).read:  # type: ignore[union-attr]
                break
        t1 = time.perf_counter()
        loop.read_now()
        t2, c2 = time.perf_counter(), time.process_time()
        compute.append((t2 - t0) * 1000)
        cpu.append((c2 - c0) * 1000)
        read_ms.append((t2 - t1) * 1000)
        scored += loop.state().phase is Phase.SCORED
    result: dict[str, Any] = {"hands": n, "threads": 1, "scored": scored,
              "compute_ms": _stats(compute), "cpu_ms": _stats(cpu), "read_and_score_ms": _stats(read_ms),
              "watch_wait_ms": round(settings.still_frames / fps * 1000),
              "still_to_ready_ms_median": round(float(np.median(compute)) + settings.still_frames / fps * 1000)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{n} hands, one core: cards still -> score ready to confirm")
        print(f"  compute (watcher + still + read + score + event): median {result['compute_ms']['median']} ms, "
              f"p95 {result['compute_ms']['p95']} ms")
        print(f"  processor time for it: median {result['cpu_ms']['median']} ms, p95 {result['cpu_ms']['p95']} ms "
              "(wall-clock above minus the waits for a busy machine's cores)")
        print(f"  of which reading and scoring: median {result['read_and_score_ms']['median']} ms")
        print(f"  the watcher waits {result['watch_wait_ms']} ms of stillness ({settings.still_frames} frames "
              f"at {fps:g} fps)")
        print(f"  scored straight away: {scored} of {n} (the rest wait for a correction)")
    return 0
