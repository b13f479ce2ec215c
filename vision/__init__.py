"""From a camera frame to a reading: mat calibration, cards, stones.

The reader that runs on the Pi: no hardware, no web, no training code.

May import (of the project): ``table`` only (cards, seats, zones' values and the
error tree). ``models``, ``firmware``, ``web`` and ``hardware`` import it.
"""
