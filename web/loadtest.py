"""Load script (not a test): does a crowd of spectators slow the table loop, and how late do they hear?

Runs the real loop on the synthetic table (``firmware.synthetic``) with its
runner stepping as fast as it can, the real app under waitress, and a driver
that says a word and takes it back ``--events-per-s`` times a second (each one
event with the whole state). It measures, for ``--seconds`` each:

1. the loop's frame rate with no spectator;
2. the same with ``--spectators`` open event streams (real TCP connections,
   held by a separate process so that their reading does not count against
   the table), and the delay from each event's publication to the moment the
   LAST spectator received it (p50, p99, max);
3. what one more spectator is told, the cap being exactly ``--spectators``.

Times are ``time.monotonic()``, which is one clock for every process of the
machine. Usage::

    python -m web.loadtest --spectators 200 --seconds 20          # the loop's headroom
    python -m web.loadtest --spectators 200 --seconds 20 --fps 8  # paced as the Pi's runner
    python -m web.loadtest --attack --streams 1000 --slow 600     # under attack (web.attack)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

from firmware.runner import TableRunner
from firmware.synthetic import SyntheticTable
from firmware.table_commands import Say, Unsay
from firmware.table_loop import TableLoop
from web.app import create_app
from web.security import random_pin
from web.server import make_server

# ------------------------------------------------------------------------------ the spectators


def spectator_address(i: int) -> str:
    """Where spectator ``i`` connects from: 20 to an address of 127.0.1.x (127.0.0.1 is the kiosk,
    which the cap does not count, and each address has a share of connections: web.server)."""
    return f"127.0.1.{2 + i // 20}"


async def _spectator(host: str, port: int, got: dict[int, float], ready: asyncio.Event,
                     counter: list[int], total: int, source: str) -> None:
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    writer.write(f"GET /api/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    first = True
    while True:
        line = await reader.readline()
        if not line:
            return
        if line.startswith(b"id: "):
            now = time.monotonic()
            seq = int(line[4:])
            if first:
                first = False
                counter[0] += 1
                if counter[0] == total:
                    ready.set()
                continue
            got[seq] = max(got.get(seq, 0.0), now)
            got[-seq] = got.get(-seq, 0) + 1  # how many spectators received it


async def _crowd(host: str, port: int, n: int, seconds: float) -> dict[str, Any]:
    got: dict[int, float] = {}
    ready = asyncio.Event()
    counter = [0]
    tasks = [asyncio.create_task(_spectator(host, port, got, ready, counter, n, spectator_address(i)))
             for i in range(n)]
    await asyncio.wait_for(ready.wait(), 60)
    print("ready", flush=True)
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()
    return {"last": {str(k): v for k, v in got.items() if k > 0},
            "count": {str(-k): v for k, v in got.items() if k < 0}}


def crowd_main(host: str, port: int, n: int, seconds: float) -> None:
    """The spectators' process: prints «ready», then after ``seconds`` one JSON line."""
    out = asyncio.run(_crowd(host, port, n, seconds))
    print(json.dumps(out), flush=True)


