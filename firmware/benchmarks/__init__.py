"""Benchmarks behind ``mus-table bench WHAT``: one module per WHAT, each with ``run(args) -> int``.

Speed is measured here and reported as numbers, never asserted in tests.
"""
