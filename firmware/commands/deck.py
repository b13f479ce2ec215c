"""``mus-table deck learn NAME FRAME0 FRAME1 FRAME2 | list | use NAME | use --none | remove NAME``.

``learn`` reads the three learning frames of ``docs/mat.md`` ("Learning a
deck"), refuses one not laid out as it says (one line naming the frame and
the zone, nothing kept), keeps the deck under
``$XDG_DATA_HOME/mus-table/decks/NAME`` (on the Pi, the state directory with
the journal) and makes it the table's deck in use, which the table reads
with until another is learnt or chosen, after a restart or a power cut too.
``use`` chooses another (``--none``: the card model alone), ``list`` marks
the one in use; ``mus-table read --deck NAME`` reads with any.
"""

from __future__ import annotations

import argparse

from table.errors import InvalidInput, MusTableError

HELP = "learn a deck from three frames of it laid out on the mat; list or remove learnt decks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACCIÓN", required=True, title="acciones")
    learn = sub.add_parser("learn", help="aprende una baraja de sus tres fotos de aprendizaje (docs/mat.md)",
                           description="aprende una baraja de sus tres fotos de aprendizaje (docs/mat.md)")
    learn.add_argument("name", metavar="NOMBRE", help="cómo llamar a la baraja (letras, cifras, - _ .)")
    learn.add_argument("frames", nargs=3, metavar="FOTO", help="las fotos 0, 1 y 2, en ese orden")
    learn.add_argument("--model", default=None, metavar="MODELO",
                       help="modelo de cartas (por omisión: models/cards.onnx)")
    sub.add_parser("list", help="las barajas aprendidas (marcada la que está en uso)",
                   description="las barajas aprendidas (marcada la que está en uso)")
    use = sub.add_parser("use", help="hace de una baraja aprendida la de la mesa (se lee desde el próximo arranque)",
                         description="hace de una baraja aprendida la de la mesa (se lee desde el próximo "
                                     "arranque)")
    use.add_argument("name", metavar="NOMBRE", nargs="?", default=None, help="la baraja aprendida")
    use.add_argument("--none", action="store_true", help="ninguna baraja aprendida: solo el modelo de cartas")
    remove = sub.add_parser("remove", help="olvida una baraja aprendida", description="olvida una baraja aprendida")
    remove.add_argument("name", metavar="NOMBRE", help="la baraja que olvidar")


def run(args: argparse.Namespace) -> int:
    from vision.learnt import check_name, deck_in_use, list_decks, remove_deck, use_deck

    if args.action == "list":
        in_use = deck_in_use()
        for name in list_decks():
            print(f"{name}  (en uso)" if name == in_use else name)
        return 0
    if args.action == "use":
        if args.none == (args.name is not None):
            raise InvalidInput("deck use: name a learnt deck, or --none for the card model alone",
                               code="deck_use_which")
        use_deck(None if args.none else check_name(args.name))
        print(f"baraja en uso: {args.name}" if not args.none else "baraja en uso: ninguna (solo el modelo de cartas)")
        return 0
    if args.action == "remove":
        remove_deck(args.name)
        print(f"baraja olvidada: {args.name}")
        return 0
    from vision.classifier import CardClassifier
    from vision.frames import load_frame
    from vision.learnt import learn_deck, save_deck

    name = check_name(args.name)
    frames = []
    for k, path in enumerate(args.frames):
        try:
            frames.append(load_frame(path))
        except MusTableError as exc:
            raise MusTableError(f"frame {k}: {exc}", code="learn_frame_bad",
                                params={"photo": k + 1, "cause": {"code": exc.code, "args": exc.params}}) from exc
    deck = learn_deck(frames, model=CardClassifier(args.model))
    folder = save_deck(name, deck)
    use_deck(name)
    print(f"baraja aprendida: {name}, 40 cartas, guardada en {folder}; es la baraja en uso")
    return 0
