import numpy as np

from vision.cardcrop import CROP_H, CROP_W, order_quad, to_model_input, warp_card


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
