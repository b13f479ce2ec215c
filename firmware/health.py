"""The table's health, as the settings page shows it: temperature, throttling, disk, camera, journal.

Everything is read from files (``/sys``, ``/proc``) under a root that tests
replace with a folder of their own, so no figure needs a Pi to be tested; a
file that is not there gives None («no se sabe»), never an error.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "sys/class/thermal/thermal_zone0").mkdir(parents=True)
>>> _ = (root / "sys/class/thermal/thermal_zone0/temp").write_text("61234\\n")
>>> Probe(root=root).cpu_temp_c()
61.2
>>> throttle_flags(0x50005)
('under_voltage', 'throttled', 'under_voltage_since_boot', 'throttled_since_boot')
"""

from __future__ import annotations

import importlib.metadata
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

THROTTLE_BITS = {
    0: "under_voltage", 1: "freq_capped", 2: "throttled", 3: "soft_temp_limit",
    16: "under_voltage_since_boot", 17: "freq_capped_since_boot", 18: "throttled_since_boot",
    19: "soft_temp_limit_since_boot",
}
"""The firmware's ``get_throttled`` bits (``vcgencmd get_throttled``): now, and since boot."""


def throttle_flags(value: int) -> tuple[str, ...]:
    return tuple(name for bit, name in sorted(THROTTLE_BITS.items()) if value >> bit & 1)


@dataclass(frozen=True)
class Health:
    """One look at the table's health; None where it could not be read."""

    version: str
    uptime_s: float | None
    cpu_temp_c: float | None
    throttled: int | None
    throttle_flags: tuple[str, ...]
    disk_free_mb: float | None
    disk_total_mb: float | None
    journal_mb: float | None
    camera_fps: float | None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["throttle_flags"] = list(self.throttle_flags)
        return out


class Probe:
    """Reads the health under ``root`` (``/`` on the Pi); ``release`` names the installed version's
    RELEASE file (``/opt/mus-table/current/RELEASE``)."""

    THROTTLED = ("sys/devices/platform/soc/soc:firmware/get_throttled",
                 "sys/devices/platform/*/*:firmware/get_throttled",
                 "sys/devices/platform/*firmware*/get_throttled")

    def __init__(self, root: Path = Path("/"), *, release: Path | None = None) -> None:
        self.root = root
        self.release = release if release is not None else root / "opt/mus-table/current/RELEASE"
        self._last_frames: tuple[float, int] | None = None

    def _read(self, rel: str) -> str | None:
        try:
            return (self.root / rel).read_text().strip()
        except (OSError, UnicodeDecodeError):
            return None

    def cpu_temp_c(self) -> float | None:
        raw = self._read("sys/class/thermal/thermal_zone0/temp")
        try:
            return round(int(raw) / 1000, 1) if raw else None
        except ValueError:
            return None

    def throttled(self) -> int | None:
        for pattern in self.THROTTLED:
            for path in sorted(self.root.glob(pattern)):
                try:
                    return int(path.read_text().strip(), 16)
                except (OSError, ValueError):
                    continue
        return None

    def uptime_s(self) -> float | None:
        raw = self._read("proc/uptime")
        try:
            return float(raw.split()[0]) if raw else None
        except (ValueError, IndexError):
            return None

    def version(self) -> str:
        try:
            version = importlib.metadata.version("mus-table")
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        try:
            for line in self.release.read_text().splitlines():
                if line.startswith("id="):
                    return line[3:].strip()
        except OSError:
            pass
        return version

    def camera_fps(self, frames: int, now: float) -> float | None:
        """Frames per second since the last look (None at the first)."""
        last, self._last_frames = self._last_frames, (now, frames)
        if last is None or now <= last[0]:
            return None
        return round((frames - last[1]) / (now - last[0]), 1)

    def look(self, *, state_dir: Path, journal: Path | None, frames: int | None, now: float) -> Health:
        try:
            usage = shutil.disk_usage(state_dir)
            free, total = round(usage.free / 2**20, 1), round(usage.total / 2**20, 1)
        except OSError:
            free = total = None
        journal_mb = None
        if journal is not None:
            parts = [journal, journal.with_name(journal.name + "-wal")]
            journal_mb = round(sum(p.stat().st_size for p in parts if p.is_file()) / 2**20, 2)
        throttled = self.throttled()
        return Health(version=self.version(), uptime_s=self.uptime_s(), cpu_temp_c=self.cpu_temp_c(),
                      throttled=throttled, throttle_flags=throttle_flags(throttled or 0),
                      disk_free_mb=free, disk_total_mb=total, journal_mb=journal_mb,
                      camera_fps=self.camera_fps(frames, now) if frames is not None else None)
