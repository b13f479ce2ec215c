"""Counting stones: exact counts, touching stones, any felt, uneven light, glare, a hand over the pool."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from models.deck import HELD_OUT_STYLES
from models.scene import RenderedScene, SceneSpec, random_scene, render_scene
from vision.calibration import calibrate
from vision.felt import estimate_felt
from vision.mat import Mat
from vision.stones import StoneCount, StoneSmoother, count_stones

K = 1.2  # px per mm of the top-down views


def top_down(felt: tuple[int, int, int], stones: list[tuple[float, float]], diameter: float,
             colour: tuple[int, int, int], light: str = "even") -> np.ndarray:
    """A flat top-down mat at K px/mm with round stones (mat mm centres), lit evenly or not."""
    side = int(800 * K)
    img = np.empty((side, side, 3), np.float32)
    img[:] = felt
    rng = np.random.default_rng(0)
    img += rng.normal(0, 3, img.shape).astype(np.float32)
    for x, y in stones:
        cv2.circle(img, (round(x * K * 16), round(y * K * 16)), round(diameter / 2 * K * 16),
                   colour, -1, cv2.LINE_AA, 4)
    if light == "uneven":  # a lamp to one side: from 45 % to 120 % across the mat
        ramp = np.linspace(0.45, 1.2, side, dtype=np.float32)
        img *= ramp[None, :, None]
    elif light == "shadow":  # a soft dark band across the pool
        yy = np.arange(side, dtype=np.float32)[:, None, None]
        img *= 1 - 0.4 * np.exp(-((yy - 400 * K) / (40 * K)) ** 2)
    return np.clip(img, 0, 255).astype(np.uint8)


def count(img: np.ndarray) -> StoneCount:
    return count_stones(img, estimate_felt(img, K), K).count


def ring(cx: float, cy: float, n: int, d: float, gap: float = 0.3) -> list[tuple[float, float]]:
    """n stones of diameter d in a touching chain, starting at (cx, cy), going right."""
    return [(cx + i * (d + gap), cy) for i in range(n)]


def cluster(cx: float, cy: float, d: float) -> list[tuple[float, float]]:
    """Seven touching stones: one in the middle and six around it."""
    pts = [(cx, cy)]
    for i in range(6):
        a = i * math.pi / 3
        pts.append((cx + (d + 0.3) * math.cos(a), cy + (d + 0.3) * math.sin(a)))
    return pts


LAYOUT_D = 22.0
STONES = (
    cluster(400, 400, LAYOUT_D)  # pool: 7 touching
    + [(340, 330), (470, 450), (330, 460)]  # pool: 3 apart
    + ring(615, 630, 4, LAYOUT_D)  # seat 0 (x 600-720, y 600-720): 4 touching in a row
    + [(640, 120), (690, 170)]  # seat 1 (x 600-720, y 80-200)
    + ring(95, 140, 3, LAYOUT_D)  # seat 2 (x 80-200, y 80-200); seat 3 keeps none
)
WANT = StoneCount(10, (4, 2, 3, 0))


@pytest.mark.parametrize("felt, colour", [
    ((40, 110, 30), (30, 30, 200)),    # green felt, red chips
    ((110, 60, 20), (230, 230, 230)),  # blue felt, white chips
    ((25, 25, 25), (0, 200, 250)),     # black felt, yellow chips
    ((150, 170, 185), (20, 20, 20)),   # beige felt, black buttons
    ((60, 60, 60), (40, 180, 40)),     # grey felt, green beans
])
def test_exact_counts_with_touching_stones_on_any_felt(felt: tuple[int, int, int],
                                                       colour: tuple[int, int, int]) -> None:
    assert Mat().zone_at(615, 630) == "seat 0 stones" and Mat().zone_at(640, 120) == "seat 1 stones"
    assert count(top_down(felt, STONES, LAYOUT_D, colour)) == WANT


@pytest.mark.parametrize("light", ["uneven", "shadow"])
def test_uneven_light(light: str) -> None:
    assert count(top_down((40, 110, 30), STONES, LAYOUT_D, (230, 230, 230), light)) == WANT


@pytest.mark.parametrize("d", [15.0, 30.0])
def test_smallest_and_largest_stones(d: float) -> None:
    stones = cluster(400, 400, d) + ring(610 + d / 2, 660, 3, d)
    assert count(top_down((110, 60, 20), stones, d, (0, 200, 250))) == StoneCount(7, (3, 0, 0, 0))


def test_no_stones_counts_zero() -> None:
    assert count(top_down((40, 110, 30), [], 20, (0, 0, 255))) == StoneCount()


def test_a_stone_belongs_to_the_zone_of_its_centre() -> None:
    # centred just inside seat 0's zone (x 600-720) and just outside it
    stones = [(604.0, 660.0), (596.0, 700.0)]
    assert count(top_down((40, 110, 30), stones, 20, (30, 30, 200))) == StoneCount(0, (1, 0, 0, 0))


def render(rng_seed: int, **fields: object) -> tuple[StoneCount, dict[str, object], object]:
    rng = np.random.default_rng(rng_seed)
    spec = SceneSpec(**fields)  # type: ignore[arg-type]
    scene = render_scene(spec, rng)
    cal = calibrate(scene.image)
    assert cal is not None
    rect = cal.rectify(scene.image, K)
    got = count_stones(rect, estimate_felt(rect, K), K).count
    return got, scene.stones, scene


def test_rendered_scene_with_tilt_and_touching_stones() -> None:
    got, want, _ = render(3, pool_stones=14, seat_stones=(5, 0, 3, 7), touching=0.7, stone_mm=20.0,
                          stone_colour=(30, 30, 200), tilt_deg=12.0, tilt_dir_deg=40.0, rotation_deg=70.0,
                          px_per_mm=1.3, gradient=0.35, noise=3.0, jpeg_quality=80, zone_outlines=True)
    assert (got.pool, list(got.seats)) == (want["pool"], want["seats"])


def test_glare_beside_the_pool_does_not_make_stones() -> None:
    got, want, _ = render(4, pool_stones=9, seat_stones=(2, 2, 2, 2), stone_mm=24.0, felt=(110, 60, 20),
                          stone_colour=(0, 200, 250), glare=0.6, glare_at=(400.0, 560.0), px_per_mm=1.3)
    assert (got.pool, list(got.seats)) == (want["pool"], want["seats"])


@pytest.mark.parametrize("felt, colour", [
    ((40, 110, 30), (120, 30, 140)),   # green felt, magenta chips: paled to pink, nearly the glare's own colours
    ((110, 60, 20), (60, 140, 220)),   # blue felt, orange chips
    ((30, 30, 120), (40, 180, 40)),    # red felt, green chips
])
def test_glare_over_a_stone_zone_loses_no_stone(felt: tuple[int, int, int], colour: tuple[int, int, int]) -> None:
    # a strong glare right over seat 0's stones: it is taken off, the paled stones are counted
    got, want, _ = render(0, pool_stones=8, seat_stones=(6, 3, 0, 0), stone_mm=22.0, felt=felt, stone_colour=colour,
                          glare=0.7, glare_at=(660.0, 660.0), px_per_mm=1.3, touching=0.4)
    assert (got.pool, list(got.seats)) == (want["pool"], want["seats"])


@pytest.mark.parametrize("seed, felt, colour", [
    (0, (111, 48, 21), (0, 200, 250)),  # blue felt, yellow chips
    (3, (40, 110, 30), (30, 30, 200)),  # green felt, red chips
])
def test_small_stones_at_the_heart_of_a_strong_glare(seed: int, felt: tuple[int, int, int],
                                                      colour: tuple[int, int, int]) -> None:
    # a glare of 0.86 over seat 0's two small stones: what haze of it is left is taken off too, and the
    # noise there, louder, is measured there; the stones are counted and the haze is not a stone
    got, want, _ = render(seed, pool_stones=6, seat_stones=(2, 4, 0, 0), stone_mm=16.0, felt=felt, stone_colour=colour,
                          glare=0.86, glare_at=(620.0, 700.0), touching=0.5, px_per_mm=1.3)
    assert (got.pool, list(got.seats)) == (want["pool"], want["seats"])


def test_stones_paled_by_a_glare_do_not_set_the_stones_colour() -> None:
    # most single stones lie under the glare (seat 1): the stones' colour is learnt from those in plain
    # light, and the felt (here with no red at all) never passes for the stones' colour
    got, want, _ = render(0, pool_stones=1, seat_stones=(0, 5, 1, 5), stone_mm=18.0, felt=(117, 86, 0),
                          stone_colour=(40, 180, 40), glare=0.6, glare_at=(660.0, 140.0), touching=0.5, px_per_mm=1.3)
    assert (got.pool, list(got.seats)) == (want["pool"], want["seats"])


def test_white_stones_are_not_a_glare() -> None:
    # many touching white stones on dark felt look like felt with white added; they are not a glare
    got, want, _ = render(1, pool_stones=20, seat_stones=(6, 6, 0, 3), stone_mm=26.0, felt=(89, 54, 72),
                          stone_colour=(230, 230, 230), touching=0.6, px_per_mm=1.3)
    assert (got.pool, list(got.seats)) == (want["pool"], want["seats"])


def test_a_hand_over_the_pool_is_not_stones() -> None:
    for seed in (5, 6):
        got, want, scene = render(seed, pool_stones=10, seat_stones=(3, 0, 0, 4), stone_mm=22.0,
                                  felt=(40, 110, 30), stone_colour=(230, 230, 230), hand_over_pool=True,
                                  px_per_mm=1.3)
        hidden = sum(1 for s in scene.stone_truth if s.under_hand)  # type: ignore[attr-defined]
        # never more than lie there (the hand never becomes stones); the stones in full view are
        # counted (those half under a finger may be missed)
        assert want["pool"] - hidden - 2 <= got.pool <= want["pool"]  # type: ignore[operator]
        assert list(got.seats) == want["seats"]


def hand_scene(seed: int, felt: tuple[int, int, int], colour: tuple[int, int, int]) -> tuple[int, int]:
    """Pool stones counted, and those whose centre the hand leaves in view, with a hand over the pool."""
    got, want, scene = render(seed, pool_stones=10, stone_mm=20.0, felt=felt, stone_colour=colour,
                              hand_over_pool=True, touching=0.2, px_per_mm=1.3)
    hidden = sum(1 for s in scene.stone_truth if s.under_hand)  # type: ignore[attr-defined]
    return got.pool, want["pool"] - hidden  # type: ignore[operator]


def test_pieces_of_a_hand_of_the_stones_colour_are_not_stones() -> None:
    # a tan hand beside orange chips: its fingers, cut from the palm, are of nearly the stones' colour
    # and of a few stones' size, but not of their colour, and no stone's disc fits in a fingertip
    got, visible = hand_scene(7, (40, 110, 30), (60, 140, 220))
    assert visible - 1 <= got <= visible


def test_a_stone_against_the_hand_is_cut_off_it() -> None:
    # a white stone half under a finger: its core is tied to the finger's by a thread, cut
    got, visible = hand_scene(4, (90, 72, 9), (230, 230, 230))
    assert got == visible


@pytest.mark.parametrize("seed", [6, 7])
def test_a_pink_hand_beside_white_stones_is_not_stones(seed: int) -> None:
    # on brown felt a pink hand is, like white stones, lighter and redder than the felt: its fingers and
    # wrist are not stones (stone-sized discs leave much of them), nor is it a glare (it does not fade out)
    got, want, scene = render(seed, pool_stones=12, stone_mm=22.0, felt=(34, 62, 100), stone_colour=(230, 230, 230),
                              hand_over_pool=True, touching=0.1, px_per_mm=1.3)
    visible = want["pool"] - sum(1 for s in scene.stone_truth if s.under_hand)  # type: ignore[attr-defined,operator]
    # a stone whose centre is just under a fingertip may be counted from what shows of it
    assert got.pool <= visible + 1


SEED_11_INC = 7937318808080196428804369945471644491
"""The PCG64 increment of ``np.random.default_rng(11)`` (each seed has its own)."""


def evaluated_scene(uinteger: int, state: int, inc: int = SEED_11_INC, has_uint32: int = 0,
                    style: str = "clasica") -> RenderedScene:
    """A scene of ``mus-table bench accuracy``, from the random generator's state before it was drawn."""
    rng = np.random.default_rng()
    rng.bit_generator.state = {"bit_generator": "PCG64", "has_uint32": has_uint32, "uinteger": uinteger,
                               "state": {"state": state, "inc": inc}}
    return render_scene(random_scene(rng, deck=HELD_OUT_STYLES[style]), rng)


