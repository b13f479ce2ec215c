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
                    chmod +x "$d/bin/$t"
                done
                # pip wheel (a checkout): a wheel in --wheel-dir
                printf 'if [ "$1" = wheel ]; then touch "$5/mus_table-0.1.0-py3-none-any.whl"; fi\\n' >> "$d/bin/pip"
                # mus-table check: the self-check; FAKE_CHECK_RC=1 makes it fail (a bad update)
                printf '#!/bin/bash\\necho "venv-mus-table $*" >> "$STUB_LOG"\\n' > "$d/bin/mus-table"
                printf 'if [ "$1" = check ]; then echo frame > "$7"; fi\\nexit "${FAKE_CHECK_RC:-0}"\\n' >> "$d/bin/mus-table"
                chmod +x "$d/bin/mus-table" ;;
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
            py: str = "3.11", arch: str = "arm64", root: Path | None = None, script: Path = SCRIPT) -> Run:
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
    done = subprocess.run(["bash", str(script), *args], env=env, capture_output=True, text=True,
                          timeout=120)
    calls = log.read_text().splitlines() if log.exists() else []
    return Run(done.returncode, done.stdout + done.stderr, calls, root)


def current(root: Path) -> Path:
    """The version the service runs: /opt/mus-table/current, resolved."""
    link = root / "opt/mus-table/current"
    assert link.is_symlink(), "no current version"
    return link.resolve()


def called(run: Run, prefix: str) -> list[str]:
    return [c for c in run.calls if c.startswith(prefix)]


def test_a_bookworm_install_lays_out_the_appliance(tmp_path: Path) -> None:
    run = install(tmp_path, "--hotspot", "mus-table-wifi", "passphrase1", "--rtc-battery-charge")
    assert run.rc == 0, run.out
    root = run.root
    (apt,) = called(run, "apt-get install")
    assert {"python3-picamera2", "python3-numpy", "python3-lgpio", "rpicam-apps", "avahi-daemon",
            "chromium-browser"} <= set(apt.split())
    # The version's own venv sees apt's picamera2 and numpy; pip is pinned to that numpy and to
    # the lock file; the wheel was built from a clean copy of the checkout, never the checkout.
    version = current(root)
    assert "python3 -m venv --system-site-packages " + str(version / "venv") in run.calls
    constraints = (version / "constraints.txt").read_text().splitlines()
    assert "numpy==1.24.2" in constraints and "opencv-python-headless<4.12" in constraints
    assert "opencv-python-headless==4.11.0.86" in constraints and "flask==3.1.3" in constraints
    (wheel,) = called(run, "venv-pip wheel")
    assert str(REPO) not in wheel
    (pip,) = called(run, "venv-pip install")
    assert f"--constraint {version}/constraints.txt " in pip and pip.endswith("mus_table-0.1.0-py3-none-any.whl")
    # Configuration: the journal on the data directory, a PIN other than the example's.
    config = (root / "etc/mus-table/table.toml").read_text()
    assert 'journal = "/var/lib/mus-table/journal.sqlite"' in config
    assert re.search(r'^pin = "\d{6}"$', config, re.M)
    pin = re.search(r'^pin = "(\d{6})"$', config, re.M).group(1)  # type: ignore[union-attr]
    said = [line for line in run.out.splitlines() if line.startswith("mus-table install: ")]
    assert said[-1] == f"mus-table install: PIN de la mesa: {pin}"  # the installer's last line
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
    assert "/opt/mus-table/current/kiosk.sh &" in autostart
    assert os.access(root / "opt/mus-table/current/kiosk.sh", os.X_OK)
    # The name, the access point, the RTC battery.
    assert (root / "etc/hostname").read_text() == "mus-table\n"
    assert "_http._tcp" in (root / "etc/avahi/services/mus-table.service").read_text()
    (ap,) = called(run, "nmcli connection add")
    assert "ssid mus-table-wifi" in ap and "802-11-wireless.mode ap" in ap and "ipv4.method shared" in ap
    assert "dtparam=rtc_bbat_vchg=3000000" in (root / "boot/firmware/config.txt").read_text()
    watchdog = (root / "etc/systemd/system.conf.d/mus-table-watchdog.conf").read_text()
    assert "RuntimeWatchdogSec=15" in watchdog  # the Pi's hardware watchdog, petted by systemd
    # The self-check: picamera2 imported in the venv, `mus-table check` (configuration, journal,
    # a first frame), the page asked.
    assert any("from picamera2 import Picamera2" in c for c in called(run, "venv-python -c"))
    (check,) = called(run, "venv-mus-table check")
    assert f"--config {root}/etc/mus-table/table.toml --settings {root}/var/lib/mus-table/settings.toml" in check
    assert (root / "var/lib/mus-table/first-frame.jpg").read_text() == "frame\n"
    assert called(run, "curl")
    assert "self-check passed" in run.out


