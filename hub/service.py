"""The hub put together: store, follower, public tree and pages, and the server that runs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask

from hub.app import DELAY_KEY, MAX_SSE, create_app
from hub.follower import BrokerAddress, Follower
from hub.public import PublicTree
from hub.results import seats
from hub.store import Store


@dataclass
class Hub:
    store: Store
    follower: Follower
    app: Flask

    def close(self) -> None:
        self.follower.close()
        self.store.close()


def build_hub(db: str, broker: BrokerAddress, *, pin: str, prefix: str = "mus-table", public_ws: str = "",
              delay_s: float | None = None, schema: str | None = None, public: bool = True) -> Hub:
    """A hub on database ``db`` following ``broker`` (not started: ``hub.follower.start()``).
    ``delay_s`` (None: the tournament's setting) holds the public feed back; ``public``: whether
    this hub writes the public tree (one hub of those sharing a tournament does)."""
    store = Store(db, schema=schema)
    if delay_s is not None:
        store.set_setting(DELAY_KEY, str(int(delay_s)))
    tree = PublicTree(delay_s=float(store.setting(DELAY_KEY, "0")), pairs=lambda: seats(store)) if public else None
    follower = Follower(store, broker, prefix=prefix, public=tree)
    return Hub(store, follower, create_app(store, follower, pin=pin, public_ws=public_ws))


def make_server(app: Flask, host: str, port: int) -> Any:
    """A waitress server for the hub's pages (``.run()`` blocks; ``.close()`` stops), with a
    thread for every fallback stream it lets open."""
    from waitress.server import create_server

    return create_server(app, host=host, port=port, threads=MAX_SSE + 16, connection_limit=MAX_SSE + 64,
                         channel_timeout=60, ident="mus-table-hub", clear_untrusted_proxy_headers=True)
