"""The panel's GPIO numbers: the one place the wiring lives in code.

:mod:`firmware.panel` drives the parts on these pins; :mod:`hardware.wiring`
draws the README's table and the SVG from them.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class PanelPins:
    """BCM GPIO numbers of the panel's parts: the one place the wiring lives in code.

    hardware/README.md's wiring table and hardware/wiring.svg are generated from it.
    The defaults avoid I2C (GPIO2/3), SPI, the UART (14/15) and PCM audio (18-21).
    """

    confirm: int = 17
    correct: int = 27
    undo: int = 22
    green_led: int = 23
    red_led: int = 24
    buzzer: int = 25

    def __post_init__(self) -> None:
        values = [self.confirm, self.correct, self.undo, self.green_led, self.red_led, self.buzzer]
        if len(set(values)) != len(values):
            raise InvalidInput(f"two parts of the panel share a GPIO: {values}")
        for v in values:
            if not 2 <= v <= 27:
                raise InvalidInput(f"GPIO{v} is not a header GPIO (2-27)")
