"""``mus-table mat``: draw the printable mat of docs/mat.md (PDF, SVG or PNG), whole or tiled."""

from __future__ import annotations

import argparse
from pathlib import Path

from hardware import printable_mat as pm
from table.errors import InvalidInput
from vision.mat import MAX_SIDE_MM, MIN_SIDE_MM, Mat

HELP = "draw the printable mat (PDF, SVG or PNG), whole or tiled on sheets"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, metavar="FICHERO",
                        help="mat.pdf, mat.svg o mat.png (en hojas, SVG/PNG: FICHERO-01.svg, ...)")
    parser.add_argument("--size", type=float, default=800.0, metavar="MM",
                        help=f"lado de la zona de juego en mm (por omisión 800; "
                             f"{MIN_SIDE_MM:g}-{MAX_SIDE_MM:g})")
    parser.add_argument("--tile", choices=("a4", "letter", "none"), default="none",
                        help="lo reparte en hojas A4 o Letter para unirlas con cinta (por omisión: una sola hoja)")
    parser.add_argument("--dpi", type=float, default=150.0, help="resolución del PNG (por omisión 150)")
    parser.add_argument("--felt", choices=sorted(pm.PALETTES), default="green",
                        help="color de la zona de juego: paño verde o azul, o blanco (no imprime fondo)")


def run(args: argparse.Namespace) -> int:
    mat = Mat(args.size)  # refuses a side out of range
    if not args.out.parent.is_dir():
        raise InvalidInput(f"{args.out.parent}: no such folder", code="no_folder",
                           params={"path": str(args.out.parent)})
    tile = None if args.tile == "none" else args.tile
    written = pm.write(args.out, mat, pm.PALETTES[args.felt], tile, args.dpi)
    side = mat.side + 2 * pm.MARGIN_MM
    if tile is None:
        print(f"escrito {written[0]}: una hoja de {side:g} × {side:g} mm "
              f"(zona de juego de {mat.side:g} mm + {pm.MARGIN_MM:g} mm de margen blanco); "
              "imprimidlo al 100 % y comprobad la barra de 100 mm")
    else:
        sheets = pm.tiles(mat, pm.PALETTES[args.felt], tile)
        t = sheets[0]
        where = str(written[0]) if len(written) == 1 else f"{written[0]} … {written[-1]}"
        print(f"escrito {where}: {len(sheets)} hojas {tile.upper() if tile == 'a4' else 'Letter'}, "
              f"{t.rows} filas × {t.cols} columnas; imprimidlas al 100 % (tamaño real), comprobad la línea "
              "de 100 mm de cada una, cortad por las líneas de puntos y haced coincidir las cruces")
    return 0
