"""``mus-table bench hub --tables 64 --spectators 2000``: many tables, one hub, many spectators.

A broker of its own (Mosquitto, started here on free loopback ports: MQTT for
the tables and the hub, WebSockets for the spectators) unless ``--broker`` is
given; ``--tables`` simulated tables in this process (the real
:class:`~firmware.table_loop.TableLoop`, the synthetic players of
:mod:`firmware.truth` with a reader that reads the truth, no rendering), each
publishing through the real :class:`~firmware.mqtt.MqttPublisher` with its
journal; the hub (:mod:`hub`: follower, store in SQLite, public tree) in a
process of its own, so its processor time and memory are its own; and
``--spectators`` MQTT-over-WebSocket clients (paho, ``transport="websockets"``)
in ``--spectator-procs`` processes, each following one table's public events.

The tables play ``--rate`` commands a second each for ``--seconds``, once
every spectator is subscribed. Printed: events per second (published by the
tables, received by the hub, delivered to spectators), table → hub and
table → spectator latency (p50, p99, max: from the event's ``at`` to its
arrival; one machine, one clock), and the hub's processor time (per cent of one
core) and memory. Numbers only, never a pass or a fail. Run it niced on a
shared machine (``nice -n 15``); raise ``ulimit -n`` for thousands of spectators.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HELP = "many simulated tables, the hub and MQTT-over-WebSocket spectators: events/s, latency, hub CPU/memory"
HOST = "127.0.0.1"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=64, help="simulated tables (default 64)")
    parser.add_argument("--spectators", type=int, default=200, help="MQTT-over-WebSocket spectators (default 200)")
    parser.add_argument("--spectator-procs", type=int, default=4, help="processes the spectators run in")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the tables play (default 120)")
    parser.add_argument("--rate", type=float, default=0.5, help="commands a second at each table (default 0.5)")
    parser.add_argument("--broker", default="", help="HOST:PORT:WSPORT of a running broker (default: start one)")


# ------------------------------------------------------------------------------ the broker


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _start_broker(folder: Path) -> tuple[subprocess.Popen[bytes], int, int]:
    program = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(program).exists():
        from table.errors import InvalidInput
        raise InvalidInput("no mosquitto program to start a broker: give --broker HOST:PORT:WSPORT")
    port, ws = _free_port(), _free_port()
    conf = folder / "mosquitto.conf"
    lines = [f"listener {port} {HOST}", f"listener {ws} {HOST}", "protocol websockets", "allow_anonymous true",
             "persistence false", "max_connections -1", "set_tcp_nodelay true", "max_queued_messages 10000"]
    if os.geteuid() == 0:
        lines.append("user root")
    conf.write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen([program, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            for p in (port, ws):  # both listeners
                socket.create_connection((HOST, p), timeout=0.5).close()
            return proc, port, ws
        except OSError:
            time.sleep(0.05)
    proc.terminate()
    raise RuntimeError("mosquitto did not listen")


# ------------------------------------------------------------------------------ the hub's process


def _hub_process(db: str, port: int, ctl: Any, out: Any) -> None:
    from hub.follower import BrokerAddress, Follower
    from hub.public import PublicTree
    from hub.store import Store

    store = Store(db)
    follower = Follower(store, BrokerAddress(HOST, port), public=PublicTree(), keep_latencies=True)
    follower.start()
    follower.connected.wait(30)
    out.put(("ready", None))
    ctl.get()  # "start"
    for t in follower.tables.values():
        t.latencies.clear()
    r0, t0, n0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic(), follower.received
    ctl.get()  # "stop": the tables stopped; give the hub what it still has to take
    want = ctl.get()
    follower.wait(lambda: all(follower.tables.get(n) is not None and follower.tables[n].seq >= s
                              for n, s in want.items()), 60)
    r1, t1, n1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic(), follower.received
    lat = [x for t in follower.tables.values() for x in t.latencies]
    rss = 0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    out.put(("report", {"latencies": lat, "cpu_s": cpu, "wall_s": t1 - t0, "messages": n1 - n0,
                        "rss": rss, "max_rss": r1.ru_maxrss * 1024, "published": follower.public.published
                        if follower.public else 0}))
    follower.close()
    store.close()


# ------------------------------------------------------------------------------ the spectators


def _spectator_process(ws_port: int, topics: list[str], ctl: Any, out: Any) -> None:
    """Spectators on one thread: paho's own loop threads call ``select()``, which fails past
    1024 descriptors, so hundreds of clients share one epoll loop (paho's external-loop API)."""
    import selectors
    from datetime import datetime

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    latencies: list[float] = []
    counting = threading.Event()
    subscribed = [0]
    got = [0]

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        if not counting.is_set() or msg.retain:
            return
        now = time.time()
        try:
            lat = now - datetime.fromisoformat(json.loads(msg.payload)["at"]).timestamp()
        except (ValueError, KeyError):
            return
        latencies.append(lat)
        got[0] += 1

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        client.subscribe(userdata, qos=0)

    def on_subscribe(*args: Any) -> None:
        subscribed[0] += 1

    sel = selectors.DefaultSelector()
    clients: list[Any] = []
    for topic in topics:
        c = mqtt.Client(CallbackAPIVersion.VERSION2, transport="websockets", userdata=topic)
        c.on_connect, c.on_message, c.on_subscribe = on_connect, on_message, on_subscribe
        try:
            c.connect(HOST, ws_port, 120)
        except OSError:
            continue
        sel.register(c.socket(), selectors.EVENT_READ, c)
        clients.append(c)

    stop = threading.Event()

    def pump() -> None:
        last_misc = 0.0
        while not stop.is_set():
            for key, _ in sel.select(timeout=0.2):
                c = key.data
                c.loop_read()
                sock = c.socket()
                while sock is not None and getattr(sock, "pending", lambda: 0)() > 0:
                    c.loop_read()
            for c in clients:
                if c.want_write():
                    c.loop_write()
            now = time.monotonic()
            if now - last_misc > 1.0:
                last_misc = now
                for c in clients:
                    c.loop_misc()

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    deadline = time.monotonic() + 300
    while subscribed[0] < len(clients) and time.monotonic() < deadline:
        time.sleep(0.2)
    out.put(("ready", subscribed[0]))
    ctl.get()  # "start"
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    counting.set()
    ctl.get()  # "stop"
    ctl.get()  # drained
    counting.clear()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    out.put(("report", {"latencies": list(latencies), "received": got[0],
                        "cpu_s": (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)}))
    stop.set()
    thread.join(timeout=10)
    for c in clients:
        c.disconnect()


# ------------------------------------------------------------------------------ the run


def _proc_cpu(pid: int) -> float:
    """Processor seconds a process has used (``/proc/PID/stat``: user + system)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def run(args: argparse.Namespace) -> int:
    from firmware.journal import Journal
    from firmware.mqtt import MqttPublisher
    from firmware.table_loop import LoopSettings, TableLoop
    from firmware.truth import TruthPlayers, TruthReader
    from table.errors import InvalidInput

    if args.tables < 1 or args.spectators < 0 or args.seconds <= 0 or args.rate <= 0:
        raise InvalidInput("--tables ≥ 1, --spectators ≥ 0, --seconds and --rate > 0")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    folder = Path(tempfile.mkdtemp(prefix="mus-bench-hub-"))
    broker = None
    if args.broker:
        host_port = args.broker.split(":")
        if len(host_port) != 3 or not host_port[1].isdigit() or not host_port[2].isdigit():
            raise InvalidInput("--broker HOST:PORT:WSPORT (the WebSocket listener's port last)")
        port, ws = int(host_port[1]), int(host_port[2])
    else:
        broker, port, ws = _start_broker(folder)
    ctx = mp.get_context("fork")
    procs: list[Any] = []
    try:
        hub_ctl, hub_out = ctx.Queue(), ctx.Queue()
        hub = ctx.Process(target=_hub_process, args=(f"sqlite:///{folder / 'hub.sqlite'}", port, hub_ctl, hub_out))
        hub.start()
        procs.append(hub)
        names = [f"bench-{i:03d}" for i in range(args.tables)]
        spec: list[tuple[Any, Any, Any]] = []
        n_procs = max(1, min(args.spectator_procs, args.spectators)) if args.spectators else 0
        for k in range(n_procs):
            topics = [f"public/{names[i % len(names)]}/events" for i in range(k, args.spectators, n_procs)]
            ctl, out = ctx.Queue(), ctx.Queue()
            p = ctx.Process(target=_spectator_process, args=(ws, topics, ctl, out))
            p.start()
            procs.append(p)
            spec.append((p, ctl, out))
        assert hub_out.get(timeout=60)[0] == "ready"
        tables = []
        for i, name in enumerate(names):
            journal = Journal(":memory:")
            reader = TruthReader()
            loop = TableLoop(LoopSettings(table=name), reader=reader, journal=journal)
            players = TruthPlayers(loop, reader, seed=args.seed + i)
            pub = MqttPublisher(loop.bus, name, HOST, port, journal=journal, prefix="mus-table")
            tables.append((loop, players, pub, [players.steps()]))
        for _, _, pub, _ in tables:
            pub.connected.wait(60)
        ready = sum(out.get(timeout=600)[1] for _, _, out in spec)
        hub_ctl.put("start")
        for _, ctl, _ in spec:
            ctl.put("start")
        first = {t[0].settings.table: t[0].bus.last_seq for t in tables}
        broker_cpu0 = _proc_cpu(broker.pid) if broker is not None else 0.0
        own0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.monotonic()
        period = 1.0 / (args.rate * len(tables))
        tick = 0
        lag = 0.0
        while time.monotonic() - t0 < args.seconds:
            loop, players, _, gen = tables[tick % len(tables)]
            try:
                next(gen[0])
            except StopIteration:
                gen[0] = players.steps()
                next(gen[0])
            tick += 1
            delay = t0 + tick * period - time.monotonic()
            lag = max(lag, -delay)  # how far the tables fell behind their pace (a starved process)
            if delay > 0:
                time.sleep(delay)
        elapsed = time.monotonic() - t0
        own1 = resource.getrusage(resource.RUSAGE_SELF)
        broker_cpu = (_proc_cpu(broker.pid) - broker_cpu0) if broker is not None else float("nan")
        last = {t[0].settings.table: t[0].bus.last_seq for t in tables}
        events = sum(last[n] - first[n] for n in last)
        hub_ctl.put("stop")
        hub_ctl.put(last)
        kind, hub_report = hub_out.get(timeout=120)
        for _, ctl, _ in spec:
            ctl.put("stop")
            ctl.put("drained")
        spect = [out.get(timeout=120)[1] for _, _, out in spec]
        closers = [threading.Thread(target=pub.close) for _, _, pub, _ in tables]  # each says «offline»
        for t in closers:
            t.start()
        for t in closers:
            t.join(timeout=30)
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.terminate()
        if broker is not None:
            broker.terminate()
            broker.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    hub_lat = hub_report["latencies"]
    spec_lat = [x for r in spect for x in r["latencies"]]
    figures = {
        "tables": args.tables, "spectators": args.spectators, "subscribed": ready, "seconds": round(elapsed, 1),
        "events_per_s": round(events / elapsed, 1),
        "hub_messages_per_s": round(hub_report["messages"] / hub_report["wall_s"], 1),
        "spectator_deliveries_per_s": round(sum(r["received"] for r in spect) / elapsed, 1),
        "table_to_hub_ms": {"p50": round(1000 * _pct(hub_lat, 0.5), 1), "p99": round(1000 * _pct(hub_lat, 0.99), 1),
                            "max": round(1000 * max(hub_lat, default=float("nan")), 1), "n": len(hub_lat)},
        "table_to_spectator_ms": {"p50": round(1000 * _pct(spec_lat, 0.5), 1),
                                  "p99": round(1000 * _pct(spec_lat, 0.99), 1),
                                  "max": round(1000 * max(spec_lat, default=float("nan")), 1), "n": len(spec_lat)},
        "hub_cpu_percent_of_a_core": round(100 * hub_report["cpu_s"] / hub_report["wall_s"], 1),
        "hub_rss_mb": round(hub_report["rss"] / 2**20, 1), "hub_max_rss_mb": round(hub_report["max_rss"] / 2**20, 1),
        "broker_cpu_percent": round(100 * broker_cpu / elapsed, 1),
        "tables_cpu_percent": round(100 * ((own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime))
                                    / elapsed, 1),
        "spectators_cpu_percent": round(100 * sum(r["cpu_s"] for r in spect) / elapsed, 1),
        "load_average": round(os.getloadavg()[0], 1),
        "tables_behind_pace_s": round(lag, 2),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{args.tables} tables, {ready}/{args.spectators} spectators subscribed, {elapsed:.0f} s")
        print(f"events: {figures['events_per_s']}/s published; the hub took {figures['hub_messages_per_s']} "
              f"messages/s; spectators got {figures['spectator_deliveries_per_s']} events/s")
        for what in ("table_to_hub_ms", "table_to_spectator_ms"):
            f = figures[what]
            print(f"{what.replace('_ms', '').replace('_', ' ')}: p50 {f['p50']} ms, p99 {f['p99']} ms, "
                  f"max {f['max']} ms ({f['n']} events)")
        print(f"hub: {figures['hub_cpu_percent_of_a_core']} % of a core, {figures['hub_rss_mb']} MB resident "
              f"(peak {figures['hub_max_rss_mb']} MB)")
        print(f"processor time, % of a core: broker {figures['broker_cpu_percent']}, tables "
              f"{figures['tables_cpu_percent']}, spectators {figures['spectators_cpu_percent']}; "
              f"machine load average {figures['load_average']} on {os.cpu_count()} cores; the tables fell "
              f"behind their pace by up to {figures['tables_behind_pace_s']} s")
    return 0
