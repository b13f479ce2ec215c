"""``mus-table bench read [--n N] [--px-per-mm K] [--deck-dir D --model M] [--learn-px-per-mm L]``: ms per frame on one core, by stage.

Renders N scenes (``models.scene``, 16 cards, stones, the usual variety), then
reads each with one thread for OpenCV and for onnxruntime, and prints the
median and 95th percentile of each stage: calibration, rectifying and the
felt model, finding the cards, the model (one batched call per frame), the
stones, the whole frame; and the model alone for one crop and for a batch of
sixteen. Numbers only: never a pass or a fail. ``--px-per-mm`` renders the
frames at that resolution (a full-resolution still is about 2.9), instead of
the live camera's 1.2-1.8. ``--deck-dir`` draws the cards with a scanned
deck and ``--model`` reads them with another card model: with one that
never saw the deck, the ends reader is asked about most cards, and its
time is in the ``model`` stage. ``--cpu`` times each stage in this process's CPU
time instead of wall time (steadier on a machine other work shares: what it
measures is the read's own work); ``--frames DIR`` reads the stills of a
folder instead of rendering (``--save-frames DIR`` writes the rendered ones); ``--readings FILE`` writes each frame's reading
as a line of JSON, so that two versions of the reader can be compared call
for call on the same frames (``diff``); ``--repeat R`` reads each frame R
times and keeps the fastest read, which other work on the machine can only
have slowed. ``--learn-px-per-mm K`` first learns the deck the frames are
drawn with (``--style``, a held-out drawn style, else ``--deck-dir``) from
its three learning frames rendered at K px/mm (``models.scene.learning_scene``,
as ``models.evaluate_learnt`` does; 1.45: the camera's 2304 x 1296 frames,
2.9: stills) and reads with the learnt deck, as the table does once a deck
is learnt: the ``model`` stage is then the learnt classifier's.

numpy's own products (the learnt deck's similarities) run on as many threads
as OpenBLAS starts unless ``OPENBLAS_NUM_THREADS=1`` is set before the
command starts (reported as ``blas_threads``); in CPU time, threads that wait
for work cost too (a learnt deck's 32 x 1280 product took 55 ms of CPU on two
loaded cores, 4 ms on one): for one core, run it so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from firmware.benchmarks import scanned_deck

HELP = "ms per frame of mus-table read, stage by stage, on one core"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--px-per-mm", type=float, default=None,
                        help="render the frames at this resolution (default: 1.2-1.8, the live camera)")
    parser.add_argument("--deck-dir", default=None,
                        help="draw the cards with a scanned deck: {rank}_{oro,copa,espada,basto}.webp "
                             "(with a --model that never saw it: the read of a deck the card model does not know)")
    parser.add_argument("--model", default=None,
                        help="card model (default models/cards.onnx); the ends reader stands behind it")
    parser.add_argument("--cpu", action="store_true",
                        help="time the stages in this process's CPU time, not wall time (a shared machine)")
    parser.add_argument("--frames", default=None,
                        help="read the stills (png, jpg, webp) of this folder, in name order, instead of rendering")
    parser.add_argument("--repeat", type=int, default=1,
                        help="read each frame this many times and keep the fastest (another process's load "
                             "only ever adds time)")
    parser.add_argument("--save-frames", default=None,
                        help="write the rendered frames to this folder as png (to read them again with --frames)")
    parser.add_argument("--style", default=None,
                        help="draw the cards with this held-out drawn style (models.deck.HELD_OUT_STYLES; "
                             "default: a random training style, or clasica with --learn-px-per-mm)")
    parser.add_argument("--learn-px-per-mm", type=float, default=None,
                        help="learn the frames' deck first from three learning frames at this resolution "
                             "(1.45: 2304x1296, 2.9: stills) and read with it (the table's learnt deck)")
    parser.add_argument("--readings", default=None,
                        help="write each frame's reading to this file, one JSON line per frame (to diff two versions)")


LEARN_STYLE = "clasica"
"""The held-out style learnt and read by ``--learn-px-per-mm`` when no ``--style`` or ``--deck-dir`` says."""
LEARN_SEED = 1000
"""Added to ``--seed`` for the learning frames' random draw (the read frames keep ``--seed``'s)."""


def _learnt_classifier(model: Any, deck: Any, px_per_mm: float, still: float,
                       rng: np.random.Generator) -> tuple[Any, dict[str, Any]]:
    """The learnt classifier of ``deck`` learnt from three frames at ``px_per_mm`` (``None`` if refused),
    and what to report of it: the learning's CPU seconds, the learning frames' resolution and how many
    model calls (looks) a still's crops take."""
    from models.scene import learning_scene, render_scene
    from vision.learnt import LayoutRefused, learn_deck

    frames = [render_scene(learning_scene(rng, k, deck=deck, px_per_mm=px_per_mm), rng).image for k in range(3)]
    t0 = time.process_time()
    try:
        deck_learnt = learn_deck(frames, model=model)
    except LayoutRefused as exc:
        return None, {"refused": str(exc)}
    clf = deck_learnt.classifier(model)
    clf.warm_up()
    return clf, {"px_per_mm": px_per_mm, "learn_cpu_s": round(time.process_time() - t0, 1),
                 "looks": clf.looks(still)}


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"median": float("nan"), "p95": float("nan")}
    a = np.asarray(values, np.float64)
    return {"median": round(float(np.median(a)), 2), "p95": round(float(np.percentile(a, 95)), 2)}


