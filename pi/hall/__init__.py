"""The hall: many boards, one hub, over a Mosquitto broker (``pi/hall/PROTOCOL.md``).

On the board: ``pi.hall.link.BoardLink`` publishes the journal (a board listener) and carries out
the hub's commands through ``BoardController.act``/``set_pairing``; ``pi.hall.board_store`` is
what it keeps on disk.

On the hub (``damiera hub``, ``pi/hall/HUB_API.md``): ``pi.hall.hub.Hub`` composes the hall's
concerns — the boards (``pi.hall.registry``: each rebuilt as a ``pi.board.view.BoardView``,
``pi.hall.boardview.BoardReplica``), replication (``pi.hall.replication``: every board's lines
in order into ``pi.hall.replica``), the commands to the boards (``pi.hall.commands``) and the
hall page's summaries (``pi.hall.summaries``); ``pi.hall.hall_http`` serves the hall's pages,
the round feeds (``pi.hall.rounds``) and every board's own routes (``pi.web.server``'s, over the
replica's parts); ``pi.hall.hub_init`` writes a hall's files, ``pi.hall.protocol`` checks every
message, ``pi.hall.alarms`` keeps the arbiter's alarms, ``pi.hall.errors`` its exceptions.
"""
