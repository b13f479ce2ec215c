"""The panel's wiring, described once from :class:`hardware.pins.PanelPins`.

hardware/README.md's wiring table (:func:`markdown_table`) and hardware/wiring.svg
(:func:`svg_document`) are generated from here by ``python -m hardware.make_docs``,
and the tests check both against the code, so the docs cannot drift from the pins.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.pins import PanelPins

HEADER_PIN: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31, 13: 33,
    19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 1: 28, 12: 32,
    16: 36, 20: 38, 21: 40,
}
"""BCM GPIO number -> physical pin on the 40-pin header (the same on every Pi since the B+)."""
GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)
POWER_5V_PINS = (2, 4)
POWER_3V3_PINS = (1, 17)
GND_BUS_PIN = 9
"""The one GND wire to the button box: every part's other side joins it there."""
BUZZER_5V_PIN = 2
"""The 5 V buzzer's supply: switched on its low side by the NPN on GPIO25."""


@dataclass(frozen=True, slots=True)
class Wire:
    """One row of the wiring table: a part on a GPIO (bcm) or a power pin (bcm None)."""

    what: str
    part: str
    bcm: int | None
    pin: int
    other_side: str
    colour: str

    @property
    def gpio(self) -> str:
        return "—" if self.bcm is None else f"GPIO{self.bcm}"


def wires(pins: PanelPins | None = None) -> list[Wire]:
    p = pins or PanelPins()
    bus = f"GND bus (pin {GND_BUS_PIN})"
    return [
        Wire("Confirm button", "30 mm arcade push button, green, normally open", p.confirm,
             HEADER_PIN[p.confirm], bus, "#1b8a3a"),
        Wire("Correct button", "30 mm arcade push button, yellow, normally open", p.correct,
             HEADER_PIN[p.correct], bus, "#c99a00"),
        Wire("Undo button", "30 mm arcade push button, red, normally open", p.undo,
             HEADER_PIN[p.undo], bus, "#c62828"),
        Wire("Green LED (ready / accepted)", "5 mm LED + 330 Ω resistor in series, anode side",
             p.green_led, HEADER_PIN[p.green_led], "cathode to " + bus, "#43a047"),
        Wire("Red LED (look at the display)", "5 mm LED + 330 Ω resistor in series, anode side",
             p.red_led, HEADER_PIN[p.red_led], "cathode to " + bus, "#e53935"),
        Wire("Buzzer", "1 kΩ to the base of the buzzer's NPN driver (5 V buzzer on pin 2, "
             "drawing in section 2); a 3.3 V piezo ≤ 10 mA may take the pin directly", p.buzzer,
             HEADER_PIN[p.buzzer], "emitter (or the piezo's −) to " + bus, "#1e63b4"),
        Wire("GND bus", "one wire to the button box", None, GND_BUS_PIN,
             "every button, LED cathode and the buzzer driver's emitter", "#222222"),
        Wire("5 V for the buzzer", "the header's 5 V to the buzzer's + (its NPN switches the −)", None,
             BUZZER_5V_PIN, "buzzer + and the 1N4148's cathode", "#b71c1c"),
    ]


def markdown_table(pins: PanelPins | None = None) -> str:
    """The README's wiring table."""
    lines = ["| What | Part | GPIO (BCM) | Header pin | Other side |", "|---|---|---|---|---|"]
    for w in wires(pins):
        lines.append(f"| {w.what} | {w.part} | {w.gpio} | {w.pin} | {w.other_side} |")
    return "\n".join(lines) + "\n"


# --- the diagram -------------------------------------------------------------------------------

PITCH = 22.0
HEADER_X = 120.0
TOP_ROW_Y, BOTTOM_ROW_Y = 300.0, 322.0


def _pin_xy(pin: int) -> tuple[float, float]:
    """The header drawn as on a Pi seen from above, board edge up: pin 1 bottom left."""
    col = (pin - 1) // 2
    return (HEADER_X + PITCH * col, BOTTOM_ROW_Y if pin % 2 else TOP_ROW_Y)


