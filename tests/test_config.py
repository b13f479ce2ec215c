"""The table's TOML configuration: the example is complete and valid; faults are named in one line."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from firmware.config import TableConfig, load_config, parse_config
from table.errors import InvalidInput
from table.rules import Rules

EXAMPLE = Path(__file__).resolve().parents[1] / "firmware" / "table.example.toml"


def test_the_example_is_the_defaults_and_names_every_setting() -> None:
    cfg = load_config(EXAMPLE)
    assert cfg == TableConfig()
    raw = tomllib.loads(EXAMPLE.read_text())
    for section in fields(TableConfig):
        value = getattr(cfg, section.name)
        assert section.name in raw, f"the example lacks [{section.name}]"
        names = set(value.to_json()) if isinstance(value, Rules) else {f.name for f in fields(value)}
        assert names == set(raw[section.name]), section.name


def test_a_configuration_becomes_the_loop_settings() -> None:
    cfg = parse_config("""
[table]
name = "club-3"
[rules]
target = 30
reyes = 4
[partida]
juegos = 2
vacas = 3
first_mano = 2
[seats]
piedras = [2, 1]
[camera]
source = "folder"
path = "frames"
[mqtt]
host = "127.0.0.1"
""")
    s = cfg.loop_settings()
    assert (s.table, s.rules, s.juegos, s.vacas, s.first_mano, s.piedras) == (
        "club-3", Rules(reyes=4, target=30), 2, 3, 2, (2, 1))
    assert cfg.mqtt.host == "127.0.0.1" and cfg.web.port == 8000


@pytest.mark.parametrize(("text", "why"), [
    ("[tabla]\nname = 'x'", "unknown section"),
    ("[table]\nnmae = 'x'", "table.nmae"),
    ("[rules]\nreyes = 6", "reyes"),
    ("[rules]\nmundial = true", "unknown rule"),
    ("[web]\nport = '80'", "web.port must be int"),
    ("[web]\nport = 70000", "ports"),
    ("[seats]\npiedras = [0, 2]", "piedras"),
    ("[camera]\nsource = 'webcam'", "camera.source"),
    ("[camera]\nsource = 'folder'", "camera.path"),
    ("[partida]\njuegos = 0", "juegos"),
    ("[panel]\nconfirm = 23", "share a GPIO"),
    ("[mat]\nside_mm = 100", "side_mm"),
    ("[table]\nname = 'mesa 1'", "name"),
    ("not toml = = 1", "not TOML"),
    ("[clock]\nset_command = 'timedatectl set-time now'", "clock.set_command must say where the time goes"),
    ("[clock]\nset_command = ''", "clock.set_command is empty"),
    ("[clock]\nstatus_command = 'timedatectl show \"'", "clock.status_command"),
    ("[clock]\nfrom_phone = 'yes'", "clock.from_phone must be bool"),
])
def test_faults_are_named_in_one_line(text: str, why: str) -> None:
    with pytest.raises(InvalidInput, match=why) as info:
        parse_config(text)
    assert "\n" not in str(info.value)


def test_the_clock_section_is_read() -> None:
    cfg = parse_config("[clock]\nfrom_phone = false\nset_command = 'sudo -n date -s @{seconds}'\npause_ntp = false")
    assert (cfg.clock.from_phone, cfg.clock.set_command, cfg.clock.pause_ntp) == (
        False, "sudo -n date -s @{seconds}", False)
    assert TableConfig().clock.set_command == "timedatectl set-time @{seconds}"


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="cannot read"):
        load_config(tmp_path / "nope.toml")
