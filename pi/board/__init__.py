"""One board's game: the controller between the drivers and the engine, the game session with its
write-ahead journal, the state directory, the daemon's configuration and the arbiter's requests.
The web server and the hall read a board through its typed view (``pi.board.view.BoardView``)
and write to it through the controller's ``act`` and ``set_pairing``, never through the drivers."""
