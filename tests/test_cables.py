"""hardware/cables.py: the cable plan, from the camera's own heights; the guide's table is its output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hardware import cables
from hardware import camera_geometry as cg
from table.errors import InvalidInput

README = Path(__file__).resolve().parents[1] / "hardware" / "README.md"


def test_the_guides_cable_table_is_generated_from_the_code() -> None:
    block = re.search(r"<!-- BEGIN cables -->\n(.*?)<!-- END cables -->", README.read_text(encoding="utf-8"), re.S)
    assert block is not None and block.group(1) == cables.markdown_table(), "stale: run python -m hardware.make_docs"


@pytest.mark.parametrize("ceiling", [2.4, 2.6, 2.8, 3.0])
def test_the_pole_puts_the_lens_where_the_camera_reads_the_mat(ceiling: float) -> None:
    plan = cables.cable_plan(ceiling, wall_m=1.5)
    lens = ceiling - cables.MOUNT_M - plan.pole_m - cables.TABLE_TOP_M
    level = cg.height_range(cg.camera("cm3"), 800.0, 0.0)
    assert level.lowest_mm is not None and level.highest_mm is not None
    assert level.lowest_mm / 1000 <= lens <= level.highest_mm / 1000
    # The run reaches the display: up the pole, across and down, along the floor, up the leg.
    assert plan.run_m >= plan.pole_m + 1.5 + ceiling + cables.TABLE_TOP_M and plan.buy_m >= plan.run_m


def test_a_wall_in_the_cameras_view_is_refused() -> None:
    h, _ = cg.camera("cm3").fov_deg
    with pytest.raises(InvalidInput, match="in the camera's view"):
        cables.cable_plan(2.6, wall_m=0.6)
    assert cables.VIEW_CLEAR_M > cables.LENS_ABOVE_TABLE_M * 0.6  # half of a 66° view at that height
    assert h == pytest.approx(66.0)


def test_a_run_past_five_metres_asks_for_an_active_usb_extension() -> None:
    assert all(cables.cable_plan(c, 1.5).usb_active for c in (2.4, 3.0))
