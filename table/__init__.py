"""The game of mus: cards, jugadas, bets, hand records, tanteo, juegos and vacas.

Pure Python, no I/O: parsing takes text, the engine never reads files.
"""
