"""One board's game: the controller between the drivers and the engine, the game session with its
write-ahead journal, the state directory, the daemon's configuration, the arbiter's requests, the
scan loop that runs the drivers' scanner and the hand-offs between the event loop and threads.
The web server and the hall read a board through its typed view (``pi.board.view.BoardView``)
and write to it through the controller's ``act`` and ``set_pairing``, never through the drivers."""
