#!/bin/bash
# Install or update mus-table on a Raspberry Pi (Raspberry Pi OS Bookworm or Trixie, 64-bit).
#
#   tar xzf mus-table-0.1.0.tar.gz && sudo mus-table-0.1.0/install.sh   # install, or update
#   sudo /opt/mus-table/current/install.sh --from /media/pi/STICK        # update from a USB stick
#   sudo /opt/mus-table/current/install.sh --rollback                    # back to the previous
#   sudo /opt/mus-table/current/install.sh --check                       # only the self-check
#
# What it does (every step can be run again; configuration and journal are kept):
#   apt packages  python3-picamera2 and its numpy, lgpio, rpicam-apps, chromium, avahi, curl
#   /opt/mus-table/versions/ID  each release in its own venv (--system-site-packages: picamera2,
#                             libcamera, numpy and lgpio come from apt), installed from the
#                             release's wheel with the lock file of this OS as pip's constraints
#                             and numpy pinned to apt's own; `current` points at the one the
#                             service runs, `previous` at the one before (kept for --rollback)
#   /etc/mus-table/table.toml the configuration (kept if present; a new one gets a random PIN)
#   /var/lib/mus-table        the journal and the service's working directory
#   mus-table.service         `mus-table run --config /etc/mus-table/table.toml`, restarted on failure;
#                             polkit rules: it may power off (the panel) and set the clock (a phone's time)
#   the display               Chromium in kiosk mode at the desktop user's login (labwc), no blanking
#   mus-table.local           hostname and mDNS (avahi); optionally a Wi-Fi access point
#   self-check                picamera2 imports in the venv; `mus-table check`: the configuration,
#                             the journal opened, a first frame through the table's own camera
#                             source (settled, locked); the page answers. An update whose check
#                             fails goes back to the previous version by itself.
#   mus-table-admin.path      what the display asks of root (an update, the Wi-Fi, a restart)
#
# ROOT=/some/dir installs into a fake root instead of / (the tests do; apt, systemctl and the
# like are then whatever the PATH holds). Nothing outside ROOT is written then.
set -euo pipefail

ROOT="${ROOT:-}"
ROOT="${ROOT%/}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Run from a release or a checkout (hardware/pi/install.sh), or as an installed version's own copy
# (/opt/mus-table/current/install.sh, which mus-table-admin runs): SRC is the tree it came with.
if [ -d "$HERE/hardware/pi" ]; then SRC="$HERE"; else SRC="$(cd "$HERE/../.." && pwd)"; fi
PREFIX=/opt/mus-table
CURRENT="$PREFIX/current"
VENV="$CURRENT/venv"
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
FROM=""
IMAGE=0
FIRST_BOOT=0
ROLLBACK=0
REQUESTS=""
WORK=""
KIOSK_USER="${MUS_TABLE_KIOSK_USER:-${SUDO_USER:-}}"

say() { printf 'mus-table install: %s\n' "$*"; }
running() { [ -z "$ROOT" ] && [ "$IMAGE" = 0 ]; }   # a live system: systemd to restart, a camera
cleanup() { if [ -n "$WORK" ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT
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
  --from PATH              install this release: a mus-table-*.tar.gz, or a folder (a USB stick)
                           holding one (the newest is taken)
  --rollback               go back to the previous version (kept by the last update)
  --requests DIR           do what the display asked in DIR (run by mus-table-admin.service)
  --image                  building an SD image (pi-gen's chroot): no running system to restart
                           or check, no configuration yet; the first boot does those
  --first-boot             the SD image's first boot: the configuration (its own PIN), the check
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
        --from) FROM="${2:?--from PATH}"; shift ;;
        --rollback) ROLLBACK=1 ;;
        --image) IMAGE=1; CHECK=0 ;;
        --first-boot) FIRST_BOOT=1 ;;
        --requests) REQUESTS="${2:?--requests DIR}"; shift ;;
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

# --- the release ----------------------------------------------------------------------------

newest_archive() {
    # The newest mus-table-*.tar.gz in a folder (a USB stick), by version.
    find "$1" -maxdepth 3 -name 'mus-table-*.tar.gz' -type f 2>/dev/null | sort -V | tail -n 1
}

