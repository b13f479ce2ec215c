"""``mus-table demo``: the whole product on a laptop — the synthetic table plays hands by itself."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from table.rules import REYES, TARGETS, Rules

HELP = "the whole table on a laptop: the synthetic table plays hands through the real loop, shown on localhost"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=None, metavar="N",
                        help="manos que jugar (para antes si se gana la partida; por omisión: 3 con --no-web, "
                             "una partida entera con la pantalla)")
    parser.add_argument("--seed", type=int, default=1, metavar="N",
                        help="semilla de las cartas, los envites y las escenas")
    parser.add_argument("--reyes", type=int, choices=REYES, default=8,
                        help="a 8 reyes (los treses son reyes y los doses ases) o a 4 reyes")
    parser.add_argument("--target", type=int, choices=TARGETS, default=40,
                        help="piedras que ganan un juego (40, 30 o 20)")
    parser.add_argument("--journal", type=Path, default=None, metavar="FICHERO",
                        help="guarda la partida en este diario (y la continúa si ya estaba)")
    parser.add_argument("--no-web", action="store_true", help="sin pantalla: cuenta cada mano en la terminal")
    parser.add_argument("--port", type=int, default=8000, metavar="PUERTO",
                        help="puerto de la pantalla en localhost (por omisión 8000)")
    parser.add_argument("--frames", type=Path, default=None, metavar="CARPETA",
                        help="guarda también aquí cada foto que lee la cámara (JPEG), para verla o pasarla a "
                             "'mus-table read'")
    parser.add_argument("--reader", choices=("camera", "truth"), default="camera",
                        help="«camera»: el lector de verdad lee las fotos dibujadas (por omisión); «truth»: se leen "
                             "las cartas puestas sin mirar la imagen (rápido, para tiradas largas del bucle)")
    parser.add_argument("--learning-mistakes", action="store_true",
                        help="al aprender una baraja en la pantalla, pone mal la foto 1 la primera vez (faltan "
                             "dos cartas en la zona del asiento 2), para ver que la pantalla lo dice")
    parser.add_argument("--pace", type=float, default=None, metavar="S",
                        help="segundos entre dos palabras (por omisión 0 con --no-web, 0.8 con la pantalla)")


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
