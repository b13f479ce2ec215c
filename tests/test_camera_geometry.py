"""The camera calculator: its pinhole model against closed forms, and the README against it."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.cli import main
from hardware import camera_geometry as cg
from table.errors import InvalidInput

README = Path(__file__).resolve().parents[1] / "hardware" / "README.md"
MARGIN = cg.QUIET_ZONE_MM + cg.AIM_SLACK_MM


def test_sensor_and_lens_figures_are_the_published_ones() -> None:
    cm3, wide, hq6, hq16 = cg.CAMERAS
    assert (cm3.sensor.width_mm, cm3.sensor.height_mm) == pytest.approx((6.45, 3.63), abs=0.01)
    assert (hq6.sensor.width_mm, hq6.sensor.height_mm) == pytest.approx((6.287, 4.712), abs=0.001)
    assert cm3.fov_deg == pytest.approx((66.0, 41.0))  # narrower than the pinhole 68.5° x 42°
    pinhole_h = 2 * math.degrees(math.atan(cm3.sensor.width_mm / 2 / 4.74))
    assert pinhole_h == pytest.approx(68.5, abs=0.1)
    assert wide.fov_deg[0] == pytest.approx(99.1, abs=0.1)  # narrower than the published 102°
    assert cm3.pitch_mm == pytest.approx(0.0028) and hq16.pitch_mm == pytest.approx(0.0031)
    assert str(cm3.mode) == "2304×1296" and str(hq16.mode) == "2028×1520"


def test_the_model_needs_what_the_spec_asks() -> None:
    assert cg.MODEL_PX_PER_MM == pytest.approx(72 / 61.5)
    assert cg.REQUIRED_PX_PER_MM >= cg.MODEL_PX_PER_MM
    assert cg.REQUIRED_PX_PER_MM * 61.5 >= 73  # «a card 75 px or more across», near enough


@pytest.mark.parametrize("cam", cg.CAMERAS, ids=lambda c: c.key)
def test_a_level_camera_matches_the_closed_forms(cam: cg.Camera) -> None:
    r = cg.height_range(cam, 800, max_tilt_deg=0)
    fx, fy = cam.coverage_focal_mm
    half_fov = min(cam.mode.width_px * cam.pitch_mm / 2 / fx, cam.mode.height_px * cam.pitch_mm / 2 / fy)
    lowest = (400 + MARGIN) / half_fov
    highest = cam.resolution_focal_mm / cam.pitch_mm / cg.REQUIRED_PX_PER_MM
    assert r.lowest_mm == math.ceil(lowest / 10) * 10
    assert r.highest_mm == math.floor(highest / 10) * 10
    # Straight down, a pinhole sees the table at one scale everywhere: f / pitch / h.
    for h in (800.0, 1300.0):
        assert cg.worst_px_per_mm(cam, cg.Pose(h), 800) == pytest.approx(cg.ground_sample(cam, h))


def test_the_mat_centre_is_the_frame_centre_however_the_camera_leans() -> None:
    cam = cg.camera("cm3")
    for pose in (cg.Pose(1200, 15, 0), cg.Pose(1200, 10, 135), cg.Pose(900, 5, 270)):
        uv = cg.project(cam, pose, np.array([[0.0, 0.0]]), cam.coverage_focal_mm)
        assert np.abs(uv).max() < 1e-6
        assert pose.centre()[2] == pytest.approx(-pose.height_mm)  # the lens is h above the table


def test_tilting_makes_the_far_side_coarser() -> None:
    cam = cg.camera("cm3")
    pose = cg.Pose(1250, 15, 90)  # leaning towards +y: the lens is over -y
    f = (cam.resolution_focal_mm,) * 2
    near = cg.project(cam, pose, np.array([[0, -350.0], [0, -349.0]]), f)
    far = cg.project(cam, pose, np.array([[0, 350.0], [0, 351.0]]), f)
    assert np.linalg.norm(far[1] - far[0]) < np.linalg.norm(near[1] - near[0])
    assert cg.worst_px_per_mm(cam, pose, 800) < cg.ground_sample(cam, 1250)


@pytest.mark.parametrize("cam", cg.CAMERAS, ids=lambda c: c.key)
def test_tilt_only_narrows_the_range(cam: cg.Camera) -> None:
    level = cg.height_range(cam, 800, 0)
    tilted = cg.height_range(cam, 800, 10)
    assert tilted.lowest_mm is not None and level.lowest_mm is not None
    assert tilted.lowest_mm >= level.lowest_mm
    if tilted.highest_mm is not None:
        assert level.highest_mm is not None and tilted.highest_mm <= level.highest_mm


@settings(max_examples=25, deadline=None)
@given(h=st.floats(300, 4000), dh=st.floats(10, 500), tilt=st.floats(0, 15), direction=st.floats(0, 360))
def test_higher_sees_more_and_coarser(h: float, dh: float, tilt: float, direction: float) -> None:
    cam = cg.camera("hq-6mm")
    low, high = cg.Pose(h, tilt, direction), cg.Pose(h + dh, tilt, direction)
    if cg.sees_whole_mat(cam, low, 800, MARGIN):
        assert cg.sees_whole_mat(cam, high, 800, MARGIN)
    if h > 1000:  # above every point it looks at
        assert cg.worst_px_per_mm(cam, high, 800) < cg.worst_px_per_mm(cam, low, 800)


def test_a_bigger_mat_needs_a_higher_camera_but_the_same_detail() -> None:
    cam = cg.camera("cm3")
    small, big = cg.height_range(cam, 700, 0), cg.height_range(cam, 900, 0)
    assert small.lowest_mm is not None and big.lowest_mm is not None
    assert big.lowest_mm > small.lowest_mm
    assert big.highest_mm == small.highest_mm  # cards do not grow with the mat


def test_the_cm3_must_hang_level_and_the_full_array_lifts_that() -> None:
    checks = {c.camera.key: c for c in cg.check_all()}
    assert checks["cm3"].level.ok and not checks["cm3"].tilted.ok
    assert 5 <= checks["cm3"].max_tilt_deg < 15
    assert checks["hq-6mm"].max_tilt_deg > checks["cm3"].max_tilt_deg
    full = cg.check(cg.full_resolution(cg.camera("cm3")))
    assert full.tilted.ok  # twice the pixels per mm: 15° is fine


def test_bad_input_is_refused() -> None:
    with pytest.raises(InvalidInput):
        cg.camera("gopro")
    with pytest.raises(InvalidInput):
        cg.height_range(cg.CAMERAS[0], 50)
    with pytest.raises(InvalidInput):
        cg.ground_sample(cg.CAMERAS[0], 0)


def test_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["camera-check", "--json", "--tilt", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mat_mm"] == 800 and out["required_px_per_mm"] == 1.2
    cams = {c["camera"]: c for c in out["cameras"]}
    assert set(cams) == {"cm3", "cm3-wide", "hq-6mm", "hq-16mm"}
    assert cams["cm3"]["level_mm"] == [1170, 1410] and cams["cm3"]["tilted_mm"] == [1210, 1290]


def test_command_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["camera-check", "--mat", "10"]) == 2
    assert main(["camera-check", "--tilt", "80"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("mus-table camera-check:") for line in err)


def test_readme_holds_the_commands_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["camera-check"]) == 0
    printed = capsys.readouterr().out
    block = re.search(r"<!-- BEGIN camera-check -->\n(.*?)<!-- END camera-check -->",
                      README.read_text(encoding="utf-8"), re.S)
    assert block is not None, "hardware/README.md lost its camera-check block"
    assert block.group(1) == printed, "README table is stale: run python -m hardware.make_docs"


def test_the_guides_full_resolution_figure_is_the_models() -> None:
    """hardware/README.md quotes the still's px/mm at 1.25 m; it is the pinhole model's, not a guess."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "hardware" / "README.md").read_text(encoding="utf-8")
    quoted = re.search(r"about (\d\.\d+) px/mm\s+straight below at 1\.25 m", text)
    assert quoted is not None
    assert quoted.group(1) == f"{cg.ground_sample(cg.full_resolution(cg.camera('cm3')), 1250):.2f}"
