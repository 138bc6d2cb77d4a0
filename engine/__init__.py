"""Pure draughts rules for damiera. Standard library only; no I/O, no clocks read, no threads:
time comes in as arguments (float seconds).

The map of the engine, module by module:

Rules and positions
    ``engine.variants``    the four variants as frozen data (``Variant``), ``VARIANTS``, ``find_variant``
    ``engine.squares``     the square vocabulary: official numbers, algebraic names, parsing, the
                           sort key, the mirror and the board rotations
    ``engine.colour``      ``Colour`` (``WHITE``, ``BLACK``): the one colour type
    ``engine.board``       ``Board``, ``Move``, ``Piece``: positions, legal moves, perft
    ``engine.fen``         PDN FEN read into bitboards and written back
    ``engine.articles``    the one article table: every rule code cited, per rule set (``Kind``)

Games and their records
    ``engine.game``        ``Game``: moves with times and clock readings, result, draw rules
    ``engine.pdn``         PDN 3.0 reading (``read_pdn``, ``iter_pdn``) and writing (``write_pdn``)
    ``engine.timecontrol`` ``TimeControl`` and the PDN time syntax
    ``engine.clock``       ``GameClock``: the FID competition clock as a state machine;
                           ``engine.clock_events`` its readings and events, ``engine.clock_run``
                           one face's arithmetic, ``engine.clock_display`` what the faces show
                           and which beeps are due

Over the board
    ``engine.events``      the physical events of docs/trace-format.md (``PieceLifted``, ``ButtonPressed``…)
    ``engine.trace``       docs/trace-format.md lines read into a ``GameStarted`` and events
    ``engine.arbiter``     ``Arbiter``: physical events in, decisions out (with the modules it
                           composes: its state, the judge of what the board shows, the tracker)
    ``engine.identity``    which piece a board that knows colour and crown saw where, and the
                           rules only such a board applies (IT 4.4, 8.1.16, 8.1.17…)
    ``engine.decisions``   the typed decisions (``MoveCommitted``, ``FlagRaised``…)
    ``engine.replay``      a game's lines replayed through the arbiter (``damiera replay``)

Errors
    ``engine.errors``      ``DamieraError``, the root of every error of the project, and its
                           families: ``InputError`` (also a ValueError), ``HardwareError``,
                           ``StateError``, ``ConfigurationError``, ``NetworkError``

What a user imports is re-exported here (``from engine import Board, find_variant``). Importing
``engine`` loads only the rules core (variants, squares, colour, board, errors); the game record,
PDN, clock and arbiter load when their module is imported.
"""

from __future__ import annotations

from engine.board import Board, Move, Piece
from engine.colour import BLACK, COLOURS, WHITE, Colour
from engine.errors import (AmbiguousMoveError, ConfigurationError, DamieraError, HardwareError,
                           IllegalMoveError, ImpossiblePositionError, InputError, InvalidFenError,
                           InvalidMoveError, InvalidSquareError, NetworkError, StateError,
                           UnknownVariantError)
from engine.squares import (Square, SquareName, parse_square, square_mirror, square_name,
                            square_sort_key)
from engine.variants import VARIANTS, Variant, find_variant

__all__ = [
    "Board", "Move", "Piece",
    "Variant", "VARIANTS", "find_variant",
    "Colour", "WHITE", "BLACK", "COLOURS",
    "Square", "SquareName", "parse_square", "square_name", "square_sort_key", "square_mirror",
    "DamieraError", "InputError", "HardwareError", "StateError", "ConfigurationError",
    "NetworkError", "UnknownVariantError", "InvalidFenError", "ImpossiblePositionError",
    "InvalidSquareError", "IllegalMoveError", "AmbiguousMoveError", "InvalidMoveError",
]
