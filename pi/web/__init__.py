"""The board's HTTP server: live feeds for broadcasters, the arbiter's console (``pi/web/API.md``)."""
