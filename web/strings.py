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

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from table import people
from table._show import visible
from table.errors import InvalidInput, MusTableError
from table.hand import reading_problem

if TYPE_CHECKING:
    from vision.reading import Reading


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
    "seats_of_pair": "Asientos {a} y {b}",
    "pair_seats_phrase": "los asientos {a} y {b}",
    "pair_named": "{a} y {b}",
    "seat": "Asiento",
    "seat_n": "asiento {n}",
    "seat_named": "{name} (asiento {n})",
    "seat_the": "el asiento {n}",
    "seat_of": "del asiento {n}",
    "seat_of_named": "de {name} (asiento {n})",
    "de": "de",
    "suit_o": "oros",
    "suit_c": "copas",
    "suit_e": "espadas",
    "suit_b": "bastos",
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
    "speaks": "Habla {seat}",
    "answers": "Responde {seat}",
    "word_paso": "Paso",
    "word_envido": "Envido",
    "word_envido_n": "Envido {n}",
    "word_more": "{n} más",
    "would_stand": "van {n}",
    "step_less": "una menos",
    "step_more": "una más",
    "quiero_sub": "se juegan {n}",
    "ordago_sub": "se juega el juego",
    "no_quiero_sub": "{n} para {p}",
    "nothing_bet": "Nada envidado en la {lance}",
    "standing": "Van {n} en la {lance} (envite {of})",
    "ordago_standing": "¡Órdago {of}!",
    "flash_word": "{word} — {seat}",
    "flash_lance": "{lance}: {how}",
    "flash_card": "{card} para {seat}",
    "flash_confirmed": "Mano confirmada por {seat}",
    "or_read": "Si nadie envida más:",
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
    "out_no_querido": "No quiero: 1 para {p}",
    "out_no_querido_short": "No quiero (1 para {p})",
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
    "pick_card": "¿Qué carta es? ({seat}, carta {i})",
    "corrected_card": "corregida a mano",
    "corrected_short": "a mano",
    "some_corrected": "«a mano»: corregida a mano",
    "cancel": "Cancelar",
    "problems": "La mesa no cuadra:",
    "impossible_todo": "poned bien las cartas en su sitio (se leen otra vez solas), tocad la carta mal leída "
                       "para corregirla o pulsad «Leer las cartas»",
    "mistakes": "Declaraciones que las cartas desmienten:",
    "lances": "Lances",
    "won_by": "{p}",
    "won_by_nobody": "nadie",
    "how_paso": "en paso",
    "how_querido": "querido",
    "how_no querido": "no querido",
    "how_ordago": "órdago",
    "how_not bet": "no se juega",
    "how_none": "nadie lo tiene",
    "tanteo": "Tanteo",
    "running": "van {a} a {b}",
    "wins_juego": "¡JUEGO PARA {p}!",
    "not_counted": "No se cuenta:",
    "confirm_by": "Confirma uno de {p}:",
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
    "learn_all_done": "Las 3 fotos están hechas: ponle nombre y guárdala",
    "learn_retake": "Repetir la foto {k}",
    "learn_taken": "Foto {k} hecha",
    "learn_saved": "Baraja «{name}» aprendida",
    "learn_name_save": "Nombre y guardar",
    "kb_space": "espacio",
    "kb_shift": "mayúscula",
    "learn_where": "Coloca estas cartas así y pulsa «Hacer la foto»",
    "learn_fix": "Esta foto no vale (mira el aviso sobre el tapete): coloca las cartas como se ve y repítela",
    "learn_capture": "Hacer la foto",
    "learn_more_fault": "y 1 aviso más (zona en rojo)",
    "learn_more_faults": "y {n} avisos más (zonas en rojo)",
    "learn_name": "Nombre de la baraja",
    "learn_save": "Guardar la baraja",
    "learn_cancel": "Dejarlo",
    "learn_done": "Fotos hechas: {done}",
    "learn_start": "Aprender baraja",
    "deck_in_use": "Baraja: {name}",
    "working_learn_frame": "Mirando la foto…",
    "working_learn_deck": "Aprendiendo la baraja… (hasta un minuto)",
    "deck_none": "Baraja: cualquiera",
    "deck_base": "Leer cualquier baraja",
    "deck_base_done": "Se lee cualquier baraja (el modelo general)",
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
    "undo_hand_short": "Deshacer mano",
    "new_partida": "Nueva partida",
    "call_judge": "Llamar al juez",
    "judge_called": "Llamada al juez enviada: esperad su respuesta",
    "judge_answer": "El juez: «{text}»",
    "sure_q": "¿Seguro?",
    "new_partida_what": "La partida {id} se cierra y queda en el diario: se ve y se descarga en «Ver en "
                        "directo», y «Reabrir otra…» la devuelve al juego. La nueva empieza 0 a 0 con estas reglas:",
    "new_partida_yes": "Empezar partida nueva",
    "np_names": "Nombres:",
    # «Reabrir»: a closed partida back in play (behind the PIN and a second step)
    "reopen_open": "Reabrir otra…",
    "reopen_title": "Reabrir una partida cerrada",
    "reopen_intro": "Vuelve tal como se dejó: el tanteo, la mano y los nombres. La partida en juego se "
                    "cierra y queda en la lista.",
    "reopen_none": "No hay partidas cerradas sin terminar: no hay nada que reabrir.",
    "reopen_row": "Partida {id}",
    "reopen_started": "empezada el {when}",
    "reopen_score": "{a}: {sa}, {b}: {sb}",
    "reopen_hands_1": "1 mano",
    "reopen_hands": "{n} manos",
    "reopen_won": "ganada por {p}",
    "reopen_in_play": "en juego",
    "reopen": "Reabrir",
    "reopen_sure": "¿Reabrir la partida {id}?",
    "reopen_what": "Vuelve la partida {id} tal como se dejó ({score}; mano: {mano}{juegos}) y se sigue "
                   "jugando. La partida {now} ({now_score}) se cierra y queda en la lista: se puede reabrir.",
    "reopen_juegos": ", juegos {a} a {b}",
    "reopen_yes": "Sí, reabrir la partida {id}",
    "reopen_done": "Partida {id} reabierta",
    "reopen_loading": "Buscando las partidas…",
    "np_name_of": "Nombre del asiento {n}",
    "kb_back": "borrar",
    "rule_target": "Juego a",
    "rule_target_40": "40",
    "rule_target_30": "30",
    "rule_target_20": "20",
    "rule_reyes": "Reyes",
    "rule_reyes_8": "8 reyes",
    "rule_reyes_4": "4 reyes",
    "rule_real": "31 real",
    "rule_real_false": "no",
    "rule_real_rey": "con rey",
    "rule_real_true": "con figura",
    "rule_penalties": "Equivocación",
    "rule_penalties_lance": "pierde el lance",
    "rule_penalties_mundial": "regla 19",
    "rule_penalties_none": "sin castigo",
    "rule_deje": "Deje",
    "rule_deje_false": "no",
    "rule_deje_true": "sí",
    "undo_hand_what": "La última mano confirmada vuelve a la mesa para corregirla y confirmarla otra vez.",
    "undo_hand_yes": "Deshacer la mano",
    "not_sent": "No ha llegado a la mesa: {what}",
    "the_tap": "el último toque",
    "retry": "Reintentar",
    "discard": "Descartar",
    "error_status": "error {status}",
    "refused": "No se puede: {why}",
    "offline": "Sin conexión con la mesa; reconectando…",
    "online": "En directo",
    # spectators
    "live": "En directo",
    "hands_so_far": "Manos de la partida",
    "no_hands": "Aún no hay manos",
    "hand_row": "Mano {n}: mano {mano}, {a} a {b}",
    "hand_row_won": "Mano {n}: mano {mano}, juego para {p}",
    "download_json": "JSON",
    "spectators_full": "La mesa tiene el cupo de espectadores lleno ({cap}). Vuelve a intentarlo en un rato.",
    "partida_won": "¡Partida para {p}!",
    "vacas_line": "Vacas: {a} a {b}",
    "a_to_b": "{a} a {b}",
    "vaca_juegos": "Juegos de cada vaca:",
    "waiting_cards": "Esperando a que se enseñen las cartas",
    "juego_was_won": "Último juego para {p}",
    "vaca_was_won": "¡Vaca para {p}! ({a} a {b} en juegos)",
    "camera": "Cámara",
    "view_seat": "asiento {n}",
    "view_pool": "centro {n}",
    "view_no_mat": "no se ve el tapete: menos de 3 marcas",
    "view_stale": "LECTURA ANTIGUA",
    "no_frame": "Sin imagen de la cámara",
    "no_reading": "No hay lectura todavía",
    "not_found": "No existe la mano {n}",
    "no_partida": "No existe la partida {n}",
    "partidas": "Partidas de la mesa",
    "partida_row": "Partida {id}: {hands} manos",
    "partida_in_play": "(en juego)",
    "partida_title": "Partida {k}",
    "open_partida": "Ver",
    "page_not_found": "Esta página no existe en la mesa",
    "method_not_allowed": "Esta dirección de la mesa no admite esa petición",
    "too_large": "Lo enviado es demasiado grande para la mesa",
    "json_needed": "La mesa solo acepta órdenes en JSON",
    "json_object_needed": "Lo enviado debe ser un objeto JSON, entre llaves ({...})",
    "server_error": "La mesa ha tenido un fallo al contestar; vuelve a intentarlo",
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
    "headers_too_large": "Cabeceras demasiado grandes para esta mesa",
    "body_json": "La petición no es JSON válido",
    "body_deep": "La petición tiene demasiados niveles anidados",
    "body_shape": "La petición no tiene la forma esperada: un objeto con campos sencillos",
    "host_refused": "Esta mesa no responde a ese nombre",
    "too_many_connections": "Demasiadas conexiones desde esta dirección; vuelve a intentarlo en un rato",
    "pin_only_kiosk": "El PIN solo se muestra en la pantalla de la mesa",
    "pin_bad": "El PIN nuevo debe tener de 4 a 12 cifras",
    "pin_changed": "PIN cambiado; los demás teléfonos tendrán que desbloquear de nuevo",
    "pin_of_table": "PIN de la mesa",
    "pin_change": "Cambiar el PIN",
    "pin_new": "PIN nuevo (de 4 a 12 cifras)",
    # settings and health (web/settings.py)
    "set_title": "Ajustes de la mesa",
    "set_short": "Ajustes",
    "set_phones": "Para los móviles",
    "set_qr_alt": "Código QR de la página de la mesa",
    "set_locked": "Los ajustes piden el PIN de la mesa",
    "set_pin": "PIN",
    "set_table": "La mesa",
    "set_name": "Nombre de la mesa",
    "set_mains": "Red eléctrica (el parpadeo de las lámparas)",
    "set_mqtt_host": "Servidor MQTT del club",
    "set_mqtt_none": "ninguno",
    "set_mqtt_port": "Puerto MQTT",
    "set_mqtt_prefix": "Prefijo de los temas MQTT",
    "set_save": "Guardar",
    "set_saved": "Guardado; la mesa se reinicia para aplicarlo",
    "set_camera": "Cámara",
    "set_lens": "Enfoque (dioptrías)",
    "set_lens_auto": "automático al arrancar",
    "set_focus": "Enfocar",
    "set_focused": "Enfocada en lo más nítido del tapete",
    "set_light": "Ajustar la luz",
    "set_lit": "Luz medida de nuevo",
    "set_working": "Un momento…",
    "set_network": "Red",
    "set_country": "País de la wifi (dos letras: ES)",
    "set_net_mode": "Conexión",
    "set_net_country_only": "Solo el país",
    "set_net_wifi": "Unirse a la wifi del club",
    "set_net_hotspot": "Ser un punto de acceso (sin wifi en la sala)",
    "set_ssid": "Nombre de la red",
    "set_psk": "Contraseña (8 a 63 caracteres)",
    "set_apply": "Aplicar",
    "set_net_asked": "Pedido; la red cambia en unos segundos",
    "set_update": "Actualizar",
    "set_version": "Versión",
    "set_update_usb": "Actualizar desde la memoria USB",
    "set_update_file": "Archivo de la versión (mus-table-….tar.gz)",
    "set_update_upload": "Subir y actualizar",
    "set_update_asked": "Actualización pedida; si la comprobación falla, vuelve sola a la versión anterior",
    "set_update_running": "Actualizando…",
    "set_update_done": "Hecho",
    "set_update_failed": "Falló; sigue la versión anterior",
    "set_more": "Más",
    "set_link_house_rules": "Reglas de la casa",
    "set_link_decks": "Baraja en uso",
    "set_link_pin": "Cambiar el PIN",
    "set_pin_new": "PIN nuevo",
    "set_pin_change": "Cambiar",
    "set_no_admin": "Esta mesa no tiene ajustes aquí (no la arrancó el servicio de la mesa)",
    "set_no_camera": "No hay cámara",
    "set_camera_failed": "La cámara no pudo hacerlo (¿tiene enfoque? ¿da imagen?)",
    "set_nothing": "No hay nada que cambiar",
    "set_refused": "No se puede guardar ese ajuste",
    "set_bad_name": "El nombre: de 1 a 40 letras, cifras, puntos o guiones, sin espacios",
    "set_bad_mains": "La red eléctrica es de 50 o de 60 Hz",
    "set_bad_host": "El servidor MQTT: un nombre o una dirección",
    "set_bad_port": "El puerto: de 1 a 65535",
    "set_bad_prefix": "El prefijo: letras, cifras, guiones y barras",
    "set_bad_country": "El país: dos letras mayúsculas (ES, FR, PT…)",
    "set_bad_ssid": "El nombre de la red: de 1 a 32 caracteres",
    "set_bad_psk": "La contraseña: de 8 a 63 caracteres",
    "set_update_bad_file": "Eso no es un archivo de versión (mus-table-….tar.gz)",
    "health_title": "Salud de la mesa",
    "health_version": "Versión",
    "health_uptime": "Encendida desde hace",
    "health_temp": "Temperatura del procesador",
    "health_power": "Alimentación y temperatura",
    "health_disk": "Tarjeta",
    "health_journal": "Diario de la mesa",
    "health_fps": "Cámara",
    "health_fps_unit": "imágenes por segundo",
    "health_free": "libres",
    "health_unknown": "no se sabe",
    "health_ok": "bien",
    "health_under_voltage": "falta tensión ahora",
    "health_freq_capped": "frecuencia limitada ahora",
    "health_throttled": "frenada ahora",
    "health_soft_temp_limit": "caliente ahora",
    "health_under_voltage_since_boot": "faltó tensión",
    "health_freq_capped_since_boot": "se limitó la frecuencia",
    "health_throttled_since_boot": "se frenó",
    "health_soft_temp_limit_since_boot": "se calentó",
    # what the table refuses, and why it cannot score (``msg_`` + a message code: table/errors.py)
    "msg_refused": "no se puede",
    "msg_failed": "no se pudo ({code}: {detail})",
    "msg_lance_decided": "{lance} ya está decidido: no hay más palabras",
    "msg_seat_without_jugada": "el {seat_name} no habla en {lance}: no ha declarado {lance}",
    "msg_no_such_seat": "el asiento {seat} no existe (en la orden, 0-3)",
    "msg_seat_missing": "falta el asiento ({key}: 0-3)",
    "msg_seat_out": "el {seat_name} dijo «no quiero» y está fuera de {lance}",
    "msg_not_turn": "en {lance} habla el {speaker_name}, no el {seat_name}",
    "msg_unknown_word": "palabra desconocida: {word} (paso, envido, quiero, no quiero, órdago)",
    "msg_word_missing": "falta la palabra: paso, envido, quiero, no quiero u órdago",
    "msg_envido_number": "envido lleva un número de {least} a {most}",
    "msg_number_only_envido": "solo envido lleva número, no {word}",
    "msg_nobody_bet": "nadie ha envidado en {lance}: el {seat_name} puede decir paso, envido u órdago, no {word}",
    "msg_paso_no_answer": "«paso» no responde a un envite: el {seat_name} dice quiero, no quiero, envido u órdago",
    "msg_over_ordago": "sobre un órdago no se sube: quiero o no quiero",
    "msg_bets_over": "las apuestas de esta mano ya han terminado",
    "msg_declare_first": "antes, ¿{lance}? (que declare cada asiento)",
    "msg_lance_started": "en {lance} ya se ha hablado: deshaced esas palabras antes de dar el final",
    "msg_lance_not_played": "{lance} no se juega en esta mano",
    "msg_cannot_bet": "en {lance} no puede apostar quien decís (asiento {seat})",
    "msg_deje_needs_pair": "no querido: decid qué pareja se lleva el deje (by: uno de sus asientos)",
    "msg_unknown_outcome": "final desconocido: {outcome} (en paso, querido, no querido, órdago)",
    "msg_word_before_declaring": "la palabra {n} se dijo antes de declarar {lance}",
    "msg_word_no_longer_valid": "así, la palabra {n} ({word} del {seat_name}) ya no vale",
    "msg_nothing_said": "no se ha dicho nada en esta mano",
    "msg_bad_declaration": "solo se declaran pares o juego, no {lance}",
    "msg_not_this_lance": "se está jugando {playing}, no {lance}",
    "msg_outcome_without_number": "«{outcome}» no lleva número (solo querido y no querido)",
    "msg_querido_at_least_2": "un envite querido es de 2 piedras o más, no {n}",
    "msg_nothing_to_correct": "aún no se han leído las cartas: no hay nada que corregir",
    "msg_table_impossible": "la mesa no es posible: corregid o volved a leer antes de confirmar",
    "msg_nothing_to_confirm": "no hay mano tanteada que confirmar",
    "msg_confirm_other_pair": "confirma un jugador de la pareja contraria ({allowed}), no el {seat_name}",
    "msg_not_a_hand_entry": "orden no admitida aquí: {kind}",
    "msg_partida_not_filled": "a la partida nueva le faltan las reglas",
    "msg_nothing_to_undo": "no hay mano confirmada que deshacer en esta partida",
    "msg_partida_over": "la partida ha terminado: deshaced la última mano o empezad otra",
    "msg_reopen_in_play": "la partida {partida} es la que está en juego: no hay que reabrirla",
    "msg_reopen_unknown": "no hay ninguna partida {partida} cerrada en esta mesa",
    "msg_reopen_won": "la partida {partida} ya la ganó la pareja de {pair}: una partida ganada no se "
                      "reabre (sus manos siguen en la lista, para verlas y descargarlas)",
    "msg_bad_partida": "«partida» es el número de una partida de la mesa (1 o más), no {partida}",
    "msg_reading_now": "se están leyendo las cartas: un momento",
    "msg_learning_now": "la mesa está aprendiendo una baraja: terminad o pulsad «Dejarlo» antes",
    "msg_panel_may_not_confirm": "confirma un jugador de la pareja contraria, desde la pantalla",
    "msg_no_camera_learn": "no hay cámara: no se puede hacer la foto de la baraja",
    "msg_learn_frames_missing": "faltan fotos de la baraja: hacen falta las tres (1, 2 y 3)",
    "msg_learn_no_mat": "Foto {photo}: no se ve el tapete (hacen falta tres de sus marcas)",
    "msg_learn_count": "Foto {photo}, zona del asiento {seat}: {count_off}",
    "msg_learn_wrong_card": "Foto {photo}, zona del asiento {seat}: la carta {place} es el {seen_name}, "
                            "y ahí va el {want_name}",
    "msg_learn_face_down": "Foto {photo}, zona del asiento {seat}: {down_cards}",
    "msg_learn_card_edge": "Foto {photo}, zona del asiento {seat}: {edge_cards}",
    "msg_deck_name_bad": "el nombre de la baraja {name} no vale: de 1 a 40 letras, cifras, espacios "
                         "o «- — _ . ' &», empezando por una letra o una cifra",
    "msg_learn_failed": "no se pudo aprender la baraja: volved a hacer las fotos",
    "msg_deck_unusable": "no se puede usar la baraja «{name}»: no está aprendida, o hay que aprenderla otra vez",
    "msg_already_reading": "ya se están leyendo las cartas",
    "msg_no_reader": "esta mesa no tiene lector de cartas",
    "msg_no_camera_read": "no hay cámara: no se puede leer",
    "msg_photo_unreadable": "la foto no se puede leer: mirad la cámara y volved a leer",
    "msg_no_frames": "la cámara no da fotos",
    "msg_stale": "ya se anotó: {what}",
    "msg_stale_unknown": "la mesa ha cambiado desde que lo pulsaste: mira la pantalla y vuelve a pulsar",
    "msg_bad_seq": "«seq» es el número del estado que se vio (un entero), no {value}",
    "msg_not_an_object": "una orden es un objeto JSON con «kind»",
    "msg_unknown_command": "orden desconocida: {kind}",
    "msg_bad_number": "n debe ser un número entero de al menos {least}, no {value}",
    "msg_unknown_lance": "lance desconocido: {lance}",
    "msg_says_bool": "«says» es true o false",
    "msg_bad_index": "«index» es la carta 0-3 del asiento (4 o más: añadir), no {index}",
    "msg_bad_card": "carta no válida: {card}",
    "msg_learn_frame_k": "la foto de la baraja es la 0, 1 o 2 (en la orden), no {k}",
    "msg_bad_rules": "reglas no válidas: {why}",
    "msg_deck_name": "la baraja necesita un nombre (hasta 40 letras)",
    "msg_bad_names": "los nombres son cuatro, uno por asiento (vacío si no se da)",
    "msg_name_too_long": "cada nombre, de {most} letras como mucho",
    "msg_card_repeated": "El {card} aparece {times} veces: {where}",
    "msg_seat_cards": "{seat_cards}",
    "msg_reader_problem": "La cámara ve algo que no cuadra: corregid las cartas o volved a leer",
    "msg_reader_unsure": "La cámara no está segura de {n} carta{n_s}: corregidlas o volved a leer",
    "msg_cannot_score": "La mano no se puede tantear así: corregid las cartas o las palabras",
    "msg_stones_off": "Asiento {seat}: {stones_off} (hay {seen}, el tanteo dice {expected})",
    # a hand record, a partida or rules that break the contract (table/record.py, match.py, rules.py);
    # the record's keys and values are the JSON's (seats 0-3 there), a seat named as people count it
    "msg_invalid_card": "no es una carta: {value} (de 1 a 7, 10, 11 o 12, y o, c, e o b: «12o», «1e»)",
    "msg_record_not_object": "un registro de mano es un objeto JSON, no {value}",
    "msg_record_unknown_key": "clave desconocida {key} (un registro mus-hand/1 tiene {keys})",
    "msg_record_format": "«format» debe ser \"mus-hand/1\", no {value}",
    "msg_record_mano": "«mano» es un asiento de 0 a 3 (0 es el asiento 1), no {value}",
    "msg_record_bets": "«bets» debe ser un objeto con los lances, no {value}",
    "msg_record_unknown_lance": "bets: lance desconocido {key} (lances: {lances})",
    "msg_record_punto_with_juego": "bets.punto: el punto solo se juega si nadie tiene juego, y el {seat_name} "
                                   "tiene juego (declarado)",
    "msg_record_juego_without_juego": "bets.juego: nadie tiene juego (declarado): se juega el punto",
    "msg_record_words": "bets.{lance} debe ser una lista de palabras, no {value}",
    "msg_record_after_ordago": "bets.{lance}: la mano acabó con el órdago querido en {ordago}: no hay más palabras",
    "msg_record_missing_key": "falta la clave {key}",
    "msg_record_score": "«score» son las piedras de cada pareja, [asientos 1 y 3, asientos 2 y 4], no {value}",
    "msg_record_score_range": "score: {the_pair} tiene {stones} piedras, y van de 0 a {most} (el juego es a "
                              "{target})",
    "msg_record_cards": "«cards» son las cartas de los cuatro asientos (cuatro listas), no {value}",
    "msg_record_seat_cards": "cards: las del {seat_name} deben ser una lista de cuatro cartas, no {value}",
    "msg_record_seat_count": "cards: el {seat_name} tiene {count} cartas, no 4",
    "msg_record_not_card": "cards, {seat_name}: {value} no es una carta (de 1 a 7, 10, 11 o 12, y o, c, e o b)",
    "msg_record_card_twice": "cards: el {card} aparece dos veces ({where})",
    "msg_record_declared": "«declared» es un objeto con pares y/o juego, no {value}",
    "msg_record_declared_key": "declared: clave desconocida {key} (claves: pares, juego)",
    "msg_record_declared_list": "declared.{lance} son cuatro true/false, uno por asiento, no {value}",
    "msg_record_not_bet_pair": "bets.{lance}: no se juega (solo {pair_name} tienen {lance} declarado), "
                               "pero hay palabras",
    "msg_record_not_bet": "bets.{lance}: no se juega (nadie tiene {lance} declarado), pero hay palabras",
    "msg_record_illegal_word": "bets.{lance}, palabra {i} {raw}: {cause}",
    "msg_record_incomplete": "bets.{lance}: el lance está sin acabar: {waiting}",
    "msg_record_word_shape": "bets.{lance}, palabra {i} {raw}: una palabra es [asiento, palabra] o "
                             "[asiento, \"envido\", n]",
    "msg_record_word_seat": "bets.{lance}, palabra {i} {raw}: el asiento va de 0 a 3, no {value}",
    "msg_record_word_unknown": "bets.{lance}, palabra {i} {raw}: palabra desconocida {value} "
                               "(paso, envido, quiero, no quiero, ordago)",
    "msg_record_word_number": "bets.{lance}, palabra {i} {raw}: solo envido lleva número",
    "msg_record_word_envido": "bets.{lance}, palabra {i} {raw}: envido lleva un número entero de {least} a "
                              "{most}, no {value}",
    "msg_record_empty": "vacío: no hay ningún registro",
    "msg_record_blank": "vacío: solo hay espacios, ningún registro",
    "msg_json_constant": "JSON no válido: {value} no es un valor JSON",
    "msg_json_key_twice": "JSON no válido: la clave {key} aparece dos veces en un objeto",
    "msg_json_not_utf8": "JSON no válido: no es texto UTF-8 (byte {byte})",
    "msg_json_bad": "JSON no válido: {what} en la línea {line}, columna {column}",
    "msg_json_bad_value": "JSON no válido: {what}",
    "msg_json_deep": "JSON no válido: demasiados niveles anidados",
    "msg_json_digits": "JSON no válido: un número de más de 4300 cifras",
    "msg_rules_value": "rules.{rule} debe ser {choices}, no {value}",
    "msg_rules_object": "«rules» debe ser un objeto, no {value}",
    "msg_rules_unknown": "rules: regla desconocida {key} (reglas: {keys})",
    "msg_partida_count": "{what} debe ser un número entero de al menos 1, no {value}",
    "msg_partida_won": "la partida ya la ganó {the_pair}: no hay más manos",
    "msg_partida_rules": "rules.{rule} debe ser {want}, como en las manos anteriores, no {value}",
    "msg_partida_mano": "«mano» debía ser {want} (el {seat_name}), no {value}",
    "msg_partida_score": "«score» debía ser {want}, lo que llevaba la partida, no {value}",
    "msg_partida_ended": "línea {line}: la partida acabó en la línea {ended} (la ganó {the_pair}): "
                         "no puede seguir ninguna mano",
    "msg_partida_start": "una partida empieza en [0, 0], no en {value}",
    "msg_partida_empty": "la partida está vacía: no tiene manos",
    "msg_at_line": "línea {line}: {cause}",
    "msg_cannot_write": "no se puede escribir {path}",
    "msg_config_section_table": "configuración: [{section}] debe ser una tabla de claves",
    "msg_config_unknown_key": "configuración: clave desconocida {key} (se conocen: {keys})",
    "msg_config_two_seats": "configuración: {key} son dos asientos, como [0, 1], no {value}",
    "msg_config_type": "configuración: {key} debe ser {want}, no {value}",
    "msg_config_not_toml": "configuración: no es TOML válido (línea {line}, columna {column})",
    "msg_config_unknown_section": "configuración: sección desconocida [{section}] (secciones: {sections})",
    "msg_config_cause": "configuración: {cause}",
    "msg_config_source": "configuración: camera.source es una de {sources}, no {value}",
    "msg_config_folder_path": "configuración: camera.source = \"folder\" necesita camera.path (la carpeta de "
                              "las fotos)",
    "msg_config_mains": "configuración: camera.mains_hz es 50 o 60, no {value}",
    "msg_config_ports": "configuración: los puertos van de 1 a 65535",
    "msg_config_mat": "configuración: mat.side_mm: {cause}",
    "msg_settings_not_toml": "ajustes: {path} no es TOML válido (línea {line}, columna {column})",
    "msg_settings_section_table": "ajustes: [{section}] debe ser una tabla de claves",
    "msg_settings_not_settable": "ajustes: {key} no se puede cambiar desde la pantalla",
    "msg_settings_cannot_store": "ajustes: no se puede guardar {value}",
    "msg_mat_side": "un tapete de {side} mm: la zona de juego va de {least} a {most} mm",
    "msg_camera_no_folder": "no hay carpeta de fotos en {path}",
    "msg_camera_no_images": "{path} no tiene fotos ({kinds})",
    "msg_camera_not_opened": "no se puede abrir la cámara {device} (¿está enchufada? ¿la usa otro programa?)",
    "msg_camera_no_picamera2": "falta picamera2 (en Raspberry Pi OS: apt install python3-picamera2; un entorno "
                               "virtual necesita --system-site-packages)",
    "msg_camera_not_started": "la cámara de la Pi no arranca ({detail})",
    "msg_camera_no_focus": "esta cámara no enfoca sola (con una lente manual, girad su anillo)",
    "msg_camera_no_frame_focusing": "la cámara no dio ninguna imagen al enfocar",
    "msg_journal_none": "no hay diario en {path}",
    "msg_journal_not": "{path} no es un diario de la mesa",
    "msg_journal_cannot_open": "no se puede abrir el diario {path} ({detail})",
    "msg_journal_empty": "{path} no tiene ninguna partida",
    "msg_journal_no_partida": "{path} no tiene la partida {partida} (partidas: {ids})",
    "msg_hand_beyond": "--hand {hand}: la partida tiene {hands} manos",
    "msg_option_range": "{option}: de {least} a {most}, no {value}",
    "msg_option_at_least": "{option}: al menos {least}, no {value}",
    "msg_invalid_frame": "no es una imagen que se pueda leer (dañada, demasiado grande o pequeña, o no es "
                         "JPEG, PNG, WebP ni BMP)",
    "msg_no_file": "{path}: no existe ese archivo",
    "msg_frame_file_large": "{path}: un archivo de {size} bytes es demasiado grande para una foto",
    "msg_frame_file_bad": "{path}: {cause}",
    "msg_frame_named": "foto {name}: {cause}",
    "msg_frame_too_large": "{w} x {h} px es demasiado grande para una foto (como mucho {mp} MP, {side} px por lado)",
    "msg_frame_too_small": "{w} x {h} px es demasiado pequeña para una foto (al menos {side} px por lado)",
    "msg_frame_empty": "un archivo vacío",
    "msg_cannot_read": "no se puede leer {path}: {why}",
    "msg_no_folder": "{path}: no existe esa carpeta",
    "msg_mat_too_large": "una imagen de {w} x {h} px es demasiado grande: bajad --dpi o usad --tile",
    "msg_mat_suffix": "{path}: el archivo debe acabar en .pdf, .svg o .png",
    "msg_deck_not_found": "no hay ninguna baraja aprendida que se llame «{name}» (mus-table deck list)",
    "msg_deck_damaged": "la baraja aprendida está dañada, es de otra versión o de otro modelo de cartas: "
                        "aprendedla otra vez",
    "msg_deck_use_which": "nombrad una baraja aprendida, o --none para usar solo el modelo de cartas",
    "msg_learn_frame_bad": "foto {photo}: {cause}",
    # faults (the table's «Avisos»): what is wrong, and what to do
    "msg_camera_lost": "Cámara perdida: no llegan imágenes",
    "msg_camera_lost_todo": "Mirad el cable de la cámara; la mesa sigue sola cuando vuelva",
    "msg_camera_failed": "Cámara perdida",
    "msg_camera_failed_todo": "Mirad el cable de la cámara ({why})",
    "msg_frames_bad": "La cámara da imágenes que no se pueden leer",
    "msg_frames_bad_todo": "Mirad la cámara (imagen {shape})",
    "msg_frame_unreadable": "Una imagen de la cámara no se puede leer",
    "msg_frame_unreadable_todo": "Mirad la cámara ({why})",
    "msg_camera_frozen": "La imagen de la cámara está congelada",
    "msg_camera_frozen_todo": "Desenchufad y enchufad la cámara; la mesa no lee hasta que vuelva",
    "msg_photo_failed": "No se pudo leer la foto de la mesa",
    "msg_photo_failed_todo": "Mirad la cámara y pulsad «leer» otra vez",
    "msg_disk_full": "No se puede escribir el diario (¿disco lleno?)",
    "msg_disk_full_todo": "Liberad espacio en la tarjeta; la mesa guarda lo que tiene ({why})",
    # what was already entered (msg_stale's «what»): one per journal entry
    "did_say": "{word} del asiento {seat}",
    "did_unsay": "se deshizo la última palabra",
    "did_lance": "{lance}: {outcome}",
    "did_declare": "{answer} a {lance} del asiento {seat}",
    "did_cards": "la lectura de las cartas",
    "did_correct": "la corrección de una carta del asiento {seat}",
    "did_confirm": "la confirmación de la mano",
    "did_undo_hand": "se deshizo la última mano",
    "did_new_partida": "una partida nueva",
    "did_reopen": "se reabrió la partida {partida}",
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

