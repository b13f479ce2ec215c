"""What is built and printed: the printable mat, the camera's height over the table, the wiring.

Design-time code: it runs on a laptop as well as on the Pi, and nothing in it
touches a camera or a pin. ``mus-table mat`` and ``mus-table camera-check`` call
it; ``python -m hardware.make_docs`` writes the tables and drawing of
hardware/README.md from it. The Pi appliance (install script, systemd unit,
kiosk) lives in ``hardware/pi/``.

May import (of the project): ``table.errors``, ``vision``'s mat geometry and
constants (``vision.mat``, ``vision.cardcrop``). The panel's pins
(``hardware.pins.PanelPins``) are defined here and driven by ``firmware.panel``. Nothing in ``table``, ``vision`` or
``web`` imports it.
"""
