#!/bin/bash
# Install or update mus-table on a Raspberry Pi (Raspberry Pi OS Bookworm or Trixie, 64-bit).
#
#   git clone <repository> mus-table && cd mus-table
#   sudo hardware/pi/install.sh                 # install, or update in place (run it again)
#   sudo hardware/pi/install.sh --hotspot mus-table-wifi 'a long passphrase'
#   sudo hardware/pi/install.sh --check         # only the self-check
#
# What it does (every step can be run again; configuration and journal are kept):
#   apt packages  python3-picamera2 and its numpy, lgpio, rpicam-apps, chromium, avahi, curl
#   /opt/mus-table/venv       a venv with --system-site-packages (picamera2, libcamera, numpy
#                             and lgpio come from apt) and mus-table installed from this checkout,
#                             numpy pinned to the system's own (constraints.txt) so pip never
#                             puts a second numpy in front of the one picamera2 was built with
#   /etc/mus-table/table.toml the configuration (kept if present; a new one gets a random PIN)
#   /var/lib/mus-table        the journal and the service's working directory
#   mus-table.service         `mus-table run --config /etc/mus-table/table.toml`, restarted on failure;
#                             polkit rules: it may power off (the panel) and set the clock (a phone's time)
#   the display               Chromium in kiosk mode at the desktop user's login (labwc), no blanking
#   mus-table.local           hostname and mDNS (avahi); optionally a Wi-Fi access point
#   self-check                picamera2 imports in the venv; a first frame through the table's own
#                             camera source (settled, locked); the page answers
#
# ROOT=/some/dir installs into a fake root instead of / (the tests do; apt, systemctl and the
# like are then whatever the PATH holds). Nothing outside ROOT is written then.
set -euo pipefail

ROOT="${ROOT:-}"
ROOT="${ROOT%/}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PREFIX=/opt/mus-table
VENV="$PREFIX/venv"
ETC=/etc/mus-table
CONFIG="$ETC/table.toml"
DATA=/var/lib/mus-table
SERVICE_USER=mus-table
PORT=8000

HOSTNAME_WANTED=mus-table
KIOSK=1
CHECK=1
CHECK_ONLY=0
ANY_OS=0
HOTSPOT_SSID=""
HOTSPOT_PASS=""
RTC_CHARGE=0
KIOSK_USER="${MUS_TABLE_KIOSK_USER:-${SUDO_USER:-}}"

say() { printf 'mus-table install: %s\n' "$*"; }
die() { printf 'mus-table install: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    cat <<'EOF'
Options:
  --hostname NAME          hostname and mDNS name (default mus-table: http://mus-table.local:8000)
  --keep-hostname          leave the hostname alone
  --kiosk-user USER        the desktop user whose login opens the display (default: who ran sudo)
  --no-kiosk               no display on this Pi (phones and tablets only)
  --hotspot SSID PASS      also offer a Wi-Fi access point (NetworkManager) where there is no Wi-Fi
  --rtc-battery-charge     Pi 5 with a rechargeable RTC battery: enable its trickle charging
  --no-check               skip the self-check (camera, page)
  --check                  run only the self-check
  --any-os                 do not refuse a release other than Bookworm or Trixie
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --hostname) HOSTNAME_WANTED="${2:?--hostname NAME}"; shift ;;
        --keep-hostname) HOSTNAME_WANTED="" ;;
        --kiosk-user) KIOSK_USER="${2:?--kiosk-user USER}"; shift ;;
        --no-kiosk) KIOSK=0 ;;
        --hotspot) HOTSPOT_SSID="${2:?--hotspot SSID PASS}"; HOTSPOT_PASS="${3:?--hotspot SSID PASS}"; shift 2 ;;
        --rtc-battery-charge) RTC_CHARGE=1 ;;
        --no-check) CHECK=0 ;;
        --check) CHECK_ONLY=1 ;;
        --any-os) ANY_OS=1 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
    shift
done

if [ -n "$HOTSPOT_PASS" ] && [ "${#HOTSPOT_PASS}" -lt 8 ]; then
    die "--hotspot: the passphrase needs at least 8 characters"
fi

# --- the system -----------------------------------------------------------------------------

os_codename() {
    # shellcheck disable=SC1090,SC1091
    (. "$ROOT/etc/os-release" && printf '%s' "${VERSION_CODENAME:-unknown}")
}

