"""``mus-table bench score|read``: measure speed, print numbers (never a pass/fail)."""

from __future__ import annotations

import argparse
import importlib

HELP = "measure speed"
TARGETS = ("score", "read", "loop")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=TARGETS, help="score: hands/s on one core; read: ms per frame; loop: cards still to score ready")
    parser.add_argument("--n", type=int, default=None, help="how many hands or frames")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the inputs")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")


def run(args: argparse.Namespace) -> int:
    return int(importlib.import_module(f"firmware.benchmarks.{args.what}").run(args))
