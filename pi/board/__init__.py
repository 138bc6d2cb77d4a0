"""One board's game: the controller between the drivers and the engine, the game session with its
write-ahead journal, the state directory, the daemon's configuration and the arbiter's requests.
The web server and the hall read a board through this package, never through the drivers."""
