import numpy as np

from vision.cardcrop import (
    BAND_H,
    BAND_W,
    CROP_H,
    CROP_W,
    bands_of_crop,
    card_bands,
    half_turn,
    order_quad,
    to_model_input,
    warp_bands,
    warp_card,
)


def test_quad_order_is_portrait_whatever_the_input_order() -> None:
    landscape = [(10, 10), (110, 10), (110, 70), (10, 70)]
    for shift in range(4):
        q = order_quad(np.roll(np.array(landscape, dtype=np.float32), shift, axis=0))
        assert np.linalg.norm(q[1] - q[0]) < np.linalg.norm(q[2] - q[1])


def test_warp_produces_the_canonical_crop() -> None:
    img = np.zeros((200, 200, 3), np.uint8)
    img[50:150, 60:125] = (0, 0, 255)
    crop = warp_card(img, [(60, 50), (124, 50), (124, 149), (60, 149)])
    assert crop.shape == (CROP_H, CROP_W, 3)
    assert crop[CROP_H // 2, CROP_W // 2].tolist() == [0, 0, 255]
    x = to_model_input([crop, crop])
    assert x.shape == (2, 3, CROP_H, CROP_W) and x.dtype == np.float32
    assert x[0, 0, CROP_H // 2, CROP_W // 2] == 1.0  # red lands in channel 0 (RGB)


def _card_image() -> tuple[np.ndarray, list[tuple[int, int]]]:
    """A 'card' 64 x 100 px whose top quarter is red and bottom quarter blue, on grey."""
    img = np.full((200, 200, 3), 128, np.uint8)
    img[50:150, 60:124] = (255, 255, 255)
    img[50:75, 60:124] = (0, 0, 255)
    img[125:150, 60:124] = (255, 0, 0)
    return img, [(60, 50), (123, 50), (123, 149), (60, 149)]


def test_end_bands_are_the_card_ends_cut_from_the_frame_both_reading_the_same_way() -> None:
    img, quad = _card_image()
    bands = warp_bands(img, quad)
    assert bands.shape == (2, BAND_H, BAND_W, 3) and bands.dtype == np.uint8
    centre = (BAND_H // 2, BAND_W // 2)
    assert bands[0][centre].tolist() == [0, 0, 255]  # the top quarter
    assert bands[1][centre].tolist() == [255, 0, 0]  # the bottom quarter, turned
    # a crop remembers its frame: its bands come from the frame, not from the small crop
    crop = warp_card(img, quad)
    assert np.array_equal(card_bands(crop), bands)
    turned = half_turn(crop)
    assert np.array_equal(np.asarray(turned), np.asarray(crop)[::-1, ::-1])
    assert {b.tobytes() for b in card_bands(turned)} == {b.tobytes() for b in bands}


def test_a_plain_crop_gives_its_bands_from_itself() -> None:
    img, quad = _card_image()
    crop = np.array(warp_card(img, quad))  # a copy: no frame behind it
    assert getattr(crop, "source", None) is None
    bands = card_bands(crop)
    assert bands.shape == (2, BAND_H, BAND_W, 3)
    assert bands[0][BAND_H // 2, BAND_W // 2].tolist() == [0, 0, 255]
    assert np.array_equal(bands, bands_of_crop(crop))
    # anything cut from a crop forgets the frame
    assert getattr(warp_card(img, quad)[:50], "source", None) is None
