"""The board's HTTP server (``pi/web/API.md``), on the daemon's event loop: live feeds for
broadcasters, the arbiter's console, the step-through replay. It reads the board only through
``pi.board.view.BoardView`` and writes only through ``BoardController.act``.

``pi.web.server``    ``WebServer`` (routes, the token, the board's pages) on ``ArbiterSite`` (what
                     the hub's server shares: errors, CORS, login, static files, listening)
``pi.web.feeds``     the SSE streams: one writer (``serve_sse``), per-client bounded queues
``pi.web.views``     what the web shows: ``/api/state``, each line's SSE events, the broadcast PDN
``pi.web.replay``    the arbiter's step-through replay (``/api/replay``)
``pi.web.auth``, ``pi.web.httputil``, ``pi.web.errors``   the token, HTTP helpers, ``WebError``
"""