def read_zones(scene: RenderedScene) -> tuple[list[int], list[int]]:
    """The stones the whole reader counts by zone (pool, seats 0-3), and the truth (no card model needed)."""
    from vision.classifier import NeverSure
    from vision.reading import TableReader

    got = TableReader(classifier=NeverSure()).read(scene.image).stones
    hidden = sum(1 for s in scene.stone_truth if s.under_hand and s.zone == "pool")
    return [got.pool, *got.seats], [scene.stones["pool"] - hidden, *scene.stones["seats"]]


def test_a_ragged_hand_under_a_glare_is_not_stones() -> None:
    # `mus-table bench accuracy`'s scene 98 of seed 11 (the renderer of 29 Nov): a hand under a glare, its palm and
    # fingers of nearly the stones' colour once the glare is taken off, read as 19 stones by area; a
    # ragged blob that stone-sized discs do not cover is not stones
    scene = evaluated_scene(3406502066, 167119465422782748810920047105787499632)
    cal = calibrate(scene.image)
    assert cal is not None
    rect = cal.rectify(scene.image, K)
    got = count_stones(rect, estimate_felt(rect, K), K).count
    visible = scene.stones["pool"] - sum(1 for s in scene.stone_truth if s.under_hand)
    assert got.pool <= visible + 1