unpack_release() {
    # --from: a release archive (or a folder holding one) becomes SRC, once its checksums hold.
    local archive="$1" top
    if [ -d "$archive" ]; then
        archive="$(newest_archive "$archive")"
        [ -n "$archive" ] || die "no mus-table-*.tar.gz in $1"
    fi
    [ -f "$archive" ] || die "no release at $archive"
    WORK="$(mktemp -d)"
    tar -xzf "$archive" -C "$WORK" --no-same-owner --no-same-permissions || die "$archive: not a release archive"
    top="$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'mus-table-*' | head -n 1)"
    if [ -z "$top" ] || [ ! -f "$top/RELEASE" ] || [ ! -f "$top/SHA256SUMS" ]; then
        die "$archive: not a mus-table release"
    fi
    (cd "$top" && sha256sum --quiet --strict -c SHA256SUMS) || die "$archive: damaged (its checksums do not match)"
    SRC="$top"
    say "release $(release_id) from $archive"
}

release_id() {
    # The release's id (version-commit): from its RELEASE file, or, in a checkout, made here.
    if [ -f "$SRC/RELEASE" ]; then
        sed -n 's/^id=//p' "$SRC/RELEASE"
    else
        local version commit
        version="$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$SRC/pyproject.toml" | head -n 1)"
        commit="$(git -C "$SRC" rev-parse --short=7 HEAD 2>/dev/null || echo local)"
        printf '%s-%s\n' "${version:-0}" "$commit"
    fi
}

# --- the program ----------------------------------------------------------------------------

system_python_version() { python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }

lock_file() {
    # The lock of this OS (pinned versions for its Python); --any-os: by the Python's version.
    local lock="$SRC/hardware/pi/lock/$CODENAME.txt"
    if [ ! -f "$lock" ]; then
        case "$(system_python_version)" in
            3.11) lock="$SRC/hardware/pi/lock/bookworm.txt" ;;
            *) lock="$SRC/hardware/pi/lock/trixie.txt" ;;
        esac
    fi
    [ -f "$lock" ] || die "no lock file for $CODENAME in this release"
    printf '%s\n' "$lock"
}

write_constraints() {
    # picamera2's simplejpeg (and picamera2 itself) are built by Raspberry Pi OS against its
    # own numpy; a pip numpy in front of it fails with «numpy.dtype size changed». Pin pip to
    # exactly that numpy, so it is never installed from PyPI, and every other package to the
    # lock file of this OS (on Bookworm that keeps OpenCV below 4.12, which needs numpy >= 2).
    local dest="$1" lock numpy_version locked
    lock="$(lock_file)"
    numpy_version="$(python3 -c 'import numpy; print(numpy.__version__)')" || \
        die "the system numpy does not import (apt install python3-numpy)"
    locked="$(sed -n 's/^numpy==//p' "$lock")"
    if [ "${locked%%.*}" != "${numpy_version%%.*}" ]; then
        die "apt's numpy is $numpy_version; this release's lock ($(basename "$lock")) was made for numpy $locked"
    fi
    [ "$locked" = "$numpy_version" ] || say "apt's numpy is $numpy_version (the lock says $locked): apt's is kept"
    {
        echo "# Written by hardware/pi/install.sh for Raspberry Pi OS $CODENAME: the venv uses apt's numpy."
        echo "numpy==$numpy_version"
        case "$numpy_version" in
            1.*) echo "opencv-python-headless<4.12" ;;
        esac
        echo "# $(basename "$lock") from the release:"
        grep -v -e '^numpy==' -e '^#' -e '^$' "$lock"
    } > "$dest"
    say "constraints: numpy==$numpy_version (the one python3-picamera2 was built with), $(basename "$lock")"
}

