"""From a camera frame to a reading: mat calibration, cards, stones. No hardware, no web."""