check_system() {
    [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ] && die "run it as root: sudo $0"
    [ -r "$ROOT/etc/os-release" ] || die "no /etc/os-release: not a Debian system"
    CODENAME="$(os_codename)"
    case "$CODENAME" in
        bookworm|trixie) ;;
        *) [ "$ANY_OS" = 1 ] || die "Raspberry Pi OS $CODENAME is not supported (Bookworm or Trixie; --any-os to try)" ;;
    esac
    local arch
    arch="$(dpkg --print-architecture)"
    [ "$arch" = arm64 ] || [ "$ANY_OS" = 1 ] || \
        die "a 64-bit system is needed (this one is $arch): onnxruntime has no 32-bit ARM wheels"
    say "Raspberry Pi OS $CODENAME ($arch)"
}

apt_packages() {
    local pkgs=(python3-venv python3-pip python3-picamera2 python3-numpy python3-lgpio
                rpicam-apps avahi-daemon curl sqlite3 network-manager polkitd)
    if [ "$KIOSK" = 1 ]; then
        # Bookworm calls the browser chromium-browser; Trixie calls it chromium.
        if [ "$CODENAME" = bookworm ]; then pkgs+=(chromium-browser); else pkgs+=(chromium); fi
    fi
    say "apt: ${pkgs[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}"
}

service_user() {
    if ! id "$SERVICE_USER" >/dev/null 2>&1; then
        say "user $SERVICE_USER (system user, no login)"
        useradd --system --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin \
            --user-group "$SERVICE_USER"
    fi
    local g
    for g in video render gpio; do
        if getent group "$g" >/dev/null 2>&1; then
            usermod -a -G "$g" "$SERVICE_USER"
        fi
    done
}

# --- the program ----------------------------------------------------------------------------

system_python_version() { python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }

write_constraints() {
    # picamera2's simplejpeg (and picamera2 itself) are built by Raspberry Pi OS against its
    # own numpy; a pip numpy in front of it fails with «numpy.dtype size changed». Pin pip to
    # exactly that numpy, so it is never installed from PyPI, and, on Bookworm (numpy 1.24),
    # keep OpenCV below 4.12 (opencv-python-headless 4.12 requires numpy >= 2).
    local numpy_version
    numpy_version="$(python3 -c 'import numpy; print(numpy.__version__)')" || \
        die "the system numpy does not import (apt install python3-numpy)"
    {
        echo "# Written by hardware/pi/install.sh for Raspberry Pi OS $CODENAME: the venv uses apt's numpy."
        echo "numpy==$numpy_version"
        case "$numpy_version" in
            1.*) echo "opencv-python-headless<4.12" ;;
        esac
    } > "$ROOT$PREFIX/constraints.txt"
    say "constraints: numpy==$numpy_version (the one python3-picamera2 was built with)"
}

install_program() {
    mkdir -p "$ROOT$PREFIX"
    # A venv made by another Python (say, before an upgrade from Bookworm to Trixie) is rebuilt.
    local want have=""
    want="$(system_python_version)"
    if [ -x "$ROOT$VENV/bin/python" ]; then
        have="$("$ROOT$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' || true)"
        if [ "$have" != "$want" ]; then
            say "the venv was made by Python $have, the system has $want: rebuilding it"
            rm -rf "$ROOT$VENV"
        fi
    fi
    if [ ! -x "$ROOT$VENV/bin/python" ]; then
        say "venv $VENV (--system-site-packages: picamera2, libcamera, numpy, lgpio from apt)"
        python3 -m venv --system-site-packages "$ROOT$VENV"
    fi
    write_constraints
    say "pip: mus-table from $SRC"
    "$ROOT$VENV/bin/pip" install --quiet --upgrade --upgrade-strategy only-if-needed \
        --constraint "$ROOT$PREFIX/constraints.txt" "$SRC"
    install -m 0755 "$SRC/hardware/pi/kiosk.sh" "$ROOT$PREFIX/kiosk.sh"
    install -m 0644 "$SRC/hardware/README.md" "$ROOT$PREFIX/README.md"
}

random_pin() { od -An -N2 -tu2 /dev/urandom | awk '{ printf "%04d", $1 % 10000 }'; }