def test_trixie_pins_its_own_numpy_2_and_installs_chromium(tmp_path: Path) -> None:
    run = install(tmp_path, "--no-check", codename="trixie", numpy="2.2.4", py="3.13")
    assert run.rc == 0, run.out
    constraints = (current(run.root) / "constraints.txt").read_text().splitlines()
    assert "numpy==2.2.4" in constraints
    assert [c for c in constraints if c.startswith("opencv")] == ["opencv-python-headless==4.12.0.88"]
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
    assert not called(again, "python3 -m venv")  # the same version: its venv is kept as it is
    assert not called(again, "venv-pip install")
    assert "already installed" in again.out
    assert not called(again, "useradd")
    assert "configuration kept" in again.out


def test_a_venv_of_another_python_is_rebuilt(tmp_path: Path) -> None:
    first = install(tmp_path, "--no-check", py="3.11")
    assert first.rc == 0, first.out
    (tmp_path / "calls.log").unlink()
    (first.root / "etc/os-release").write_text("ID=debian\nVERSION_CODENAME=trixie\n")
    after_upgrade = install(tmp_path, "--no-check", codename="trixie", numpy="2.2.4", py="3.13",
                            root=first.root)
    assert after_upgrade.rc == 0, after_upgrade.out
    assert called(after_upgrade, "python3 -m venv")  # the same release, a new venv for Python 3.13
    assert (current(first.root) / ".complete").read_text() == "3.13\n"


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


needs_systemd = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                                   reason="systemd-analyze not installed (Debian package systemd)")
UNITS = ("mus-table.service", "mus-table-admin.service", "mus-table-admin.path", "mus-table-firstboot.service")


def _units_in(tmp: Path) -> Path:
    """The three units with their programs moved into ``tmp`` (the only change): systemd-analyze
    checks that what they run exists and is executable."""
    for exe in ("opt/mus-table/current/venv/bin/mus-table", "opt/mus-table/current/install.sh"):
        path = tmp / exe
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    for name in UNITS:
        text = (REPO / "hardware/pi" / name).read_text()
        (tmp / name).write_text(text.replace("/opt/mus-table/", f"{tmp}/opt/mus-table/"))
    return tmp


@needs_systemd
def test_the_units_verify(tmp_path: Path) -> None:
    """systemd-analyze verify: known sections and keys, executables that exist, targets that exist."""
    text = UNIT.read_text()
    assert ("ExecStart=/opt/mus-table/current/venv/bin/mus-table run --config /etc/mus-table/table.toml "
            "--settings /var/lib/mus-table/settings.toml") in text
    d = _units_in(tmp_path)
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", *(str(d / n) for n in UNITS)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Unknown" not in done.stderr and "ignoring" not in done.stderr, done.stderr


@needs_systemd
def test_the_table_service_is_sandboxed_to_ok(tmp_path: Path) -> None:
    """systemd-analyze security rates the table's service «OK» or better (it was 8.7 «EXPOSED»)."""
    d = _units_in(tmp_path)
    done = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", str(d / "mus-table.service")],
                          capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for mus-table.service: ([0-9.]+) (\w+)", done.stdout)
    assert match, done.stdout[-500:] + done.stderr
    assert float(match.group(1)) <= 3.9 and match.group(2) in ("OK", "SAFE"), match.group(0)