def test_white_stones_taken_for_a_card_are_counted() -> None:
    # `mus-table bench accuracy`'s scene 22 of seed 11 (the renderer of 29 Nov), read by the whole reader: five
    # touching white stones in seat 3's zone are card-sized and the card finder takes them for a card
    # (outside the card zones: unknown); the stones' search looks again inside the stone zones
    from vision.classifier import NeverSure
    from vision.reading import TableReader

    scene = evaluated_scene(2266314610, 260838584603991526045453994084262674071)
    reading = TableReader(classifier=NeverSure()).read(scene.image)  # no card model needed
    assert reading.stones.seats[3] == scene.stones["seats"][3]


def test_smoother_forgets_a_passing_hand() -> None:
    s = StoneSmoother(window=5)
    frames = [StoneCount(12, (3, 1, 0, 2))] * 3 + [StoneCount(4, (3, 1, 0, 2)), StoneCount(30, (3, 1, 0, 2))]
    for f in frames:
        out = s.push(f)
    assert out == StoneCount(12, (3, 1, 0, 2))


@pytest.mark.parametrize("light", ["even", "shadow"])
def test_black_stones_on_dark_felt_count_once_each(light: str) -> None:
    # black stones whose pixels straddle the shadow limit fall apart into crumbs unless the
    # darkest pixels are grown over what is a little less dark around them
    felt, black = (44, 81, 71), (24, 26, 24)
    pool = [(340.0, 360.0), (380.0, 370.0), (420.0, 350.0), (360.0, 420.0), (430.0, 430.0)]
    seat = [(630.0, 640.0), (670.0, 650.0), (650.0, 690.0)]
    img = top_down(felt, pool + seat, 24.0, black, light)
    # a highlight on each stone, as a lamp gives a polished stone
    for x, y in pool + seat:
        cv2.circle(img, (round((x - 4) * K), round((y - 4) * K)), round(3 * K), (70, 72, 70), -1, cv2.LINE_AA)
    got = count(img)
    assert (got.pool, got.seats[0]) == (5, 3)


