"""Numbers as players say them when they count stones (piedras are feminine).

>>> [stones(n) for n in (1, 2, 21, 31, 40, 101, 1000)]
['una', 'dos', 'veintiuna', 'treinta y una', 'cuarenta', 'ciento una', 'mil']
>>> [amarracos(n) for n in (0, 1, 7, 40, 105)]
['nada', 'una piedra', 'un amarraco y dos piedras', 'ocho amarracos', 'veintiún amarracos']
"""

from __future__ import annotations

_UNITS = ("cero", "una", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve",
          "diez", "once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete",
          "dieciocho", "diecinueve", "veinte", "veintiuna", "veintidós", "veintitrés",
          "veinticuatro", "veinticinco", "veintiséis", "veintisiete", "veintiocho", "veintinueve")
_TENS = {3: "treinta", 4: "cuarenta", 5: "cincuenta", 6: "sesenta", 7: "setenta",
         8: "ochenta", 9: "noventa"}
_HUNDREDS = {1: "ciento", 2: "doscientas", 3: "trescientas", 4: "cuatrocientas",
             5: "quinientas", 6: "seiscientas", 7: "setecientas", 8: "ochocientas",
             9: "novecientas"}


def _below_thousand(n: int) -> str:
    if n < 30:
        return _UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens] + ("" if unit == 0 else " y " + _UNITS[unit])
    if n == 100:
        return "cien"
    hundreds, rest = divmod(n, 100)
    return _HUNDREDS[hundreds] + ("" if rest == 0 else " " + _below_thousand(rest))


def stones(n: int) -> str:
    """``n`` in words, feminine (``"una"``, ``"veintiuna"``); digits from a million on."""
    if n < 0 or n >= 1_000_000:
        return str(n)
    if n < 1000:
        return _below_thousand(n)
    thousands, rest = divmod(n, 1000)
    head = "mil" if thousands == 1 else _below_thousand(thousands) + " mil"
    return head if rest == 0 else head + " " + _below_thousand(rest)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def amarracos(n: int) -> str:
    """Stones as they lie on the table: amarracos of five and piedras
    (``"dos amarracos y tres piedras"``, ``"una piedra"``, ``"nada"``)."""
    if n <= 0:
        return "nada"
    big, small = divmod(n, 5)
    parts = []
    if big:
        word = stones(big)
        if word.endswith("una"):  # masculine before the noun: «veintiún», «treinta y un»
            word = word[:-1].replace("veintiun", "veintiún")
        parts.append(f"{word} amarraco" + ("" if big == 1 else "s"))
    if small:
        parts.append("una piedra" if small == 1 else f"{stones(small)} piedras")
    return " y ".join(parts)
