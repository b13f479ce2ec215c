"""The table's configuration: one TOML file (``mus-table run --config table.toml``) read into frozen values.

Every section and key is optional (the defaults are a table with the Pi camera,
the panel, the display on port 8000 and no broker); an unknown section or key,
or a value of the wrong kind, is refused with one line naming it, so a
misspelt setting never silently changes how the table scores.
``firmware/table.example.toml`` is the commented example.

>>> cfg = parse_config('[rules]\\ntarget = 30\\n[camera]\\nsource = "folder"\\npath = "frames"')
>>> cfg.rules.target, cfg.camera.source, cfg.web.port
(30, 'folder', 8000)
>>> parse_config('[rules]\\ntarget = 35')
Traceback (most recent call last):
...
table.errors.InvalidInput: config: rules.target must be 40, 30 or 20, not 35
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_type_hints

from firmware.clock import command_words
from firmware.table_loop import LoopSettings
from firmware.watcher import WatchSettings
from hardware.pins import PanelPins
from table.errors import InvalidInput, InvalidRecord
from table.rules import Rules
from vision.mat import Mat

SOURCES = ("picamera2", "opencv", "folder", "synthetic")


@dataclass(frozen=True)
class TableSection:
    name: str = "mesa-1"
    pin: str = ""
    """The PIN the display asks before anyone may enter or confirm from a phone (4-12 digits; the
    installer writes a random one of 6; empty: a random one each start, printed on the console)."""
    journal: str = "~/.local/share/mus-table/journal.sqlite"


@dataclass(frozen=True)
class PartidaSection:
    juegos: int = 3
    vacas: int = 1
    first_mano: int = 0
    panel_confirms: bool = True


@dataclass(frozen=True)
class SeatsSection:
    piedras: tuple[int, int] = (0, 1)


@dataclass(frozen=True)
class CameraSection:
    source: str = "picamera2"
    device: int = 0
    path: str = ""
    """opencv: a video file instead of ``device``; folder: the folder of frames."""
    still_width: int = 0
    still_height: int = 0
    """The still the cards are read from; 0 x 0: the sensor's whole array (picamera2), the webcam's own (opencv)."""
    watch_width: int = 768
    watch_height: int = 432
    fps: float = 8.0
    mains_hz: int = 50
    """picamera2: the mains frequency; the exposure is locked to whole periods of the lamps' flicker."""
    lens_position: float = -1.0
    """picamera2 with autofocus (Camera Module 3): the lens position in dioptres (1 / metres: 0.8
    for the mat 1.25 m below), kept fixed; negative: focus once at start on the mat and keep it.
    «Enfocar» on the settings page finds the sharpest and stores it in the settings."""
    relight_drift: float = 0.25
    """picamera2: exposure and white balance are measured again, between hands, when the felt's
    brightness has moved this much (a fraction) from where they were locked; 0: never by itself."""
    seed: int = 1
    """synthetic: the seed of its cards and scenes."""


@dataclass(frozen=True)
class MatSection:
    side_mm: float = 800.0


@dataclass(frozen=True)
class DeckSection:
    name: str = ""
    """A deck learnt with ``mus-table deck learn NAME`` (empty: the model alone)."""


_PINS = PanelPins()
"""The wiring's defaults (hardware/README.md): a [panel] section names only what differs."""


@dataclass(frozen=True)
class PanelSection:
    enabled: bool = True
    confirm: int = _PINS.confirm
    correct: int = _PINS.correct
    undo: int = _PINS.undo
    green_led: int = _PINS.green_led
    red_led: int = _PINS.red_led
    buzzer: int = _PINS.buzzer
    buzzer_active_high: bool = True
    """False for the ready-made buzzer modules that sound while their input is low."""
    long_press_s: float = 1.5
    shutdown: str = "systemctl poweroff"
    """What a long press of undo runs (the Pi's safe shutdown); empty: nothing."""

    @property
    def pins(self) -> PanelPins:
        return PanelPins(self.confirm, self.correct, self.undo, self.green_led, self.red_led, self.buzzer)


@dataclass(frozen=True)
class WebSection:
    enabled: bool = True
    host: str = "0.0.0.0"  # noqa: S104 - the display is for the phones at the table
    port: int = 8000
    max_spectators: int = 500


@dataclass(frozen=True)
class MqttSection:
    host: str = ""
    """Empty: no broker (nothing needs one)."""
    port: int = 1883
    prefix: str = "mus-table"
    username: str = ""
    password: str = ""


@dataclass(frozen=True)
class WatchSection:
    still_frames: int = 4
    motion: float = 3.0
    zones: int = 4