def test_a_lighter_blotch_of_mottled_felt_is_not_stones() -> None:
    # teal felt, light green-teal stones; a blotch of the felt lighter towards the stones' colour,
    # as big as three stones, rises slowly from the felt: it has no edge, a stone has one
    img = top_down((134, 110, 35), [(360.0, 420.0), (440.0, 380.0)], 22.0, (180, 200, 60)).astype(np.float32)
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]].astype(np.float32)
    bump = np.exp(-(((xx - 420 * K) / (22 * K)) ** 2 + ((yy - 440 * K) / (30 * K)) ** 2))
    img += bump[:, :, None] * 0.6 * np.array([46.0, 90.0, 25.0], np.float32)  # 60 % of the way to a stone
    got = count(np.clip(img, 0, 255).astype(np.uint8))
    assert got.pool == 2


def test_a_deep_shadow_beside_red_stones_is_not_a_stone() -> None:
    # `mus-table bench accuracy`'s scene 56 of seed 23: red stones on dark brown felt, one lying in a deep
    # shadow of the felt; what only its darkness made stone pixels (not of the stones' hue) joined the stone
    # into a blob of two stones' area, twice
    scene = evaluated_scene(2047334609, 155940393082454634858102186323610191254,
                            18438579778062455872196599375400725907, 1)
    got, want = read_zones(scene)
    assert got == want and want[3:] == [3, 7]


