"""The program that runs on the Pi, and the ``mus-table`` command.

``cli`` dispatches each subcommand to its module in ``firmware/commands/``;
``benchmarks/`` holds what ``mus-table bench`` measures; the rest is the table
at work: camera sources (``camera``, ``synthetic``), the GPIO panel (``panel``),
the table loop and its events, commands and journal (``table_loop``,
``events``, ``table_commands``, ``journal``, ``runner``, ``watcher``,
``config``), and the demo table (``demo``).

May import (of the project): everything (``table``, ``vision``, ``models``,
``hardware``, ``web``). It is the top of the layers: nothing below it
(``table``, ``vision``, ``models``, ``hardware``) imports it; ``web`` may.
"""
