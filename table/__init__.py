"""The game of mus: cards, jugadas, bets, hand records, tanteo, juegos and vacas.

Pure Python, no I/O: parsing takes text, the engine never reads files.

Entry points: :func:`table.record.parse` (a ``mus-hand/1`` record from JSON text)
or :meth:`table.record.HandRecord.from_json`, then :func:`table.tanteo.score`
(the answer, :meth:`table.answer.Answer.to_json`) and :func:`table.explain.explain`;
:class:`table.betting.Betting` / :class:`table.betting.HandBets` for the live table;
:class:`table.match.Partida` for juegos, vacas and the partida, and
:func:`table.match.replay` / :mod:`table.partida` for a whole partida's JSON lines;
:func:`table.fast.answer`, the batch scorer's fast path. Decisions on the
spec's gaps: ``docs/decisions-engine.md``.

The contract it implements is ``docs/hand-record.md`` (the record, the rules as
applied, the answer). May import (of the project): nothing; every other package
imports it, and its errors (:mod:`table.errors`) are the root of all of theirs.
"""
