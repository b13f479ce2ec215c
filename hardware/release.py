"""Build the release a club downloads: one archive with the program and the Pi's files.

``python -m hardware.release`` (or ``hardware/pi/make-release.sh``) writes
``dist/mus-table-VERSION.tar.gz``::

    mus-table-0.1.0/
        install.sh                     sudo ./install.sh: installs or updates the table
        RELEASE                        version, commit, date
        SHA256SUMS                     every file below, checked by install.sh before it installs
        dist/mus_table-0.1.0-py3-none-any.whl, dist/mus_table-0.1.0.tar.gz
        hardware/pi/...                the installer, the units, the kiosk, the lock files
        hardware/README.md             the guide
        firmware/table.example.toml    the configuration's example
        wheels/bookworm/, wheels/trixie/   (--wheelhouse only) every pinned wheel, for a Pi offline

The wheel and the sdist are built from a clean copy of the tree's files (git's
tracked and untracked-but-not-ignored files), never from the checkout itself:
a stale ``build/lib`` or ``*.egg-info`` cannot bring a deleted module back.
``--wheelhouse`` adds the lock files' wheels for a Pi (aarch64) so that a USB
stick installs with no network; it needs the network where the release is built.

The release's id (``RELEASE``'s ``id``) names its folder on the Pi
(``/opt/mus-table/versions/ID``): the package version and the commit.

>>> read_release("version=0.1.0\\ncommit=abc1234\\nid=0.1.0-abc1234\\n")["id"]
'0.1.0-abc1234'
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from table.errors import InvalidInput

REPO = Path(__file__).resolve().parents[1]
PI_FILES = "hardware/pi"
EXTRA_FILES = ("hardware/README.md", "firmware/table.example.toml")
LOCKS = {"bookworm": ("3.11", "manylinux_2_28_aarch64"), "trixie": ("3.13", "manylinux_2_28_aarch64")}
"""The lock file of each Raspberry Pi OS release: its Python and the platform of its wheels."""


@dataclass(frozen=True)
class Release:
    """What :func:`build_release` made."""

    archive: Path
    id: str
    version: str
    wheel: str


def read_release(text: str) -> dict[str, str]:
    """The ``key=value`` lines of a ``RELEASE`` file."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.startswith("#"):
            out[key.strip()] = value.strip()
    return out


def project_version(root: Path = REPO) -> str:
    """The version in ``pyproject.toml``: the wheel's and the release's."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return str(data["project"]["version"])


def tree_files(root: Path) -> list[str]:
    """The files a release is built from: git's tracked and untracked-but-not-ignored files,
    or, outside a git checkout (an unpacked sdist), every file but caches and builds."""
    try:
        done = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "-co", "--exclude-standard"],
                              capture_output=True, check=True, timeout=60)
        names = [n for n in done.stdout.decode().split("\0") if n]
        return [n for n in names if (root / n).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "build", "dist", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
        return [str(p.relative_to(root)) for p in sorted(root.rglob("*"))
                if p.is_file() and not skip & set(p.relative_to(root).parts)
                and not any(part.endswith(".egg-info") for part in p.parts)]


def commit_of(root: Path) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"],
                              capture_output=True, text=True, check=True, timeout=30)
        return done.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "nogit"


def lock_path(codename: str, root: Path = REPO) -> Path:
    return root / PI_FILES / "lock" / f"{codename}.txt"


def _copy_tree(root: Path, names: list[str], dest: Path) -> None:
    for name in names:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)


def _build(src: Path, out: Path) -> None:
    """Wheel and sdist with PyPA's ``build`` (isolated: setuptools comes from the index pip is given)."""
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(src)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise InvalidInput("release: the wheel could not be built: " + " / ".join(tail))


def _wheelhouse(lock: Path, codename: str, dest: Path) -> None:
    python, platform = LOCKS[codename]
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:",
                           "--platform", platform, "--python-version", python, "--no-deps",
                           "-r", str(lock), "-d", str(dest)], capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise InvalidInput(f"release: the {codename} wheels could not be downloaded: "
                           + (done.stderr.strip().splitlines() or ["?"])[-1])


def sha256sums(top: Path) -> str:
    lines = []
    for p in sorted(top.rglob("*")):
        if p.is_file() and p.name != "SHA256SUMS":
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            lines.append(f"{digest}  {p.relative_to(top).as_posix()}")
    return "\n".join(lines) + "\n"


def build_release(out: Path, *, root: Path = REPO, wheelhouse: bool = False,
                  now: dt.datetime | None = None) -> Release:
    """Build ``out/mus-table-VERSION.tar.gz`` from the tree at ``root``."""
    version = project_version(root)
    commit = commit_of(root)
    rid = f"{version}-{commit}"
    names = tree_files(root)
    for need in (f"{PI_FILES}/install.sh", *EXTRA_FILES, *(f"{PI_FILES}/lock/{c}.txt" for c in LOCKS)):
        if need not in names:
            raise InvalidInput(f"release: {need} is missing from the tree")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mus-table-release-") as tmp:
        work = Path(tmp)
        src = work / "src"
        _copy_tree(root, names, src)
        top = work / f"mus-table-{version}"
        _build(src, top / "dist")
        wheels = sorted((top / "dist").glob("*.whl"))
        if len(wheels) != 1:
            raise InvalidInput(f"release: expected one wheel, got {[w.name for w in wheels]}")
        _copy_tree(root, [n for n in names if n.startswith(PI_FILES + "/") or n in EXTRA_FILES], top)
        launcher = top / "install.sh"
        launcher.write_text('#!/bin/sh\n# mus-table: install or update this table from this release.\n'
                            'exec bash "$(dirname "$0")/hardware/pi/install.sh" "$@"\n')
        launcher.chmod(0o755)
        if wheelhouse:
            for codename in LOCKS:
                _wheelhouse(lock_path(codename, root), codename, top / "wheels" / codename)
        when = (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
        (top / "RELEASE").write_text(f"version={version}\ncommit={commit}\nid={rid}\nbuilt={when}\n"
                                     f"wheel={wheels[0].name}\n")
        (top / "SHA256SUMS").write_text(sha256sums(top))
        archive = out / f"mus-table-{version}.tar.gz"
        tmp_archive = archive.with_suffix(".part")
        with tarfile.open(tmp_archive, "w:gz") as tar:
            tar.add(top, arcname=top.name)
        os.replace(tmp_archive, archive)
    return Release(archive, rid, version, wheels[0].name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hardware.release", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="where the archive goes (default dist/)")
    parser.add_argument("--wheelhouse", action="store_true",
                        help="add the pinned aarch64 wheels (a Pi with no network installs from them)")
    args = parser.parse_args(argv)
    try:
        rel = build_release(args.out, wheelhouse=args.wheelhouse)
    except InvalidInput as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"release {rel.id}: {rel.archive}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