the_wheel() {
    # The release's wheel; in a checkout, one built from a clean copy of its files (never
    # pip on the checkout itself: a stale build/ could bring a deleted module back).
    local wheel
    wheel="$(find "$SRC/dist" -maxdepth 1 -name 'mus_table-*.whl' 2>/dev/null | sort -V | tail -n 1)"
    if [ -n "$wheel" ]; then
        printf '%s\n' "$wheel"
        return
    fi
    [ -d "$SRC/.git" ] || [ -f "$SRC/.git" ] || die "no wheel in $SRC/dist: use a release archive (section 5)"
    [ -n "$WORK" ] || WORK="$(mktemp -d)"
    mkdir -p "$WORK/clean" "$WORK/wheel"
    git -C "$SRC" ls-files -z -co --exclude-standard | (cd "$SRC" && xargs -0 cp --parents -t "$WORK/clean")
    "$1/bin/pip" wheel --quiet --no-deps --wheel-dir "$WORK/wheel" "$WORK/clean" >&2 || die "the wheel could not be built"
    find "$WORK/wheel" -name 'mus_table-*.whl' | head -n 1
}

install_version() {
    # versions/ID/venv, made once: rerunning the same release reuses it; a half-made one
    # (no .complete) is made again. A venv of another Python (an OS upgrade) is never reused.
    local id dir want
    id="$(release_id)"
    [ -n "$id" ] || die "the release has no id"
    dir="$PREFIX/versions/$id"
    want="$(system_python_version)"
    if [ -f "$ROOT$dir/.complete" ] && [ "$(cat "$ROOT$dir/.complete")" = "$want" ]; then
        say "version $id already installed (Python $want)"
    else
        rm -rf "${ROOT:?}$dir"
        mkdir -p "$ROOT$dir"
        say "venv $dir/venv (--system-site-packages: picamera2, libcamera, numpy, lgpio from apt)"
        python3 -m venv --system-site-packages "$ROOT$dir/venv"
        write_constraints "$ROOT$dir/constraints.txt"
        local wheel find_links=()
        wheel="$(the_wheel "$ROOT$dir/venv")"
        if [ -d "$SRC/wheels/$CODENAME" ]; then
            find_links=(--no-index --find-links "$SRC/wheels/$CODENAME")   # a release for a Pi offline
        fi
        say "pip: $(basename "$wheel")"
        "$ROOT$dir/venv/bin/pip" install --quiet "${find_links[@]}" \
            --constraint "$ROOT$dir/constraints.txt" "$wheel" || die "pip could not install $(basename "$wheel")"
        install -m 0755 "$SRC/hardware/pi/kiosk.sh" "$ROOT$dir/kiosk.sh"
        install -m 0755 "$SRC/hardware/pi/install.sh" "$ROOT$dir/install.sh"
        mkdir -p "$ROOT$dir/hardware/pi"
        cp -r "$SRC/hardware/pi/." "$ROOT$dir/hardware/pi/"
        install -m 0644 "$SRC/hardware/README.md" "$ROOT$dir/README.md"
        [ -f "$SRC/firmware/table.example.toml" ] && install -m 0644 "$SRC/firmware/table.example.toml" "$ROOT$dir/table.example.toml"
        printf 'id=%s\n' "$id" > "$ROOT$dir/RELEASE"
        [ -f "$SRC/RELEASE" ] && cp "$SRC/RELEASE" "$ROOT$dir/RELEASE"
        printf '%s\n' "$want" > "$ROOT$dir/.complete"
    fi
    NEW_ID="$id"
}

link_to() {
    # Point the symlink $1 at versions/$2, atomically (a rename over the old link).
    ln -sfn "versions/$2" "$ROOT$PREFIX/.$1.new"
    mv -T "$ROOT$PREFIX/.$1.new" "$ROOT$PREFIX/$1"
}

version_of() { basename "$(readlink "$ROOT$PREFIX/$1" 2>/dev/null || true)"; }

