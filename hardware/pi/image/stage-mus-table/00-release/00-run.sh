#!/bin/bash -e
# pi-gen: bake the mus-table release into the image. build-image.sh put the release archive in
# files/; install.sh --image does everything a running system is not needed for (apt packages,
# the venv from the release's wheel and lock file, the services, the kiosk, the hardware
# watchdog) and enables mus-table-firstboot.service, which on the first boot writes the
# configuration with a PIN of this table's own and runs the self-check.
archive="$(find files -maxdepth 1 -name 'mus-table-*.tar.gz' | sort -V | tail -n 1)"
[ -n "$archive" ] || { echo "no mus-table-*.tar.gz in $(pwd)/files: run build-image.sh" >&2; exit 1; }
install -d "${ROOTFS_DIR}/opt/mus-table-release"
install -m 0644 "$archive" "${ROOTFS_DIR}/opt/mus-table-release/"
name="$(basename "$archive")"
on_chroot <<CHROOT
set -e
cd /tmp
tar xzf "/opt/mus-table-release/$name"
bash /tmp/mus-table-*/install.sh --image --kiosk-user "${FIRST_USER_NAME}"
rm -rf /tmp/mus-table-*/
CHROOT
