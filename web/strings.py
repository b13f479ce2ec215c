"""Every text the web shows, in one table per language (Spanish first).

Templates call ``t("key")``; the pages' scripts get the same table as JSON
(``window.T``), so a new language is one more dict here with the same keys.
A key missing from a language falls back to Spanish; an unknown language is
refused at start-up, not at the first page.

>>> texts("es")["pair"]
'Pareja'
>>> texts("xx")
Traceback (most recent call last):
...
web.strings.UnknownLanguage: no texts for language 'xx' (known: en, es)
"""

from __future__ import annotations

from table.errors import InvalidInput


class UnknownLanguage(InvalidInput):
    """A language with no table here."""


ES: dict[str, str] = {
    # page titles and navigation
    "title_display": "Mesa de mus",
    "title_watch": "Mus en directo",
    "title_overlay": "Marcador",
    "title_replay": "Mano {n}",
    "nav_watch": "Ver en directo",
    "nav_hands": "Manos de la partida",
    "download_partida": "Descargar la partida (JSON lines)",
    "download_hand": "Descargar esta mano (mus-hand/1)",
    "replay": "Repetición",
    "back": "Volver",
    # score
    "pair": "Pareja",
    "seats_of_pair": "asientos {a} y {b}",
    "seat": "Asiento",
    "seat_n": "asiento {n}",
    "amarracos": "amarracos",
    "amarraco": "amarraco",
    "piedras": "piedras",
    "piedra": "piedra",
    "dentro": "dentro",
    "juego": "juego",
    "juegos": "juegos",
    "vaca": "vaca",
    "vacas": "vacas",
    "mano": "Mano",
    "hand_no": "Mano n.º {n}",
    "target": "a {n}",
    "lance": "Lance",
    "lance_grande": "Grande",
    "lance_chica": "Chica",
    "lance_pares": "Pares",
    "lance_juego": "Juego",
    "lance_punto": "Punto",
    "no_lance": "—",
    # phases
    "phase_playing": "Se juega",
    "phase_reading": "Leyendo las cartas",
    "phase_impossible": "La mesa no cuadra",
    "phase_scored": "Tanteo",
    "phase_over": "Partida terminada",
    "phase_learning": "Aprendiendo una baraja",
    # bets
    "speaks": "Habla el {seat}",
    "answers": "Responde el {seat}",
    "word_paso": "Paso",
    "word_envido": "Envido {n}",
    "word_envido_more": "{n} más",
    "word_quiero": "Quiero",
    "word_no quiero": "No quiero",
    "word_ordago": "Órdago",
    "envido_n": "Envido…",
    "undo_word": "Deshacer",
    "said": "Dicho",
    "nothing_said": "Nada dicho aún",
    "one_tap": "O el lance entero:",
    "out_en_paso": "En paso",
    "out_querido": "Querido a {n}",
    "out_no_querido": "No quiero: para pareja {p}",
    "out_ordago": "Órdago querido",
    "declare_q": "¿{lance}?",
    "declare_yes": "Sí",
    "declare_no": "No",
    "read_cards": "Leer las cartas",
    "to_bets": "Apuestas",
    "to_cards": "Ver las cartas",
    "bets_done": "Apuestas cerradas: enseñad las cartas",
    # end of hand
    "cards_as_read": "Cartas leídas",
    "tap_to_correct": "Toca una carta para corregirla",
    "unknown_card": "?",
    "pick_card": "¿Qué carta es? (asiento {seat}, carta {i})",
    "cancel": "Cancelar",
    "problems": "La mesa no cuadra:",
    "impossible_todo": "poned bien las cartas en su sitio (se leen otra vez solas), tocad la carta mal leída "
                       "para corregirla o pulsad «Leer las cartas»",
    "mistakes": "Declaraciones que las cartas desmienten:",
    "lances": "Lances",
    "won_by": "pareja {p}",
    "won_by_nobody": "nadie",
    "how_paso": "en paso",
    "how_querido": "querido",
    "how_no querido": "no querido",
    "how_ordago": "órdago",
    "how_not bet": "no se juega",
    "how_none": "nadie lo tiene",
    "tanteo": "Tanteo",
    "running": "van {a} a {b}",
    "wins_juego": "¡JUEGO PARA LA PAREJA {p}!",
    "not_counted": "No se cuenta:",
    "confirm_by": "Confirma un jugador de la pareja {p}:",
    "confirm_seat": "Confirma el {seat}",
    "confirm_any": "Confirma un jugador:",
    "confirmed": "Mano confirmada",
    "no_tanteo": "Nada que contar",
    # faults
    "faults": "Avisos",
    "todo": "Qué hacer",
    "stones_disagree": "Las piedras no cuadran con el marcador",
    "stones_line": "asiento {seat}: {seen} {what} (deben ser {expected})",
    "stones_todo": "moved las piedras como dice el marcador",
    # learning
    "learn_deck": "Aprender una baraja",
    "learn_frame": "Foto {k} de {total}",
    "learn_where": "Coloca estas cartas así y pulsa «Hacer la foto»",
    "learn_capture": "Hacer la foto",
    "learn_name": "Nombre de la baraja",
    "learn_save": "Guardar la baraja",
    "learn_cancel": "Dejarlo",
    "learn_done": "Fotos hechas: {done}",
    "learn_start": "Aprender baraja",
    # table control
    "pin": "PIN de la mesa",
    "pin_enter": "Introduce el PIN",
    "pin_wrong": "PIN incorrecto",
    "pin_throttled": "Demasiados intentos: espera {s} s",
    "pin_needed": "Hace falta el PIN de la mesa",
    "unlock": "Desbloquear",
    "lock": "Bloquear",
    "locked": "Solo lectura: desbloquea con el PIN para anotar",
    "ok": "Aceptar",
    "clear": "Borrar",
    "undo_hand": "Deshacer la última mano",
    "new_partida": "Nueva partida",
    "sure_q": "¿Seguro?",
    "refused": "No se puede: {why}",
    "offline": "Sin conexión con la mesa; reconectando…",
    "online": "En directo",
    # spectators
    "live": "En directo",
    "hands_so_far": "Manos de la partida",
    "no_hands": "Aún no hay manos",
    "hand_row": "Mano {n}: mano el {mano}, {a} a {b}",
    "hand_row_won": "Mano {n}: mano el {mano}, juego para la pareja {p}",
    "download_json": "JSON",
    "spectators_full": "La mesa tiene el cupo de espectadores lleno ({cap}). Vuelve a intentarlo en un rato.",
    "partida_won": "¡Partida para la pareja {p}!",
    "vacas_line": "Vacas: {a} a {b}",
    "a_to_b": "{a} a {b}",
    "vaca_juegos": "Juegos de cada vaca:",
    "waiting_cards": "Esperando a que se enseñen las cartas",
    "camera": "Cámara",
    "no_frame": "Sin imagen de la cámara",
    "no_reading": "No hay lectura todavía",
    "not_found": "No existe la mano {n}",
    "page_not_found": "Esta página no existe en la mesa",
    # the clock without a network (the phone's time)
    "clock_set": "Reloj de la mesa puesto en hora con la de este teléfono: {when}",
    "clock_off": "Esta mesa no toma la hora de los teléfonos",
    "clock_synchronised": "El reloj de la mesa ya está en hora: lo sincroniza la red",
    "clock_not_ahead": "La hora del teléfono no adelanta el reloj de la mesa, y ese reloj nunca se atrasa",
    "clock_absurd": "La hora de este teléfono no es creíble: anterior a la última anotación de la mesa "
                    "o demasiado lejana",
    "clock_already_set": "Otro teléfono ya puso el reloj en hora; para cambiarla otra vez hace falta el PIN",
    "clock_failed": "No se pudo poner el reloj en hora: {why}",
    "clock_forbidden": "Solo una página de esta mesa puede darle la hora",
    "clock_bad": "Falta la hora del teléfono (now_ms: milisegundos desde 1970)",
    # what the server refuses, and the PIN (web.server, web.body, web.security)
    "body_too_large": "Petición demasiado grande para esta mesa",
    "headers_too_large": "Cabeceras demasiado grandes para esta mesa",
    "body_json": "La petición no es JSON válido",
    "body_deep": "La petición tiene demasiados niveles anidados",
    "body_shape": "La petición no tiene la forma esperada: un objeto con campos sencillos",
    "host_refused": "Esta mesa no responde a ese nombre",
    "too_many_connections": "Demasiadas conexiones desde esta dirección; vuelve a intentarlo en un rato",
    "pin_only_kiosk": "El PIN solo se muestra en la pantalla de la mesa",
    "pin_bad": "El PIN nuevo debe tener de 4 a 12 cifras",
    "pin_changed": "PIN cambiado; los demás teléfonos tendrán que desbloquear de nuevo",
}