def test_stones_a_glare_paled_under_the_thresholds_are_counted() -> None:
    # scene 91 of seed 7: six teal stones on green felt under a glare of 0.76 keep their hue but not half
    # their contrast: none passed the pixel thresholds whole (read 0 for 6)
    scene = evaluated_scene(626979653, 103728084535135127882464635855614797097,
                            261136684632268670825940853076396136793, 1, "moderna")
    got, want = read_zones(scene)
    assert got == want and want[1] == 6


def test_touching_stones_a_glare_paled_are_counted_by_their_own_thickness() -> None:
    # scene 24 of seed 11: five yellow stones on beige felt under a glare, cut without their rims: two blobs
    # of 1.5 and 2.1 plain-light stones' area that hold two and three stones
    scene = evaluated_scene(1269864971, 150290252066300294540223438258481870389)
    got, want = read_zones(scene)
    assert got == want and want[4] == 5


@pytest.mark.parametrize("uinteger, state, inc, want_pool", [
    (2057274601, 295604769781206112238117364444754632054, SEED_11_INC, 16),
    (1962505907, 329755313149933410373490912410999884042, 18438579778062455872196599375400725907, 23),  # 23/174
], ids=["seed 11 scene 6", "seed 23 scene 174"])
def test_a_cluster_between_two_counts_is_settled_by_its_discs(uinteger: int, state: int, inc: int,
                                                              want_pool: int) -> None:
    # in plain light a cluster's stones have 0.91-0.95 of a single stone's area (blur, shared edges): six
    # stones of 5.46 areas and nine of 8.34 were read by area one short; the discs that fit, covering 90 %
    # of the blob or more, settle a count that lies between two
    scene = evaluated_scene(uinteger, state, inc)
    got, want = read_zones(scene)
    assert got == want and want[0] == want_pool


def test_two_small_touching_stones_blurred_nearly_solid_are_counted() -> None:
    # scene 110 of seed 23: two 15 mm blue stones touching on dark red felt, blurred: their notches half
    # filled, the blob is as solid (0.988) as a bar and was refused; its two notches (0.2 and 0.38 of a
    # stone's radius deep) say it is two discs
    scene = evaluated_scene(3990639769, 55290472164295923061012371074674105968,
                            18438579778062455872196599375400725907)
    got, want = read_zones(scene)
    assert got == want and want[2] == 2


def test_a_chain_of_white_stones_is_not_a_glare() -> None:
    # scene 127 of seed 31: five white 30 mm stones in a chain in seat 0's zone, on red felt under a warm
    # light, look like the felt with white added and are as large as a glare; taken off as one, only their
    # highlights were left (0 for 5). A glare is broad: a chain of stones is long but never deep
    scene = evaluated_scene(1455187770, 226982861558306622772517711199033085392,
                            107090353359002252723118071224206516545, 1, "moderna")
    got, want = read_zones(scene)
    assert got == want and want[1] == 5


