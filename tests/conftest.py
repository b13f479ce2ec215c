"""Fixtures the browser tests share: one Debian chromium and one served table per module.

Imported lazily so that a machine without Playwright still collects the other
tests (the browser modules skip themselves there).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (``playwright install`` cannot download here)."""
    from playwright.sync_api import sync_playwright
    from test_browser_web import ARTIFACTS, CHROMIUM

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def served() -> Iterator[Any]:
    """The synthetic table's display served by waitress, closed after the module."""
    from test_browser_web import Served

    s = Served()
    yield s
    s.close()
