"""``mus-table hub --broker HOST[:PORT]``: every table of a club or a championship on one page.

Follows every table on the broker, keeps what they send (``--db``: SQLite by
default, PostgreSQL when several hubs share a tournament), republishes the
public tree for spectators and serves the hub's pages on ``--port`` (8080).
See docs/hub.md.
"""

from __future__ import annotations

import argparse
import os

HELP = "the tournament hub: follow every table on a broker, the juez's console, draw and standings"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--broker", default="127.0.0.1:1883", metavar="HOST[:PUERTO]",
                        help="el broker MQTT (por omisión 127.0.0.1:1883)")
    parser.add_argument("--port", type=int, default=8080, metavar="PUERTO",
                        help="puerto de las páginas del hub (por omisión 8080)")
    parser.add_argument("--host", default="0.0.0.0", help="la dirección en la que servir (por omisión todas)")
    parser.add_argument("--db", default="sqlite:///hub.sqlite", metavar="URL",
                        help="dónde guarda: sqlite:///FICHERO (por omisión hub.sqlite) o "
                             "postgresql+psycopg://USUARIO@HOST/BD")
    parser.add_argument("--pin", default=os.environ.get("MUS_TABLE_HUB_PIN", ""),
                        help="el PIN del juez (o MUS_TABLE_HUB_PIN)")
    parser.add_argument("--prefix", default="mus-table", metavar="PREFIJO",
                        help="el prefijo de los temas de las mesas (por omisión mus-table)")
    parser.add_argument("--public-ws", default="", metavar="URL",
                        help="la dirección WebSocket del broker para los navegadores de los espectadores "
                             "(por omisión ws://HOST:9001)")
    parser.add_argument("--delay", type=int, default=None, metavar="S",
                        help="retrasa la emisión pública tantos segundos")
    parser.add_argument("--no-public", action="store_true",
                        help="no escribe el árbol público (lo escribe otro hub que comparte el torneo)")
    parser.add_argument("--username", default=os.environ.get("MUS_TABLE_HUB_USER", ""), metavar="USUARIO",
                        help="usuario del broker (o MUS_TABLE_HUB_USER)")
    parser.add_argument("--password", default=os.environ.get("MUS_TABLE_HUB_PASSWORD", ""), metavar="CLAVE",
                        help="contraseña del broker (o MUS_TABLE_HUB_PASSWORD)")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from hub.follower import BrokerAddress
    from hub.service import build_hub, make_server
    from table.errors import InvalidInput

    if not 1 <= args.port <= 65535:
        raise InvalidInput(f"--port: 1 to 65535, not {args.port}", code="option_range",
                           params={"option": "--port", "least": 1, "most": 65535, "value": args.port})
    if args.delay is not None and not 0 <= args.delay <= 7200:
        raise InvalidInput(f"--delay: 0 to 7200 seconds, not {args.delay}", code="option_range",
                           params={"option": "--delay", "least": 0, "most": 7200, "value": args.delay})
    broker = replace(BrokerAddress.parse(args.broker), username=args.username, password=args.password)
    hub = build_hub(args.db, broker, pin=args.pin, prefix=args.prefix, public_ws=args.public_ws,
                    delay_s=args.delay, public=not args.no_public)
    hub.follower.start()
    server = make_server(hub.app, args.host, args.port)
    print(f"mus-table hub: siguiendo {broker.host}:{broker.port}, páginas en http://{args.host}:{args.port}/",
          flush=True)
    try:
        server.run()
    finally:
        server.close()
        hub.close()
    return 0