@pytest.mark.parametrize("uinteger, state, inc, style", [
    (3443746481, 268483505983030944605989567264209455721, SEED_11_INC, "clasica"),
    (3664069299, 166836764656181785418352672501698094347, 107090353359002252723118071224206516545, "moderna"),
], ids=["seed 11 scene 20", "seed 31 scene 133"])
def test_a_stone_tied_to_the_hand_by_its_shadow_is_cut_off_it(uinteger: int, state: int, inc: int,
                                                               style: str) -> None:
    # a stone in full view against the hand, the neck to it widened by the hand's soft shadow: eroded by
    # 0.7 of a stone's radius its core still joins the palm's; by 0.85 it stands alone, and grown back it
    # is one whole round stone with a stone's sharp edge to the felt
    scene = evaluated_scene(uinteger, state, inc, 1, style)
    got, want = read_zones(scene)
    assert got == want


def test_the_deeper_cut_carves_no_stone_out_of_a_blotch() -> None:
    # scene 151 of seed 23: a lighter blotch of teal felt, towards the light green stones' colour; eroded
    # deeper it leaves a small core that, grown back, is round: it rises slowly from the felt, no stone
    scene = evaluated_scene(3547216703, 280537448545500695966369576295017829823,
                            18438579778062455872196599375400725907, 1, "moderna")
    got, want = read_zones(scene)
    assert got == want and want[0] == 1


def test_a_stone_in_the_hands_shadow_is_the_stones_colour_made_darker() -> None:
    # scene 87 of seed 11: a yellow stone in full view in the hand's shadow on red felt, cut from the hand's
    # blob as a whole round stone, has the stones' colour shifted alike in every channel (its blue, near
    # black, less) and was refused as not the stones' colour. One stone of the bench's truth stays unread:
    # its centre lies between two fingers with a third of it in view
    scene = evaluated_scene(383199214, 297042743659392531565996346592772193181, style="moderna")
    got, want = read_zones(scene)
    assert got[0] == want[0] - 1 and got[1:] == want[1:]


@pytest.mark.parametrize("uinteger, state, inc, has_uint32, style", [
    (3981057068, 203596703211432787497373766603209373758, 18438579778062455872196599375400725907, 1, "moderna"),
    (3014264364, 146363719886613731319919831940200723893, 107090353359002252723118071224206516545, 0, "clasica"),
], ids=["seed 23 scene 89", "seed 31 scene 164"])
def test_a_stone_behind_a_fingertip_in_its_shadow_is_counted(uinteger: int, state: int, inc: int, has_uint32: int,
                                                            style: str) -> None:
    # a stone two thirds in view behind a fingertip, in the hand's shadow: thinner than a stone and off the
    # stones' colour, it was refused as a fingertip; it is their colour made darker, and its free edge is an
    # arc of a stone's radius (a fingertip's is straight)
    scene = evaluated_scene(uinteger, state, inc, has_uint32, style)
    got, want = read_zones(scene)
    assert got == want


@pytest.mark.parametrize("uinteger, state, inc, style, want_pool", [
    (1730678202, 186486595070125768584672384937455547480, SEED_11_INC, "clasica", 12),
    (2146965047, 142419716390630075772029768025495306100, 18438579778062455872196599375400725907, "moderna", 9),
], ids=["seed 11 scene 90", "seed 23 scene 87"])
def test_grey_stones_under_a_glare_are_no_felt_to_fit_it_on(uinteger: int, state: int, inc: int, style: str,
                                                           want_pool: int) -> None:
    # white stones under a glare of 0.86 (seed 11 scene 90, a hand beside them: 4 read for 12) and black
    # ones under 0.9 (seed 23 scene 87: 8 for 9) are grey, and grey fits a glare as white with a little of
    # the felt's light (the pull towards no white keeps some in it): taken for felt, they dragged the felt
    # under the glare down to their own light, and were no longer unlike it. Measured without the pull,
    # none of the felt is left in them
    scene = evaluated_scene(uinteger, state, inc, 0, style)
    got, want = read_zones(scene)
    assert got == want and want[0] == want_pool


