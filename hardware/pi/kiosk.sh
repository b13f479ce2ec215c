#!/bin/sh
# The table display: Chromium in kiosk mode on the table page, started from labwc's
# autostart at login, once mus-table's server answers. Installed as /opt/mus-table/kiosk.sh.
URL="${MUS_TABLE_URL:-http://127.0.0.1:8000/}"
# Wait for the server (the service may still be loading the card model), at most ~5 min;
# after that open the page anyway: Chromium shows its own error and can be reloaded.
i=0
while [ "$i" -lt 300 ]; do
    if curl -fsS -o /dev/null --max-time 2 "$URL"; then
        break
    fi
    i=$((i + 1))
    sleep "${MUS_TABLE_POLL_S:-1}"
done
for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null 2>&1; then
        BROWSER="$b"
        break
    fi
done
if [ -z "${BROWSER:-}" ]; then
    echo "kiosk: no chromium found (apt install chromium)" >&2
    exit 1
fi
exec "$BROWSER" --kiosk --noerrdialogs --disable-infobars --no-first-run \
    --disable-session-crashed-bubble --password-store=basic --ozone-platform=wayland \
    --check-for-update-interval=31536000 --overscroll-history-navigation=0 "$URL"