_WORDS = {"paso": "Paso", "envido": "Envido", "quiero": "Quiero", "no quiero": "No quiero", "ordago": "Órdago"}


def _plural(n: object) -> str:
    return "" if n == 1 else "s"


def _person(v: Any) -> Any:
    """A seat as people count it (1-4); the JSON and the codes keep 0-3. Anything else as it is."""
    return v + 1 if type(v) is int and 0 <= v <= 3 else v


def _seat_cards(args: Mapping[str, Any]) -> str:
    seat, n = _person(args.get("seat")), args.get("n")
    if isinstance(n, int) and n < 4:
        falta = 4 - n
        return f"Al asiento {seat} le falta{'n' if falta > 1 else ''} {falta} carta{_plural(falta)}"
    return f"El asiento {seat} tiene {n} cartas"


def _down_cards(args: Mapping[str, Any]) -> str:
    """«la carta 3 está boca abajo», «las cartas 1 y 3 están boca abajo» (places 1-4 as the seat sees them)."""
    places = [p for p in args.get("places", ()) if type(p) is int] or [args.get("place")]
    if len(places) == 1:
        return f"la carta {places[0]} está boca abajo"
    return f"las cartas {', '.join(map(str, places[:-1]))} y {places[-1]} están boca abajo"


def _edge_cards(args: Mapping[str, Any]) -> str:
    """«la carta 2 no se ve entera (su sombra parece su borde): cambia la luz o el tapete y repite la foto»; with
    ``why`` «felt», «(el tapete es casi del color de la carta)»."""
    places = [p for p in args.get("places", ()) if type(p) is int] or [args.get("place")]
    what = (f"la carta {places[0]} no se ve entera" if len(places) == 1 else
            f"las cartas {', '.join(map(str, places[:-1]))} y {places[-1]} no se ven enteras")
    why = ("el tapete es casi del color de la carta" if args.get("why") == "felt" else "su sombra parece su borde")
    return f"{what} ({why}): cambia la luz o el tapete y repite la foto"


