"""Flask app: the table display, the spectator page, the API and the live stream.

It shows the table loop's state and forwards the players' commands to it; it
never reads the camera or scores a hand itself.

May import (of the project): ``table``, ``vision`` and ``firmware`` (the loop, its
events and the journal it serves). Only ``firmware``'s commands import it.
"""