def _pin_name(pin: int) -> str:
    if pin in GROUND_PINS:
        return "GND"
    if pin in POWER_5V_PINS:
        return "5V"
    if pin in POWER_3V3_PINS:
        return "3V3"
    return next(f"GPIO{b}" for b, p in HEADER_PIN.items() if p == pin)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _line(x1: float, y1: float, x2: float, y2: float, colour: str = "#333", width: float = 2) -> str:
    return (f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{colour}" '
            f'stroke-width="{width:g}"/>')


def _symbol(kind: str, x: float, y: float, colour: str) -> list[str]:
    """A part's symbol between (x, y) and (x + 90, y), the GPIO side on the left."""
    if kind == "button":
        return [_line(x, y, x + 30, y), _line(x + 60, y, x + 90, y),
                f'<circle cx="{x + 30:g}" cy="{y:g}" r="3" fill="#333"/>',
                f'<circle cx="{x + 60:g}" cy="{y:g}" r="3" fill="#333"/>',
                _line(x + 26, y - 10, x + 64, y - 10), _line(x + 45, y - 10, x + 45, y - 20),
                f'<circle cx="{x + 45:g}" cy="{y - 24:g}" r="5" fill="{colour}"/>']
    if kind == "led":
        return [_line(x, y, x + 8, y),
                f'<rect x="{x + 8:g}" y="{y - 6:g}" width="28" height="12" fill="#fff" '
                'stroke="#333" stroke-width="2"/>',
                f'<text x="{x + 22:g}" y="{y - 10:g}" font-size="9" text-anchor="middle">330 Ω</text>',
                _line(x + 36, y, x + 52, y),
                f'<polygon points="{x + 52:g},{y - 9:g} {x + 52:g},{y + 9:g} {x + 68:g},{y:g}" '
                f'fill="{colour}" stroke="#333" stroke-width="1.5"/>',
                _line(x + 68, y - 9, x + 68, y + 9), _line(x + 68, y, x + 90, y),
                f'<text x="{x + 50:g}" y="{y + 20:g}" font-size="9" text-anchor="middle">+</text>']
    return [_line(x, y, x + 28, y),
            f'<circle cx="{x + 45:g}" cy="{y:g}" r="17" fill="{colour}" stroke="#333" '
            'stroke-width="2"/>',
            f'<text x="{x + 45:g}" y="{y + 4:g}" font-size="11" fill="#fff" '
            'text-anchor="middle">BZ</text>',
            f'<text x="{x + 24:g}" y="{y - 6:g}" font-size="10" text-anchor="middle">+</text>',
            _line(x + 62, y, x + 90, y)]


