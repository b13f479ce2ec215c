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
    parser.add_argument("--config", type=Path, required=True, help="the table's TOML configuration")
    parser.add_argument("--settings", type=Path, default=None,
                        help="the settings made on the display (the state directory's settings.toml)")
    parser.add_argument("--frame", type=Path, default=None, help="write the first still here (JPEG)")
    parser.add_argument("--no-camera", action="store_true", help="skip the camera (a table without one)")


def run(args: argparse.Namespace) -> int:
    import cv2

    from firmware.config import load_config
    from firmware.journal import Journal
    from firmware.table_app import open_source

    config = load_config(args.config, settings=args.settings)
    print(f"config: table {config.table.name!r}, camera {config.camera.source}, mains {config.camera.mains_hz} Hz")
    path = config.journal_path
    if path.is_file():
        journal = Journal(path, create=False)
        try:
            partidas = journal.partidas()
            hands = sum(len(journal.hands(p.id)) for p in partidas)  # each hand replayed and scored
        finally:
            journal.close()
        print(f"journal: {path} opened, {len(partidas)} partidas, {hands} hands")
    else:
        print(f"journal: none yet at {path} (a new table)")
    if args.no_camera:
        return 0
    cam = open_source(config)
    try:
        frame, still = cam.grab(), cam.still()
    finally:
        cam.close()
    if frame is None or still is None:
        print("camera: it gave no frame")
        return 1
    if args.frame is not None:
        cv2.imwrite(str(args.frame), still)
    print(f"first frame: watching {frame.image.shape[1]}x{frame.image.shape[0]}, "
          f"still {still.shape[1]}x{still.shape[0]}, mean level {still.mean():.0f}, "
          f"locked {getattr(cam, 'locked', {})}" + (f": {args.frame}" if args.frame else ""))
    refused = getattr(cam, "refused", "")
    if refused:
        print(f"the sensor's full resolution was refused ({refused}): stills are half that")
    return 0