def test_a_finger_the_glare_paled_is_not_stones_beside_a_stone() -> None:
    # scene 98 of seed 11: a finger under a glare of 0.83, paled to nearly the stones' orange, touches an
    # orange stone in full view; the blob (three stone areas, its discs covering it) was read as three
    # stones. Its outline is 23 % arcs of a stone's radius (touching stones under a glare: 37 % and more);
    # refused, the stone is cut from it and the finger's piece is refused as a fingertip. One stone of the
    # bench's truth stays unread: 60 % in view under the finger's joint
    scene = evaluated_scene(3406502066, 167119465422782748810920047105787499632)
    got, want = read_zones(scene)
    assert got[0] == want[0] - 1 and got[1:] == want[1:]


def test_a_white_stone_on_grey_felt_under_a_glare_does_not_hold_the_glare_down() -> None:
    # scene 39 of seed 11: a white stone on grey felt under a glare of 0.65 fits the glare's model as felt
    # brighter than its model with little white; as wide as it is, it held the smoothed fields near its own and
    # was no outlier of them, so it was taken for felt and no longer unlike it (9 read for 10). The fields are
    # first smoothed from the felt that keeps no more of its colour than the felt model (a glare only takes away)
    scene = evaluated_scene(3485310285, 208792240768102960667170738078897397661, style="moderna")
    got, want = read_zones(scene)
    assert got == want and want[0] == 10


def test_a_paled_stone_touching_one_counted_is_cut_alone() -> None:
    # scene 73 of seed 7: two yellow stones touching in seat 3's zone, paled by a glare below the pixel
    # thresholds; the stronger was counted from its own peak, and the other's cut, at half its own (weaker)
    # contrast, took both in and overlapped the first: it was left out (4 read for 5). A paled stone found
    # is no part of the next one's cut
    scene = evaluated_scene(1040593759, 244077598579363459604703013190144358859,
                            261136684632268670825940853076396136793, style="moderna")
    got, want = read_zones(scene)
    assert got == want and want[4] == 5


def test_a_black_stone_s_edge_under_a_glare_does_not_darken_the_felt_beside_it() -> None:
    # scene 185 of seed 23: a black stone on beige felt under a glare of 0.57 is grey; where it blends with the
    # felt at its edge, the glare's cells are the felt's colour dimmed, and taken for felt they held the felt
    # under the glare down beside the stone, as dark as it (seat 1: 0 read for 1). Felt far darker than the
    # smoothed field is left out of the refit, as what is far brighter was
    scene = evaluated_scene(1634364631, 72528904475340410127266700856067050259,
                            18438579778062455872196599375400725907, style="moderna")
    got, want = read_zones(scene)
    assert got == want and want[2] == 1


def test_touching_stones_of_more_contrast_are_counted_by_their_own_radius() -> None:
    # scene 198 of seed 11: five blue stones touching in seat 0's zone, in a light that gives them more contrast
    # than the single stones the size was learnt from: cut at the same threshold they take in more of their
    # blurred rims, 1.18 single stones' area each, and were read as six. Their outline is arcs of their own
    # radius (1.07 of the single stones')
    scene = evaluated_scene(1071107936, 143396797344817805884995200047239634147, has_uint32=1)
    got, want = read_zones(scene)
    assert got == want and want[1] == 7


def test_a_stone_paled_at_the_heart_of_a_glare_is_looked_at() -> None:
    # scene 4 of seed 11: eight light green stones on green felt in seat 1's zone under a glare of 0.75; the one
    # at its heart kept 13 % of the stones' contrast, disc against ring, and was never looked at (15 % of it was
    # asked besides the least contrast). Where to look is only the least contrast: the cut decides
    scene = evaluated_scene(2401128447, 270329552302423149127285964934883096763)
    got, want = read_zones(scene)
    assert got == want and want[2] == 8


