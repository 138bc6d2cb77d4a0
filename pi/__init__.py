"""damiera on the Raspberry Pi (and on a PC over the fakes of ``hardware_mocks``), in rooms whose
arrows run one way — web and hall → board → drivers → engine:

``pi.drivers``  the hardware: expanders, sensors, buttons, buzzer, OLED, serial line, the wiring
                file; ``pi.drivers.hardware`` builds the real devices
``pi.board``    one board's game: ``BoardController`` and its loop, ``GameSession``, the journal,
                the state directory, ``damiera.toml``; ``pi.board.view.BoardView`` is how the
                others read a board, ``BoardController.act``/``set_pairing`` how they write
``pi.web``      the board's HTTP server, live feeds and pages (``pi/web/API.md``)
``pi.hall``     the hall: the board's MQTT link, the hub and its replicas (``pi/hall/PROTOCOL.md``)

Above them, the only modules that import board, web and hall together: ``pi.cli`` (the
``damiera`` command), ``pi.run`` (``damiera run``) and ``pi.daemon`` (the composition root).
"""