EN: dict[str, str] = {
    "title_display": "Mus table", "title_watch": "Mus live", "title_overlay": "Score",
    "title_replay": "Hand {n}", "nav_watch": "Watch live", "nav_hands": "Hands of the partida",
    "download_partida": "Download the partida (JSON lines)",
    "download_hand": "Download this hand (mus-hand/1)", "replay": "Replay", "back": "Back",
    "pair": "Pair", "seats_of_pair": "seats {a} and {b}", "seat": "Seat", "seat_n": "seat {n}",
    "mano": "Mano", "hand_no": "Hand #{n}", "target": "to {n}", "lance": "Lance",
    "speaks": "{seat} speaks", "answers": "{seat} answers", "undo_word": "Undo",
    "read_cards": "Read the cards", "tanteo": "Count", "running": "{a} to {b}",
    "wins_juego": "GAME TO PAIR {p}!", "not_counted": "Not counted:",
    "pin_enter": "Enter the PIN", "pin_wrong": "Wrong PIN", "unlock": "Unlock", "lock": "Lock",
    "locked": "Read-only: unlock with the PIN to enter bets", "cancel": "Cancel", "ok": "OK",
    "spectators_full": "This table has its full quota of spectators ({cap}). Try again later.",
    "offline": "Lost the table; reconnecting…", "online": "Live", "live": "Live",
    "clock_set": "The table's clock set from this phone's: {when}",
    "clock_off": "This table does not take the time from phones",
    "clock_synchronised": "The table's clock is already right: the network keeps it",
    "clock_not_ahead": "This phone's time would not move the table's clock forward, and it never goes back",
    "clock_absurd": "This phone's time is not believable: before the table's last entry, or too far ahead",
    "clock_already_set": "Another phone already set the clock; setting it again needs the PIN",
    "clock_failed": "The clock could not be set: {why}",
    "clock_forbidden": "Only a page of this table may give it the time",
    "clock_bad": "The phone's time is missing (now_ms: milliseconds since 1970)",
}

LANGUAGES: dict[str, dict[str, str]] = {"es": ES, "en": EN}


def texts(lang: str = "es") -> dict[str, str]:
    """The whole table for ``lang`` (Spanish where it has no text of its own)."""
    if lang not in LANGUAGES:
        raise UnknownLanguage(f"no texts for language {lang!r} (known: {', '.join(sorted(LANGUAGES))})")
    return {**ES, **LANGUAGES[lang]}
