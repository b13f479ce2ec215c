"""``mus-table check --config table.toml``: the self-check after an install or an update.

What must hold before a new version is trusted with the table: the
configuration (and the settings made on the display) load, the journal opens
and replays its partidas' hands, and the camera, opened as the service opens
it, gives a watch frame and a still. install.sh runs it with the service
stopped (the camera has one owner); a failure makes an update go back to the
previous version. Each step prints one line; the exit status is 0 only when
all passed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "self-check: the configuration, the journal and a first frame from the camera (after an install)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, required=True, metavar="FICHERO",
                        help="la configuración de la mesa (TOML)")
    parser.add_argument("--settings", type=Path, default=None, metavar="FICHERO",
                        help="los ajustes hechos en la pantalla (el settings.toml del directorio de estado)")
    parser.add_argument("--frame", type=Path, default=None, metavar="FICHERO",
                        help="guarda aquí la primera foto (JPEG)")
    parser.add_argument("--no-camera", action="store_true", help="sin la cámara (una mesa que no la tiene)")


def run(args: argparse.Namespace) -> int:
    import cv2

    from firmware.config import load_config
    from firmware.journal import Journal
    from firmware.table_app import open_source

    config = load_config(args.config, settings=args.settings)
    print(f"configuración: mesa {config.table.name!r}, cámara {config.camera.source}, "
          f"red eléctrica de {config.camera.mains_hz} Hz")
    path = config.journal_path
    if path.is_file():
        journal = Journal(path, create=False)
        try:
            partidas = journal.partidas()
            hands = sum(len(journal.hands(p.id)) for p in partidas)  # each hand replayed and scored
        finally:
            journal.close()
        print(f"diario: {path} abierto, {len(partidas)} partidas, {hands} manos")
    else:
        print(f"diario: aún no hay en {path} (una mesa nueva)")
    if args.no_camera:
        return 0
    cam = open_source(config)
    try:
        frame, still = cam.grab(), cam.still()
    finally:
        cam.close()
    if frame is None or still is None:
        print("cámara: no ha dado ninguna imagen")
        return 1
    if args.frame is not None:
        cv2.imwrite(str(args.frame), still)
    print(f"primera imagen: vigilando a {frame.image.shape[1]}x{frame.image.shape[0]}, "
          f"foto fija a {still.shape[1]}x{still.shape[0]}, nivel medio {still.mean():.0f}, "
          f"fijado {getattr(cam, 'locked', {})}" + (f": {args.frame}" if args.frame else ""))
    refused = getattr(cam, "refused", "")
    if refused:
        print(f"el sensor no dio su resolución completa ({refused}): las fotos fijas son de la mitad")
    return 0
