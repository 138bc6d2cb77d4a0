"""The hall: many boards, one hub, over a Mosquitto broker (``pi/hall/PROTOCOL.md``).

On the board: ``pi.hall.link.BoardLink`` publishes the journal (a board listener) and carries out
the hub's commands through ``BoardController.act``/``set_pairing``; ``pi.hall.board_store`` is
what it keeps on disk.

On the hub (``damiera hub``, ``pi/hall/HUB_API.md``): ``pi.hall.hub.Hub`` takes every board's
lines in order (``pi.hall.replica``), rebuilds each board as a ``pi.board.view.BoardView``
(``pi.hall.boardview.BoardReplica``) and serves the hall's pages, the round feeds and every
board's own pages (``pi.hall.hall_http``, ``pi.hall.rounds``); ``pi.hall.hub_init`` writes a
hall's files, ``pi.hall.protocol`` checks every message, ``pi.hall.alarms`` keeps the
arbiter's alarms, ``pi.hall.errors`` its exceptions.
"""