@dataclass(frozen=True)
class ClockSection:
    from_phone: bool = True
    """Take the time from the first phone that opens the page while the clock is not synchronised
    (no network, no RTC battery); only ever forward (``firmware.clock``)."""
    set_command: str = "timedatectl set-time @{seconds}"
    """What sets the clock; ``{seconds}``: the Unix time. The Pi's service may run it (polkit rule)."""
    status_command: str = "timedatectl show -p NTPSynchronized --value"
    """Prints ``yes`` once network time has synchronised the clock (then no phone may set it); empty: cannot tell."""
    pause_ntp: bool = True
    """Turn timedatectl's network time off around ``set_command`` and on again (timedated refuses
    ``set-time`` while it is on, even with no network)."""


@dataclass(frozen=True)
class TableConfig:
    table: TableSection = field(default_factory=TableSection)
    rules: Rules = field(default_factory=Rules)
    partida: PartidaSection = field(default_factory=PartidaSection)
    seats: SeatsSection = field(default_factory=SeatsSection)
    camera: CameraSection = field(default_factory=CameraSection)
    mat: MatSection = field(default_factory=MatSection)
    deck: DeckSection = field(default_factory=DeckSection)
    panel: PanelSection = field(default_factory=PanelSection)
    web: WebSection = field(default_factory=WebSection)
    mqtt: MqttSection = field(default_factory=MqttSection)
    watch: WatchSection = field(default_factory=WatchSection)
    clock: ClockSection = field(default_factory=ClockSection)

    def loop_settings(self) -> LoopSettings:
        return LoopSettings(table=self.table.name, rules=self.rules, juegos=self.partida.juegos,
                            vacas=self.partida.vacas, first_mano=self.partida.first_mano,
                            piedras=self.seats.piedras, panel_confirms=self.partida.panel_confirms)

    def watch_settings(self) -> WatchSettings:
        return WatchSettings(still_frames=self.watch.still_frames, motion=self.watch.motion, zones=self.watch.zones)

    @property
    def journal_path(self) -> Path:
        return Path(self.table.journal).expanduser()


def _bad(code: str, message: str, **params: Any) -> InvalidInput:
    """A fault of the configuration: ``message`` for a log, the code and params for the edges to word."""
    return InvalidInput(message, code=code, params=params)


_TYPE_WORDS = {int: "un número entero", float: "un número", str: "un texto entre comillas", bool: "true o false"}


def _toml_where(exc: tomllib.TOMLDecodeError) -> dict[str, Any]:
    """Where TOML's reader stopped (its message says it: «... (at line 3, column 7)»)."""
    found = re.search(r"at line (\d+), column (\d+)", str(exc))
    return {"line": int(found[1]), "column": int(found[2])} if found else {"line": "?", "column": "?"}


