"""The tournament hub: every table of a club or a championship on one broker, one console for the juez.

``mus-table hub --broker HOST[:PORT]`` follows every table through the topics
of ``docs/events.md`` (:mod:`hub.follower`), keeps what they sent and what the
juez and the tournament decided (:mod:`hub.store`, SQLite or PostgreSQL),
republishes a public tree for spectators (:mod:`hub.public`), runs the
tournament's formats (:mod:`hub.tournament`) and serves its pages
(:mod:`hub.app`). The broker configurations for a club and a championship are
in ``hub/brokers/``; ``docs/hub.md`` describes it all.

May import (of the project): ``table`` only (the rules, the narration and the
journal's fold). It reads the tables only through the broker, never through
the table loop's code; ``firmware``'s ``hub`` command starts it.
"""