SEED_21_INC = 309141390015141504862174807861076180645
SEED_22_INC = 188221490827988801950180874055372779863


def test_black_stones_riddled_with_felt_specks_keep_their_area() -> None:
    # scene 39 of seed 21: black stones on dark teal felt in a dim corner straddle the darkness limit, and the
    # noise leaves specks of felt inside them; the opening widened every speck by its disc, and a stone kept a
    # third of its area (seat 2: 4 read for 6). The specks are filled before the opening
    scene = evaluated_scene(747934957, 61484192941753084021061475007222602946, SEED_21_INC, style="moderna")
    got, want = read_zones(scene)
    assert got[1:] == want[1:] and want[3] == 6


def test_black_stones_a_glare_fit_took_for_felt_are_found_as_seen() -> None:
    # scene 24 of seed 22: black stones on beige felt under a glare of 0.68 are grey; on felt so light the
    # glare's fit took nearly all the felt's light for the glare's white, and with it taken off the stones were
    # as light as the felt (seat 1: 1 read for 6). As seen, glare and all, they are still darker than the felt
    # around them: the paled stones are looked for there too
    scene = evaluated_scene(1285635324, 229129176381995070230969775162311623565, SEED_22_INC)
    got, want = read_zones(scene)
    assert got == want and want[2] == 6


def test_a_hand_over_the_pool_is_said_and_no_stone_is_guessed() -> None:
    # scene 27 of seed 21: a hand over the pool, 17 stones there, some wholly under it, one under a finger;
    # the stones that show are counted, none guessed, and the reading says the pool may hide stones
    from vision.classifier import NeverSure
    from vision.reading import STONES_HIDDEN, TableReader

    scene = evaluated_scene(2627178929, 320267563689646852068813318606828843187, SEED_21_INC, style="moderna")
    reading = TableReader(classifier=NeverSure()).read(scene.image)
    pool = [t for t in scene.stone_truth if t.zone == "pool"]
    seen = sum(1 for t in pool if t.visible >= 0.75)
    shows = sum(1 for t in pool if t.visible > 0.25)
    assert seen < len(pool) and seen <= reading.stones.pool <= shows
    assert {str(u.zone) for u in reading.unknown if u.why == STONES_HIDDEN} == {"pool"}
    assert list(reading.stones.seats) == scene.stones["seats"]


def test_no_hand_no_stones_said_hidden() -> None:
    # stones in every zone, cards, no hand: nothing is said to hide stones
    from vision.classifier import NeverSure
    from vision.reading import STONES_HIDDEN, TableReader

    scene = evaluated_scene(1285635324, 229129176381995070230969775162311623565, SEED_22_INC)
    reading = TableReader(classifier=NeverSure()).read(scene.image)
    assert not any(u.why == STONES_HIDDEN for u in reading.unknown)


def test_a_compact_cluster_the_peel_covers_badly_is_still_stones() -> None:
    # scene 83 of seed 21: six dark red stones touching in seat 1's zone; the greedy peel, starting where the
    # cluster is deepest (between stones), covered 0.6 of it and it was refused as not round stones (4 read
    # for 6). Its outline is arcs of a stone's radius (0.6 of it; a hand's, 0.3) and it is a stone deep
    scene = evaluated_scene(484087416, 195022343148487399298777699304133780411, SEED_21_INC, style="moderna")
    got, want = read_zones(scene)
    assert got == want and want[2] == 6


def test_a_lone_stone_a_faint_glare_paled_is_counted() -> None:
    # scene 32 of seed 22: yellow stones on grey-violet felt under a glare of 0.77 that was not taken off (too
    # near the felt's colour to be fitted): the two lone stones at its edge kept half the stones' strength, of
    # their hue, and were refused as not the stones' colour (seat 3: 0 read for 5). One whole round stone by
    # itself of the stones' hue is a stone; the three at the glare's heart are not cut at all (never invented)
    scene = evaluated_scene(923005679, 142911614374719979880212410014993622221, SEED_22_INC)
    got, want = read_zones(scene)
    assert got[:4] == want[:4] and got[4] == 2 and want[4] == 5
