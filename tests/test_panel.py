"""The GPIO panel on gpiozero's MockFactory: presses become events, LEDs and buzzer follow."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import LED
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from firmware.panel import (
    BEEP_ATTENTION,
    BeepPattern,
    Light,
    Panel,
    PanelButton,
    PanelEvent,
    PanelPins,
)
from table.errors import InvalidInput

PINS = PanelPins()
GPIO = {PanelButton.CONFIRM: PINS.confirm, PanelButton.CORRECT: PINS.correct,
        PanelButton.UNDO: PINS.undo}


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()  # or the next test finds the pins still «in use»


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def press(factory: MockFactory, gpio: int, clock: Clock | None = None, hold: float = 0.1) -> None:
    factory.pin(gpio).drive_low()  # buttons pull up; pressed connects the GPIO to GND
    if clock is not None:
        clock.now += hold
    factory.pin(gpio).drive_high()


def test_each_button_gives_its_event_on_release(factory: MockFactory) -> None:
    with Panel(pin_factory=factory) as panel:
        assert panel.poll() is None
        for button, gpio in GPIO.items():
            factory.pin(gpio).drive_low()
            assert panel.poll() is None  # nothing until it is let go
            factory.pin(gpio).drive_high()
            assert panel.poll() == PanelEvent(button)
        assert panel.poll() is None


def test_a_long_press_is_told_apart(factory: MockFactory) -> None:
    clock = Clock()
    with Panel(pin_factory=factory, clock=clock, long_press_s=1.5) as panel:
        press(factory, PINS.undo, clock, hold=1.49)
        press(factory, PINS.undo, clock, hold=1.5)
        press(factory, PINS.confirm, clock, hold=4.0)
        assert panel.events() == [PanelEvent(PanelButton.UNDO),
                                  PanelEvent(PanelButton.UNDO, long=True),
                                  PanelEvent(PanelButton.CONFIRM, long=True)]
        assert panel.events() == []


def test_events_keep_their_order_and_reach_the_callback(factory: MockFactory) -> None:
    seen: list[PanelEvent] = []
    with Panel(pin_factory=factory, on_event=seen.append) as panel:
        order = [PanelButton.CORRECT, PanelButton.CONFIRM, PanelButton.CORRECT, PanelButton.UNDO]
        for b in order:
            press(factory, GPIO[b])
        assert [e.button for e in seen] == order
        assert [panel.wait(timeout=0) for _ in order] == seen
        assert panel.wait(timeout=0) is None


def test_lights_drive_their_pins(factory: MockFactory) -> None:
    with Panel(pin_factory=factory) as panel:
        green, red = factory.pin(PINS.green_led), factory.pin(PINS.red_led)
        assert (green.state, red.state) == (False, False)
        panel.light(green=Light.ON)
        assert (green.state, red.state) == (True, False)
        panel.light(red=Light.ON)  # green left as it was
        assert (green.state, red.state) == (True, True)
        assert panel.lights == (Light.ON, Light.ON)
        panel.light(green=Light.OFF, red=Light.BLINK)
        assert panel.lights == (Light.OFF, Light.BLINK)
        assert panel.red._blink_thread is not None  # blinking in the background
        panel.light(red=Light.OFF)  # stops the blinking
        assert red.state is False and not green.state
        assert panel.red._blink_thread is None  # the blinking thread is gone: it stays off


def test_beep_pulses_the_buzzer(factory: MockFactory) -> None:
    with Panel(pin_factory=factory) as panel:
        buzzer = factory.pin(PINS.buzzer)
        buzzer.clear_states()
        panel.beep(BeepPattern(0.001, 0.001, 3), wait=True)
        rising = sum(1 for a, b in zip(buzzer.states, buzzer.states[1:], strict=False)
                     if not a.state and b.state)
        assert rising == 3 and buzzer.state is False
        with pytest.raises(InvalidInput):
            panel.beep(BeepPattern(0.0, 0.1, 1))
        buzzer.clear_states()
        panel.beep(BEEP_ATTENTION, wait=True)  # «attention» is heard as two beeps
        rising = sum(1 for a, b in zip(buzzer.states, buzzer.states[1:], strict=False)
                     if not a.state and b.state)
        assert rising == 2


def test_a_low_triggered_buzzer_module_rests_high_and_beeps_low(factory: MockFactory) -> None:
    with Panel(pin_factory=factory, buzzer_active_high=False) as panel:
        buzzer = factory.pin(PINS.buzzer)
        assert buzzer.state is True  # silent: a low-triggered module sounds while its input is low
        buzzer.clear_states()
        panel.beep(BeepPattern(0.001, 0.001, 2), wait=True)
        falling = sum(1 for a, b in zip(buzzer.states, buzzer.states[1:], strict=False)
                      if a.state and not b.state)
        assert falling == 2 and buzzer.state is True


def test_close_releases_every_pin(factory: MockFactory) -> None:
    panel = Panel(pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        LED(PINS.green_led, pin_factory=factory)
    panel.light(green=Light.ON)
    panel.close()
    panel.close()  # twice is fine
    assert factory.pin(PINS.green_led).state is False
    for gpio in (PINS.confirm, PINS.correct, PINS.undo, PINS.green_led, PINS.red_led, PINS.buzzer):
        LED(gpio, pin_factory=factory).close()  # free again


def test_a_failed_open_gives_back_what_it_took(factory: MockFactory) -> None:
    squatter = LED(PINS.buzzer, pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        Panel(pin_factory=factory)
    squatter.close()
    Panel(pin_factory=factory).close()  # the buttons and LEDs were released


def test_other_pins_can_be_chosen(factory: MockFactory) -> None:
    pins = PanelPins(confirm=5, correct=6, undo=13, green_led=19, red_led=26, buzzer=12)
    with Panel(pins, pin_factory=factory) as panel:
        press(factory, 13)
        assert panel.poll() == PanelEvent(PanelButton.UNDO)
        panel.light(red=Light.ON)
        assert factory.pin(26).state is True


@pytest.mark.parametrize("kwargs", [{"confirm": 27}, {"buzzer": 1}, {"red_led": 28}])
def test_bad_pin_choices_are_refused(kwargs: dict[str, int]) -> None:
    with pytest.raises(InvalidInput):
        PanelPins(**kwargs)


@given(st.sampled_from(list(PanelButton)), st.booleans())
def test_event_notation_round_trips(button: PanelButton, long: bool) -> None:
    event = PanelEvent(button, long)
    assert PanelEvent.parse(str(event)) == event


@pytest.mark.parametrize("text", ["", "ok", "confirm short", "undo long long", "Confirm"])
def test_bad_event_notation_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput):
        PanelEvent.parse(text)
