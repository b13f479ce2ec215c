"""The ``mus-table`` command: one subcommand per module in :mod:`firmware.commands`.

Every expected failure prints one line on stderr and exits with status 2;
a traceback is a bug.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

from table.errors import MusTableError

# name -> (module under firmware.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "la mesa entera en un portátil: la mesa sintética juega manos por el bucle real"),
    "score": ("score", "tantea registros mus-hand/1 y escribe la respuesta en JSON"),
    "explain": ("explain", "cuenta el tanteo de una mano paso a paso, como lo haría un juez de mesa"),
    "replay": ("replay", "repite una partida entera (líneas JSON de registros mus-hand/1) comprobando que cada "
                         "mano sigue a la anterior"),
    "bench": ("bench", "mide la velocidad: 'bench score' (manos/s) o 'bench read' (ms por foto)"),
    "read": ("read", "lee las cartas y las piedras de fotos tomadas desde arriba (una línea JSON cada una)"),
    "mat": ("mat", "dibuja el tapete para imprimir (PDF, SVG o PNG), entero o en hojas"),
    "camera-check": ("camera_check", "a qué alturas ve cada cámara el tapete lo bastante bien"),
    "calibrate": ("calibrate", "dibuja el tapete y las zonas que se ven sobre una foto de la cámara, para apuntarla"),
    "deck": ("deck", "aprende una baraja de tres fotos de ella sobre el tapete; lista u olvida barajas aprendidas"),
    "train": ("train", "entrena el modelo de cartas con escenas dibujadas y exporta models/cards.onnx"),
    "run": ("run", "pone la mesa en marcha: cámara, lector, tanteo, diario, panel, pantalla y MQTT, según "
                   "table.toml"),
    "check": ("check", "autocomprobación: la configuración, el diario y una primera foto (tras instalar)"),
    "journal": ("journal", "lista las partidas del diario de una mesa, o exporta una en líneas JSON mus-hand/1"),
    "hub": ("hub", "el hub del torneo: sigue todas las mesas de un broker, la consola del juez, sorteo y "
                   "clasificación"),
}


def _load(name: str):  # type: ignore[no-untyped-def]
    module, _ = COMMANDS[name]
    return importlib.import_module(f"firmware.commands.{module}")


class _Formatter(argparse.HelpFormatter):
    """argparse's layout, saying «uso:» and never splitting a word at its hyphen
    (``--no-web``, ``mus-table`` stay whole when a line wraps)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, prefix="uso: " if prefix is None else prefix)


class _Parser(argparse.ArgumentParser):
    """argparse, with its refusals in one line like every other (``mus-table replay:
    argumento --hand: debe ser 1 o más, no 0``), exit status 2; ``--help`` with its own
    words in Spanish, as is every option's help (``tests/test_spanish.py``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = "argumentos"
        self._optionals.title = "opciones"
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS,
                          help="muestra esta ayuda y termina")

    def error(self, message: str) -> NoReturn:
        from web.strings import say_argparse  # noqa: PLC0415 - only on a failure

        self.exit(2, f"{self.prog}: {say_argparse(message)}\n")


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mus-table",
        description="mus-table: lee desde arriba una mesa de mus y lleva el tanteo según las reglas.",
    )
    sub = parser.add_subparsers(dest="command", metavar="ORDEN", title="órdenes")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == wanted:  # only the command that runs imports its module
            _load(name).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(_load(args.command).run(args))
    except MusTableError as exc:
        from web.strings import say_error  # noqa: PLC0415 - only on a failure

        print(f"mus-table {args.command}: {say_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
