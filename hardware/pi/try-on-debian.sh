#!/bin/bash
# Try install.sh on a plain Debian 12 or 13 (a container, a spare machine) as far as it goes
# without a Pi: the real system Python, apt's numpy and the real pip, in a fake root.
#
#   docker run --rm -v "$PWD":/src -w /src debian:bookworm hardware/pi/try-on-debian.sh
#   sudo hardware/pi/try-on-debian.sh [--tests]     # on a Debian machine (apt installs 2 packages)
#
# apt installs python3-venv and python3-numpy (what Raspberry Pi OS has, less picamera2, which
# only Raspberry Pi's archive carries); the commands that would change the machine (apt-get
# inside install.sh, useradd, chown, nmcli, raspi-config, curl) are stubbed and dpkg says arm64;
# install.sh then runs with ROOT= a fresh folder and --no-check. It proves that the venv keeps
# apt's numpy, which OpenCV and onnxruntime pip picks with it, and that they import together;
# --tests also runs the loop's and the reader's tests in that venv. Prints what it found.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TESTS=0
[ "${1:-}" = --tests ] && TESTS=1
[ "$(id -u)" -eq 0 ] || { echo "try-on-debian: run it as root (it installs python3-venv and python3-numpy)" >&2; exit 1; }

DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    python3-venv python3-numpy ca-certificates >/dev/null

WORK="$(mktemp -d)"
ROOT="$WORK/root"
STUBS="$WORK/stubs"
mkdir -p "$ROOT/etc" "$STUBS"
cp /etc/os-release "$ROOT/etc/os-release"
for n in apt-get useradd usermod chown nmcli raspi-config hostnamectl curl iw; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/calls.log"\n' "$n" "$WORK" > "$STUBS/$n"
done
printf '#!/bin/sh\necho arm64\n' > "$STUBS/dpkg"
# shellcheck disable=SC2016  # the stubs' own $1, $2 and $@, written as they are
printf '#!/bin/sh\n[ "$1" = mus-table ] && exit 0\nexec /usr/bin/id "$@"\n' > "$STUBS/id"
# shellcheck disable=SC2016
printf '#!/bin/sh\ncase "$1 $2" in "passwd pi") echo "pi:x:1000:1000::/home/pi:/bin/bash";; "group video"|"group gpio") echo "$2:x:44:";; *) exit 2;; esac\n' > "$STUBS/getent"
# shellcheck disable=SC2016
printf '#!/bin/sh\ncase "$1" in --root=*) command -v /usr/bin/systemctl >/dev/null && exec /usr/bin/systemctl "$@";; esac\nexit 0\n' > "$STUBS/systemctl"
chmod +x "$STUBS"/*

env -i HOME="$WORK" ROOT="$ROOT" SUDO_USER=pi PATH="$STUBS:/usr/sbin:/usr/bin:/sbin:/bin" \
    bash "$SRC/hardware/pi/install.sh" --no-check --any-os

PY="$ROOT/opt/mus-table/current/venv/bin/python"
echo "--- constraints.txt"
cat "$ROOT/opt/mus-table/current/constraints.txt"
echo "--- the venv"
"$PY" -c 'import numpy, cv2, onnxruntime; print("numpy", numpy.__version__, "from", numpy.__file__); print("opencv", cv2.__version__, "onnxruntime", onnxruntime.__version__)'
apt_numpy="$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')"
venv_numpy="$("$PY" -c 'import numpy; print(numpy.__version__)')"
[ "$apt_numpy" = "$venv_numpy" ] || { echo "try-on-debian: FAILED: the venv's numpy $venv_numpy is not apt's $apt_numpy" >&2; exit 1; }
if [ "$TESTS" = 1 ]; then
    "$ROOT/opt/mus-table/current/venv/bin/pip" install -q pytest hypothesis -c "$ROOT/opt/mus-table/current/constraints.txt"
    (cd "$SRC" && "$PY" -m pytest -p no:cacheprovider -q -o addopts="" tests/test_table_loop.py \
        tests/test_loop_runner.py tests/test_camera.py tests/test_journal.py tests/test_demo.py \
        tests/test_reading.py tests/test_classifier.py)
fi
echo "try-on-debian: apt's numpy $apt_numpy kept in the venv; everything above imported together"
