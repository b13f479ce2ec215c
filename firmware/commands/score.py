"""``mus-table score FILE|-``: score ``mus-hand/1`` records, print the answers as JSON.

One record: the answer, pretty-printed; invalid input: one line on stderr, exit 2.
``--jsonl``: one record per line, one compact answer per line; a bad line answers
``{"error": "line N: ..."}`` and the others go on; the exit status is 2 if any
line was bad, else 0. Lines holding only whitespace are skipped.

A plain record (no ``declared``) is answered by the fast path of
:mod:`table.fast`; anything else, and every fault, by the reference path. With
``--jobs N`` a large batch is shared among N processes in blocks of lines whose
answers are written back in the input's order: the output is the same byte for
byte whatever the number of jobs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from table._show import show
from table.errors import InvalidInput

HELP = "score mus-hand/1 records and print the answer as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FICHERO", help="un registro mus-hand/1, o - para la entrada estándar")
    parser.add_argument("--jsonl", action="store_true",
                        help="lee un registro por línea y escribe una respuesta por línea "
                             '(una línea mala contesta {"error": ...}; sale con 2 si hubo alguna)')
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="--jsonl: procesos que se reparten un lote grande (0: uno por núcleo; por omisión 1)")


def read_input(path: str) -> bytes:
    """The bytes of FILE, or of standard input for ``-``; a one-line error otherwise."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}", code="cannot_read",
                           params={"path": path, "errno": exc.errno}) from None


def dump(obj: Any, pretty: bool = False) -> str:
    import json  # imported when needed: a batch of plain records never needs it

    return json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None,
                      separators=None if pretty else (",", ":"))


def quiet_broken_pipe() -> int:
    """The reader went away (``| head``): stop quietly, no traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except BrokenPipeError:
        return quiet_broken_pipe()


def _run(args: argparse.Namespace) -> int:
    data = read_input(args.file)
    if not args.jsonl:
        from table.record import parse
        from table.tanteo import score

        print(dump(score(parse(data)).to_json(), pretty=True))
        return 0
    global _LINES
    # split at "\n" (a C search) where no "\r" makes splitlines() differ; a last "\n" leaves
    # an empty line, skipped like any blank one
    _LINES = data.split(b"\n") if b"\r" not in data else data.splitlines()
    jobs = _jobs(args.jobs, len(_LINES))
    stdout = sys.stdout
    binary = getattr(stdout, "buffer", None)

    def write(text: bytes) -> None:
        if binary is not None:
            binary.write(text)
        else:  # a text-only stream (a caller's own redirection)
            stdout.write(text.decode())

    stdout.flush()
    bad = False
    if jobs == 1:  # written as it goes: the answers never pile up in memory
        import gc

        gc.disable()  # the fast path makes no cycles: nothing for the collector to find
        try:
            for start in range(0, len(_LINES), _CHUNK):
                text, chunk_bad = _score_block((start, min(start + _CHUNK, len(_LINES))))
                write(text)
                bad = bad or chunk_bad
                if _REFERENCE[0]:  # the reference path (and its errors) may have made some
                    _REFERENCE[0] = 0
                    gc.collect(0)
        finally:
            gc.enable()
    else:
        import multiprocessing

        blocks = [(i, min(i + _BLOCK, len(_LINES))) for i in range(0, len(_LINES), _BLOCK)]
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for text, block_bad in pool.imap(_score_block, blocks):
                write(text)
                bad = bad or block_bad
    (binary or stdout).flush()
    return 2 if bad else 0


_LINES: list[bytes] = []
"""The batch's lines (a forked job inherits them: only block bounds travel)."""
_BLOCK = 2_000
"""Lines per block handed to a job."""
_CHUNK = 500
"""Lines scored between two writes by a single process."""
_REFERENCE = [0]
"""Lines of the chunk being scored that took the reference path."""


def _jobs(asked: int, lines: int) -> int:
    """How many processes score the batch: one for a small batch or without fork."""
    if asked < 0:
        raise InvalidInput(f"--jobs must be 0 (one per core) or more, not {show(asked)}", code="option_at_least",
                           params={"option": "--jobs", "least": 0, "value": show(asked)})
    if lines < 2 * _BLOCK or not hasattr(os, "fork"):
        return 1
    if asked == 0:
        cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
        asked = len(cores)
    return max(1, min(asked, (lines + _BLOCK - 1) // _BLOCK, 32))


def _score_block(bounds: tuple[int, int]) -> tuple[bytes, bool]:
    """Score lines ``bounds`` of the batch: their answer lines, and whether any was bad."""
    from table.fast import answer_line

    start, end = bounds
    out = []
    append = out.append
    bad = False
    for number, line in enumerate(_LINES[start:end], start):
        plain = answer_line(line)  # a plain valid record, answered without objects
        if plain is not None:
            append(plain)
            continue
        if not line or line.isspace():  # what strip() would empty: skipped
            continue
        from table.record import parse  # the reference path: imported when first needed
        from table.tanteo import score

        _REFERENCE[0] += 1

        try:
            answer: dict[str, Any] = score(parse(line)).to_json()
        except InvalidInput as exc:
            bad = True
            answer = {"error": f"line {number + 1}: {exc}"}
        out.append(_compact(answer))
    return b"".join(out), bad


def _compact(obj: dict[str, Any]) -> bytes:
    """One compact JSON line, UTF-8 (what ``dump`` writes, made in C where orjson is there)."""
    if _orjson is not None:
        try:
            return _orjson.dumps(obj, option=_OPTIONS)
        except TypeError:  # e.g. a lone surrogate: the escaping writer below keeps it
            pass
    import json

    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


try:
    import orjson as _orjson

    _OPTIONS = _orjson.OPT_NON_STR_KEYS | _orjson.OPT_APPEND_NEWLINE
except ImportError:  # pragma: no cover - orjson is a dependency
    _orjson = None  # type: ignore[assignment]
    _OPTIONS = 0