def past_cap(host: str, port: int) -> str:
    """What one more spectator is told once every place is taken (the ``full`` event's message)."""
    with socket.create_connection((host, port), timeout=10, source_address=("127.0.0.200", 0)) as s:
        s.sendall(f"GET /api/events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        got = b""
        while b"event: full" not in got or not got.endswith(b"\n\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    for line in got.decode().splitlines():
        if line.startswith("data: "):
            return str(json.loads(line[6:])["message"])
    return "(no message: " + got.decode(errors="replace")[-200:] + ")"


# ------------------------------------------------------------------------------ the table


class Bench:
    def __init__(self, spectators: int, events_per_s: float, fps: float = 0.0) -> None:
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.table = SyntheticTable(seed=5)
        self.loop = TableLoop()
        self.runner = TableRunner(self.loop, self.table, fps=0)
        self.app = create_app(self.loop, pin=random_pin(), max_spectators=spectators)
        self.server = make_server(self.app, "127.0.0.1", 0)
        self.port = self.server.effective_port
        threading.Thread(target=self.server.run, daemon=True).start()
        self.events_per_s = events_per_s
        self.published: dict[int, float] = {}
        self.loop.bus.subscribe(lambda e: self.published.__setitem__(e.seq, time.monotonic()))

    def frames(self, seconds: float) -> float:
        """Frames a second the runner does (camera, watcher, state) while the driver bets."""
        stop = threading.Event()
        driver = threading.Thread(target=self._drive, args=(stop,), daemon=True)
        driver.start()
        n, t0 = 0, time.monotonic()
        while time.monotonic() - t0 < seconds:
            started = time.monotonic()
            self.runner.step()
            n += 1
            rest = self.period - (time.monotonic() - started)
            if rest > 0:
                time.sleep(rest)
        elapsed = time.monotonic() - t0
        stop.set()
        driver.join()
        return n / elapsed

    def _drive(self, stop: threading.Event) -> None:
        said = False
        while not stop.wait(1.0 / self.events_per_s):
            if said:
                self.loop.submit(Unsay())
            else:
                self.loop.submit(Say(self.loop.state().bets.speaker, "paso"))
            said = not said

    def close(self) -> None:
        self.app.extensions["mus_table"]["hub"].stop()
        time.sleep(0.5)  # let the streams' threads finish before the server's sockets close
        self.server.close()


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def run(spectators: int, seconds: float, events_per_s: float, fps: float = 0.0) -> dict[str, Any]:
    bench = Bench(spectators, events_per_s, fps)
    try:
        bench.frames(2.0)  # warm up (first renders, imports)
        alone = bench.frames(seconds)
        crowd = subprocess.Popen(
            [sys.executable, "-m", "web.loadtest", "--crowd", str(bench.port), "--spectators",
             str(spectators), "--seconds", str(seconds + 1.0)],
            stdout=subprocess.PIPE, text=True)
        assert crowd.stdout is not None
        if crowd.stdout.readline().strip() != "ready":
            raise RuntimeError("the spectators could not connect")
        connected = bench.app.extensions["mus_table"]["hub"].spectators
        refused = past_cap("127.0.0.1", bench.port)
        first = bench.loop.bus.last_seq
        watched = bench.frames(seconds)
        last_seq = bench.loop.bus.last_seq
        out = json.loads(crowd.stdout.readline())
        crowd.wait(30)
        delays, complete = [], 0
        for seq in range(first + 1, last_seq + 1):
            if out["count"].get(str(seq), 0) == spectators:
                complete += 1
                delays.append((out["last"][str(seq)] - bench.published[seq]) * 1000)
        return {
            "spectators": spectators, "connected": connected, "seconds": seconds,
            "events_per_s": events_per_s, "paced_fps": fps or None,
            "fps_alone": round(alone, 2), "fps_with_spectators": round(watched, 2),
            "events": last_seq - first, "events_to_all": complete,
            "delay_to_last_ms": {"p50": round(_pct(delays, 0.5), 1), "p99": round(_pct(delays, 0.99), 1),
                                 "max": round(max(delays), 1),
                                 "mean": round(statistics.fmean(delays), 1)} if delays else None,
            "dropped_slow": bench.app.extensions["mus_table"]["hub"].dropped,
            "past_the_cap": refused,
            "server_threads": threading.active_count(),
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }
    finally:
        bench.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--spectators", type=int, default=200)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--events-per-s", type=float, default=4.0)
    p.add_argument("--fps", type=float, default=0.0,
                   help="pace the runner as on the Pi (e.g. 8); 0: as fast as it goes (its headroom)")
    p.add_argument("--crowd", type=int, help=argparse.SUPPRESS)  # internal: the spectators' process
    p.add_argument("--attack", action="store_true",
                   help="the attack benchmark instead (web.attack: python -m web.attack --help)")
    if argv is None:
        argv = sys.argv[1:]
    if "--attack" in argv:
        from web.attack import main as attack_main  # noqa: PLC0415

        return attack_main([x for x in argv if x != "--attack"])
    a = p.parse_args(argv)
    if a.crowd:
        crowd_main("127.0.0.1", a.crowd, a.spectators, a.seconds)
        return 0
    result = run(a.spectators, a.seconds, a.events_per_s, a.fps)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