def _buzzer_driver(x: float, y: float, colour: str, bus_x: float, supply: tuple[float, float]) -> list[str]:
    """GPIO -> 1 kΩ -> the NPN's base (10 kΩ from the base to GND keeps it off while the Pi
    boots); emitter to the GND bus; collector -> the buzzer's −; the buzzer's + on 5 V, with a
    1N4148 across it (cathode on 5 V) for the coil's kick. Drawn at (x, y) and below it."""
    base, tx = x + 36, x + 52
    sx, sy = supply
    out = [_line(x, y, x + 4, y),
           f'<rect x="{x + 4:g}" y="{y - 5:g}" width="22" height="10" fill="#fff" stroke="#333" stroke-width="2"/>',
           f'<text x="{x + 15:g}" y="{y - 9:g}" font-size="9" text-anchor="middle">1 kΩ</text>',
           _line(x + 26, y, tx - 8, y),
           f'<circle cx="{base:g}" cy="{y:g}" r="2.5" fill="#333"/>',
           # 10 kΩ from the base up to a GND tap on the bus
           _line(base, y, base, y - 12),
           f'<rect x="{base - 5:g}" y="{y - 38:g}" width="10" height="26" fill="#fff" stroke="#333" stroke-width="2"/>',
           f'<text x="{base - 9:g}" y="{y - 22:g}" font-size="9" text-anchor="end">10 kΩ</text>',
           _line(base, y - 38, base, y - 46), _line(base, y - 46, bus_x, y - 46, "#222"),
           f'<circle cx="{bus_x:g}" cy="{y - 46:g}" r="3.5" fill="#222"/>',
           # the NPN: base bar, emitter up-right to the bus, collector down-right to the buzzer
           f'<circle cx="{tx + 8:g}" cy="{y:g}" r="14" fill="#fff" stroke="{colour}" stroke-width="2"/>',
           _line(tx, y - 9, tx, y + 9, "#333", 3),
           _line(tx, y - 4, tx + 14, y - 12), _line(tx + 14, y - 12, x + 90, y),
           _line(tx, y + 4, tx + 14, y + 12), _line(tx + 14, y + 12, tx + 14, y + 22),
           f'<text x="{tx + 26:g}" y="{y - 16:g}" font-size="9">BC337 (NPN)</text>',
           # the buzzer, and the diode across it
           f'<circle cx="{tx + 14:g}" cy="{y + 36:g}" r="13" fill="{colour}" stroke="#333" stroke-width="2"/>',
           f'<text x="{tx + 14:g}" y="{y + 40:g}" font-size="10" fill="#fff" text-anchor="middle">BZ</text>',
           f'<text x="{tx - 2:g}" y="{y + 30:g}" font-size="9" text-anchor="end">−</text>',
           f'<text x="{tx - 2:g}" y="{y + 50:g}" font-size="9" text-anchor="end">+ 5 V</text>',
           _line(tx + 14, y + 18, tx + 36, y + 18), _line(tx + 36, y + 18, tx + 36, y + 26),
           f'<polygon points="{tx + 29:g},{y + 26:g} {tx + 43:g},{y + 26:g} {tx + 36:g},{y + 38:g}" '
           'fill="#fff" stroke="#333" stroke-width="1.5"/>',
           _line(tx + 29, y + 38, tx + 43, y + 38), _line(tx + 36, y + 38, tx + 36, y + 56),
           f'<text x="{tx + 46:g}" y="{y + 35:g}" font-size="9">1N4148</text>',
           _line(tx + 14, y + 49, tx + 14, y + 56), _line(tx + 14, y + 56, tx + 36, y + 56),
           f'<polyline points="{sx:g},{sy:g} {sx:g},{sy + 11:g} {tx + 14:g},{sy + 11:g} {tx + 14:g},{y + 56:g}" '
           f'fill="none" stroke="#b71c1c" stroke-width="3" data-what="5 V for the buzzer" '
           f'data-pin="{BUZZER_5V_PIN}"/>',
           f'<text x="{tx + 20:g}" y="{sy + 6:g}" font-size="10" fill="#b71c1c">5V · pin {BUZZER_5V_PIN}</text>']
    return out


