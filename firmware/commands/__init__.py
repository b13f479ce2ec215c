"""One module per ``mus-table`` subcommand.

Each module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status). Modules are imported only when their
command runs, so ``mus-table score`` never loads OpenCV or onnxruntime.
"""
