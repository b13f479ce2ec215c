"""Regenerate the parts of hardware/ that come from the code.

    python -m hardware.make_docs

rewrites the blocks of hardware/README.md between ``<!-- BEGIN name -->`` and
``<!-- END name -->`` (the camera table from ``mus-table camera-check``, the
wiring table from firmware/panel.py's pins, through hardware/wiring.py) and hardware/wiring.svg. The tests
fail when these files and the code disagree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hardware import cables, camera_geometry, wiring

HERE = Path(__file__).resolve().parent


def blocks() -> dict[str, str]:
    return {
        "camera-check": camera_geometry.markdown_table(camera_geometry.check_all()),
        "wiring": wiring.markdown_table(),
        "cables": cables.markdown_table(),
    }


def fill(text: str, generated: dict[str, str]) -> str:
    for name, body in generated.items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"hardware/README.md has no {name} block")
        text = pattern.sub(lambda m: m.group(1) + body + m.group(2), text)  # noqa: B023 (used at once)
    return text


def main() -> int:
    readme = HERE / "README.md"
    readme.write_text(fill(readme.read_text(encoding="utf-8"), blocks()), encoding="utf-8")
    (HERE / "wiring.svg").write_text(wiring.svg_document(), encoding="utf-8")
    print("updated hardware/README.md and hardware/wiring.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
