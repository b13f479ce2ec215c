"""``mus-table bench soak --partidas N``: whole partidas through the real loop, killed and restarted at random.

A child process runs the demo's table (the synthetic camera, the runner, the
reader, the loop and its journal) and the synthetic players play partida after
partida, starting the next one when one is won. The parent SIGKILLs the child
at a random moment of its play (a pulled plug: no chance to flush or close
anything; drawn once the table has resumed its journal, so that a loaded
machine still gets on) and starts it again on the same journal; the players take up the hand in play
where the journal left it. The child says each hand the moment the table
confirms it (after the journal's write), and each refusal the table gives the
players.

Printed at the end: partidas finished, hands confirmed, kills, refusals (must
be 0), lost confirmed hands (said confirmed, missing from the journal: must be
0), and the journal's integrity: SQLite's own check, entry numbers that only
grow, every partida's export replayed by the engine (``mus-table replay``'s
``table.match.replay``) to the journal's own summary, and a table started on
the journal at the end holding exactly those hands. Numbers only: never a pass
or a fail (the exit status is 0 unless the soak itself could not run).

``--reader camera`` (the default) reads the rendered stills with the real
reader; ``--reader truth`` reads what was laid without looking at the
picture (``mus-table demo --reader truth``), to soak many partidas fast.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

HELP = "whole partidas through the real loop and journal, SIGKILLed and restarted at random"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--partidas", type=int, default=3, help="whole partidas to finish (default 3; --n says the same)")
    parser.add_argument("--reader", choices=("camera", "truth"), default="camera",
                        help="camera: the real reader reads the rendered stills (default); "
                             "truth: the cards laid are read without looking at the picture (fast)")
    parser.add_argument("--kill-every", type=float, default=8.0, metavar="S",
                        help="mean seconds between two kills (each kill comes after 0.2 to 2x S, at random)")
    parser.add_argument("--seconds", type=float, default=None, metavar="S",
                        help="stop after about S seconds (a last kill), and report what was played by then")
    parser.add_argument("--journal", type=Path, default=None,
                        help="the journal to play into (default: a new one in a temporary folder)")


START_S = 600.0
"""Seconds a (re)started table may take to resume its journal before the soak says it did not start."""


def _digest(record: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]


# ------------------------------------------------------------------------------------------ the child


def child(journal: Path, seed: int, partidas: int, truth: bool) -> int:
    """Play until ``partidas`` partidas of the journal are won; one JSON line on stdout per
    confirmed hand, refusal and finished partida."""
    from firmware.demo import make_demo
    from firmware.events import EventKind, TableEvent
    from firmware.journal import Journal
    from firmware.table_commands import NewPartida
    from table.hand import Phase

    def say(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    demo = make_demo(seed=seed, journal=journal, truth=truth, port=0)
    loop = demo.table.loop

    def on_event(event: TableEvent) -> None:
        if event.kind is EventKind.CONFIRMED:  # published after the journal's write returned
            last = loop.hands()[-1]
            say({"confirmed": [last.partida, last.n, _digest(last.record.to_json())]})

    loop.bus.subscribe(on_event)
    say({"started": loop.bus.last_seq})
    demo.table.start()
    refused = 0
    try:
        while True:
            if loop.phase is Phase.OVER:
                won = sum(p.winner is not None for p in Journal(journal).partidas())
                say({"finished": [loop.partida_id, won]})
                if won >= partidas:
                    break
                loop.submit(NewPartida())
                continue
            demo.players.play_hand(demo.wait_read)
            for text in demo.players.refused[refused:]:
                say({"refused": text})
            refused = len(demo.players.refused)
    finally:
        demo.table.stop()
    say({"done": True})
    return 0


# ------------------------------------------------------------------------------------------ the parent


@dataclass
class Soak:
    confirmed: dict[tuple[int, int], str] = field(default_factory=dict)
    """(partida, hand) -> the record's digest, as the child said it."""
    refusals: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    kills: int = 0
    starts: int = 0
    done: bool = False


def _pump(stream: IO[str], out: queue.Queue[str | None]) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


def _run_child(args: argparse.Namespace, journal: Path, soak: Soak, rng: random.Random, end: float) -> None:
    """One life of the child: until it finishes, fails, or is killed at a random moment."""
    cmd = [sys.executable, "-m", "firmware.benchmarks.soak", "--child", str(journal), "--seed", str(args.seed),
           "--partidas", str(args.partidas), "--reader", args.reader]
    root = str(Path(__file__).resolve().parents[2])  # this tree's packages, whatever the folder it runs from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    soak.starts += 1
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    err: list[str] = []
    errs = threading.Thread(target=lambda: err.extend(proc.stderr or ()), daemon=True)  # type: ignore[arg-type]
    errs.start()
    # the moment of the kill is drawn once the table has started (resumed its journal): kills
    # during the start alone could keep a loaded machine from ever getting on with the play
    kill_at = min(end, time.monotonic() + START_S)
    started = killed = finishing = False
    while True:
        try:  # the child's next line, until the moment of the kill; after it (or once the child
            # said it is done: a kill then would be a kill of a table with nothing left), until its output ends
            wait = None if killed or finishing else max(0.0, kill_at - time.monotonic())
            line = lines.get(timeout=wait)
        except queue.Empty:
            line = ""
            proc.send_signal(signal.SIGKILL)  # the plug pulled, at a random moment
            killed = True
            soak.kills += 1
            if not started and time.monotonic() < end:
                soak.errors.append(f"the table did not start in {START_S:.0f} s")
        if line is None:
            break
        what = _take(line, soak) if line else None
        if what == "started" and not killed:
            started = True
            kill_at = min(end, time.monotonic() + rng.uniform(0.2, 2.0) * args.kill_every)
        elif what == "done":
            finishing = True
    proc.wait()
    errs.join(timeout=10)
    if not killed and proc.returncode != 0:
        soak.errors.append(f"child exited {proc.returncode}: {''.join(err)[-2000:]}")


