"""The packages import one another only downwards, as their ``__init__`` docstrings say.

``table`` (the game) imports nothing of the project; ``vision`` (the reader)
only ``table``; ``models`` (training and measuring the card model) ``table``
and ``vision``; ``hardware`` (what is built and printed) only the project's
errors and ``vision``'s geometry and constants; ``web`` ``table``, ``vision``
and ``firmware``; ``hub`` (the tournament hub) only ``table``: it follows the
tables through the broker's documented topics, never through the loop's code;
``firmware`` everything. So the Pi's reader never drags in the
training code, and the game can be used without OpenCV.

Every import counts, also one inside a function: a lazy import is still a
dependency. The imports are read with :mod:`ast`, so nothing is imported here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("table", "vision", "models", "firmware", "web", "hardware", "hub")

ALLOWED: dict[str, tuple[str, ...]] = {
    "table": (),
    "vision": ("table",),
    "models": ("table", "vision"),
    "hardware": ("table.errors", "vision.mat", "vision.cardcrop"),
    "web": ("table", "vision", "firmware"),
    "firmware": ("table", "vision", "models", "hardware", "web", "hub"),
    "hub": ("table",),
}
"""What each package may import of the project besides itself: packages or single modules."""


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, dotted name) of every import in a module, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = path.relative_to(root).parent.parts
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            # ``from vision import mat`` imports the module vision.mat
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def _allowed(package: str, dotted: str) -> bool:
    top = dotted.split(".")[0]
    if top not in PACKAGES or top == package:
        return True
    return any(dotted == ok or dotted.startswith(ok + ".") for ok in ALLOWED[package])


def _breaks(path: Path, root: Path = ROOT) -> list[str]:
    package = path.relative_to(root).parts[0]
    return [f"{path.relative_to(root).as_posix()}:{line} imports {dotted}"
            for line, dotted in _imports(path, root) if not _allowed(package, dotted)]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_imports_only_what_its_package_may(path: Path) -> None:
    package = path.relative_to(ROOT).parts[0]
    allowed = ", ".join(ALLOWED[package]) or "nothing of the project"
    assert _breaks(path) == [], f"{package}/ may import only {allowed}"


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_says_what_it_holds_and_may_import(package: str) -> None:
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8")))
    assert doc, f"{package}/__init__.py has no docstring"
    assert "may import" in doc.lower(), f"{package}/__init__.py does not say what it may import"


def test_the_checker_sees_lazy_relative_and_from_imports(tmp_path: Path) -> None:
    """The rules would be toothless if an import could hide from the parser."""
    module = tmp_path / "vision" / "probe.py"
    module.parent.mkdir()
    module.write_text("import table.cards\n"
                      "from . import mat\n"
                      "from .. import table\n"
                      "def late():\n"
                      "    from models import scene\n"
                      "    import firmware.cli\n", encoding="utf-8")
    assert _breaks(module, tmp_path) == ["vision/probe.py:5 imports models.scene",
                                         "vision/probe.py:6 imports firmware.cli"]
