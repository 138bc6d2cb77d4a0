"""The board's HTTP server (``pi/web/API.md``), on the daemon's event loop: live feeds for
broadcasters, the arbiter's console, the step-through replay. It reads the board only through
``pi.board.view.BoardView`` and writes only through ``BoardController.act``.

``pi.web.server``    a board's routes (pages, feeds, actions, games) composed from four typed
                     parts (view, feed, action sink, games): ``BoardRoutes``, mounted at ``/`` by
                     the daemon's ``WebServer`` and under ``/boards/<N>/`` by the hall's hub
``pi.web.site``      what every site of ours shares: ``Site`` (listening behind the guard, the
                     one middleware: errors, CORS, same-origin POSTs), ``ArbiterAuth`` (who is
                     the arbiter: token, cookie, throttle), JSON bodies, pages and static files
``pi.web.auth``      the arbiter's token file and the wrong tokens' throttle
``pi.web.guard``     connection caps, the header deadline, rate-limited log lines
``pi.web.feeds``     the live feeds: SSE streams, one writer (``serve_sse``), per-client queues
``pi.web.views``     what the web shows: ``/api/state``, each line's SSE events, the broadcast PDN
``pi.web.replay``    the arbiter's step-through replay (``/api/replay``)
``pi.web.httputil``, ``pi.web.i18n``, ``pi.web.errors``   HTTP helpers, languages, ``WebError``
"""
