"""Attack benchmark (not a test): does the table keep answering its kiosk and its players under attack?

Starts the table (the real loop on the synthetic table, its runner paced at
8 frames a second as on the Pi, the app under :mod:`web.server`) and, from a
separate process so that the attacker's CPU is not the table's, attacks it on
loopback from many addresses (127.0.2.x and up), as a visitor on the club's
Wi-Fi with no PIN could:

- ``--streams`` event streams held open (``/api/events``; past the spectator
  cap they are told «full» and keep their connection);
- ``--slow`` slow-loris sockets (a header byte every ``--drip-s``), reopened
  when the server closes them;
- bodies of 1 GB announced to ``/api/command`` and trickled, 60 KB of nested
  brackets to ``/api/unlock`` and ``/api/clock``, and wrong PINs, each in a
  loop from its own addresses.

Meanwhile, from this process, the kiosk (127.0.0.1) asks ``/api/state`` on a
new connection every ``--every-s``, and a player's phone (127.0.0.9, unlocked
with the PIN) sends a word and takes it back, timing each command from its
send to the moment the kiosk's ``/api/state`` shows it. Both are measured with
no attack first, then under attack: p50, p99, max and failures (no answer
within 10 s, or not applied). ``--target HOST:PORT --pin PIN`` measures a
table already running instead (e.g. an older version's ``mus-table demo``).

Usage::

    nice -n 15 python -m web.loadtest --attack --streams 1000 --slow 600 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import resource
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

KIOSK = "127.0.0.1"
PHONE = "127.0.0.9"
TIMEOUT_S = 10.0


def raise_file_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return int(hard)
    except (ValueError, OSError):
        return int(soft)


def addresses(block: int, n: int, per: int = 20) -> list[str]:
    """``n`` source addresses for one kind of attack, ``per`` connections on each."""
    return [f"127.0.{block}.{2 + i // per}" for i in range(n)]


# ------------------------------------------------------------------------------ the attacker


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


async def _request(host: str, port: int, source: str, raw: bytes, tally: Tally, what: str) -> None:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, local_addr=(source, 0)), TIMEOUT_S)
    except (TimeoutError, OSError):
        tally.add(f"{what}: no connection")
        return
    try:
        writer.write(raw)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), TIMEOUT_S)
        tally.add(f"{what}: {line[9:12].decode() or 'closed'}")
    except (TimeoutError, OSError):
        tally.add(f"{what}: no answer")
    finally:
        writer.close()


async def _stream(host: str, port: int, source: str, tally: Tally, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
        except OSError:
            tally.add("stream: no connection")
            await asyncio.sleep(1.0)
            continue
        writer.write(f"GET /api/events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        seen = False
        try:
            while not stop.is_set():
                line = await reader.readline()
                if not line:
                    break
                if seen:
                    continue
                key = ("stream: held" if line.startswith(b"event: state") else
                       "stream: told full" if line.startswith(b"event: full") else
                       "stream: over its address's share" if line.startswith(b"HTTP/1.1 429") else None)
                if key is not None:
                    seen = True
                    tally.add(key)
                    if key == "stream: told full":
                        await stop.wait()  # hold the connection, as an attacker would
        except OSError:
            pass
        finally:
            writer.close()
        tally.add("stream: closed by the server")
        await asyncio.sleep(1.0)


async def _slow(host: str, port: int, source: str, drip_s: float, tally: Tally, stop: asyncio.Event) -> None:
    head = f"GET /api/state HTTP/1.1\r\nHost: {host}:{port}\r\nX-Slow: ".encode() + b"a" * 100000
    while not stop.is_set():
        try:
            _, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
        except OSError:
            tally.add("slow: no connection")
            await asyncio.sleep(1.0)
            continue
        tally.add("slow: opened")
        try:
            for i in range(len(head)):
                if stop.is_set():
                    break
                writer.write(head[i:i + 1])
                await writer.drain()
                await asyncio.sleep(drip_s)
        except OSError:
            tally.add("slow: closed by the server")
        finally:
            writer.close()


async def _huge(host: str, port: int, source: str, tally: Tally, stop: asyncio.Event) -> None:
    """Announce a 1 GB body and push it as fast as the server takes it, until it answers."""
    while not stop.is_set():
        t0 = time.monotonic()
        answer: asyncio.Future[bytes] | None = None
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
            writer.write(f"POST /api/command HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json"
                         f"\r\nContent-Length: {10**9}\r\n\r\n".encode())
            chunk = b"[" * 65536
            answer = asyncio.ensure_future(reader.readline())
            while not answer.done() and time.monotonic() - t0 < TIMEOUT_S:
                writer.write(chunk)
                try:
                    await asyncio.wait_for(writer.drain(), 0.5)
                except TimeoutError:
                    pass
            line = await asyncio.wait_for(answer, TIMEOUT_S)
            tally.add(f"1 GB body: {line[9:12].decode() or 'closed'}")
            writer.close()
        except (TimeoutError, OSError):
            # the server answered and closed while we still pushed: was there an answer?
            if answer is not None and answer.done() and not answer.cancelled() and answer.exception() is None:
                tally.add(f"1 GB body: {answer.result()[9:12].decode() or 'closed'}")
            else:
                tally.add("1 GB body: reset before an answer was read")
        finally:
            if answer is not None and not answer.done():
                answer.cancel()
            elif answer is not None and not answer.cancelled():
                answer.exception()  # retrieved: no «never retrieved» warning
        await asyncio.sleep(0.2)


async def _loop(make: Any, stop: asyncio.Event, pause: float) -> None:
    while not stop.is_set():
        await make()
        await asyncio.sleep(pause)


async def _attack(host: str, port: int, streams: int, slow: int, drip_s: float, seconds: float) -> dict[str, int]:
    tally = Tally()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(_stream(host, port, a, tally, stop)) for a in addresses(2, streams)]
    tasks += [asyncio.create_task(_slow(host, port, a, drip_s, tally, stop)) for a in addresses(3 + streams // 5000, slow)]
    nested = b"[" * 60000
    for i, a in enumerate(addresses(10, 8, per=1)):
        pin_body = json.dumps({"pin": f"{i:06d}"}).encode()
        wrong = (f"POST /api/unlock HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(pin_body)}\r\nConnection: close\r\n\r\n").encode() + pin_body
        tasks.append(asyncio.create_task(_loop(
            lambda a=a, wrong=wrong: _request(host, port, a, wrong, tally, "wrong PIN"), stop, 0.2)))
    for i, a in enumerate(addresses(11, 4, per=1)):
        route = "/api/unlock" if i % 2 else "/api/clock"
        deep = (f"POST {route} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(nested)}\r\nConnection: close\r\n\r\n").encode() + nested
        small = b"[" * 900
        deep_small = (f"POST {route} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {len(small)}\r\nConnection: close\r\n\r\n").encode() + small
        tasks.append(asyncio.create_task(_loop(
            lambda a=a, deep=deep: _request(host, port, a, deep, tally, "60 KB nested"), stop, 0.2)))
        tasks.append(asyncio.create_task(_loop(
            lambda a=a, d=deep_small: _request(host, port, a, d, tally, "900 nested"), stop, 0.2)))
    tasks += [asyncio.create_task(_huge(host, port, a, tally, stop)) for a in addresses(12, 4, per=1)]
    print("attacking", flush=True)
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.sleep(0.5)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return tally.counts


def attacker_main(target: str, streams: int, slow: int, drip_s: float, seconds: float) -> None:
    """The attacker's process: prints «attacking» once its sockets are on their way, then its tally."""
    raise_file_limit()
    host, port = target.rsplit(":", 1)
    out = asyncio.run(_attack(host, int(port), streams, slow, drip_s, seconds))
    print(json.dumps(out), flush=True)