def _section(cls: type, name: str, raw: Any) -> Any:
    if not isinstance(raw, dict):
        raise _bad("config_section_table", f"config: [{name}] must be a table of keys", section=name)
    hints = get_type_hints(cls)
    known = {f.name for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise _bad("config_unknown_key", f"config: unknown key {name}.{key} (known: {', '.join(sorted(known))})",
                       key=f"{name}.{key}", keys=", ".join(f"«{k}»" for k in sorted(known)))
        want = hints[key]
        if want is float and type(value) is int:
            value = float(value)
        elif want == tuple[int, int]:
            if (not isinstance(value, list) or len(value) != 2 or any(type(v) is not int for v in value)):
                raise _bad("config_two_seats", f"config: {name}.{key} must be two seats, like [0, 1], not {value!r}",
                           key=f"{name}.{key}", value=repr(value))
            value = (value[0], value[1])
        elif type(value) is not want:
            raise _bad("config_type", f"config: {name}.{key} must be {getattr(want, '__name__', want)}, not {value!r}",
                       key=f"{name}.{key}", want=_TYPE_WORDS.get(want, str(want)), value=repr(value))
        values[key] = value
    return cls(**values)


SETTABLE: frozenset[tuple[str, str]] = frozenset({
    ("table", "name"), ("camera", "mains_hz"), ("camera", "lens_position"), ("mqtt", "host"),
    ("mqtt", "port"), ("mqtt", "prefix"), ("deck", "name"), ("table", "pin"),
})
"""What the display's settings page may change (stored in the state directory's ``settings.toml``,
over ``/etc/mus-table/table.toml``); everything else stays in the configuration file."""


def _settings_table(text: str, where: str) -> dict[str, dict[str, Any]]:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _bad("settings_not_toml", f"settings: {where} is not TOML: {exc}", path=where, **_toml_where(exc)) from None
    for section, body in raw.items():
        if not isinstance(body, dict):
            raise _bad("settings_section_table", f"settings: [{section}] must be a table of keys", section=section)
        for key in body:
            if (section, key) not in SETTABLE:
                raise _bad("settings_not_settable", f"settings: {section}.{key} cannot be set from the display",
                           key=f"{section}.{key}")
    return raw


def parse_config(text: str, settings: str = "") -> TableConfig:
    """Read the TOML text of a configuration, with the display's ``settings`` (TOML) over it;
    one-line :class:`InvalidInput` for any fault.

    >>> parse_config('[table]\\nname = "a"', settings='[table]\\nname = "b"').table.name
    'b'
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _bad("config_not_toml", f"config: not TOML: {exc}", **_toml_where(exc)) from None
    for section, body in _settings_table(settings, "settings.toml").items():
        base = raw.setdefault(section, {})
        if isinstance(base, dict):
            base.update(body)
    sections = {f.name: f for f in fields(TableConfig)}
    values: dict[str, Any] = {}
    for name, body in raw.items():
        if name not in sections:
            raise _bad("config_unknown_section", f"config: unknown section [{name}] (sections: {', '.join(sections)})",
                       section=name, sections=", ".join(f"[{k}]" for k in sections))
        if name == "rules":
            try:
                values[name] = Rules.from_json(body)
            except InvalidRecord as exc:
                raise _bad("config_cause", f"config: {exc}", cause={"code": exc.code, "args": exc.params}) from None
        else:
            values[name] = _section(get_type_hints(TableConfig)[name], name, body)
    cfg = TableConfig(**values)
    if cfg.camera.source not in SOURCES:
        raise _bad("config_source", f"config: camera.source must be one of {', '.join(SOURCES)}, "
                   f"not {cfg.camera.source!r}", sources=", ".join(f'"{k}"' for k in SOURCES), value=repr(cfg.camera.source))
    if cfg.camera.source == "folder" and not cfg.camera.path:
        raise _bad("config_folder_path", "config: camera.source = \"folder\" needs camera.path (the folder of frames)")
    if cfg.camera.mains_hz not in (50, 60):
        raise _bad("config_mains", f"config: camera.mains_hz must be 50 or 60, not {cfg.camera.mains_hz}",
                   value=cfg.camera.mains_hz)
    if not 1 <= cfg.web.port <= 65535 or not 1 <= cfg.mqtt.port <= 65535:
        raise _bad("config_ports", "config: ports are 1-65535")
    try:
        Mat(cfg.mat.side_mm)  # the mat checks its own size (one definition of the sizes allowed)
    except InvalidInput as exc:
        raise _bad("config_mat", f"config: mat.side_mm: {exc}", cause={"code": exc.code, "args": exc.params}) from None
    cfg.loop_settings()  # checks the partida, the seats and the name
    cfg.watch_settings()
    cfg.panel.pins  # noqa: B018 - checks the pins
    command_words(cfg.clock.set_command, "set_command", needs_seconds=True)
    if cfg.clock.status_command.strip():
        command_words(cfg.clock.status_command, "status_command")
    return cfg


def load_config(path: str | Path, settings: str | Path | None = None) -> TableConfig:
    """Read a configuration file, and the display's settings file over it (missing: none made yet)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise _bad("cannot_read", f"config: cannot read {p}: {exc.strerror}", path=str(p), errno=exc.errno) from None
    extra = ""
    if settings is not None and Path(settings).is_file():
        try:
            extra = Path(settings).read_text(encoding="utf-8")
        except OSError as exc:
            raise _bad("cannot_read", f"settings: cannot read {settings}: {exc.strerror}", path=str(settings),
                       errno=exc.errno) from None
    return parse_config(text, extra)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string: JSON's escapes are TOML's
    raise _bad("settings_cannot_store", f"settings: cannot store {value!r}", value=repr(value))


def read_settings(path: str | Path) -> dict[str, dict[str, Any]]:
    """The settings stored by the display (empty when there are none yet)."""
    p = Path(path)
    return _settings_table(p.read_text(encoding="utf-8"), str(p)) if p.is_file() else {}


def save_settings(path: str | Path, config_text: str, changes: dict[tuple[str, str], Any]) -> TableConfig:
    """Store ``changes`` in the settings file at ``path``, atomically, once the configuration with
    them parses (a bad value changes nothing stored); the configuration it gives.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "settings.toml"
    >>> save_settings(f, "", {("camera", "mains_hz"): 60}).camera.mains_hz
    60
    >>> save_settings(f, "", {("camera", "mains_hz"): 55})
    Traceback (most recent call last):
    ...
    table.errors.InvalidInput: config: camera.mains_hz must be 50 or 60, not 55
    >>> read_settings(f)
    {'camera': {'mains_hz': 60}}
    """
    p = Path(path)
    stored = read_settings(p)
    for (section, key), value in changes.items():
        if (section, key) not in SETTABLE:
            raise _bad("settings_not_settable", f"settings: {section}.{key} cannot be set from the display",
                       key=f"{section}.{key}")
        stored.setdefault(section, {})[key] = value
    text = "# Settings made on the table's display (mus-table); over /etc/mus-table/table.toml.\n"
    for section, body in stored.items():
        text += f"\n[{section}]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in body.items())
    config = parse_config(config_text, text)
    tmp = p.with_name(p.name + ".new")
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, p)
    return config
