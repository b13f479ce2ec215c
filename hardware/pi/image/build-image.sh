#!/bin/bash
# Build the SD image a club flashes with Raspberry Pi Imager («Use custom»): one file with
# Raspberry Pi OS Bookworm (64-bit, desktop), the mus-table release installed, the kiosk, and a
# first boot that makes the table's own PIN and runs the self-check.
#
#   hardware/pi/image/build-image.sh [PI_GEN_DIR]
#
# Needs: a checkout of pi-gen (github.com/RPi-Distro/pi-gen, branch «arm64» for Bookworm) at
# PI_GEN_DIR (default ../pi-gen), Docker (pi-gen's build-docker.sh), the network (apt and pip),
# about 20 GB of disk and an hour. Writes pi-gen's deploy/image_*-mus-table.img.xz.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
PI_GEN="${1:-$REPO/../pi-gen}"
[ -x "$PI_GEN/build-docker.sh" ] || { echo "build-image: no pi-gen at $PI_GEN (git clone -b arm64 https://github.com/RPi-Distro/pi-gen)" >&2; exit 1; }
# The release first (the same archive a club downloads), with the Pi's wheels for Bookworm.
out="$(mktemp -d)"
(cd "$REPO" && python3 -m hardware.release --out "$out" --wheelhouse)
rm -rf "$PI_GEN/stage-mus-table"
cp -r "$HERE/stage-mus-table" "$PI_GEN/stage-mus-table"
mkdir -p "$PI_GEN/stage-mus-table/00-release/files"
cp "$out"/mus-table-*.tar.gz "$PI_GEN/stage-mus-table/00-release/files/"
cp "$HERE/config" "$PI_GEN/config"
# Stages 3 and 4 export images of their own in pi-gen's default tree: only ours is wanted.
rm -f "$PI_GEN/stage2/EXPORT_IMAGE" "$PI_GEN/stage3/EXPORT_IMAGE" "$PI_GEN/stage4/EXPORT_IMAGE" \
    "$PI_GEN/stage2/EXPORT_NOOBS" "$PI_GEN/stage4/EXPORT_NOOBS"
touch "$PI_GEN/stage4/SKIP" "$PI_GEN/stage5/SKIP" 2>/dev/null || true
(cd "$PI_GEN" && ./build-docker.sh)
ls -l "$PI_GEN"/deploy/*mus-table*
