"""The wiring docs (README table, wiring.svg) say exactly what firmware/panel.py does."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from firmware.panel import PanelPins
from hardware import wiring

HARDWARE = Path(__file__).resolve().parents[1] / "hardware"
ROWS = {"confirm": "Confirm button", "correct": "Correct button", "undo": "Undo button",
        "green_led": "Green LED", "red_led": "Red LED", "buzzer": "Buzzer"}


def test_header_map_is_gpiozeros() -> None:
    factory = MockFactory()
    try:
        pins = factory.board_info.headers["J8"].pins
        for bcm, physical in wiring.HEADER_PIN.items():
            assert pins[physical].name == f"GPIO{bcm}"
        for physical in wiring.GROUND_PINS:
            assert pins[physical].name == "GND"
        for physical in wiring.POWER_5V_PINS:
            assert pins[physical].name == "5V"
    finally:
        factory.close()


def test_readme_table_gives_the_panels_default_pins() -> None:
    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- BEGIN wiring -->\n(.*?)<!-- END wiring -->", text, re.S)
    assert block is not None
    assert block.group(1) == wiring.markdown_table(), "stale: run python -m hardware.make_docs"
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in block.group(1).splitlines()[2:]]
    defaults = PanelPins()
    for field in dataclasses.fields(PanelPins):
        bcm = getattr(defaults, field.name)
        (row,) = [r for r in rows if r[0].startswith(ROWS[field.name])]
        assert row[2] == f"GPIO{bcm}" and row[3] == str(wiring.HEADER_PIN[bcm])
        assert "GND" in row[4]
    (gnd,) = [r for r in rows if r[0] == "GND bus"]
    assert int(gnd[3]) in wiring.GROUND_PINS


def test_wiring_svg_draws_each_part_from_its_pin() -> None:
    svg = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    assert svg == wiring.svg_document(), "stale: run python -m hardware.make_docs"
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    wires = {el.attrib["data-what"]: el for el in root.iterfind(".//s:polyline[@data-what]", ns)}
    defaults = PanelPins()
    for field in dataclasses.fields(PanelPins):
        bcm = getattr(defaults, field.name)
        (what,) = [w for w in wires if w.startswith(ROWS[field.name])]
        el = wires[what]
        assert el.attrib["data-bcm"] == str(bcm)
        assert el.attrib["data-pin"] == str(wiring.HEADER_PIN[bcm])
        start = tuple(float(v) for v in el.attrib["points"].split()[0].split(","))
        assert start == wiring._pin_xy(wiring.HEADER_PIN[bcm])  # it leaves from that pin
    gnd = wires["GND bus"]
    start = tuple(float(v) for v in gnd.attrib["points"].split()[0].split(","))
    assert start == wiring._pin_xy(wiring.GND_BUS_PIN)
    assert wiring.GND_BUS_PIN in wiring.GROUND_PINS


def test_default_pins_stay_off_the_buses() -> None:
    busy = {2, 3, 7, 8, 9, 10, 11, 14, 15, 18, 19, 20, 21}  # I2C, SPI0, UART, PCM
    assert not busy & set(dataclasses.astuple(PanelPins()))


def test_the_parts_list_adds_up_to_its_total() -> None:
    """Every row of the README's parts list has a part number or example, a price and where to
    buy it, and the prices add up to the total it states."""
    import re

    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    section = text.split("## 1. What to buy", 1)[1].split("## 2.", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if re.match(r"^\| \d+ \|", line)]
    assert len(rows) >= 20
    for number, part, example, qty, price, where in rows:
        assert part and example and where and int(qty) >= 1, number
        assert re.fullmatch(r"\d+", price), f"row {number}: price {price!r}"
    total = re.search(r"\*\*Total\*\*.*\*\*≈ (\d+)\*\*", section)
    assert total is not None
    assert abs(sum(int(r[4]) for r in rows) - int(total.group(1))) <= 5


def test_the_5v_buzzer_is_drawn_with_its_npn_driver_from_pin_2() -> None:
    """The parts list buys a 5 V magnetic buzzer (~30 mA): the diagram must not put it on the
    GPIO; it draws the driver (1 kΩ, BC337, 10 kΩ, 1N4148) and the buzzer's 5 V from pin 2."""
    svg = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    for part in ("1 kΩ", "10 kΩ", "BC337", "1N4148", "BZ"):
        assert part in svg, part
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    (five,) = [el for el in root.iterfind(".//s:polyline[@data-what]", ns) if el.attrib["data-what"] == "5 V for the buzzer"]
    start = tuple(float(v) for v in five.attrib["points"].split()[0].split(","))
    assert start == wiring._pin_xy(2) and 2 in wiring.POWER_5V_PINS
