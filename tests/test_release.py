"""hardware/release.py: the archive a club downloads, built and installed into a clean venv; the lock files.

The build is PyPA's ``build`` in an isolated environment (setuptools from the
index pip is configured with: no network needed where a local index is set, as
in CI); the install is ``pip --no-index --no-deps`` into a fresh venv that sees
this machine's numpy, OpenCV and the rest, as a Pi's venv sees apt's numpy.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from hardware.release import LOCKS, build_release, lock_path, read_release, tree_files

REPO = Path(__file__).resolve().parents[1]

needs_build = pytest.mark.skipif(importlib.util.find_spec("build") is None,
                                 reason="PyPA's build is not installed (pip install -e '.[dev]')")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A release built from a copy of the tree that carries the leftovers of an old build
    (``build/lib`` with a module the tree no longer has, an ``.egg-info``): none may ship."""
    tmp = tmp_path_factory.mktemp("release")
    src = tmp / "tree"
    for name in tree_files(REPO):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, src / name)
    ghost = src / "build/lib/firmware/ghost.py"
    ghost.parent.mkdir(parents=True)
    ghost.write_text("raise SystemExit('a deleted module came back')\n")
    (src / "mus_table.egg-info").mkdir()
    (src / "mus_table.egg-info/SOURCES.txt").write_text("firmware/ghost.py\n")
    rel = build_release(tmp / "out", root=src)
    out = tmp / "unpacked"
    with tarfile.open(rel.archive) as tar:
        tar.extractall(out, filter="data")
    return rel.archive, out / f"mus-table-{rel.version}"


@needs_build
def test_the_archive_holds_the_wheel_the_pi_files_and_checksums_that_hold(release: tuple[Path, Path]) -> None:
    archive, top = release
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert archive.name == f"mus-table-{version}.tar.gz"
    info = read_release((top / "RELEASE").read_text())
    assert info["version"] == version and info["id"].startswith(version + "-")
    assert (top / "dist" / info["wheel"]).is_file() and (top / "dist" / f"mus_table-{version}.tar.gz").is_file()
    for need in ("install.sh", "hardware/pi/install.sh", "hardware/pi/mus-table.service",
                 "hardware/pi/mus-table-admin.path", "hardware/pi/lock/bookworm.txt", "hardware/pi/lock/trixie.txt",
                 "hardware/README.md", "firmware/table.example.toml"):
        assert (top / need).is_file(), need
    assert os.access(top / "install.sh", os.X_OK)
    sums = dict(reversed(line.split("  ", 1)) for line in (top / "SHA256SUMS").read_text().splitlines())
    files = {p.relative_to(top).as_posix() for p in top.rglob("*") if p.is_file()} - {"SHA256SUMS"}
    assert set(sums) == files
    assert all(hashlib.sha256((top / f).read_bytes()).hexdigest() == sums[f] for f in files)
    # Nothing of the old build came along: the wheel holds the tree's modules and only them.
    names = zipfile.ZipFile(top / "dist" / info["wheel"]).namelist()
    assert "firmware/ghost.py" not in names and "models/cards.onnx" in names
    assert "web/templates/display.html" in names and "firmware/commands/check.py" in names


@needs_build
def test_the_release_installs_into_a_clean_venv_and_runs(release: tuple[Path, Path], tmp_path: Path) -> None:
    _, top = release
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    (wheel,) = (top / "dist").glob("*.whl")
    done = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed package, not the tree
    where = subprocess.run([str(venv / "bin/python"), "-c", "import firmware, models, pathlib; "
                            "print(firmware.__file__); print((pathlib.Path(models.__file__).parent / 'cards.onnx').is_file())"],
                           capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    path, onnx = where.stdout.split()
    assert path.startswith(str(venv)) and onnx == "True"
    # The installed command scores a hand (the model, the rules and the CLI all came along).
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\njournal = "{tmp_path}/journal.sqlite"\n[camera]\nsource = "synthetic"\n')
    check = subprocess.run([str(venv / "bin/mus-table"), "check", "--config", str(config), "--no-camera"],
                           capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "diario: aún no hay" in check.stdout


def _pins(codename: str) -> dict[str, str]:
    pins = {}
    for line in lock_path(codename).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{codename}: {line!r} is not pinned with =="
            pins[name.lower().replace("_", "-")] = version
    return pins


@pytest.mark.parametrize("codename", sorted(LOCKS))
def test_every_dependency_is_pinned_within_its_range(codename: str) -> None:
    pins = _pins(codename)
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    for dep in deps:
        req = Requirement(dep)
        name = req.name.lower().replace("_", "-")
        assert name in pins, f"{codename}: {name} is not in the lock"
        assert req.specifier.contains(pins[name], prereleases=True), f"{codename}: {name}=={pins[name]} not {req.specifier}"


def test_the_locks_keep_apts_numpy_and_an_opencv_that_accepts_it() -> None:
    bookworm, trixie = _pins("bookworm"), _pins("trixie")
    assert bookworm["numpy"] == "1.24.2"  # Raspberry Pi OS Bookworm's python3-numpy
    assert tuple(int(x) for x in bookworm["opencv-python-headless"].split(".")[:2]) < (4, 12)
    assert trixie["numpy"].startswith("2.")
    assert set(bookworm) == set(trixie)


@pytest.mark.parametrize("codename, python", [("bookworm", "3.11"), ("trixie", "3.13")])
def test_each_locked_package_finds_what_it_needs_in_the_lock(codename: str, python: str) -> None:
    """The lock is closed: every package pinned there that this machine has at the same version
    (its metadata is here to read) requires, on a Pi (Linux aarch64, that Python), only packages
    the lock pins, at versions it accepts; apt's numpy included (onnxruntime's floor, say)."""
    import importlib.metadata as md

    from packaging.markers import Marker

    pins = _pins(codename)
    env = {"python_version": python, "python_full_version": python + ".0", "sys_platform": "linux",
           "platform_system": "Linux", "platform_machine": "aarch64", "implementation_name": "cpython",
           "platform_python_implementation": "CPython", "os_name": "posix"}
    checked = 0
    for name, version in pins.items():
        try:
            if md.version(name) != version:
                continue
            requires = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        checked += 1
        extras = {"binary"} if name == "psycopg" else set()
        for text in requires:
            req = Requirement(text)
            if req.marker is not None and not any(
                    Marker(str(req.marker)).evaluate({**env, "extra": e}) for e in (extras or {""})):
                continue
            dep = req.name.lower().replace("_", "-")
            assert dep in pins, f"{codename}: {name} {version} needs {req}, which the lock does not pin"
            assert req.specifier.contains(pins[dep], prereleases=True), \
                f"{codename}: {name} {version} needs {req}, the lock has {dep}=={pins[dep]}"
    assert checked >= 15, f"only {checked} locked packages could be checked here"