# ------------------------------------------------------------------------------ the players


def _get(host: str, port: int, source: str, path: str, headers: dict[str, str] | None = None) -> Any:
    c = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S, source_address=(source, 0))
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read(), r.getheader("Set-Cookie")
    finally:
        c.close()


def _post(host: str, port: int, source: str, path: str, body: dict[str, Any],
          headers: dict[str, str]) -> Any:
    c = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S, source_address=(source, 0))
    try:
        c.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **headers})
        r = c.getresponse()
        return r.status, r.read(), r.getheader("Set-Cookie")
    finally:
        c.close()


@dataclass
class Players:
    """The kiosk and one unlocked phone, measuring (see the module's docstring)."""

    host: str
    port: int
    pin: str
    every_s: float = 0.25
    state_ms: list[float] = field(default_factory=list)
    state_failed: int = 0
    command_ms: list[float] = field(default_factory=list)
    command_failed: int = 0
    cookie: str = ""
    csrf: str = ""

    def unlock(self) -> None:
        status, body, cookie = _post(self.host, self.port, PHONE, "/api/unlock", {"pin": self.pin}, {})
        if status != 200:
            raise RuntimeError(f"the phone could not unlock: {status} {body[:200]!r}")
        self.csrf = json.loads(body)["csrf"]
        self.cookie = (cookie or "").split(";")[0]

    def kiosk_state(self) -> dict[str, Any] | None:
        t0 = time.monotonic()
        try:
            status, body, _ = _get(self.host, self.port, KIOSK, "/api/state")
        except OSError:
            self.state_failed += 1
            return None
        if status != 200:
            self.state_failed += 1
            return None
        self.state_ms.append((time.monotonic() - t0) * 1000)
        return json.loads(body)  # type: ignore[no-any-return]

    def command(self, said: bool) -> bool:
        """One word (or taking it back), timed until the kiosk's state shows it; True: it did."""
        t0 = time.monotonic()
        try:
            state = self.kiosk_state()
            if state is None:
                raise OSError("no state")
            body: dict[str, Any] = {"kind": "unsay"} if said else \
                {"kind": "say", "seat": state["bets"]["speaker"], "word": "paso"}
            status, answer, _ = _post(self.host, self.port, PHONE, "/api/command", body,
                                      {"X-CSRF-Token": self.csrf, "Cookie": self.cookie})
            if status != 200:
                raise OSError(f"{status} {answer[:120]!r}")
            seq = int(json.loads(answer)["state"]["seq"])
            while time.monotonic() - t0 < TIMEOUT_S:
                now = self.kiosk_state()
                if now is not None and int(now["seq"]) >= seq:
                    self.command_ms.append((time.monotonic() - t0) * 1000)
                    return True
        except (OSError, KeyError, ValueError) as exc:
            print(f"  command failed: {exc}", file=sys.stderr, flush=True)
        self.command_failed += 1
        return False

    def measure(self, seconds: float) -> dict[str, Any]:
        self.state_ms, self.command_ms = [], []
        self.state_failed = self.command_failed = 0
        said = False
        n = 0
        t_end = time.monotonic() + seconds
        while time.monotonic() < t_end:
            t0 = time.monotonic()
            if n % 2:
                if self.command(said):
                    said = not said
            else:
                self.kiosk_state()
            n += 1
            rest = self.every_s - (time.monotonic() - t0)
            if rest > 0:
                time.sleep(rest)
        return {"kiosk_state_ms": _summary(self.state_ms), "kiosk_state_failed": self.state_failed,
                "command_to_state_ms": _summary(self.command_ms), "commands_failed": self.command_failed}


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _summary(values: list[float]) -> dict[str, Any] | None:
    if not values:
        return None
    return {"n": len(values), "p50": round(_pct(values, 0.5), 1), "p99": round(_pct(values, 0.99), 1),
            "max": round(max(values), 1)}


