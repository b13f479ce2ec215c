"""hardware/pi/install.sh, run against a fake root with apt, pip, users and the camera stubbed.

What needs a real Pi (the camera, the display, the GPIO) is the checklist in
hardware/README.md; here the script's logic: what it installs, what it writes
where, that an update keeps the configuration and the journal, that it refuses
what it cannot support, and that the systemd unit verifies.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "hardware" / "pi" / "install.sh"
UNIT = REPO / "hardware" / "pi" / "mus-table.service"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

# Every command the script runs that would change the machine, stubbed: each logs its
# arguments to $STUB_LOG, one line per call, and does the least a test can see.
STUBS = {
    "apt-get": "",
    "useradd": "",
    "usermod": "",
    "chown": "",
    "nmcli": 'if [ "$1" = -t ]; then exit 0; fi',
    "raspi-config": "",
    "hostnamectl": "",
    "curl": "",
    "dpkg": 'echo "${FAKE_ARCH:-arm64}"',
    "id": 'if [ "$1" = mus-table ] && [ ! -e "$ROOT/.user-made" ]; then exit 1; fi; exit 0',
    "getent": textwrap.dedent("""\
        case "$1 $2" in
            "passwd pi"|"passwd 1000") echo "pi:x:1000:1000::/home/pi:/bin/bash" ;;
            "group video"|"group gpio") echo "$2:x:44:" ;;
            *) exit 2 ;;
        esac"""),
    # The system's Python: its version, its numpy, and `-m venv DIR`, which makes a venv of
    # stubs whose python and pip log their calls too.
    "python3": textwrap.dedent("""\
        case "$*" in
            *"import numpy; print"*) echo "$FAKE_NUMPY" ;;
            *sys.version_info*) echo "$FAKE_PY" ;;
            "-m venv --system-site-packages "*)
                d="$4"; mkdir -p "$d/bin"
                for t in python pip; do
                    printf '#!/bin/bash\\necho "venv-%s $*" >> "$STUB_LOG"\\n' "$t" > "$d/bin/$t"
                    printf 'case "$*" in *sys.version_info*) echo "%s";; esac\\n' "$FAKE_PY" >> "$d/bin/$t"
                    printf 'if [ "$1" = - ]; then cat > /dev/null; echo frame > "$2"; fi\\n' >> "$d/bin/$t"
                    chmod +x "$d/bin/$t"
                done
                printf '#!/bin/sh\\n' > "$d/bin/mus-table"; chmod +x "$d/bin/mus-table" ;;
            *) exit 3 ;;
        esac"""),
}
# systemctl: with --root the real one (when there is one) enables the unit inside the fake root.
SYSTEMCTL = textwrap.dedent("""\
    case "$1" in --root=*) if [ -x /usr/bin/systemctl ]; then exec /usr/bin/systemctl "$@"; fi ;; esac
    exit 0""")


@dataclass
class Run:
    rc: int
    out: str
    calls: list[str]
    root: Path


def make_root(tmp: Path, codename: str) -> Path:
    root = tmp / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "os-release").write_text(
        f'PRETTY_NAME="Debian GNU/Linux"\nID=debian\nVERSION_CODENAME={codename}\n')
    return root


def install(tmp: Path, *args: str, codename: str = "bookworm", numpy: str = "1.24.2",
            py: str = "3.11", arch: str = "arm64", root: Path | None = None) -> Run:
    root = root or make_root(tmp, codename)
    stubs = tmp / "stubs"
    stubs.mkdir(exist_ok=True)
    log = tmp / "calls.log"
    for name, body in {**STUBS, "systemctl": SYSTEMCTL}.items():
        path = stubs / name
        path.write_text(f'#!/bin/bash\necho "{name} $*" >> "$STUB_LOG"\n'
                        + ('touch "$ROOT/.user-made"\n' if name == "useradd" else "") + body + "\n")
        path.chmod(0o755)
    env = {**os.environ, "ROOT": str(root), "PATH": f"{stubs}:{os.environ['PATH']}",
           "STUB_LOG": str(log), "FAKE_NUMPY": numpy, "FAKE_PY": py, "FAKE_ARCH": arch,
           "SUDO_USER": "pi"}
    done = subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True,
                          timeout=120)
    calls = log.read_text().splitlines() if log.exists() else []
    return Run(done.returncode, done.stdout + done.stderr, calls, root)


def called(run: Run, prefix: str) -> list[str]:
    return [c for c in run.calls if c.startswith(prefix)]


def test_a_bookworm_install_lays_out_the_appliance(tmp_path: Path) -> None:
    run = install(tmp_path, "--hotspot", "mus-table-wifi", "passphrase1", "--rtc-battery-charge")
    assert run.rc == 0, run.out
    root = run.root
    (apt,) = called(run, "apt-get install")
    assert {"python3-picamera2", "python3-numpy", "python3-lgpio", "rpicam-apps", "avahi-daemon",
            "chromium-browser"} <= set(apt.split())
    # The venv sees apt's picamera2 and numpy; pip is pinned to that numpy.
    assert "python3 -m venv --system-site-packages " + str(root / "opt/mus-table/venv") in run.calls
    constraints = (root / "opt/mus-table/constraints.txt").read_text().splitlines()
    assert "numpy==1.24.2" in constraints and "opencv-python-headless<4.12" in constraints
    (pip,) = called(run, "venv-pip install")
    assert f"--constraint {root}/opt/mus-table/constraints.txt {REPO}" in pip
    # Configuration: the journal on the data directory, a PIN other than the example's.
    config = (root / "etc/mus-table/table.toml").read_text()
    assert 'journal = "/var/lib/mus-table/journal.sqlite"' in config
    assert re.search(r'^pin = "\d{4}"$', config, re.M)
    assert "chown root:mus-table " + str(root / "etc/mus-table/table.toml.new") in run.calls
    assert (root / "var/lib/mus-table").is_dir()
    # The service, enabled.
    unit = root / "etc/systemd/system/mus-table.service"
    assert unit.read_text() == UNIT.read_text()
    if Path("/usr/bin/systemctl").exists():
        wants = root / "etc/systemd/system/multi-user.target.wants/mus-table.service"
        assert wants.is_symlink()
    assert called(run, "useradd --system")
    assert "usermod -a -G video mus-table" in run.calls and "usermod -a -G gpio mus-table" in run.calls
    assert (root / "etc/polkit-1/rules.d/50-mus-table-poweroff.rules").is_file()
    # The clock: the service user may set the time (a phone's, with no network) and pause network
    # time around it, and nothing else of timedated's.
    clock_rules = root / "etc/polkit-1/rules.d/50-mus-table-clock.rules"
    assert clock_rules.read_text() == (REPO / "hardware/pi/50-mus-table-clock.rules").read_text()
    granted = set(re.findall(r'action\.id == "([^"]+)"', clock_rules.read_text()))
    assert granted == {"org.freedesktop.timedate1.set-time", "org.freedesktop.timedate1.set-ntp"}
    assert 'subject.user == "mus-table"' in clock_rules.read_text()
    # The display: the desktop user's labwc autostart starts the kiosk.
    autostart = (root / "home/pi/.config/labwc/autostart").read_text()
    assert "/opt/mus-table/kiosk.sh &" in autostart
    assert os.access(root / "opt/mus-table/kiosk.sh", os.X_OK)
    # The name, the access point, the RTC battery.
    assert (root / "etc/hostname").read_text() == "mus-table\n"
    assert "_http._tcp" in (root / "etc/avahi/services/mus-table.service").read_text()
    (ap,) = called(run, "nmcli connection add")
    assert "ssid mus-table-wifi" in ap and "802-11-wireless.mode ap" in ap and "ipv4.method shared" in ap
    assert "dtparam=rtc_bbat_vchg=3000000" in (root / "boot/firmware/config.txt").read_text()
    # The self-check: picamera2 imported in the venv, a first frame written, the page asked.
    assert any("from picamera2 import Picamera2" in c for c in called(run, "venv-python -c"))
    assert (root / "var/lib/mus-table/first-frame.jpg").read_text() == "frame\n"
    assert called(run, "curl")
    assert "self-check passed" in run.out


def test_trixie_pins_its_own_numpy_2_and_installs_chromium(tmp_path: Path) -> None:
    run = install(tmp_path, "--no-check", codename="trixie", numpy="2.2.4", py="3.13")
    assert run.rc == 0, run.out
    constraints = (run.root / "opt/mus-table/constraints.txt").read_text().splitlines()
    assert "numpy==2.2.4" in constraints
    assert not any(c.startswith("opencv") for c in constraints)
    (apt,) = called(run, "apt-get install")
    assert "chromium" in apt.split() and "chromium-browser" not in apt.split()
    assert not called(run, "venv-python -c")


def test_running_it_again_updates_in_place_and_keeps_config_and_journal(tmp_path: Path) -> None:
    first = install(tmp_path, "--no-check")
    assert first.rc == 0, first.out
    config = first.root / "etc/mus-table/table.toml"
    config.write_text(config.read_text() + "\n# edited by the club\n")
    journal = first.root / "var/lib/mus-table/journal.sqlite"
    journal.write_bytes(b"SQLite format 3\x00 hands")
    (tmp_path / "calls.log").unlink()
    again = install(tmp_path, "--no-check", root=first.root)
    assert again.rc == 0, again.out
    assert config.read_text().endswith("# edited by the club\n")
    assert journal.read_bytes() == b"SQLite format 3\x00 hands"
    assert not called(again, "python3 -m venv")  # the same venv, upgraded
    (pip,) = called(again, "venv-pip install")
    assert "--upgrade" in pip
    assert not called(again, "useradd")
    assert "configuration kept" in again.out


def test_a_venv_of_another_python_is_rebuilt(tmp_path: Path) -> None:
    first = install(tmp_path, "--no-check", py="3.11")
    assert first.rc == 0, first.out
    (tmp_path / "calls.log").unlink()
    after_upgrade = install(tmp_path, "--no-check", codename="trixie", numpy="2.2.4", py="3.13",
                            root=first.root)
    assert after_upgrade.rc == 0, after_upgrade.out
    assert "made by Python 3.11, the system has 3.13" in after_upgrade.out
    assert called(after_upgrade, "python3 -m venv")


@pytest.mark.parametrize("codename, arch, why", [
    ("bullseye", "arm64", "bullseye is not supported"),
    ("bookworm", "armhf", "64-bit system is needed"),
])
def test_unsupported_systems_are_refused_before_anything_is_written(
        tmp_path: Path, codename: str, arch: str, why: str) -> None:
    run = install(tmp_path, codename=codename, arch=arch)
    assert run.rc != 0 and why in run.out
    assert not called(run, "apt-get") and not (run.root / "opt").exists()


def test_a_short_hotspot_passphrase_is_refused(tmp_path: Path) -> None:
    run = install(tmp_path, "--hotspot", "ssid", "short")
    assert run.rc != 0 and "at least 8 characters" in run.out
    assert run.calls == []


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze not installed (Debian package systemd)")
def test_the_unit_verifies(tmp_path: Path) -> None:
    """systemd-analyze verify: known sections and keys, an executable ExecStart (here the
    fake root's, the only change to the unit), a target that exists."""
    exe = tmp_path / "opt/mus-table/venv/bin/mus-table"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    text = UNIT.read_text()
    assert "ExecStart=/opt/mus-table/venv/bin/mus-table run --config /etc/mus-table/table.toml" in text
    unit = tmp_path / "mus-table.service"
    unit.write_text(text.replace("ExecStart=/opt/", f"ExecStart={tmp_path}/opt/"))
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Unknown" not in done.stderr and "ignoring" not in done.stderr, done.stderr


def test_the_unit_restarts_on_failure_in_a_writable_working_directory() -> None:
    keys = dict(line.split("=", 1) for line in UNIT.read_text().splitlines()
                if "=" in line and not line.startswith("#"))
    assert keys["Restart"] == "on-failure"
    assert keys["WorkingDirectory"] == "/var/lib/mus-table"
    assert keys["StateDirectory"] == "mus-table"  # systemd makes it, owned by the service user
    assert keys["User"] == "mus-table"
    envs = [line.split("=", 1)[1] for line in UNIT.read_text().splitlines() if line.startswith("Environment=")]
    assert "XDG_DATA_HOME=/var/lib/mus-table" in envs  # learnt decks beside the journal, kept by updates


KIOSK = REPO / "hardware" / "pi" / "kiosk.sh"


def _kiosk(tmp: Path, browsers: tuple[str, ...]) -> tuple[subprocess.CompletedProcess[str], str]:
    stubs = tmp / "kiosk-stubs"
    stubs.mkdir()
    log = tmp / "kiosk.log"
    for name in ("curl", *browsers):
        (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n')
        (stubs / name).chmod(0o755)
    done = subprocess.run(["/bin/sh", str(KIOSK)], env={"PATH": str(stubs)},
                          capture_output=True, text=True, timeout=30)
    return done, log.read_text() if log.exists() else ""


def test_the_kiosk_waits_for_the_page_then_opens_it_full_screen(tmp_path: Path) -> None:
    done, log = _kiosk(tmp_path, ("chromium-browser",))
    assert done.returncode == 0, done.stderr
    curl, browser = log.splitlines()
    assert curl.startswith("curl ") and curl.endswith("http://127.0.0.1:8000/")
    assert browser.startswith("chromium-browser --kiosk ") and browser.endswith(" http://127.0.0.1:8000/")


def test_the_kiosk_opens_the_page_only_once_the_server_answers(tmp_path: Path) -> None:
    """The service is still loading: curl fails three times, then the page answers; only then
    does the browser start (never on a «cannot connect» page)."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    log = tmp_path / "kiosk.log"
    (stubs / "curl").write_text(f'#!/bin/sh\necho "curl" >> "{log}"\n'
                                f'[ "$(grep -c curl "{log}")" -ge 4 ]\n')
    (stubs / "chromium").write_text(f'#!/bin/sh\necho "chromium $*" >> "{log}"\n')
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    done = subprocess.run(["/bin/sh", str(KIOSK)], capture_output=True, text=True, timeout=30,
                          env={"PATH": f"{stubs}:/usr/bin:/bin", "MUS_TABLE_POLL_S": "0"})
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[:4] == ["curl"] * 4 and calls[4].startswith("chromium --kiosk") and len(calls) == 5


def test_the_kiosk_says_so_when_there_is_no_browser(tmp_path: Path) -> None:
    done, _ = _kiosk(tmp_path, ())
    assert done.returncode == 1 and "no chromium found" in done.stderr


# A picamera2 as small as the table's camera source needs, for the self-check's own Python.
FAKE_PICAMERA2 = '''
import numpy as np

class Picamera2:
    camera_controls = {}
    sensor_resolution = (4608, 2592)

    def create_still_configuration(self, main, lores, buffer_count):
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        pass

    def start(self):
        pass

    def capture_metadata(self, wait=None):
        return "metadata"

    def capture_array(self, name, wait=None):
        return name

    def wait(self, job, timeout=None):
        if job == "metadata":
            return {"ExposureTime": 30000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5), "AeLocked": True}
        w, h = self.config[job]["size"]
        if job == "lores":
            return np.full((h * 3 // 2, w), 128, np.uint8)
        return np.full((h, w, 3), 120, np.uint8)

    def stop(self):
        pass

    def close(self):
        pass
'''


def test_the_self_checks_first_frame_goes_through_the_tables_camera_source(tmp_path: Path) -> None:
    """The Python the self-check runs for «a first frame» (taken out of install.sh as it is):
    the configured source, opened as the service opens it, writes a full-resolution still."""
    import sys

    import cv2

    text = SCRIPT.read_text()
    start = text.index("<<'EOF' || ok=0\n", text.index("check 3/4")) + len("<<'EOF' || ok=0\n")
    code = text[start:text.index("\nEOF\n", start)]
    (tmp_path / "picamera2").mkdir()
    (tmp_path / "picamera2" / "__init__.py").write_text(FAKE_PICAMERA2)
    config = tmp_path / "table.toml"
    config.write_text('[table]\njournal = "/nonexistent/journal.sqlite"\n')  # the example's camera: picamera2
    frame = tmp_path / "first-frame.jpg"
    done = subprocess.run([sys.executable, "-", str(frame), str(config)], input=code, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": f"{tmp_path}:{REPO}"})
    assert done.returncode == 0, done.stderr
    assert "watching 768x432, still 4608x2592, mean level 120" in done.stdout  # the sensor's whole array
    assert "'AeEnable': False" in done.stdout  # exposure and white balance were locked
    image = cv2.imread(str(frame))
    assert image is not None and image.shape == (2592, 4608, 3)


def test_the_debian_trial_parses_and_refuses_to_run_unprivileged(tmp_path: Path) -> None:
    """hardware/pi/try-on-debian.sh (run by hand in a Debian container: it needs apt and the
    network) is valid bash, and says in one line that it needs root before doing anything."""
    trial = REPO / "hardware" / "pi" / "try-on-debian.sh"
    assert subprocess.run(["bash", "-n", str(trial)], capture_output=True, timeout=30).returncode == 0
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "id").write_text("#!/bin/sh\necho 1000\n")
    (stubs / "id").chmod(0o755)
    done = subprocess.run(["bash", str(trial)], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}"})
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "as root" in done.stderr
