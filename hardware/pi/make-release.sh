#!/bin/bash
# Build the release a club downloads: dist/mus-table-VERSION.tar.gz (the wheel, the sdist, the
# Pi's files and the lock files; hardware/release.py says what is in it).
#   hardware/pi/make-release.sh                 # from a checkout, with PyPA's build installed
#   hardware/pi/make-release.sh --wheelhouse    # plus the Pi's wheels, for a table with no network
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec python3 -m hardware.release "$@"