install_config() {
    mkdir -p "$ROOT$ETC"
    if [ -e "$ROOT$CONFIG" ]; then
        say "configuration kept: $CONFIG"
        return
    fi
    local example="$SRC/firmware/table.example.toml" pin
    pin="$(random_pin)"
    if [ -f "$example" ]; then
        sed -e "s|^[# ]*journal *=.*|journal = \"$DATA/journal.sqlite\"|" \
            -e "s|^[# ]*pin *=.*|pin = \"$pin\"|" "$example" > "$ROOT$CONFIG.new"
    else
        printf '[table]\nname = "mesa-1"\npin = "%s"\njournal = "%s/journal.sqlite"\n' \
            "$pin" "$DATA" > "$ROOT$CONFIG.new"
    fi
    grep -q "^journal = \"$DATA/journal.sqlite\"" "$ROOT$CONFIG.new" || \
        die "could not set the journal's path in $CONFIG.new"
    chmod 0640 "$ROOT$CONFIG.new"
    chown "root:$SERVICE_USER" "$ROOT$CONFIG.new"
    mv "$ROOT$CONFIG.new" "$ROOT$CONFIG"
    say "configuration written: $CONFIG (display PIN $pin; edit the file to change it)"
}

install_service() {
    mkdir -p "$ROOT/etc/systemd/system" "$ROOT$DATA"
    install -m 0644 "$SRC/hardware/pi/mus-table.service" "$ROOT/etc/systemd/system/mus-table.service"
    if [ -d "$ROOT/etc/polkit-1" ] || [ -n "$ROOT" ]; then
        mkdir -p "$ROOT/etc/polkit-1/rules.d"
        # The panel's long press powers off; a phone's time sets the clock where there is no network.
        local rules
        for rules in 50-mus-table-poweroff.rules 50-mus-table-clock.rules; do
            install -m 0644 "$SRC/hardware/pi/$rules" "$ROOT/etc/polkit-1/rules.d/$rules"
        done
    fi
    chown "$SERVICE_USER:$SERVICE_USER" "$ROOT$DATA"
    chmod 0750 "$ROOT$DATA"
    if [ -n "$ROOT" ]; then
        systemctl --root="$ROOT" enable mus-table.service
    else
        systemctl daemon-reload
        systemctl enable mus-table.service
        systemctl restart mus-table.service
    fi
    say "service mus-table enabled (journal and working directory: $DATA)"
}

# --- the display, the name, the network, the clock ---------------------------------------------

home_of() { getent passwd "$1" | cut -d: -f6; }

install_kiosk() {
    [ "$KIOSK" = 1 ] || return 0
    if [ -z "$KIOSK_USER" ]; then
        KIOSK_USER="$(getent passwd 1000 | cut -d: -f1 || true)"
    fi
    [ -n "$KIOSK_USER" ] || die "no desktop user for the display: --kiosk-user USER, or --no-kiosk"
    local home dir file
    home="$(home_of "$KIOSK_USER")"
    [ -n "$home" ] || die "--kiosk-user $KIOSK_USER: no such user"
    dir="$ROOT$home/.config/labwc"
    file="$dir/autostart"
    mkdir -p "$dir"
    # labwc runs the user's autostart instead of the desktop's own: the screen is the table's.
    if [ -f "$file" ] && ! grep -q "mus-table kiosk" "$file"; then
        cp "$file" "$file.before-mus-table"
        say "kept the old labwc autostart as $file.before-mus-table"
    fi
    printf '# mus-table kiosk: the table page, full screen, once the server answers\n%s/kiosk.sh &\n' \
        "$PREFIX" > "$file"
    chown -R "$KIOSK_USER:" "$dir"
    if command -v raspi-config >/dev/null 2>&1 && [ -z "$ROOT" ]; then
        raspi-config nonint do_boot_behaviour B4   # desktop, logged in automatically
        [ "$CODENAME" = bookworm ] && raspi-config nonint do_wayland W3   # labwc
        raspi-config nonint do_blanking 1          # 1 = screen blanking off
    else
        say "raspi-config not run: set desktop autologin, labwc and «screen blanking: off» by hand"
    fi
    say "display: Chromium kiosk at $KIOSK_USER's login"
}

set_hostname() {
    [ -n "$HOSTNAME_WANTED" ] || return 0
    if [ -n "$ROOT" ]; then
        printf '%s\n' "$HOSTNAME_WANTED" > "$ROOT/etc/hostname"
    elif command -v raspi-config >/dev/null 2>&1; then
        raspi-config nonint do_hostname "$HOSTNAME_WANTED"
    else
        hostnamectl set-hostname "$HOSTNAME_WANTED"
    fi
    mkdir -p "$ROOT/etc/avahi/services"
    install -m 0644 "$SRC/hardware/pi/mus-table-avahi.service" "$ROOT/etc/avahi/services/mus-table.service"
    [ -n "$ROOT" ] || systemctl enable --now avahi-daemon.service
    say "name: http://$HOSTNAME_WANTED.local:$PORT (after a reboot)"
}

