"""``mus-table bench attack``: the table's kiosk and players under attack (:mod:`web.attack`).

Event streams, slow-loris sockets, 1 GB bodies, nested brackets and wrong PINs
from many loopback addresses, while the kiosk's ``/api/state`` latency and a
player's command-to-state time are measured, calm and attacked.
"""

from __future__ import annotations

import argparse
import json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from web.attack import add_arguments as web_arguments  # noqa: PLC0415

    web_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from web.attack import run as attack  # noqa: PLC0415

    out = attack(args.streams, args.slow, args.seconds, args.drip_s, args.fps, args.cap, args.target, args.pin)
    print(json.dumps(out, indent=None if args.json else 1))
    return 0