# ------------------------------------------------------------------------------ the table


class Table:
    """The table under attack: the real loop, paced at ``fps``, served by web.server."""

    def __init__(self, fps: float, cap: int) -> None:
        from firmware.runner import TableRunner  # noqa: PLC0415
        from firmware.synthetic import SyntheticTable  # noqa: PLC0415
        from firmware.table_loop import TableLoop  # noqa: PLC0415
        from web.app import create_app  # noqa: PLC0415
        from web.security import random_pin  # noqa: PLC0415
        from web.server import make_server  # noqa: PLC0415

        self.pin = random_pin()
        self.loop = TableLoop()
        self.runner = TableRunner(self.loop, SyntheticTable(seed=5), fps=0)
        self.app = create_app(self.loop, pin=self.pin, max_spectators=cap)
        self.server = make_server(self.app, "127.0.0.1", 0)
        self.port = int(self.server.effective_port)
        self.period = 1.0 / fps
        self._stop = threading.Event()
        self.frames = 0
        threading.Thread(target=self.server.run, daemon=True).start()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.monotonic()
            self.runner.step()
            self.frames += 1
            self._stop.wait(max(0.0, self.period - (time.monotonic() - t0)))

    def close(self) -> None:
        self._stop.set()
        self.app.extensions["mus_table"]["hub"].stop()
        self.server.task_dispatcher.shutdown(timeout=2)
        self.server.close()


