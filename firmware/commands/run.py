"""``mus-table run --config table.toml``: the real table, from the camera to the confirmed score."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path
from typing import Any

HELP = "run the table: camera, reader, score, journal, panel, display and MQTT, as table.toml says"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, required=True, metavar="FICHERO",
                        help="la configuración de la mesa (TOML)")
    parser.add_argument("--settings", type=Path, default=None, metavar="FICHERO",
                        help="los ajustes hechos en la pantalla (TOML; en la Pi /var/lib/mus-table/settings.toml)")
    parser.add_argument("--no-web", action="store_true", help="sin pantalla (solo el panel y MQTT)")
    parser.add_argument("--verbose", action="store_true", help="anota en el registro lo que hace la mesa")


def phone_clock(config: Any) -> Any:
    """The clock the phones may set (``[clock]``), floored at the journal's newest entry; None when off."""
    from firmware.clock import PhoneClock, SystemClock, journal_floor

    if not config.clock.from_phone:
        return None
    setter = SystemClock(config.clock.set_command, config.clock.status_command, pause_ntp=config.clock.pause_ntp)
    return PhoneClock(setter, floor=journal_floor(config.journal_path))


def run(args: argparse.Namespace) -> int:
    from firmware.config import load_config
    from firmware.sdnotify import Notifier
    from firmware.table_app import build_table

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    config = load_config(args.config, settings=args.settings)
    table = build_table(config)
    table.settings_path, table.config_path = args.settings, args.config
    notifier = Notifier()  # systemd: READY once running, WATCHDOG from the loop's thread
    table.runner.heartbeat = notifier.alive
    stop = threading.Event()

    def on_term(signum: int, frame: Any) -> None:  # systemd stops the service with SIGTERM
        stop.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    table.start()
    notifier.ready(f"table {config.table.name}")
    try:
        if config.web.enabled and not args.no_web:
            table.serve_web(clock=phone_clock(config))
        else:
            stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        table.stop()
    return 0
