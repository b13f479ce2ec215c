"""``mus-table bench score|read|accuracy``: measure, print numbers (never a pass/fail).

Each target is a module of :mod:`firmware.benchmarks` with ``run(args) -> int``
and, for options of its own, ``add_arguments(parser)``; every target takes
``--n``, ``--seed`` and ``--json``.
"""

from __future__ import annotations

import argparse
import importlib

HELP = ("measure: 'bench score' (hands/s), 'bench read' (ms per frame), 'bench accuracy' (how right the reader is), "
        "'bench loop', 'bench soak' (partidas killed and restarted), 'bench hub', 'bench attack'")
TARGETS = {
    "score": "hands scored per second on one core",
    "read": "ms per frame of mus-table read, stage by stage, on one core",
    "accuracy": "cards right/wrong/unknown and stone zones exact, on rendered scenes",
    "loop": "time from the cards lying still to the confirmed-ready score, on one core",
    "soak": "whole partidas through the real loop and journal, SIGKILLed and restarted at random",
    "hub": "many simulated tables, the hub and MQTT-over-WebSocket spectators: events/s, latency, hub CPU/memory",
    "glare": "cards right/wrong as a lamp's glare on the cards grows, on rendered scenes",
    "attack": "the kiosk's and a player's latency while the display is attacked (streams, slow-loris, big bodies, PINs)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    for name, help_text in TARGETS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--n", type=int, default=None, help="how many hands, frames or scenes")
        p.add_argument("--seed", type=int, default=1, help="random seed of the inputs")
        p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
        module = importlib.import_module(f"firmware.benchmarks.{name}")
        if hasattr(module, "add_arguments"):
            module.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    return int(importlib.import_module(f"firmware.benchmarks.{args.what}").run(args))