switch_to() {
    # current -> the new version; previous -> the one that was current; older ones removed.
    local old
    old="$(version_of current)"
    if [ -n "$old" ] && [ "$old" != "$1" ]; then
        link_to previous "$old"
    fi
    link_to current "$1"
    local keep_prev d
    keep_prev="$(version_of previous)"
    for d in "$ROOT$PREFIX"/versions/*; do
        [ -d "$d" ] || continue
        case "$(basename "$d")" in "$1"|"$keep_prev") ;; *) rm -rf "$d"; say "removed old version $(basename "$d")" ;; esac
    done
    # The layout before versions: one venv in /opt/mus-table/venv.
    if [ -d "$ROOT$PREFIX/venv" ] && [ ! -L "$ROOT$PREFIX/venv" ]; then
        rm -rf "$ROOT$PREFIX/venv" "$ROOT$PREFIX/constraints.txt" "$ROOT$PREFIX/kiosk.sh"
    fi
    say "version $1 is current${old:+ (previous: $old)}"
}

install_program() {
    mkdir -p "$ROOT$PREFIX/versions"
    install_version
    PREVIOUS_ID="$(version_of current)"
    switch_to "$NEW_ID"
}

restore_units() {
    # The units of the version going back to, as it was installed with them (a newer release may
    # have changed them in a way the older program does not understand).
    local dir="$ROOT$PREFIX/versions/$1/hardware/pi" unit
    [ -d "$dir" ] || return 0
    for unit in mus-table.service mus-table-admin.service mus-table-admin.path; do
        [ -f "$dir/$unit" ] && install -m 0644 "$dir/$unit" "$ROOT/etc/systemd/system/$unit"
    done
    return 0
}

rollback() {
    # current <-> previous, and the service restarted on the old version.
    local cur prev
    cur="$(version_of current)"
    prev="$(version_of previous)"
    if [ -z "$prev" ] || [ ! -d "$ROOT$PREFIX/versions/$prev" ]; then
        die "no previous version to go back to"
    fi
    link_to current "$prev"
    link_to previous "$cur"
    restore_units "$prev"
    restart_service
    say "back to version $prev (was $cur)"
}

restart_service() {
    if running; then systemctl daemon-reload; systemctl restart mus-table.service; fi
}

random_pin() { od -An -N4 -tu4 /dev/urandom | awk '{ printf "%06d", $1 % 1000000 }'; }
# The display's PIN as the table will use it: one changed on the display, else the configuration's.
table_pin() { grep -h -m1 '^pin *= *"[0-9]*"' "$ROOT$DATA/settings.toml" "$ROOT$CONFIG" 2>/dev/null | head -n1 | cut -d'"' -f2; }

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
    local unit
    # The table; and the admin pair: the display drops a request in $DATA/requests (an update,
    # the Wi-Fi, a restart) and root does it with this script (--requests), nothing more.
    for unit in mus-table.service mus-table-admin.service mus-table-admin.path; do
        install -m 0644 "$SRC/hardware/pi/$unit" "$ROOT/etc/systemd/system/$unit"
    done
    if [ -d "$ROOT/etc/polkit-1" ] || [ -n "$ROOT" ]; then
        mkdir -p "$ROOT/etc/polkit-1/rules.d"
        # The panel's long press powers off; a phone's time sets the clock where there is no network.
        local rules
        for rules in 50-mus-table-poweroff.rules 50-mus-table-clock.rules; do
            install -m 0644 "$SRC/hardware/pi/$rules" "$ROOT/etc/polkit-1/rules.d/$rules"
        done
    fi
    mkdir -p "$ROOT$DATA/requests"
    chown "$SERVICE_USER:$SERVICE_USER" "$ROOT$DATA" "$ROOT$DATA/requests"
    chmod 0750 "$ROOT$DATA"
    chmod 0770 "$ROOT$DATA/requests"
    if [ -n "$ROOT" ]; then
        systemctl --root="$ROOT" enable mus-table.service mus-table-admin.path
    elif [ "$IMAGE" = 1 ]; then
        install -m 0644 "$SRC/hardware/pi/mus-table-firstboot.service" /etc/systemd/system/mus-table-firstboot.service
        systemctl enable mus-table.service mus-table-admin.path mus-table-firstboot.service
    else
        systemctl daemon-reload
        systemctl enable mus-table.service
        systemctl enable --now mus-table-admin.path
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
    # Plain labwc runs only the first autostart it finds (the user's); Raspberry Pi OS starts it
    # as `labwc -m` (labwc-pi), which runs the desktop's as well: the panel and the desktop start
    # under the kiosk, and Chromium's full screen covers them (checklist, section 6).
    if [ -f "$file" ] && ! grep -q "mus-table kiosk" "$file"; then
        cp "$file" "$file.before-mus-table"
        say "kept the old labwc autostart as $file.before-mus-table"
    fi
    printf '# mus-table kiosk: the table page, full screen, once the server answers\n%s/kiosk.sh &\n' \
        "$CURRENT" > "$file"
    chown -R "$KIOSK_USER:" "$dir"
    if command -v raspi-config >/dev/null 2>&1 && [ -z "$ROOT" ]; then   # a chroot (--image) too
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
    if running; then systemctl enable --now avahi-daemon.service; elif [ -z "$ROOT" ]; then systemctl enable avahi-daemon.service; fi
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

set_watchdog() {
    # The Pi's hardware watchdog (bcm2835-wdt, on by default on Raspberry Pi OS): systemd pets it;
    # a kernel that hangs for 15 s (the most the Pi's timer allows) reboots the Pi by itself.
    local dir="$ROOT/etc/systemd/system.conf.d"
    mkdir -p "$dir"
    printf '# mus-table: a hung Pi reboots by itself (hardware watchdog, petted by systemd)\n[Manager]\nRuntimeWatchdogSec=15\nRebootWatchdogSec=2min\n' \
        > "$dir/mus-table-watchdog.conf"
    if running; then systemctl daemon-reexec; fi
    say "hardware watchdog: 15 s"
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
    # 1 imports, 2-3 `mus-table check` (configuration, journal, a first frame), 4 the page.
    # Returns 1 on a failure (the caller decides: die, or go back to the previous version).
    [ "$CHECK" = 1 ] || { say "self-check skipped"; return 0; }
    local py="$ROOT$VENV/bin/python" frame="$ROOT$DATA/first-frame.jpg" ok=1
    say "check 1/4: picamera2, numpy and OpenCV import together in the venv"
    "$py" -c 'import numpy, cv2, onnxruntime; from picamera2 import Picamera2; print("numpy", numpy.__version__, "opencv", cv2.__version__, "onnxruntime", onnxruntime.__version__)' || ok=0
    say "check 2-3/4: the configuration, the journal, a first frame (the service lets go of the camera meanwhile)"
    [ -n "$ROOT" ] || systemctl stop mus-table.service
    "$ROOT$VENV/bin/mus-table" check --config "$ROOT$CONFIG" --settings "$ROOT$DATA/settings.toml" --frame "$frame" || ok=0
    if [ -z "$ROOT" ]; then
        chown "$SERVICE_USER:$SERVICE_USER" "$frame" 2>/dev/null || true
        systemctl start --no-block mus-table.service   # the first boot runs before it: no wait
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
    [ "$ok" = 1 ] || return 1
    say "self-check passed"
}

check_or_go_back() {
    # After an update: a failed self-check puts the previous version back, by itself.
    if self_check; then
        return 0
    fi
    if [ -n "$PREVIOUS_ID" ] && [ "$PREVIOUS_ID" != "$NEW_ID" ]; then
        say "self-check FAILED on $NEW_ID: going back to $PREVIOUS_ID"
        link_to current "$PREVIOUS_ID"
        link_to previous "$NEW_ID"
        restore_units "$PREVIOUS_ID"
        restart_service
        die "update to $NEW_ID failed its self-check; the table runs $PREVIOUS_ID again"
    fi
    die "self-check FAILED (see above)"
}

# --- what the display asks (mus-table-admin.service) --------------------------------------------

write_status() {
    # $DATA/requests/status.json: what the display shows of the last request.
    local state="$1" message="$2" file="$ROOT$DATA/requests/status.json"
    message="${message//\\/\\\\}"
    message="${message//\"/\\\"}"
    printf '{"state": "%s", "message": "%s", "current": "%s", "previous": "%s", "at": "%s"}\n' \
        "$state" "$message" "$(version_of current)" "$(version_of previous)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        > "$file.new"
    chmod 0644 "$file.new"
    mv "$file.new" "$file"
}

request_value() { sed -n "s/^$2=//p" "$1" | head -n 1; }

do_network_request() {
    # country=ES, then either ssid= and psk= (join a Wi-Fi) or hotspot= and psk= (be one).
    local req="$1" country ssid psk hotspot
    country="$(request_value "$req" country)"
    ssid="$(request_value "$req" ssid)"
    hotspot="$(request_value "$req" hotspot)"
    psk="$(request_value "$req" psk)"
    [[ "$country" =~ ^[A-Z]{2}$ ]] || { write_status failed "country: two capital letters"; return 1; }
    [[ -z "$ssid$hotspot" || "$ssid$hotspot" =~ ^[[:print:]]{1,32}$ ]] || { write_status failed "ssid"; return 1; }
    [[ -z "$psk" || "$psk" =~ ^[[:print:]]{8,63}$ ]] || { write_status failed "psk: 8 to 63 characters"; return 1; }
    if command -v raspi-config >/dev/null 2>&1; then
        raspi-config nonint do_wifi_country "$country"
    else
        iw reg set "$country" || true
    fi
    if [ -n "$hotspot" ]; then
        HOTSPOT_SSID="$hotspot" HOTSPOT_PASS="$psk"
        set_hotspot
    elif [ -n "$ssid" ]; then
        nmcli device wifi connect "$ssid" password "$psk" || { write_status failed "wifi: $ssid not joined"; return 1; }
    fi
    write_status "done" "network: country $country${ssid:+, wifi $ssid}${hotspot:+, hotspot $hotspot}"
}

do_requests() {
    # One request at a time, the file taken away first (the path unit would fire again).
    local dir="$1" req
    for req in "$dir"/update.request "$dir"/network.request "$dir"/restart.request; do
        [ -f "$req" ] || continue
        mv "$req" "$req.taken"
        case "$(basename "$req")" in
            update.request)
                local source
                source="$(request_value "$req.taken" source)"
                write_status running "update from $source"
                if [ "$source" = usb ]; then
                    FROM="$(newest_archive "$ROOT/media")"
                    [ -n "$FROM" ] || { write_status failed "no mus-table-*.tar.gz on a USB stick"; rm -f "$req.taken"; continue; }
                else
                    FROM="$dir/upload.tar.gz"
                fi
                if ( trap cleanup EXIT; unpack_release "$FROM" && install_program && install_service && check_or_go_back ); then
                    write_status "done" "updated to $(version_of current)"
                else
                    write_status failed "update failed; running $(version_of current)"
                fi
                rm -f "$dir/upload.tar.gz" ;;
            network.request) do_network_request "$req.taken" || true ;;
            restart.request) restart_service; write_status "done" "restarted" ;;
        esac
        rm -f "$req.taken"
    done
    # Anything else named *.request would start the path unit again and again: taken away.
    for req in "$dir"/*.request; do
        [ -e "$req" ] || continue
        rm -f "$req"
        write_status failed "unknown request $(basename "$req")"
    done
}

check_system
if [ -n "$REQUESTS" ]; then
    do_requests "$REQUESTS"
    exit 0
fi
if [ "$ROLLBACK" = 1 ]; then
    rollback
    exit 0
fi
if [ "$CHECK_ONLY" = 1 ]; then
    CHECK=1
    self_check || die "self-check FAILED (see above)"
    exit 0
fi
if [ "$FIRST_BOOT" = 1 ]; then
    install_config
    CHECK=1
    self_check || die "self-check FAILED (see above)"
    exit 0
fi
[ -z "$FROM" ] || unpack_release "$FROM"
apt_packages
service_user
install_program
[ "$IMAGE" = 1 ] || install_config   # an image's table gets its own PIN on its first boot
install_service
install_kiosk
set_hostname
set_hotspot
set_watchdog
set_rtc_charge
check_or_go_back
say "done: version $NEW_ID. Update later from the display (Ajustes → Actualizar), or: sudo $CURRENT/install.sh --from mus-table-NEW.tar.gz"
say "PIN de la mesa: $(table_pin)"
