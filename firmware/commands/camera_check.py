"""``mus-table camera-check``: at what height each camera reads the mat (the table in hardware/README.md)."""

from __future__ import annotations

import argparse
import json

from hardware import camera_geometry as cg
from table.errors import InvalidInput
from vision.mat import MIN_PX_PER_MM, Mat

HELP = "heights at which each camera sees the mat well enough"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mat", type=float, default=800.0, metavar="MM",
                        help="lado de la zona de juego en mm (por omisión 800)")
    parser.add_argument("--tilt", type=float, default=cg.MAX_TILT_DEG, metavar="GRADOS",
                        help=f"inclinación máxima sobre la vertical que admitir (por omisión {cg.MAX_TILT_DEG:g})")
    parser.add_argument("--full-res", action="store_true",
                        help="captura con el sensor entero en vez del modo agrupado (binned) que usa la mesa")
    parser.add_argument("--json", action="store_true", help="escribe un objeto JSON")


def run(args: argparse.Namespace) -> int:
    Mat(args.mat)  # refuses a side no mat may have
    if not 0 <= args.tilt <= 30:
        raise InvalidInput(f"--tilt {args.tilt:g}: between 0 and 30 degrees, please", code="option_range",
                           params={"option": "--tilt", "least": 0, "most": 30, "value": f"{args.tilt:g}"})
    checks = cg.check_all(args.mat, args.tilt, full_res=args.full_res)
    if args.json:
        print(json.dumps({
            "mat_mm": args.mat,
            "required_px_per_mm": MIN_PX_PER_MM,
            "model_px_per_mm": round(cg.MODEL_PX_PER_MM, 3),
            "margin_mm": cg.QUIET_ZONE_MM + cg.AIM_SLACK_MM,
            "cameras": [c.as_json() for c in checks],
        }, ensure_ascii=False))
    else:
        print(cg.markdown_table(checks), end="")
    return 0