def _stones_off(args: Mapping[str, Any]) -> str:
    diff, what = args.get("diff", 0), str(args.get("what", "piedras"))
    k = abs(diff) if isinstance(diff, int) else 0
    return f"{'sobra' if k and diff > 0 else 'falta'}{'n' if k > 1 else ''} {k} {what if k > 1 else what[:-1]}"


_SUITS = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}


def _card_name(card: str) -> str:
    """«12o» as people say it: «12 de oros» (anything else as it is)."""
    rank, suit = card[:-1], card[-1:]
    return f"{rank} de {_SUITS[suit]}" if rank.isdigit() and suit in _SUITS else card


def _count_off(args: Mapping[str, Any]) -> str:
    """«faltan 2 cartas», «sobra 1 carta», and what is there that is no face-up card."""
    found, want = args.get("found"), args.get("want")
    if not isinstance(found, int) or not isinstance(want, int):
        return "no cuadran las cartas"
    k = abs(want - found)
    text = f"{'falta' if found < want else 'sobra'}{'n' if k > 1 else ''} {k} carta{_plural(k)}"
    if args.get("odd"):
        text += " (hay algo que no es una carta boca arriba)"
    return text


def _where(args: Mapping[str, Any]) -> str:
    seats = [_person(int(s)) for s in args.get("seats", ())]
    parts = [f"asiento {s}" for s in seats] + (["fuera de las zonas"] if args.get("outside") else [])
    if len(seats) > 1 and not args.get("outside"):
        return "asientos " + " y ".join(str(s) for s in seats)
    return " y ".join(parts)


