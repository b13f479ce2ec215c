"""The cable plan: how long a pole and how long the display's cables, for ceilings of 2.4-3.0 m.

The Pi rides on the ceiling mount with the camera (the camera ribbon stays
short); the display sits at the table edge. The cables leave the camera's view
by going *up*: up the pole, along the ceiling to the nearest wall, down the
wall in trunking, along the skirting to the table, up a table leg. The camera
sees nothing above its lens, and a wall at least :data:`VIEW_CLEAR_M` from the
table centre stays out of the frame. The lens goes at :data:`LENS_ABOVE_TABLE_M`
over the table top, the middle of the Camera Module 3's level range
(``mus-table camera-check``).

>>> plan = cable_plan(2.6, wall_m=2.0)
>>> plan.pole_m, plan.run_m, plan.buy_m
(0.46, 7.9, 10)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware import camera_geometry as cg
from table.errors import InvalidInput

TABLE_TOP_M = 0.75
"""A card table's top above the floor."""
HALF_TABLE_M = 0.45
"""From a mus table's centre to its edge (a 90 cm table)."""
MOUNT_M = 0.10
"""The mount's plate and the Pi's case below the pole."""
SLACK_M = 0.5
"""Loops at each end: the Pi's connectors, the display's."""
STANDARD_M = (3, 5, 7, 10, 15)
"""Lengths cables are sold in."""
PASSIVE_USB_M = 5.0
"""USB 2.0's limit for one passive cable; the touch needs an active (repeater) cable past it."""


def _level() -> cg.HeightRange:
    return cg.height_range(cg.camera("cm3"), 800.0, 0.0)


def lens_above_table_m() -> float:
    r = _level()
    assert r.lowest_mm is not None and r.highest_mm is not None
    return round((r.lowest_mm + r.highest_mm) / 2 / 1000, 2)


LENS_ABOVE_TABLE_M = lens_above_table_m()


def view_clear_m() -> float:
    """How far from the table centre the frame reaches at table height, at the lens height
    above (the long side: half the horizontal field), plus 0.2 m."""
    h, _ = cg.camera("cm3").fov_deg
    return round(LENS_ABOVE_TABLE_M * math.tan(math.radians(h / 2)) + 0.2, 2)


VIEW_CLEAR_M = view_clear_m()


@dataclass(frozen=True)
class CablePlan:
    ceiling_m: float
    wall_m: float
    pole_m: float
    """From the ceiling plate to the mount: what the drop pole must reach."""
    run_m: float
    """The display's HDMI and USB from the Pi to the display, as routed."""
    buy_m: int
    usb_active: bool
    """True when the USB (touch) run is past a passive cable's limit."""


def cable_plan(ceiling_m: float, wall_m: float = 2.0) -> CablePlan:
    if not 2.2 <= ceiling_m <= 4.0:
        raise InvalidInput(f"ceiling height 2.2-4.0 m, not {ceiling_m:g}")
    if wall_m < VIEW_CLEAR_M:
        raise InvalidInput(f"a wall {wall_m:g} m from the table centre is in the camera's view "
                           f"(keep the cables {VIEW_CLEAR_M:g} m away or more)")
    pole = round(ceiling_m - TABLE_TOP_M - LENS_ABOVE_TABLE_M - MOUNT_M, 2)
    run = pole + wall_m + ceiling_m + (wall_m - HALF_TABLE_M) + TABLE_TOP_M + SLACK_M
    run = round(run, 1)
    buy = next((s for s in STANDARD_M if s >= run), STANDARD_M[-1])
    return CablePlan(ceiling_m, wall_m, pole, run, buy, run > PASSIVE_USB_M)


def markdown_table(ceilings: tuple[float, ...] = (2.4, 2.6, 2.8, 3.0),
                   walls: tuple[float, ...] = (1.5, 2.5)) -> str:
    lines = [f"Lens {LENS_ABOVE_TABLE_M:g} m above a {TABLE_TOP_M:g} m table top; cables up the pole, "
             f"along the ceiling, down the nearest wall (at least {VIEW_CLEAR_M:g} m from the table "
             f"centre: out of the frame), along the floor, up a table leg, {SLACK_M:g} m slack.",
             "", "| Ceiling | Pole (plate to mount) | Wall at | HDMI / USB run | Buy | Touch USB |",
             "|---|---|---|---|---|---|"]
    for c in ceilings:
        for w in walls:
            p = cable_plan(c, w)
            pole = "none: a flush mount" if p.pole_m < 0.15 else f"{p.pole_m:.2f} m"
            usb = "active (repeater) extension" if p.usb_active else "passive"
            lines.append(f"| {c:.1f} m | {pole} | {w:g} m | {p.run_m:g} m | {p.buy_m} m | {usb} |")
    return "\n".join(lines) + "\n"