def svg_document(pins: PanelPins | None = None) -> str:
    """hardware/wiring.svg: the 40-pin header, each part on its GPIO, and the GND bus.

    Parts on even (board-edge) pins hang above the header, the rest below; each
    wire turns once, at a height of its own, so no two wires cross.
    """
    rows = wires(pins)
    parts = [w for w in rows if w.bcm is not None]
    width, height = 960, 640
    part_x, bus_x = 640.0, 770.0
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
           "<title>mus-table panel wiring (generated by hardware/make_docs.py from "
           "firmware/panel.py)</title>",
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           '<text x="20" y="28" font-size="18" font-weight="bold">mus-table: button panel wiring'
           "</text>",
           '<text x="20" y="46" font-size="11">The Pi\'s 40-pin header seen from above, board edge '
           "up: pin 1 bottom left, pin 2 above it. Buttons use the internal pull-ups.</text>",
           f'<rect x="{HEADER_X - 14:g}" y="{TOP_ROW_Y - 14:g}" width="{PITCH * 19 + 28:g}" '
           f'height="{BOTTOM_ROW_Y - TOP_ROW_Y + 28:g}" rx="5" fill="#f2f2f2" stroke="#888"/>']
    used = {w.pin for w in rows}
    for pin in range(1, 41):
        x, y = _pin_xy(pin)
        fill = "#222" if pin in used else "#fff"
        out.append(f'<circle cx="{x:g}" cy="{y:g}" r="7" fill="{fill}" stroke="#555"/>')
        if pin in used:
            continue
        top = pin % 2 == 0
        ty = y - 12 if top else y + 12
        anchor = "start" if top else "end"
        out.append(f'<text x="{x + 3:g}" y="{ty:g}" font-size="8" fill="#777" '
                   f'text-anchor="{anchor}" transform="rotate(-90 {x + 3:g} {ty:g})">'
                   f"{pin} {_pin_name(pin)}</text>")
    above = sorted((w for w in parts if w.pin % 2 == 0), key=lambda w: w.pin)
    below = sorted((w for w in parts if w.pin % 2), key=lambda w: w.pin, reverse=True)
    spots = [(w, 90.0 + 65.0 * i) for i, w in enumerate(above)]
    spots += [(w, 400.0 + 65.0 * i) for i, w in enumerate(below)]
    for w, y in spots:
        px, py = _pin_xy(w.pin)
        out.append(f'<polyline points="{px:g},{py:g} {px:g},{y:g} {part_x:g},{y:g}" fill="none" '
                   f'stroke="{w.colour}" stroke-width="3" data-what="{_esc(w.what)}" '
                   f'data-bcm="{w.bcm}" data-pin="{w.pin}"/>')
        out.append(f'<text x="{part_x - 8:g}" y="{y - 7:g}" font-size="11" fill="{w.colour}" '
                   f'text-anchor="end">{w.gpio} · pin {w.pin}</text>')
        kind = "button" if "button" in w.what else "led" if "LED" in w.what else "buzzer"
        if kind == "buzzer":
            supply = _pin_xy(BUZZER_5V_PIN)
            out.extend(_buzzer_driver(part_x, y, w.colour, bus_x, supply))
        else:
            out.extend(_symbol(kind, part_x, y, w.colour))
        out.append(_line(part_x + 90, y, bus_x, y, "#222"))
        out.append(f'<circle cx="{bus_x:g}" cy="{y:g}" r="3.5" fill="#222"/>')
        out.append(f'<text x="{bus_x + 14:g}" y="{y + 4:g}" font-size="12">{_esc(w.what)}</text>')
    gx, gy = _pin_xy(GND_BUS_PIN)
    low = height - 40.0
    top_y = min(y for _, y in spots)
    out.append(f'<polyline points="{gx:g},{gy:g} {gx:g},{low:g} {bus_x:g},{low:g} {bus_x:g},{top_y:g}" '
               f'fill="none" stroke="#222" stroke-width="3" data-what="GND bus" '
               f'data-pin="{GND_BUS_PIN}"/>')
    out.append(f'<text x="{gx + 8:g}" y="{low - 6:g}" font-size="11">GND bus · pin {GND_BUS_PIN} '
               "(one wire to the button box)</text>")
    out.append(f'<text x="20" y="{height - 26:g}" font-size="10" fill="#555">Buzzer: 5 V buzzer on pin 2, '
               "its − switched to GND by a BC337 (base from GPIO25 through 1 kΩ, 10 kΩ to GND), "
               "a 1N4148 across it (cathode on 5 V).</text>")
    out.append(f'<text x="20" y="{height - 12:g}" font-size="10" fill="#555">Touch Display 2 only: '
               "its red lead to a 5V pin (2 or 4), black to a GND pin (6). Nothing else uses the header.</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
