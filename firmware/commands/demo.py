"""``mus-table demo``: the whole product on a laptop — the synthetic table plays hands by itself."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from table.rules import REYES, TARGETS, Rules

HELP = "the whole table on a laptop: the synthetic table plays hands through the real loop, shown on localhost"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=None,
                        help="hands to play (stops sooner when the partida is won; default: 3 with --no-web, "
                             "a whole partida with the display)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the cards, bets and scenes")
    parser.add_argument("--reyes", type=int, choices=REYES, default=8)
    parser.add_argument("--target", type=int, choices=TARGETS, default=40,
                        help="stones that win a juego (40, 30 or 20)")
    parser.add_argument("--journal", type=Path, default=None, help="keep the partida in this journal (resumes it)")
    parser.add_argument("--no-web", action="store_true", help="no display: narrate each hand on the terminal")
    parser.add_argument("--port", type=int, default=8000, help="port of the display on localhost")
    parser.add_argument("--frames", type=Path, default=None,
                        help="also write each still the camera reads here (JPEG), to look at or to 'mus-table read'")
    parser.add_argument("--reader", choices=("camera", "truth"), default="camera",
                        help="camera: the real reader reads the rendered stills (default); truth: the cards "
                             "laid are read without looking at the picture (fast, for long runs of the loop)")
    parser.add_argument("--learning-mistakes", action="store_true",
                        help="when a deck is learnt on the display, lay photo 1 wrong first (two cards missing "
                             "from seat 2's zone), to see the display say so")
    parser.add_argument("--pace", type=float, default=None,
                        help="seconds between two words (default 0 with --no-web, 0.8 with the display)")


def run(args: argparse.Namespace) -> int:
    from firmware.demo import make_demo, narrate
    from table.errors import InvalidInput

    if args.hands is not None and args.hands < 1:
        raise InvalidInput("--hands must be at least 1", code="option_at_least",
                           params={"option": "--hands", "least": 1, "value": args.hands})
    pace = args.pace if args.pace is not None else (0.0 if args.no_web else 0.8)
    demo = make_demo(seed=args.seed, rules=Rules(reyes=args.reyes, target=args.target), journal=args.journal,
                     port=args.port, word_s=pace, frames=args.frames,
                     truth=args.reader == "truth", learning_mistakes=args.learning_mistakes)
    hands = args.hands if args.hands is not None else (3 if args.no_web else 1000)
    count = [demo.table.loop.state().hands]

    def on_hand(hand, state):  # type: ignore[no-untyped-def]
        count[0] += 1
        confirmed = demo.table.loop.hands()
        print("\n".join(narrate(hand, confirmed[-1] if confirmed else None, state, count[0])), end="\n\n",
              flush=True)

    demo.table.start()
    try:
        if args.no_web:
            played = demo.play(hands, on_hand)
        else:
            stop = threading.Event()
            players = threading.Thread(target=demo.play, args=(hands, on_hand, stop), kwargs={"shared": True},
                                       daemon=True)
            print(f"La mesa de demostración: http://127.0.0.1:{args.port}/  (PIN {demo.table.config.table.pin}; "
                  "Ctrl-C para salir)",
                  flush=True)
            players.start()
            try:
                demo.table.serve_web()
            finally:
                stop.set()
            played = demo.played
    finally:
        demo.table.stop()
    fixed = sum(1 for h in played if h.corrected)
    print(f"{len(played)} manos; la cámara leyó sola todas las cartas en {len(played) - fixed} de {len(played)}.")
    return 0
