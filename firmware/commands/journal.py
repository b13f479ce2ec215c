"""``mus-table journal list|export PATH``: what a table's journal holds, as JSON lines."""

from __future__ import annotations

import argparse
import json

HELP = "list the partidas of a table's journal, or export one as mus-hand/1 JSON lines"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "export"), metavar="{list,export}",
                        help="list: una línea JSON por partida; export: las manos de una partida en líneas JSON")
    parser.add_argument("path", metavar="DIARIO", help="el diario (table.journal en la configuración)")
    parser.add_argument("--partida", type=int, default=None, metavar="N",
                        help="export: qué partida (por omisión: la que se está jugando)")


def run(args: argparse.Namespace) -> int:
    from firmware.journal import Journal

    journal = Journal(args.path, create=False)
    try:
        if args.action == "list":
            lines = [s.to_json() for s in journal.partidas()]
        else:
            lines = journal.export(args.partida)
    finally:
        journal.close()
    for obj in lines:
        print(json.dumps(obj, ensure_ascii=False))
    return 0