def _take(line: str, soak: Soak) -> str | None:
    """Take one line the child said; what it was."""
    try:
        msg = json.loads(line)
    except json.JSONDecodeError:
        return None  # a line cut by the kill: never said
    if "confirmed" in msg:
        p, n, digest = msg["confirmed"]
        soak.confirmed[(p, n)] = digest
    elif "refused" in msg:
        soak.refusals.append(msg["refused"])
    elif "done" in msg:
        soak.done = True
    return next(iter(msg), None)


def integrity(journal: Path, juegos: int = 3, vacas: int = 1) -> dict[str, Any]:
    """The journal checked every way it can be: SQLite's check, growing numbers, each partida
    replayed by the engine to the journal's summary, and a table resumed on it."""
    from firmware.journal import Journal
    from firmware.table_loop import TableLoop
    from table.errors import InvalidInput
    from table.match import replay

    db = sqlite3.connect(journal)
    try:
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
        seqs = [s for (s,) in db.execute("SELECT seq FROM entries ORDER BY rowid")]
    finally:
        db.close()
    j = Journal(journal)
    bad: list[str] = []
    for p in j.partidas():
        lines = [json.dumps(r) for r in j.export(p.id)] if p.hands else []
        try:
            partida, played = replay(lines, juegos, vacas)
        except InvalidInput as exc:
            bad.append(f"partida {p.id}: {exc}")
            continue
        if (len(played), partida.winner, tuple(partida.won_vacas)) != (p.hands, p.winner, p.vacas):
            bad.append(f"partida {p.id}: replayed {len(played)} hands, winner {partida.winner}; "
                       f"the journal says {p.hands}, {p.winner}")
    loop = TableLoop(journal=j)
    resumed = {(h.partida, h.n) for pid in {p.id for p in j.partidas()} for h in loop.hands(pid)}
    kept = {(p.id, n) for p in j.partidas() for n in range(1, p.hands + 1)}
    return {"sqlite": check, "seq_grows": all(a < b for a, b in zip(seqs, seqs[1:], strict=False)),
            "entries": len(seqs), "replayed_as_listed": not bad, "problems": bad,
            "resumed_same_hands": resumed == kept}


def run(args: argparse.Namespace) -> int:
    from firmware.journal import Journal
    from table.errors import InvalidInput

    if getattr(args, "n", None) is not None:  # bench's --n: how many partidas
        args.partidas = args.n
    if args.partidas < 1 or args.kill_every <= 0 or (args.seconds is not None and args.seconds <= 0):
        raise InvalidInput("--partidas must be at least 1, --kill-every and --seconds more than 0")
    rng = random.Random(args.seed)
    soak = Soak()
    with tempfile.TemporaryDirectory(prefix="mus-soak-") as tmp:
        journal = args.journal or Path(tmp) / "soak.sqlite"
        t0 = time.monotonic()
        end = t0 + args.seconds if args.seconds is not None else float("inf")
        while not soak.done and not soak.errors and time.monotonic() < end:
            _run_child(args, journal, soak, rng, end)
        wall = time.monotonic() - t0
        j = Journal(journal)
        partidas = j.partidas()
        kept = {p.id: [_digest(r.to_json()) for r, _ in j.hands(p.id)] for p in partidas}
        lost = [(p, n) for (p, n), digest in soak.confirmed.items() if kept.get(p, [])[n - 1:n] != [digest]]
        result = {
            "partidas_finished": sum(p.winner is not None for p in partidas),
            "hands_confirmed": sum(p.hands for p in partidas),
            "hands_said_confirmed": len(soak.confirmed),
            "partidas_asked": args.partidas, "stopped_by_seconds": not soak.done and not soak.errors,
            "kills": soak.kills, "starts": soak.starts, "refusals": len(soak.refusals),
            "lost_confirmed_hands": len(lost), "reader": args.reader, "wall_s": round(wall, 1),
            "errors": soak.errors, "journal": integrity(journal),
        }
    if args.json:
        print(json.dumps(result))
    else:
        ji = result["journal"]
        print(f"soak: {result['partidas_finished']} of {args.partidas} partidas finished"
              f"{' (stopped by --seconds)' if result['stopped_by_seconds'] else ''}, "
              f"{result['hands_confirmed']} hands confirmed ({args.reader} reader), {soak.kills} kills (SIGKILL), "
              f"{soak.starts} starts, {wall:.0f} s")
        print(f"  refusals: {result['refusals']}   lost confirmed hands: {result['lost_confirmed_hands']} "
              f"(of {len(soak.confirmed)} the table said confirmed)")
        print(f"  journal: sqlite {ji['sqlite']}, {ji['entries']} entries, numbers grow: {ji['seq_grows']}, "
              f"every partida replayed as listed: {ji['replayed_as_listed']}, "
              f"a table resumed on it holds the same hands: {ji['resumed_same_hands']}")
        for text in soak.refusals[:5] + ji["problems"][:5] + soak.errors[:3]:
            print(f"  ! {text}")
    return 0


if __name__ == "__main__":
    _p = argparse.ArgumentParser(prog="python3 -m firmware.benchmarks.soak")
    _p.add_argument("--child", type=Path, required=True)
    _p.add_argument("--seed", type=int, default=1)
    _p.add_argument("--partidas", type=int, default=1)
    _p.add_argument("--reader", choices=("camera", "truth"), default="camera")
    _a = _p.parse_args()
    sys.exit(child(_a.child, _a.seed, _a.partidas, _a.reader == "truth"))