def run(args: argparse.Namespace) -> int:
    from models.deck import HELD_OUT_STYLES, random_style, render_card
    from models.scene import random_cards, random_scene, render_scene
    from table.cards import DECK
    from vision.classifier import CardClassifier
    from vision.ends import FACE_H, FACE_W, ends_installed
    from vision.reading import TableReader

    n = args.n or 20
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    classifier = CardClassifier(args.model, threads=1, ends=True if ends_installed() else None)
    extra: dict[str, Any] = {} if args.px_per_mm is None else {"px_per_mm": args.px_per_mm}
    if args.style is not None and args.deck_dir is not None:
        print("--style or --deck-dir, not both", file=sys.stderr)
        return 2
    if args.style is not None and args.style not in HELD_OUT_STYLES:
        print(f"no held-out style {args.style!r} (one of {', '.join(HELD_OUT_STYLES)})", file=sys.stderr)
        return 2
    if args.deck_dir is not None:
        extra["deck"] = scanned_deck(args.deck_dir)
    elif args.style is not None or args.learn_px_per_mm is not None:
        extra["deck"] = HELD_OUT_STYLES[args.style or LEARN_STYLE]
    learnt: dict[str, Any] | None = None
    reads_with: Any = classifier
    if args.learn_px_per_mm is not None:
        reads_with, learnt = _learnt_classifier(classifier, extra["deck"], args.learn_px_per_mm,
                                                args.px_per_mm or 1.5, np.random.default_rng(args.seed + LEARN_SEED))
        if reads_with is None:
            print(f"learning refused: {learnt['refused']}", file=sys.stderr)
            return 2
    frames = []
    if args.frames is not None:
        from vision.frames import load_frame
        if not Path(args.frames).is_dir():
            print(f"not a folder: {args.frames}", file=sys.stderr)
            return 2
        paths = sorted(p for p in Path(args.frames).iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".webp"))
        frames = [load_frame(p) for p in paths[:args.n or len(paths)]]
        n = len(frames)
        if not n:
            print(f"no stills in {args.frames}", file=sys.stderr)
            return 2
    for _ in range(n if args.frames is None else 0):
        spec = random_scene(rng, cards=random_cards(rng, full=True), hand_over_pool=False, **extra)
        frames.append(render_scene(spec, rng).image)
    if args.save_frames is not None:
        Path(args.save_frames).mkdir(parents=True, exist_ok=True)
        for i, frame in enumerate(frames):
            cv2.imwrite(str(Path(args.save_frames) / f"{i:03d}.png"), frame)
    clock = time.process_time if args.cpu else time.perf_counter
    reader = TableReader(classifier=reads_with)
    reader.read(frames[0])  # warm up (first calls allocate)
    stages: dict[str, list[float]] = {k: [] for k in
                                      ("calibration", "rectify_felt", "cards", "model", "stones", "total")}
    crops_per_frame = []
    lines = []
    for frame in frames:
        best: Any = None
        for _ in range(max(1, args.repeat)):
            reader = TableReader(classifier=reads_with, clock=clock)
            reading = reader.read(frame)
            if best is None or reader.timings.total < best.total:
                best = reader.timings
        lines.append(reading.to_line())
        t = best
        stages["calibration"].append(t.calibration)
        stages["rectify_felt"].append(t.rectify)
        stages["cards"].append(t.cards)
        stages["model"].append(t.model)
        stages["stones"].append(t.stones)
        stages["total"].append(t.total)
        crops_per_frame.append(t.crops)
    if args.readings is not None:
        Path(args.readings).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    # the model alone: one crop, and a batch of sixteen (each shown both ways round); the ends reader alone
    crop = np.zeros((112, 72, 3), np.uint8) + 200
    main = CardClassifier(threads=1, ends=False)
    one, sixteen, ends_ms, again_ms = [], [], [], []
    style = random_style(np.random.default_rng(args.seed))  # sixteen clear faces: each is worth a second look
    faces = [np.asarray(cv2.resize(render_card(c, style), (FACE_W, FACE_H)), np.uint8) for c in DECK[:16]]
    for _ in range(max(10, n)):
        t0 = time.perf_counter()
        main.classify([crop])
        one.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        main.classify([crop] * 16)
        sixteen.append((time.perf_counter() - t0) * 1000)
        if classifier.ends is not None:
            t0 = time.perf_counter()
            classifier.ends.read(faces, threshold=0.0)  # the first look only
            ends_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            classifier.ends.read(faces, threshold=1.0)  # a second look at every face: the worst case
            again_ms.append((time.perf_counter() - t0) * 1000)
    result: dict[str, Any] = {
        "frames": n,
        "frame_size": list(frames[0].shape[1::-1]),
        "cards_per_frame": round(float(np.mean(crops_per_frame)), 1),
        "threads": 1,
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "as many as OpenBLAS starts"),
        "clock": "cpu" if args.cpu else "wall",
        "repeat": max(1, args.repeat),
        "ms": {k: _stats(v) for k, v in stages.items()},
        "learnt": learnt,
        "model_ms": {"one_crop": _stats(one), "batch_of_16": _stats(sixteen),
                     "per_card_in_batch": round(float(np.median(sixteen)) / 16, 2),
                     "both_ways": classifier.both_ways},
        "ends_ms": {"sixteen_faces": _stats(ends_ms), "sixteen_faces_looked_at_again": _stats(again_ms)}
        if ends_ms else None,
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"mus-table bench read: {n} rendered frames (~{result['frame_size'][0]}x{result['frame_size'][1]}),"
          f" {result['cards_per_frame']} cards each, 1 thread (numpy's products: {result['blas_threads']}),"
          f" {'CPU' if args.cpu else 'wall'} time"
          + (f", the fastest of {result['repeat']} reads of each" if result["repeat"] > 1 else ""))
    if learnt is not None:
        print(f"read with the deck learnt from three frames at {learnt['px_per_mm']} px/mm "
              f"({learnt['learn_cpu_s']} s CPU to learn; {learnt['looks']} model call(s) a frame's crops take): "
              "the model stage is the learnt classifier's")
    print(f"{'stage':<14}{'median ms':>10}{'p95 ms':>10}")
    for k, v in result["ms"].items():
        print(f"{k:<14}{v['median']:>10.1f}{v['p95']:>10.1f}")
    m = result["model_ms"]
    print(f"model alone: one crop {m['one_crop']['median']:.2f} ms, a batch of 16 "
          f"{m['batch_of_16']['median']:.2f} ms ({m['per_card_in_batch']:.2f} ms per card)"
          + (", each crop shown both ways round" if m["both_ways"] else ""))
    if result["ends_ms"]:
        print(f"ends reader alone (index and pintas, asked only where the model is unsure, from a frame of "
              f"2 px/mm or finer): 16 faces {result['ends_ms']['sixteen_faces']['median']:.2f} ms, "
              f"{result['ends_ms']['sixteen_faces_looked_at_again']['median']:.2f} ms when every face "
              "needs a second look")
    return 0