def test_the_service_has_a_watchdog_and_does_not_wait_for_the_network() -> None:
    keys = dict(line.split("=", 1) for line in UNIT.read_text().splitlines()
                if "=" in line and not line.startswith("#"))
    assert keys["Type"] == "notify" and int(keys["WatchdogSec"]) > 0
    assert "network-online" not in UNIT.read_text().replace("# No wait for network-online", "")
    assert keys["ProtectSystem"] == "strict" and keys["CapabilityBoundingSet"] == ""


def test_the_unit_restarts_on_failure_in_a_writable_working_directory() -> None:
    keys = dict(line.split("=", 1) for line in UNIT.read_text().splitlines()
                if "=" in line and not line.startswith("#"))
    assert keys["Restart"] == "on-failure"
    assert keys["WorkingDirectory"] == "/var/lib/mus-table"
    assert keys["StateDirectory"] == "mus-table"  # systemd makes it, owned by the service user
    assert keys["User"] == "mus-table"
    envs = [line.split("=", 1)[1] for line in UNIT.read_text().splitlines() if line.startswith("Environment=")]
    assert "XDG_DATA_HOME=/var/lib/mus-table" in envs  # learnt decks beside the journal, kept by updates
    assert "OPENBLAS_NUM_THREADS=1" in envs  # the reader on one core, numpy's products too


KIOSK = REPO / "hardware" / "pi" / "kiosk.sh"