def _args(args: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The arguments as the sentences use them: names of seats, lists said in words."""
    out: dict[str, Any] = {}
    entry = args.get("entry")
    if isinstance(entry, Mapping):  # what was already entered (a stale command)
        out["what"] = say_entry(str(entry.get("kind")), entry, lang)
    for k, v in args.items():
        if k == "entry":
            continue
        if k in ("seat", "speaker", "bettor", "by"):
            v = _person(v)
        elif k == "allowed" and isinstance(v, list | tuple):
            v = [_person(x) for x in v]
        if isinstance(v, list | tuple):
            v = " o ".join(str(x) for x in v) if k == "allowed" else " y ".join(str(x) for x in v)
        elif v is None:
            v = "nada"
        elif isinstance(v, bool):
            v = "sí" if v else "no"
        out[k] = v
    for k in ("seat", "speaker"):
        if k in args:
            out[f"{k}_name"] = f"asiento {_person(args[k])}"
    if "word" in args:
        out["word"] = _WORDS.get(str(args["word"]), str(args["word"]))
    if "n" in args:
        out["n_s"] = _plural(args["n"])
    if "seats" in args:
        out["where"] = _where(args)
    if "allowed" in args:
        out["allowed"] = "asientos " + " o ".join(str(_person(x)) for x in args["allowed"])
    out["seat_cards"] = _seat_cards(args)
    if "diff" in args:
        out["stones_off"] = _stones_off(args)
    if "places" in args:
        out["down_cards"] = _down_cards(args)
        out["edge_cards"] = _edge_cards(args)
    if "want" in args and "found" in args:
        out["count_off"] = _count_off(args)
    for k in ("seen", "want", "card"):
        if isinstance(args.get(k), str):
            out[f"{k}_name"] = _card_name(args[k])
    pair = args.get("pair")
    if type(pair) is int and pair in (0, 1):
        out["pair_name"], out["the_pair"] = people.pair(pair), people.the_pair(pair)
    cause = args.get("cause")
    if isinstance(cause, Mapping):  # a fault inside another (a word of a record, a line of a partida)
        out["cause"] = say(str(cause.get("code")), cause.get("args") or {}, lang)
    if "errno" in args:  # a file that cannot be read: why, as the system says it
        out["why"] = _ERRNO.get(args["errno"], "error del sistema")
    if "open" in args and "speaker" in args:  # what an unfinished lance waits for
        out["waiting"] = (f"falta que hable el asiento {_person(args['speaker'])}" if args["open"]
                          else f"falta que responda el asiento {_person(args['speaker'])}")
    if isinstance(args.get("what"), str) and args["what"] in _JSON_FAULTS:
        out["what"] = _JSON_FAULTS[args["what"]]
    return out


_ERRNO = {2: "no existe", 13: "sin permiso para leerlo", 21: "es una carpeta", 5: "error de lectura"}
"""Why a file cannot be read, by its errno."""

_JSON_FAULTS = {
    "Expecting value": "falta un valor",
    "Expecting property name enclosed in double quotes": "falta un nombre de clave entre comillas dobles",
    "Expecting ':' delimiter": "falta «:»",
    "Expecting ',' delimiter": "falta «,»",
    "Extra data": "sobra texto tras el JSON",
    "Unterminated string starting at": "una cadena sin cerrar",
    "Invalid control character at": "un carácter de control dentro de una cadena",
    "Invalid \\escape": "un escape no válido",
    "Invalid \\uXXXX escape": "un escape \\u no válido",
    "Illegal trailing comma before end of object": "una coma de más antes de «}»",
    "Illegal trailing comma before end of array": "una coma de más antes de «]»",
}
"""Python's JSON decoder's faults, in the words of the table."""


class _Missing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def say(code: str, args: Mapping[str, Any] | None = None, lang: str = "es") -> str:
    """A message code and its arguments (table/errors.py) as one line for a person.

    Seats are said as people count them, 1 to 4 (the codes keep 0-3):

    >>> say("not_turn", {"lance": "grande", "speaker": 3, "seat": 2})
    'en grande habla el asiento 4, no el asiento 3'
    >>> say("stale", {"entry": {"kind": "say", "seat": 1, "word": "paso"}})
    'ya se anotó: Paso del asiento 2'
    """
    table = texts(lang)
    template = table.get("msg_" + code)
    if template is None:
        return table["msg_refused"] + f" ({code})"
    return visible(template.format_map(_Missing(_args(args or {}, lang))))  # one line, all of it seen


ARGPARSE: tuple[tuple[str, str], ...] = (
    (r"^the following arguments are required: (.*)$", r"faltan argumentos: \1"),
    (r"^unrecognized arguments: (.*)$", r"argumentos desconocidos: \1"),
    (r"^argument (\S+): invalid choice: (.*) \(choose from (.*)\)$", r"argumento \1: \2 no vale (vale: \3)"),
    (r"^argument (\S+): invalid (\S+) value: (.*)$", r"argumento \1: valor no válido: \3"),
    (r"^argument (\S+): expected one argument$", r"argumento \1: falta su valor"),
    (r"^argument (\S+): expected at least one argument$", r"argumento \1: falta al menos un valor"),
    (r"^argument (\S+): expected (\d+) arguments?$", r"argumento \1: faltan valores (\2)"),
    (r"^argument (\S+): not allowed with argument (\S+)$", r"argumento \1: no va junto con \2"),
    (r"^argument (\S+): ignored explicit argument (.*)$", r"argumento \1: no lleva valor (sobra \2)"),
    (r"^one of the arguments (.*) is required$", r"hace falta uno de estos argumentos: \1"),
    (r"^ambiguous option: (\S+) could match (.*)$", r"opción ambigua: \1 puede ser \2"),
    (r"^argument (\S+): (.*)$", r"argumento \1: \2"),
)
"""What the command line's parser (argparse) refuses, in Spanish: (pattern, replacement), first
match wins; the arguments' own checks already speak Spanish."""


def say_argparse(message: str) -> str:
    """argparse's refusal as one Spanish line.

    >>> say_argparse("the following arguments are required: FILE")
    'faltan argumentos: FILE'
    """
    message = " ".join(message.split())
    for pattern, spanish in ARGPARSE:
        said, n = re.subn(pattern, spanish, message)
        if n:
            return said
    return message


def say_error(exc: MusTableError, lang: str = "es") -> str:
    """An error as one line for a person: its code and params in words (:func:`say`).

    An error whose code has no sentence yet says that it failed, with its code and the
    log's own text, so that nothing is hidden (``tests/test_spanish.py`` finds those).

    >>> from table.record import parse
    >>> try:
    ...     parse("")
    ... except MusTableError as exc:
    ...     say_error(exc)
    'vacío: no hay ningún registro'
    """
    table = texts(lang)
    if "msg_" + exc.code in table:
        return say(exc.code, exc.params, lang)
    return visible(table["msg_failed"].format(code=exc.code, detail=exc))


_WHY = {
    "not card-shaped": "no tiene forma de carta",
    "card-sized, not found as a card": "del tamaño de una carta, sin hallarse como carta",
    "a glare may hide a card": "un reflejo puede ocultar una carta",
    "card outside the card zones": "carta fuera de las zonas de cartas",
    "low confidence": "la cámara no está segura",
    "views disagree": "las vistas no coinciden",
    "card outside every zone": "carta fuera de todas las zonas",
    "object outside every zone": "objeto fuera de todas las zonas",
    "stone outside every zone": "piedra fuera de todas las zonas",
}
"""A reading's reasons (``docs/mat.md`` spells them in English, the JSON keeps them) in words."""


def _zone(zone: object) -> str:
    """A zone of the reading («seat 2 cards») as people say it: «cartas del asiento 3»."""
    words = str(zone).split()
    if len(words) == 3 and words[0] == "seat" and words[1].isdigit():
        what = "cartas" if words[2] == "cards" else "piedras"
        return f"{what} del asiento {int(words[1]) + 1}"
    return "el centro" if str(zone) == "pool" else "fuera de las zonas"


def _why(why: str, lang: str) -> str:
    if why in _WHY:
        return _WHY[why]
    seen = re.fullmatch(r"card (\S+) seen (twice|\d+ times)", why)
    if seen:
        return f"el {seen[1]} se ve {2 if seen[2] == 'twice' else seen[2].split()[0]} veces"
    problem = reading_problem(why)
    return say(problem.code, problem.args, lang) if problem.code != "reader_problem" else why


def say_reading(reading: Reading, lang: str = "es") -> list[str]:
    """A reading (``mus-table read`` without ``--json``) as a few lines for a person, seats 1-4."""
    lines = []
    if not reading.calibrated:
        lines.append("no se ve el tapete (menos de tres marcas): no se lee nada")
    elif reading.stale:
        lines.append("marcas tapadas: se usa la última calibración buena (lectura antigua)")
    for s, seat in enumerate(reading.cards):
        names = ", ".join(c.spanish for c in seat) or "-"
        lines.append(f"asiento {s + 1}: {' '.join(str(c) for c in seat) or '-'}  ({names})")
    stones = reading.stones
    lines.append(f"piedras: {stones.pool} en el centro; por asiento, "
                 + ", ".join(f"{n} el {s + 1}" for s, n in enumerate(stones.seats)))
    for u in reading.unknown:
        lines.append(f"sin leer en {_zone(u.zone)}: caja {list(u.box)} mm, {_why(u.why, lang)}")
    for why in reading.impossible:
        problem = reading_problem(why)
        lines.append(f"imposible: {say(problem.code, problem.args, lang)}")
    if reading.ignored:
        lines.append(f"ignorado fuera de las zonas: {len(reading.ignored)}")
    return [visible(line) for line in lines]


def say_entry(kind: str, body: Mapping[str, Any], lang: str = "es") -> str:
    """A journal entry (what was already entered) in a few words: «Paso del asiento 1»."""
    table = texts(lang)
    template = table.get("did_" + kind)
    if template is None:
        return kind
    args = dict(body)
    if kind == "say" and args.get("word") == "envido":
        args["word"] = f"Envido {args.get('n', 2)}"
    if kind == "declare":
        args["answer"] = "«sí»" if args.get("says") else "«no»"
    if kind == "lance":
        args["lance"] = str(args.get("lance", "")).capitalize()
        outcome = str(args.get("outcome", ""))
        args["outcome"] = outcome.replace("ordago", "órdago") + (f" a {args['n']}" if args.get("n") else "")
    return template.format_map(_Missing(_args(args, lang)))


def texts(lang: str = "es") -> dict[str, str]:
    """The whole table for ``lang`` (Spanish where it has no text of its own)."""
    if lang not in LANGUAGES:
        raise UnknownLanguage(f"no texts for language {lang!r} (known: {', '.join(sorted(LANGUAGES))})")
    return {**ES, **LANGUAGES[lang]}