def run(streams: int, slow: int, seconds: float, drip_s: float = 0.5, fps: float = 8.0, cap: int = 500,
        target: str | None = None, pin: str | None = None) -> dict[str, Any]:
    fds = raise_file_limit()
    table = None
    if target is None:
        table = Table(fps, cap)
        host, port, pin = "127.0.0.1", table.port, table.pin
    else:
        host, port_s = target.rsplit(":", 1)
        port = int(port_s)
        if pin is None:
            raise SystemExit("--target needs --pin")
    try:
        players = Players(host, port, pin)
        players.unlock()
        players.measure(2.0)  # warm up
        calm = players.measure(seconds)
        frames0 = table.frames if table else 0
        attacker = subprocess.Popen(
            [sys.executable, "-m", "web.attack", "--attacker", f"{host}:{port}", "--streams", str(streams),
             "--slow", str(slow), "--drip-s", str(drip_s), "--seconds", str(seconds + 10.0)],
            stdout=subprocess.PIPE, text=True)
        assert attacker.stdout is not None
        if attacker.stdout.readline().strip() != "attacking":
            raise RuntimeError("the attacker did not start")
        time.sleep(8.0)  # let the attacker's sockets open (its streams, slow sockets) before measuring
        t0 = time.monotonic()
        attacked = players.measure(seconds)
        fps_attacked = ((table.frames - frames0) / (time.monotonic() - t0 + 8.0)) if table else None
        hub = table.app.extensions["mus_table"]["hub"] if table else None
        server = table.server if table else None
        inside = {"spectators_held": hub.spectators if hub else None,
                  "connections_open": len(server._map) if server else None,
                  "connections_refused_over_share": server.refused_connections if server else None}
        tally = json.loads(attacker.stdout.readline() or "{}")
        attacker.wait(60)
        return {"streams": streams, "slow_loris": slow, "seconds": seconds, "file_limit": fds,
                "target": target or "this process (web.server)",
                "calm": calm, "attacked": attacked, "table_fps_attacked": round(fps_attacked, 2) if fps_attacked else None,
                "server": inside, "attacker": tally,
                "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    finally:
        if table is not None:
            table.close()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--streams", type=int, default=1000, help="event streams the attacker holds")
    p.add_argument("--slow", type=int, default=600, help="slow-loris sockets")
    p.add_argument("--drip-s", type=float, default=0.5, help="seconds between a slow socket's bytes")
    p.add_argument("--seconds", type=float, default=30.0, help="seconds of each measure (calm, attacked)")
    p.add_argument("--fps", type=float, default=8.0, help="the table runner's pace")
    p.add_argument("--cap", type=int, default=500, help="the spectator cap")
    p.add_argument("--target", help="HOST:PORT of a table already running (instead of starting one)")
    p.add_argument("--pin", help="that table's PIN")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add_arguments(p)
    p.add_argument("--attacker", help=argparse.SUPPRESS)  # internal: the attacker's process
    a = p.parse_args(argv)
    if a.attacker:
        attacker_main(a.attacker, a.streams, a.slow, a.drip_s, a.seconds)
        return 0
    print(json.dumps(run(a.streams, a.slow, a.seconds, a.drip_s, a.fps, a.cap, a.target, a.pin), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