def _kiosk(tmp: Path, browsers: tuple[str, ...]) -> tuple[subprocess.CompletedProcess[str], str]:
    stubs = tmp / "kiosk-stubs"
    stubs.mkdir()
    log = tmp / "kiosk.log"
    for name in ("curl", *browsers):
        (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n')
        (stubs / name).chmod(0o755)
    for tool in ("rm", "mkdir", "sleep"):  # only these beside the stubs: no real chromium on the PATH
        (stubs / tool).symlink_to(shutil.which(tool) or f"/bin/{tool}")
    done = subprocess.run(["/bin/sh", str(KIOSK)], capture_output=True, text=True, timeout=30,
                          env={"PATH": str(stubs), "MUS_TABLE_KIOSK_RUNS": "1", "XDG_RUNTIME_DIR": str(tmp)})
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
                          env={"PATH": f"{stubs}:/usr/bin:/bin", "MUS_TABLE_POLL_S": "0",
                               "MUS_TABLE_KIOSK_RUNS": "1", "XDG_RUNTIME_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[:4] == ["curl"] * 4 and calls[4].startswith("chromium --kiosk") and len(calls) == 5


def test_the_kiosk_starts_chromium_again_with_a_fresh_profile_and_no_zoom_or_translate(tmp_path: Path) -> None:
    """Chromium exits (a crash, a kill): it is started again, each time on an empty profile, so a
    pulled plug never leaves a «restore pages?» prompt; pinch-zoom and translation are off."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    log = tmp_path / "kiosk.log"
    (stubs / "curl").write_text("#!/bin/sh\nexit 0\n")
    # The browser leaves a file in its profile, and says whether the profile was empty at start.
    (stubs / "chromium").write_text(
        f'#!/bin/sh\nfor a; do case "$a" in --user-data-dir=*) d="${{a#*=}}";; esac; done\n'
        f'echo "start empty=$(ls -A "$d" | wc -l) $*" >> "{log}"\ntouch "$d/Crashpad"\nexit 1\n')
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    done = subprocess.run(["/bin/sh", str(KIOSK)], capture_output=True, text=True, timeout=30,
                          env={"PATH": f"{stubs}:/usr/bin:/bin", "MUS_TABLE_KIOSK_RUNS": "3",
                               "MUS_TABLE_RESTART_S": "0", "XDG_RUNTIME_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    starts = log.read_text().splitlines()
    assert len(starts) == 3 and all(s.startswith("start empty=0 --kiosk ") for s in starts)
    flags = starts[0].split()
    assert {"--disable-pinch", "--disable-features=Translate,TranslateUI", "--overscroll-history-navigation=0",
            "--disable-session-crashed-bubble", "--no-first-run"} <= set(flags)
    assert done.stderr.count("starting it again") == 3


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
    """`mus-table check`, as install.sh runs it: the configuration with the display's settings,
    the journal opened, and the configured source, opened as the service opens it, writes a
    full-resolution still; a journal that is not one fails the check (an update goes back)."""
    import sys

    import cv2

    from firmware.journal import Journal

    (tmp_path / "picamera2").mkdir()
    (tmp_path / "picamera2" / "__init__.py").write_text(FAKE_PICAMERA2)
    journal = tmp_path / "journal.sqlite"
    Journal(journal).close()
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\njournal = "{journal}"\n')  # the example's camera: picamera2
    settings = tmp_path / "settings.toml"
    settings.write_text('[table]\nname = "mesa-del-fondo"\n[camera]\nmains_hz = 60\n')
    frame = tmp_path / "first-frame.jpg"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}:{REPO}"}
    argv = [sys.executable, "-m", "firmware.cli", "check", "--config", str(config), "--settings", str(settings)]
    done = subprocess.run([*argv, "--frame", str(frame)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "mesa 'mesa-del-fondo', cámara picamera2, red eléctrica de 60 Hz" in done.stdout
    assert "diario: " + str(journal) + " abierto, 0 partidas, 0 manos" in done.stdout
    assert "vigilando a 768x432, foto fija a 4608x2592, nivel medio 120" in done.stdout  # the sensor's whole array
    assert "'AeEnable': False" in done.stdout  # exposure and white balance were locked
    image = cv2.imread(str(frame))
    assert image is not None and image.shape == (2592, 4608, 3)
    journal.write_bytes(b"not a journal at all" * 100)
    bad = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no es un diario de la mesa" in bad.stderr


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


# --- releases, updates and the way back -------------------------------------------------------


def fake_release(tmp: Path, rid: str, *, damage: bool = False, unit_note: str = "") -> Path:
    """A release archive as hardware/release.py lays it out, with a dummy wheel (the venvs are
    stubs here; tests/test_release.py installs a real one)."""
    import tarfile

    from hardware.release import sha256sums

    top = tmp / f"build-{rid}" / "mus-table-0.1.0"
    (top / "dist").mkdir(parents=True)
    (top / "dist/mus_table-0.1.0-py3-none-any.whl").write_text(f"wheel of {rid}\n")
    shutil.copytree(REPO / "hardware/pi", top / "hardware/pi")
    if unit_note:  # a release whose service unit differs
        unit = top / "hardware/pi/mus-table.service"
        unit.write_text(unit.read_text() + f"# {unit_note}\n")
    shutil.copy(REPO / "hardware/README.md", top / "hardware/README.md")
    (top / "firmware").mkdir()
    shutil.copy(REPO / "firmware/table.example.toml", top / "firmware/table.example.toml")
    (top / "RELEASE").write_text(f"version=0.1.0\nid={rid}\n")
    (top / "SHA256SUMS").write_text(sha256sums(top))
    if damage:
        (top / "dist/mus_table-0.1.0-py3-none-any.whl").write_text("changed on the way\n")
    archive = tmp / f"mus-table-{rid}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(top, arcname=top.name)
    return archive


def versions(root: Path) -> tuple[str, str, list[str]]:
    base = root / "opt/mus-table"
    prev = base / "previous"
    return (current(root).name, prev.resolve().name if prev.is_symlink() else "",
            sorted(p.name for p in (base / "versions").iterdir()))


def test_an_update_that_fails_its_self_check_goes_back_by_itself(tmp_path: Path, monkeypatch) -> None:
    first = install(tmp_path, "--from", str(fake_release(tmp_path, "0.1.0-aaaaaaa")))
    assert first.rc == 0, first.out
    assert versions(first.root) == ("0.1.0-aaaaaaa", "", ["0.1.0-aaaaaaa"])
    # The release's wheel was installed with the lock as constraints, from the unpacked archive.
    (pip,) = called(first, "venv-pip install")
    assert pip.endswith("/mus-table-0.1.0/dist/mus_table-0.1.0-py3-none-any.whl")
    config = first.root / "etc/mus-table/table.toml"
    config.write_text(config.read_text() + "\n# the club's\n")

    monkeypatch.setenv("FAKE_CHECK_RC", "1")  # the new version's self-check fails
    bad = install(tmp_path, "--from", str(fake_release(tmp_path, "0.1.0-bbbbbbb", unit_note="the new unit")),
                  root=first.root)
    assert bad.rc != 0
    assert "update to 0.1.0-bbbbbbb failed its self-check; the table runs 0.1.0-aaaaaaa again" in bad.out
    # the old version runs with its own unit again, not the new release's
    assert "the new unit" not in (first.root / "etc/systemd/system/mus-table.service").read_text()
    assert versions(first.root) == ("0.1.0-aaaaaaa", "0.1.0-bbbbbbb", ["0.1.0-aaaaaaa", "0.1.0-bbbbbbb"])

    monkeypatch.setenv("FAKE_CHECK_RC", "0")
    good = install(tmp_path, "--from", str(tmp_path), root=first.root)  # a folder: the newest archive in it
    assert good.rc == 0, good.out
    assert versions(first.root) == ("0.1.0-bbbbbbb", "0.1.0-aaaaaaa", ["0.1.0-aaaaaaa", "0.1.0-bbbbbbb"])
    back = install(tmp_path, "--rollback", root=first.root)
    assert back.rc == 0 and "back to version 0.1.0-aaaaaaa" in back.out
    assert versions(first.root) == ("0.1.0-aaaaaaa", "0.1.0-bbbbbbb", ["0.1.0-aaaaaaa", "0.1.0-bbbbbbb"])
    third = install(tmp_path, "--from", str(fake_release(tmp_path, "0.2.0-ccccccc")), root=first.root)
    assert third.rc == 0, third.out
    # Two versions kept: the current and the one before; the configuration never touched.
    assert versions(first.root) == ("0.2.0-ccccccc", "0.1.0-aaaaaaa", ["0.1.0-aaaaaaa", "0.2.0-ccccccc"])
    assert config.read_text().endswith("# the club's\n")


def test_a_damaged_release_is_refused_before_anything_changes(tmp_path: Path) -> None:
    run = install(tmp_path, "--from", str(fake_release(tmp_path, "0.1.0-aaaaaaa", damage=True)))
    assert run.rc != 0 and "damaged (its checksums do not match)" in run.out
    assert not called(run, "apt-get") and not (run.root / "opt").exists()


def test_the_displays_requests_update_from_a_stick_and_set_the_wifi(tmp_path: Path) -> None:
    first = install(tmp_path, "--from", str(fake_release(tmp_path, "0.1.0-aaaaaaa")))
    assert first.rc == 0, first.out
    requests = first.root / "var/lib/mus-table/requests"
    stick = first.root / "media/pi/STICK"
    stick.mkdir(parents=True)
    shutil.copy(fake_release(tmp_path / "b", "0.1.0-bbbbbbb"), stick)
    (requests / "update.request").write_text("source=usb\n")
    (tmp_path / "calls.log").unlink()
    # As mus-table-admin.service runs it: the installed version's own copy of install.sh.
    installed = first.root / "opt/mus-table/current/install.sh"
    done = install(tmp_path, "--requests", str(requests), root=first.root, script=installed)
    assert done.rc == 0, done.out
    import json

    status = json.loads((requests / "status.json").read_text())
    assert status["state"] == "done" and status["current"] == "0.1.0-bbbbbbb"
    assert status["previous"] == "0.1.0-aaaaaaa" and not (requests / "update.request").exists()
    assert not called(done, "apt-get")  # an update from the display installs the program only

    (requests / "network.request").write_text("country=ES\nhotspot=mus-table\npsk=una clave larga\n")
    (tmp_path / "calls.log").unlink()
    net = install(tmp_path, "--requests", str(requests), root=first.root)
    assert net.rc == 0, net.out
    assert "raspi-config nonint do_wifi_country ES" in net.calls
    (ap,) = called(net, "nmcli connection add")
    assert "ssid mus-table" in ap and "wifi-sec.psk una clave larga" in ap
    assert json.loads((requests / "status.json").read_text())["state"] == "done"

    (requests / "network.request").write_text("country=spain\n")  # refused: not a country code
    (tmp_path / "calls.log").unlink()
    refused = install(tmp_path, "--requests", str(requests), root=first.root)
    assert json.loads((requests / "status.json").read_text())["state"] == "failed"
    assert not called(refused, "raspi-config") and not called(refused, "nmcli connection add")
    (requests / "reboot.request").write_text("now\n")  # not a request it knows: removed, so the
    install(tmp_path, "--requests", str(requests), root=first.root)  # path unit does not fire for ever
    assert not list(requests.glob("*.request"))
    assert json.loads((requests / "status.json").read_text())["message"] == "unknown request reboot.request"


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed (Debian package shellcheck)")
def test_the_scripts_pass_shellcheck() -> None:
    pi = REPO / "hardware/pi"
    scripts = [*(str(pi / n) for n in ("install.sh", "try-on-debian.sh", "make-release.sh")),
               *(str(p) for p in (pi / "image").rglob("*.sh"))]
    done = subprocess.run(["shellcheck", "-s", "bash", *scripts], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    done = subprocess.run(["shellcheck", "-s", "sh", str(pi / "kiosk.sh")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout


def test_an_image_build_installs_the_program_and_leaves_the_pin_to_the_first_boot(tmp_path: Path) -> None:
    """install.sh --image (pi-gen's chroot, hardware/pi/image): the program and the services, no
    configuration (each flashed table makes its own PIN at its first boot), no check, no restart."""
    run = install(tmp_path, "--image", "--from", str(fake_release(tmp_path, "0.1.0-aaaaaaa")))
    assert run.rc == 0, run.out
    assert current(run.root).name == "0.1.0-aaaaaaa"
    assert not (run.root / "etc/mus-table/table.toml").exists()
    assert not called(run, "venv-mus-table check") and not called(run, "curl")
    assert not [c for c in called(run, "systemctl") if "restart" in c or "daemon-re" in c]
    first = install(tmp_path, "--first-boot", root=run.root)
    assert first.rc == 0, first.out
    assert re.search(r'^pin = "\d+"$', (run.root / "etc/mus-table/table.toml").read_text(), re.M)
    assert called(first, "venv-mus-table check") and "self-check passed" in first.out


def test_the_image_recipe_is_a_pi_gen_stage_that_bakes_the_release() -> None:
    image = REPO / "hardware/pi/image"
    config = (image / "config").read_text()
    assert "stage-mus-table" in re.search(r'^STAGE_LIST="([^"]+)"', config, re.M).group(1)  # type: ignore[union-attr]
    assert re.search(r"^RELEASE=bookworm$", config, re.M) and re.search(r"^ARCH=arm64$", config, re.M)
    run = (image / "stage-mus-table/00-release/00-run.sh").read_text()
    assert "install.sh --image" in run and "on_chroot" in run
    assert (image / "stage-mus-table/EXPORT_IMAGE").is_file()
    for script in ("build-image.sh", "stage-mus-table/prerun.sh", "stage-mus-table/00-release/00-run.sh"):
        assert os.access(image / script, os.X_OK), script
        assert subprocess.run(["bash", "-n", str(image / script)], timeout=30).returncode == 0
