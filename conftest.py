"""What pytest leaves out of the collection: modules whose imports are not installed.

``python3 -m pytest`` runs the tests and every ``>>>`` example in the packages
(``--doctest-modules``), so it imports every module of them. The training code
needs PyTorch (``pip install -e ".[train]"``), which the product, the tests and
CI do without; the camera source on the Pi needs picamera2. A module that
imports, at its top level, a package that is not installed (or a project module
that is itself left out) is not collected, instead of failing the whole run.
Imports inside functions, or guarded by ``try``/``if``, do not count: those
modules import fine and their examples run.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PACKAGES = ("table", "vision", "models", "firmware", "web", "hardware", "tests")


def _top_level_imports(path: Path) -> set[str]:
    """Dotted names a module imports in its own body (not in functions, ``try`` or ``if``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _left_out() -> list[str]:
    modules = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    imports = {name: _top_level_imports(path) for name, path in modules.items()}
    out: set[str] = set()

    def missing(importer: str, dotted: str) -> bool:
        top = dotted.split(".")[0]
        if (modules[importer].parent / f"{top}.py").exists():  # a helper beside it (tests/)
            dotted = f"{importer.rsplit('.', 1)[0]}.{dotted}"
        elif top not in PACKAGES:
            return not _installed(top)
        parts = dotted.split(".")
        return any(".".join(parts[:i]) in out for i in range(1, len(parts) + 1))

    changed = True
    while changed:  # a module that imports a left-out project module is left out too
        changed = False
        for name, wanted in imports.items():
            if name not in out and any(missing(name, dotted) for dotted in wanted):
                out.add(name)
                changed = True
    return sorted(str(modules[name].relative_to(ROOT)) for name in out)


collect_ignore = _left_out()
