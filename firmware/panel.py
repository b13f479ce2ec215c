"""The table's button panel: three buttons, two status LEDs and a buzzer, through gpiozero.

The table loop never touches GPIO itself: it polls :meth:`Panel.poll` for
:class:`PanelEvent` values and calls :meth:`Panel.light` and :meth:`Panel.beep`.
Every gpiozero device gets the injected ``pin_factory`` (None: gpiozero's default,
lgpio on a Pi 5), so tests run on gpiozero's ``MockFactory``.

The buttons (wired between the GPIO and GND, internal pull-ups):

* **confirm** (green): «yes, that is what the table shows» — accept a reading or a score;
* **correct** (yellow): «no» — open the correction on the display;
* **undo** (red): take back the last accepted hand.

A press is reported when the button is released; held for ``long_press_s`` or
more it is a long press (``PanelEvent(button, long=True)``), which the table loop
may give a stronger meaning (e.g. undo a whole juego). The LEDs: green «ready /
accepted», red «look at the display». The buzzer: one short beep (accepted),
two (attention), one long (error).

>>> from gpiozero.pins.mock import MockFactory
>>> factory = MockFactory()
>>> with Panel(pin_factory=factory) as panel:
...     factory.pin(PanelPins().confirm).drive_low()
...     factory.pin(PanelPins().confirm).drive_high()
...     print(panel.wait(timeout=10))  # gpiozero calls back on its own thread
confirm
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from gpiozero import LED, Button, Buzzer

from hardware.pins import PanelPins
from table.errors import InvalidInput


class PanelButton(Enum):
    CONFIRM = "confirm"
    CORRECT = "correct"
    UNDO = "undo"


@dataclass(frozen=True, slots=True)
class PanelEvent:
    """A button released: ``confirm``, or ``confirm long`` after a long press."""

    button: PanelButton
    long: bool = False

    def __str__(self) -> str:
        return self.button.value + (" long" if self.long else "")

    @classmethod
    def parse(cls, text: str) -> PanelEvent:
        """``PanelEvent.parse("undo long")``; the inverse of ``str``."""
        words = text.split()
        try:
            if len(words) == 1:
                return cls(PanelButton(words[0]))
            if len(words) == 2 and words[1] == "long":
                return cls(PanelButton(words[0]), long=True)
        except ValueError:
            pass
        raise InvalidInput(f"not a panel event: {text!r} (confirm, correct, undo, + ' long')")


class Light(Enum):
    OFF = "off"
    ON = "on"
    BLINK = "blink"


@dataclass(frozen=True, slots=True)
class BeepPattern:
    """``n`` beeps of ``on_s`` seconds, ``off_s`` apart."""

    on_s: float
    off_s: float
    n: int


BEEP_OK = BeepPattern(0.06, 0.0, 1)
BEEP_ATTENTION = BeepPattern(0.08, 0.08, 2)
BEEP_ERROR = BeepPattern(0.5, 0.0, 1)
BLINK_S = 0.4


class Panel:
    """The panel's devices, opened on ``pins`` with ``pin_factory``; close() releases them.

    ``buzzer_active_high=False`` is for the ready-made buzzer modules that sound
    while their input is low (a PNP on the board): the pin then rests high.
    """

    def __init__(self, pins: PanelPins | None = None, *, pin_factory: Any = None,
                 long_press_s: float = 1.5, bounce_s: float | None = 0.03, buzzer_active_high: bool = True,
                 clock: Callable[[], float] = time.monotonic,
                 on_event: Callable[[PanelEvent], None] | None = None) -> None:
        self.pins = pins or PanelPins()
        self.long_press_s = long_press_s
        self._clock = clock
        self._on_event = on_event
        self._events: queue.SimpleQueue[PanelEvent] = queue.SimpleQueue()
        self._pressed_at: dict[PanelButton, float] = {}
        self._lights = {"green": Light.OFF, "red": Light.OFF}
        self._devices: list[Any] = []
        try:
            self.buttons: dict[PanelButton, Button] = {}
            for which, gpio in ((PanelButton.CONFIRM, self.pins.confirm),
                                (PanelButton.CORRECT, self.pins.correct),
                                (PanelButton.UNDO, self.pins.undo)):
                b = Button(gpio, pull_up=True, bounce_time=bounce_s, pin_factory=pin_factory)
                self._devices.append(b)
                b.when_pressed = self._pressed(which)
                b.when_released = self._released(which)
                self.buttons[which] = b
            self.green = LED(self.pins.green_led, pin_factory=pin_factory)
            self._devices.append(self.green)
            self.red = LED(self.pins.red_led, pin_factory=pin_factory)
            self._devices.append(self.red)
            self.buzzer = Buzzer(self.pins.buzzer, active_high=buzzer_active_high, pin_factory=pin_factory)
            self._devices.append(self.buzzer)
        except Exception:
            self.close()
            raise

    # --- buttons ------------------------------------------------------------------------------

    def _pressed(self, which: PanelButton) -> Callable[[], None]:
        def handler() -> None:
            self._pressed_at[which] = self._clock()
        return handler

    def _released(self, which: PanelButton) -> Callable[[], None]:
        def handler() -> None:
            start = self._pressed_at.pop(which, None)
            if start is None:  # a release without a press (opened while held): ignore
                return
            event = PanelEvent(which, long=self._clock() - start >= self.long_press_s)
            self._events.put(event)
            if self._on_event is not None:
                self._on_event(event)
        return handler

    def poll(self) -> PanelEvent | None:
        """The oldest event not yet taken, or None."""
        try:
            return self._events.get_nowait()
        except queue.Empty:
            return None

    def wait(self, timeout: float | None = None) -> PanelEvent | None:
        """The next event, waiting up to ``timeout`` seconds (None: for ever)."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def events(self) -> list[PanelEvent]:
        """Every event waiting, oldest first."""
        out = []
        while (e := self.poll()) is not None:
            out.append(e)
        return out

    # --- lights and sound --------------------------------------------------------------------

    @property
    def lights(self) -> tuple[Light, Light]:
        """(green, red) as last set."""
        return (self._lights["green"], self._lights["red"])

    def light(self, green: Light | None = None, red: Light | None = None) -> None:
        """Set either LED (None leaves it as it is)."""
        for name, led, want in (("green", self.green, green), ("red", self.red, red)):
            if want is None:
                continue
            if want is Light.ON:
                led.on()
            elif want is Light.OFF:
                led.off()
            else:
                led.blink(BLINK_S, BLINK_S, background=True)
            self._lights[name] = want

    def beep(self, pattern: BeepPattern = BEEP_OK, wait: bool = False) -> None:
        """Sound a pattern; in the background unless ``wait``."""
        if pattern.n < 1 or pattern.on_s <= 0 or pattern.off_s < 0:
            raise InvalidInput(f"not a beep: {pattern}")
        self.buzzer.beep(pattern.on_s, pattern.off_s, n=pattern.n, background=not wait)

    # --- life ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Turn everything off and release the pins (safe to call twice)."""
        for device in reversed(self._devices):
            try:
                if hasattr(device, "off"):
                    device.off()  # dark and silent, not left as they were
                device.close()
            except Exception:  # noqa: S110 - closing must go on for the others
                pass
        self._devices.clear()

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
