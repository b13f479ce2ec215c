#!/bin/sh
# The table display: Chromium in kiosk mode on the table page, started from labwc's autostart at
# login, once mus-table's server answers; started again whenever it exits (a crash, a kill, an
# update of chromium). Installed in each version as /opt/mus-table/current/kiosk.sh.
#
# Each start gets a fresh, empty profile (a pulled plug leaves no «restore pages?» prompt and
# no stale cache), translation off (the page is Spanish on purpose), pinch-zoom and the
# swipe-back gesture off (a player's palm must not zoom or leave the table page).
URL="${MUS_TABLE_URL:-http://127.0.0.1:8000/}"
POLL_S="${MUS_TABLE_POLL_S:-1}"
RUNS="${MUS_TABLE_KIOSK_RUNS:-0}"   # how many starts (0: for ever; the tests stop it)
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
PROFILES="${XDG_RUNTIME_DIR:-/tmp}/mus-table-kiosk"
n=0
while :; do
    # Wait for the server (the service may still be loading the card model), at most ~5 min;
    # after that open the page anyway: Chromium shows its own error and can be reloaded.
    i=0
    while [ "$i" -lt 300 ]; do
        if curl -fsS -o /dev/null --max-time 2 "$URL"; then
            break
        fi
        i=$((i + 1))
        sleep "$POLL_S"
    done
    rm -rf "$PROFILES"
    mkdir -p "$PROFILES"
    "$BROWSER" --kiosk --noerrdialogs --disable-infobars --no-first-run \
        --user-data-dir="$PROFILES" --disable-session-crashed-bubble --hide-crash-restore-bubble \
        --disable-features=Translate,TranslateUI --disable-translate --disable-pinch \
        --overscroll-history-navigation=0 --password-store=basic --ozone-platform=wayland \
        --check-for-update-interval=31536000 "$URL"
    echo "kiosk: $BROWSER exited ($?); starting it again" >&2
    n=$((n + 1))
    if [ "$RUNS" -gt 0 ] && [ "$n" -ge "$RUNS" ]; then
        exit 0
    fi
    sleep "${MUS_TABLE_RESTART_S:-2}"
done