set_hotspot() {
    [ -n "$HOTSPOT_SSID" ] || return 0
    if nmcli -t -f NAME connection show | grep -qx mus-table-ap; then
        nmcli connection delete mus-table-ap
    fi
    # ipv4.method shared: the Pi hands out addresses (10.42.0.x) and is 10.42.0.1.
    # A low priority: a known Wi-Fi network, when in range, wins over the access point.
    nmcli connection add type wifi ifname wlan0 con-name mus-table-ap autoconnect yes \
        connection.autoconnect-priority -10 ssid "$HOTSPOT_SSID" \
        802-11-wireless.mode ap 802-11-wireless.band bg ipv4.method shared \
        wifi-sec.key-mgmt wpa-psk wifi-sec.psk "$HOTSPOT_PASS"
    say "access point $HOTSPOT_SSID: phones join it and open http://10.42.0.1:$PORT"
}

set_rtc_charge() {
    [ "$RTC_CHARGE" = 1 ] || return 0
    local cfg="$ROOT/boot/firmware/config.txt"
    mkdir -p "$(dirname "$cfg")"
    touch "$cfg"
    if ! grep -q '^dtparam=rtc_bbat_vchg=' "$cfg"; then
        printf '\n# mus-table: trickle-charge the Pi 5 RTC battery (rechargeable ML-2020 only)\ndtparam=rtc_bbat_vchg=3000000\n' >> "$cfg"
    fi
    say "RTC battery charging on (after a reboot)"
}

# --- the proof --------------------------------------------------------------------------------

self_check() {
    [ "$CHECK" = 1 ] || { say "self-check skipped"; return 0; }
    local py="$ROOT$VENV/bin/python" frame="$ROOT$DATA/first-frame.jpg" ok=1
    say "check 1/4: picamera2, numpy and OpenCV import together in the venv"
    "$py" -c 'import numpy, cv2, onnxruntime; from picamera2 import Picamera2; print("numpy", numpy.__version__, "opencv", cv2.__version__, "onnxruntime", onnxruntime.__version__)' || ok=0
    say "check 2/4: the configuration loads"
    "$py" -c 'import sys; from firmware.config import load_config; load_config(sys.argv[1]); print("config ok")' \
        "$ROOT$CONFIG" || ok=0
    say "check 3/4: a first frame (the service lets go of the camera meanwhile)"
    [ -n "$ROOT" ] || systemctl stop mus-table.service
    "$py" - "$frame" "$ROOT$CONFIG" <<'EOF' || ok=0
import sys

import cv2
from firmware.config import load_config
from firmware.table_app import open_source

# The table's own camera source, as the service opens it: for picamera2 the watch stream
# and the full-resolution still, after the exposure and white balance settled and locked.
cam = open_source(load_config(sys.argv[2]))
try:
    frame, still = cam.grab(), cam.still()
finally:
    cam.close()
if frame is None or still is None:
    sys.exit("the camera gave no frame")
cv2.imwrite(sys.argv[1], still)
print(f"first frame: watching {frame.image.shape[1]}x{frame.image.shape[0]}, still {still.shape[1]}x{still.shape[0]}, "
      f"mean level {still.mean():.0f}, locked {getattr(cam, 'locked', {})}: {sys.argv[1]}")
if getattr(cam, "refused", ""):
    print(f"the sensor's full resolution was refused ({cam.refused}): stills are half that")
EOF
    if [ -z "$ROOT" ]; then
        chown "$SERVICE_USER:$SERVICE_USER" "$frame" 2>/dev/null || true
        systemctl start mus-table.service
    fi
    say "check 4/4: the table page answers"
    local i=0
    until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/"; do
        i=$((i + 1))
        if [ "$i" -ge 90 ]; then
            ok=0
            say "the page did not answer in 90 s: journalctl -u mus-table -n 50"
            break
        fi
        sleep 1
    done
    [ "$ok" = 1 ] || die "self-check FAILED (see above)"
    say "self-check passed"
}

check_system
if [ "$CHECK_ONLY" = 1 ]; then
    CHECK=1
    self_check
    exit 0
fi
apt_packages
service_user
install_program
install_config
install_service
install_kiosk
set_hostname
set_hotspot
set_rtc_charge
self_check
say "done. Update later with: git pull && sudo hardware/pi/install.sh"
