"""``mus-table bench score``: hands scored per second, through the command and in process.

Random legal records are made first (by playing the betting state machine, see
:mod:`table.generate`) and written as JSON lines. Then:

- **the command**: ``mus-table score --jsonl FILE`` run as a fresh process, its
  answers thrown away; process start, imports, reading, scoring and writing
  all included. Reported per second of wall time and per second of the
  process's CPU time (user + system): on a shared machine the wall clock also
  counts the time other processes held the cores, the CPU time does not. One
  run first is not counted (it writes the bytecode, as an installed package has
  it), and the start alone is timed too: the same command on an empty batch;
- **in process**: parse + score from the decoded object and from the JSON text,
  per second of one core's CPU time.

Each is the best of three runs. Numbers only, never a pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_N = 20_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=1,
                        help="score --jsonl --jobs for the command's run (default 1)")


def _rate(fn: Callable[[Any], Any], items: list[Any]) -> float:
    """Hands per second of this process's CPU time (one core), best of three runs."""
    best = 0.0
    for _ in range(3):
        t0 = time.process_time()
        for item in items:
            fn(item)
        best = max(best, len(items) / max(time.process_time() - t0, 1e-9))
    return best


def command() -> list[str]:
    """The installed ``mus-table`` next to this Python (not a version manager's shim)."""
    script = Path(sys.executable).parent / "mus-table"
    if script.is_file():
        return [str(script)]
    found = shutil.which("mus-table")
    return [found] if found else [sys.executable, "-m", "firmware.cli"]


def _child_env() -> dict[str, str]:
    """The command's environment, with its bytecode cached as an installed package has it
    (``PYTHONDONTWRITEBYTECODE`` would make every start compile the project anew)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time(argv: list[str]) -> tuple[float, float]:
    """Run ``argv`` once, output thrown away: its wall and CPU (user + system) seconds."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False,
                          env=_child_env())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.decode()[-200:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_command(path: Path, n: int, jobs: int = 1, runs: int = 3) -> dict[str, float]:
    """``mus-table score --jsonl PATH``, after one run not counted (it writes the bytecode):
    the best of ``runs`` in wall and in CPU hands per second, and the best CPU seconds of the
    same command on an empty batch (the process's start: interpreter, imports)."""
    argv = [*command(), "score", "--jsonl", "--jobs", str(jobs), str(path)]
    empty = path.with_name("empty.jsonl")
    empty.write_bytes(b"")
    _time(argv[:-1] + [str(empty)])  # not counted: bytecode written, caches warm
    best_wall = best_cpu = 0.0
    start = float("inf")
    for _ in range(runs):  # alternating, so both see the same load
        start = min(start, _time(argv[:-1] + [str(empty)])[1])
        wall, cpu = _time(argv)
        best_wall = max(best_wall, n / wall)
        best_cpu = max(best_cpu, n / max(cpu, 1e-9))
    return {"command_wall_per_s": round(best_wall), "command_cpu_per_s": round(best_cpu),
            "start_cpu_s": round(start, 3)}


def measure(n: int = DEFAULT_N, seed: int = 1, jobs: int = 1) -> dict[str, Any]:
    from table.generate import random_record
    from table.record import HandRecord, parse
    from table.tanteo import score

    rng = random.Random(seed)
    records = [random_record(rng) for _ in range(n)]
    texts = [json.dumps(r) for r in records]
    figures: dict[str, Any] = {"hands": n, "seed": seed, "jobs": jobs,
                               "load_average": round(os.getloadavg()[0], 1),
                               "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.jsonl"
        path.write_text("".join(t + "\n" for t in texts))
        figures.update(run_command(path, n, jobs))
    figures["from_dict_per_s"] = round(_rate(lambda r: score(HandRecord.from_json(r)), records))
    figures["from_json_per_s"] = round(_rate(lambda t: score(parse(t)), texts))
    return figures


def run(args: argparse.Namespace) -> int:
    n = args.n or DEFAULT_N
    figures = measure(n, args.seed, getattr(args, "jobs", 1))
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{n} random legal hands (seed {args.seed}); {figures['cores']} cores, "
              f"load average {figures['load_average']}; best of 3:")
        print(f"  mus-table score --jsonl FILE, process start included (--jobs {figures['jobs']}):")
        print(f"    per second of wall time:          {figures['command_wall_per_s']:>9,} hands/s")
        print(f"    per second of its CPU time:       {figures['command_cpu_per_s']:>9,} hands/s")
        print(f"    of which the start (empty batch): {figures['start_cpu_s']:>9.3f} s of CPU")
        print("  in process, per second of one core's CPU time (reference path):")
        print(f"    parse + score from a dict:        {figures['from_dict_per_s']:>9,} hands/s")
        print(f"    parse + score from JSON text:     {figures['from_json_per_s']:>9,} hands/s")
    return 0
