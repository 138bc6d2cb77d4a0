"""Positions, moves and legal move generation for every variant.

``Board`` keeps three bitboards (white pieces, black pieces, kings; bit layout in
``engine.variants.Geometry``), the side to move and a stack of saved states for ``push``/``pop``.
``Move`` is a small immutable value in official square numbers.

Captures (SPEC §3): a piece never jumps the same piece twice and captured pieces stay on the board
until the move is over (they block), empty squares may be crossed again, the capturing piece's
starting square counts as empty. The variant's capture-choice rule (IT 6.6-6.10, INT 4.13, EN 6.6)
filters the complete sequences; sequences with the same start, end and captured set are one move
(the PDN convention) whose every legal capture order stays reachable in ``Move.alternatives``.
"""

from __future__ import annotations

import functools
from typing import Iterator, NamedTuple, Protocol, Sequence

from engine.colour import BLACK, WHITE, Colour
from engine.errors import (AmbiguousMoveError, IllegalMoveError, InvalidMoveError, InvalidSquareError,
                           excerpt)
from engine.fen import fen_runs, parse_fen
from engine.squares import square_name
from engine.variants import ALL_DIRECTIONS, FORWARD, ITALIAN, CaptureCandidate, Variant, find_variant

__all__ = ["Board", "Move", "Piece", "parse_fen"]


#: The side to move after each side (indexed by a Colour): no arithmetic on colours in the hot path.
_NEXT: tuple[Colour, Colour] = (BLACK, WHITE)

class Piece(NamedTuple):
    color: Colour
    king: bool

    def symbol(self) -> str:
        s = "k" if self.king else "m"
        return s.upper() if self.color == WHITE else s


class Move:
    """A move in official square numbers: ``path`` holds the landing squares, start first;
    ``captures`` the captured squares in capture order.

    Two moves are equal when start, end and captured *set* are equal (one PDN move).
    ``alternatives`` lists every legal (path, captures) order of that move, this one first.
    """

    __slots__ = ("path", "captures", "alternatives", "_key")

    def __init__(self, path: Sequence[int], captures: Sequence[int] = (),
                 alternatives: Sequence[tuple[tuple[int, ...], tuple[int, ...]]] | None = None) -> None:
        self.path = tuple(path)
        self.captures = tuple(captures)
        if len(self.path) < 2:
            raise InvalidMoveError("a move needs at least a start and an end square")
        self.alternatives = tuple(alternatives) if alternatives else ((self.path, self.captures),)
        self._key = (self.path[0], self.path[-1], frozenset(self.captures))

    @property
    def from_square(self) -> int:
        return self.path[0]

    @property
    def to_square(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)

    @property
    def key(self) -> tuple[int, int, frozenset[int]]:
        return self._key

    def notation(self, full_path: bool = False, names: dict[int, str] | None = None) -> str:
        """PDN text: ``22-18``, ``22x13``; ``full_path`` writes every landing square (``22x13x6``).
        ``names`` maps numbers to other square names (Brazilian algebraic PDN)."""
        sq = (lambda n: names[n]) if names else str
        if not self.captures:
            return f"{sq(self.path[0])}-{sq(self.path[-1])}"
        if full_path:
            return "x".join(sq(n) for n in self.path)
        return f"{sq(self.path[0])}x{sq(self.path[-1])}"

    def to_dict(self, notation: str | None = None) -> dict[str, object]:
        return {"from": self.from_square, "to": self.to_square, "path": list(self.path),
                "captures": list(self.captures),
                "notation": notation if notation is not None else self.notation()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        if self.captures:
            return f"Move({self.path!r}, captures={self.captures!r})"
        return f"Move({self.path!r})"

    def __str__(self) -> str:
        return self.notation()


def _bits(x: int) -> Iterator[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


# A generated move before it becomes a Move: (from bit, to bit, captured mask, alternatives),
# alternatives = list of (path bits, captured bits) in capture order, None for a simple move.
_Raw = tuple[int, int, int, list[tuple[tuple[int, ...], tuple[int, ...]]] | None]


class _Short(Protocol):
    """A man's (or a short king's) capture walk, handed itself to recurse."""

    def __call__(self, walk: _Short, sq: int, path: tuple[int, ...], caps: tuple[int, ...],
                 capmask: int, emp: int, dirs: Sequence[int], capturable: int,
                 is_king: bool) -> None: ...


class _Flying(Protocol):
    """A flying king's capture walk, handed itself to recurse."""

    def __call__(self, walk: _Flying, sq: int, path: tuple[int, ...], caps: tuple[int, ...],
                 capmask: int, emp: int) -> None: ...


class Board:
    """A position of ``variant`` with a move stack. Not thread-safe (no need: the engine is pure).

    ``Board(fen=None, variant="italian")``: the initial position when ``fen`` is None.
    Raises InvalidFenError / ImpossiblePositionError / UnknownVariantError.
    """

    def __init__(self, fen: str | None = None, variant: Variant | str = ITALIAN) -> None:
        self.variant = find_variant(variant) if isinstance(variant, str) else variant
        g = self.variant.geometry
        self._g = g
        self._rays = g.rays
        self._mask = g.mask
        self._promo = g.promotion_row
        self._shifts = g.shift
        self.white = 0
        self.black = 0
        self.kings = 0
        self.turn: Colour = self.variant.first_to_move
        self.move_stack: list[Move] = []
        self._states: list[tuple[int, int, int, Colour]] = []
        #: The most recent plies :meth:`pop` can undo (None: all of them). A game's board keeps
        #: a bounded stack (``engine.game``): its memory must not grow with the game.
        self.stack_limit: int | None = None
        #: the position the memos below were made for (white, black, kings, turn): a game's
        #: board is asked its FEN and legal moves several times per position (the arbiter, the
        #: record, the views), each answer made once per position
        self._memo: tuple[int, int, int, Colour] | None = None
        self._memo_fen: str | None = None
        self._memo_legal: list[Move] | None = None
        self._memo_occupied: frozenset[int] | None = None
        self._memo_algebraic: frozenset[str] | None = None
        self.set_fen(fen if fen is not None else self.variant.initial_fen())

    # ------------------------------------------------------------------ position I/O

    def set_fen(self, fen: str) -> None:
        """Set the position from a PDN FEN (``W:W21-32:B1-12``; ``K`` marks kings; ranges; either
        colour first; algebraic squares accepted). Clears the move stack."""
        white, black, kings, turn = parse_fen(fen, self.variant)
        self.white, self.black, self.kings, self.turn = white, black, kings, turn
        self.move_stack.clear()
        self._states.clear()

    def _memo_for_now(self) -> None:
        key = (self.white, self.black, self.kings, self.turn)
        if self._memo != key:
            self._memo, self._memo_fen, self._memo_legal = key, None, None
            self._memo_occupied = self._memo_algebraic = None

    def fen(self, algebraic: bool = False) -> str:
        """The position as PDN FEN, side to move first; runs of three or more men as ranges."""
        if algebraic:
            return self._fen(True)
        self._memo_for_now()
        if self._memo_fen is None:
            self._memo_fen = self._fen(False)
        return self._memo_fen

    def _fen(self, algebraic: bool) -> str:
        g = self._g
        num, kings = g.number_of, self.kings
        parts = ["W" if self.turn == WHITE else "B"]
        for tag, bb in (("W", self.white), ("B", self.black)):
            items = []
            while bb:  # _bits inlined: one FEN per move of every game replayed
                low = bb & -bb
                items.append((num[low.bit_length() - 1], bool(kings & low)))
                bb ^= low
            items.sort()
            parts.append(tag + ",".join(fen_runs(items, g.algebraic_of if algebraic else None)))
        return ":".join(parts)

    def copy(self, stack: bool = True) -> "Board":
        b = Board.__new__(Board)
        b.__dict__.update(self.__dict__)
        b.move_stack = list(self.move_stack) if stack else []
        b._states = list(self._states) if stack else []  # noqa: SLF001 - a Board copying a Board
        return b

    def piece_at(self, square: int) -> Piece | None:
        bit = self._g.bit_of[square]
        m = 1 << bit
        if self.white & m:
            return Piece(WHITE, bool(self.kings & m))
        if self.black & m:
            return Piece(BLACK, bool(self.kings & m))
        return None

    def pieces(self, color: Colour | None = None) -> dict[int, Piece]:
        """Official number -> Piece for every piece (of ``color`` if given)."""
        out: dict[int, Piece] = {}
        for c, bb in ((WHITE, self.white), (BLACK, self.black)):
            if color is None or color == c:
                for b in _bits(bb):
                    out[self._g.number_of[b]] = Piece(c, bool(self.kings >> b & 1))
        return out

    def occupied_squares(self) -> frozenset[int]:
        self._memo_for_now()
        if self._memo_occupied is None:
            num = self._g.number_of
            squares = []
            bb = self.white | self.black
            while bb:  # _bits inlined: every turn of every game replayed asks
                low = bb & -bb
                squares.append(num[low.bit_length() - 1])
                bb ^= low
            self._memo_occupied = frozenset(squares)
        return self._memo_occupied

    def occupied_algebraic(self) -> frozenset[str]:
        self._memo_for_now()
        if self._memo_algebraic is None:
            alg = self._g.algebraic_of
            self._memo_algebraic = frozenset(map(alg.__getitem__, self.occupied_squares()))
        return self._memo_algebraic

    def material(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """((white kings, white men), (black kings, black men))."""
        k = self.kings
        return (((self.white & k).bit_count(), (self.white & ~k).bit_count()),
                ((self.black & k).bit_count(), (self.black & ~k).bit_count()))

    def position_key(self) -> tuple[int, int, int, int]:
        """Exact identity of the position with the side to move (for repetitions)."""
        return (self.white, self.black, self.kings, self.turn)

    def __hash__(self) -> int:  # pragma: no cover - boards are mutable; use position_key()
        raise TypeError("Board is mutable: hash board.position_key()")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Board) and self.variant is other.variant
                and self.position_key() == other.position_key())

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, variant={self.variant.name!r})"

    def __str__(self) -> str:
        """A text diagram from White's side: m/k black, M/K white, '.' empty dark square."""
        g = self._g
        rows = []
        for rank in range(g.size - 1, -1, -1):
            row = []
            for file in range(g.size):
                n = g.number_of_algebraic.get(square_name(file, rank))
                if n is None:
                    row.append(" ")
                else:
                    p = self.piece_at(n)
                    row.append(p.symbol() if p else ".")
            rows.append(" ".join(row))
        return "\n".join(rows)

    # ------------------------------------------------------------------ move generation

    def _capture_raw(self) -> list[_Raw]:
        """Legal captures of the side to move (after the variant's choice rule), deduplicated."""
        v = self.variant
        if self.turn == WHITE:
            own, opp = self.white, self.black
        else:
            own, opp = self.black, self.white
        kings = self.kings
        empty = self._mask & ~(own | opp)
        men_capturable = opp if v.men_capture_kings else opp & ~kings
        men_dirs = ALL_DIRECTIONS if v.men_capture_backwards else FORWARD[self.turn]
        sh = self._shifts
        # Pieces with a first jump, found with shifts: piece x, jumped x+s, landing x+2s.
        men = own & ~kings
        jumpers = 0
        for d in men_dirs:
            s = sh[d]
            if s < 0:
                jumpers |= men & (((empty << -s) & men_capturable) << -s)
            else:
                jumpers |= men & (((empty >> s) & men_capturable) >> s)
        own_kings = own & kings
        king_jumpers = 0
        if own_kings:
            if v.flying_kings:
                king_jumpers = self._flying_jumpers(own_kings, opp, empty)
            else:
                for s in sh:
                    if s < 0:
                        king_jumpers |= own_kings & (((empty << -s) & opp) << -s)
                    else:
                        king_jumpers |= own_kings & (((empty >> s) & opp) >> s)
        if not (jumpers or king_jumpers):
            return []
        rays = self._rays
        promo = self._promo[self.turn] if v.promotion_stops_capture else 0
        cands: list[CaptureCandidate] = []

        def record(path: tuple[int, ...], caps: tuple[int, ...], by_king: bool) -> None:
            cands.append(CaptureCandidate(path, caps, by_king,
                                          tuple(bool(kings >> c & 1) for c in caps)))

        # The two walks recurse through their first argument, the walk itself: a closure
        # that named itself would hold a reference cycle (function, cell) per call, left to
        # the garbage collector (the hub generates moves for every board's every move).
        def short(walk: _Short, sq: int, path: tuple[int, ...], caps: tuple[int, ...],
                  capmask: int, emp: int, dirs: Sequence[int], capturable: int,
                  is_king: bool) -> None:
            extended = False
            for d in dirs:
                ray = rays[sq][d]
                if len(ray) < 2:
                    continue
                ob = 1 << ray[0]
                lb = 1 << ray[1]
                if ob & capturable and not ob & capmask and lb & emp:
                    extended = True
                    np, nc = path + (ray[1],), caps + (ray[0],)
                    if lb & promo and not is_king:
                        record(np, nc, False)  # IT 6.5 / EN 6.5: the man stops there
                    else:
                        walk(walk, ray[1], np, nc, capmask | ob, emp, dirs, capturable,
                             is_king)
            if not extended and caps:
                record(path, caps, is_king)

        def flying(walk: _Flying, sq: int, path: tuple[int, ...], caps: tuple[int, ...],
                   capmask: int, emp: int) -> None:
            extended = False
            for ray in rays[sq]:
                n = len(ray)
                i = 0
                while i < n and (1 << ray[i]) & emp:
                    i += 1
                if i >= n - 1:
                    continue
                ob = 1 << ray[i]
                if not ob & opp or ob & capmask:
                    continue  # own piece, or a piece already jumped (INT 4.8)
                j = i + 1
                while j < n and (1 << ray[j]) & emp:
                    extended = True
                    walk(walk, ray[j], path + (ray[j],), caps + (ray[i],), capmask | ob, emp)
                    j += 1
            if not extended and caps:
                record(path, caps, True)

        for b in _bits(jumpers):
            short(short, b, (b,), (), 0, empty | (1 << b), men_dirs, men_capturable, False)
        for b in _bits(king_jumpers):
            if v.flying_kings:
                flying(flying, b, (b,), (), 0, empty | (1 << b))
            else:
                short(short, b, (b,), (), 0, empty | (1 << b), ALL_DIRECTIONS, opp, True)
        chosen = v.capture_choice(cands) if len(cands) > 1 else cands
        grouped: dict[tuple[int, int, int], list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}
        for c in chosen:
            capmask = 0
            for x in c.captured:
                capmask |= 1 << x
            grouped.setdefault((c.path[0], c.path[-1], capmask), []).append((c.path, c.captured))
        return [(f, t, m, alts) for (f, t, m), alts in grouped.items()]

    def _flying_jumpers(self, own_kings: int, opp: int, empty: int) -> int:
        """Flying kings that have a first capture: an enemy piece along a free diagonal with a
        free square behind it."""
        rays = self._rays
        found = 0
        for b in _bits(own_kings):
            for ray in rays[b]:
                n = len(ray)
                i = 0
                while i < n and (1 << ray[i]) & empty:
                    i += 1
                if i < n - 1 and (1 << ray[i]) & opp and (1 << ray[i + 1]) & empty:
                    found |= 1 << b
                    break
        return found

    def _quiet_raw(self) -> list[_Raw]:
        """Non-capturing moves of the side to move (only legal when no capture exists)."""
        own = self.white if self.turn == WHITE else self.black
        empty = self._mask & ~(self.white | self.black)
        kings = self.kings
        sh = self._shifts
        out: list[_Raw] = []
        men = own & ~kings
        for d in FORWARD[self.turn]:
            s = sh[d]
            targets = (men >> -s if s < 0 else men << s) & empty
            for t in _bits(targets):
                out.append((t - s, t, 0, None))
        own_kings = own & kings
        if own_kings:
            if self.variant.flying_kings:
                rays = self._rays
                for b in _bits(own_kings):
                    for ray in rays[b]:
                        for t in ray:
                            if not (1 << t) & empty:
                                break
                            out.append((b, t, 0, None))
            else:
                for s in sh:
                    targets = (own_kings >> -s if s < 0 else own_kings << s) & empty
                    for t in _bits(targets):
                        out.append((t - s, t, 0, None))
        return out

    def _legal_raw(self) -> list[_Raw]:
        caps = self._capture_raw()
        return caps if caps else self._quiet_raw()

    def _count_quiet(self) -> int:
        # The walk of _quiet_raw, counting instead of building moves: perft's last ply, hot path.
        own = self.white if self.turn == WHITE else self.black
        empty = self._mask & ~(self.white | self.black)
        kings = self.kings
        sh = self._shifts
        men = own & ~kings
        total = 0
        for d in FORWARD[self.turn]:
            s = sh[d]
            total += ((men >> -s if s < 0 else men << s) & empty).bit_count()
        own_kings = own & kings
        if own_kings:
            if self.variant.flying_kings:
                rays = self._rays
                for b in _bits(own_kings):
                    for ray in rays[b]:
                        for t in ray:
                            if not (1 << t) & empty:
                                break
                            total += 1
            else:
                for s in sh:
                    total += ((own_kings >> -s if s < 0 else own_kings << s) & empty).bit_count()
        return total

    def _to_move(self, raw: _Raw) -> Move:
        num = self._g.number_of
        if raw[3] is None:
            return _simple_move(num[raw[0]], num[raw[1]])
        alts = [(tuple(num[b] for b in p), tuple(num[b] for b in c)) for p, c in raw[3]]
        return Move(alts[0][0], alts[0][1], alts)

    @property
    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move, captures filtered by the variant's choice rule
        (a new list each time; the moves are made once per position)."""
        self._memo_for_now()
        if self._memo_legal is None:
            self._memo_legal = [self._to_move(r) for r in self._legal_raw()]
        return list(self._memo_legal)

    @property
    def quiet_moves(self) -> list[Move]:
        """Every non-capturing move the pieces of the side to move can make, whether or not a
        capture is due (IT 6.1): a move of this list played while one is, is omitting the capture
        (IT 8.1.6); a displacement not in it is a move no piece of that kind can make (IT 8.1.2)."""
        return [self._to_move(r) for r in self._quiet_raw()]

    def count_legal_moves(self) -> int:
        caps = self._capture_raw()
        return len(caps) if caps else self._count_quiet()

    def has_legal_moves(self) -> bool:
        """Whether the side to move has a legal move (IT 9.2.2: without one it has lost): a
        step into an empty square, else a capture; no move is built (asked after every move
        of every game, and the tracker of the next turn builds the list anyway)."""
        self._memo_for_now()
        if self._memo_legal is not None:
            return bool(self._memo_legal)
        own = self.white if self.turn == WHITE else self.black
        empty = self._mask & ~(self.white | self.black)
        sh = self._shifts
        men = own & ~self.kings
        for d in FORWARD[self.turn]:
            s = sh[d]
            if (men >> -s if s < 0 else men << s) & empty:
                return True
        own_kings = own & self.kings
        if own_kings:
            for s in sh:
                if (own_kings >> -s if s < 0 else own_kings << s) & empty:
                    return True
        return bool(self._capture_raw())  # every piece blocked: a capture, or nothing

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves

    def has_capture(self) -> bool:
        """Whether the side to move is obliged to capture (IT 6.1, EN 6.1, INT 4.1)."""
        return bool(self._capture_raw())

    def notation(self, move: Move) -> str:
        """PDN notation of a legal ``move`` here: short form unless another legal move shares its
        start and end (then the full path). Brazilian squares algebraic (GameType 26)."""
        full = move.is_capture and sum(
            1 for m in self.legal_moves
            if m.from_square == move.from_square and m.to_square == move.to_square) > 1
        names = self._g.algebraic_of if self.variant.algebraic_pdn else None
        return move.notation(full_path=full, names=names)

    def parse_move(self, text: str) -> Move:
        """The legal move written ``text`` (``22-18``, ``22x13``, ``22x13x6``, ``c3-d4``; ``:`` also
        accepted for captures). Raises InvalidMoveError, IllegalMoveError, AmbiguousMoveError."""
        candidates = self.move_candidates(text)
        if len(candidates) > 1:
            raise AmbiguousMoveError(f"ambiguous move {excerpt(text)} in {self.fen()}: "
                                     + ", ".join(m.notation(True) for m in candidates))
        return candidates[0]

    def move_candidates(self, text: str) -> list[Move]:
        """Every legal move ``text`` may stand for: one, or several when a capture written short
        (``3x26``) fits captures that take different pieces (a PDN reader then decides by the
        rest of the game). Raises InvalidMoveError, IllegalMoveError (none fits)."""
        t = text.strip().rstrip("!?+=*#")
        sep = "x" if "x" in t else ":" if ":" in t else "-"
        try:
            squares = [self._g.square(tok) for tok in t.split(sep)]
        except InvalidSquareError as exc:
            raise InvalidMoveError(f"cannot read move {excerpt(text)}: {exc}") from None
        if len(squares) < 2:
            raise InvalidMoveError(f"cannot read move {excerpt(text)}")
        candidates = []
        for m in self.legal_moves:
            if m.from_square != squares[0] or m.to_square != squares[-1]:
                continue
            if len(squares) > 2 and not any(_is_subsequence(squares, p) for p, _ in m.alternatives):
                continue
            candidates.append(m)
        if not candidates:
            raise IllegalMoveError(f"illegal move {excerpt(text)} in {self.fen()}")
        return candidates

    # ------------------------------------------------------------------ making moves

    def _push_bits(self, frm: int, to: int, capmask: int) -> None:
        self._states.append((self.white, self.black, self.kings, self.turn))
        fb = 1 << frm
        tb = 1 << to
        flip = fb ^ tb  # 0 when a capture comes back to its starting square
        kings = self.kings
        if self.turn == WHITE:
            self.white ^= flip
            self.black &= ~capmask
        else:
            self.black ^= flip
            self.white &= ~capmask
        if kings & fb:
            kings ^= flip
        elif tb & self._promo[self.turn]:
            kings |= tb  # a man ending its move on the far row is crowned (IT 4.2, INT 3.8)
        self.kings = kings & ~capmask
        self.turn = _NEXT[self.turn]

    def push(self, move: Move) -> None:
        """Play ``move`` (assumed legal: use ``is_legal`` or ``parse_move`` to check)."""
        g = self._g
        capmask = 0
        for c in move.captures:
            capmask |= 1 << g.bit_of[c]
        self._push_bits(g.bit_of[move.from_square], g.bit_of[move.to_square], capmask)
        self.move_stack.append(move)
        if self.stack_limit is not None and len(self._states) > 2 * self.stack_limit:
            self._trim()

    def _trim(self) -> None:
        """Forgets all but the last :attr:`stack_limit` plies (amortised: every ``limit``
        pushes)."""
        keep = self.stack_limit or 0
        del self._states[:-keep or None]
        del self.move_stack[:-keep or None]

    def push_null(self) -> None:
        """Pass the turn without moving (used by the arbiter when a position is set up)."""
        self._states.append((self.white, self.black, self.kings, self.turn))
        self.turn = _NEXT[self.turn]
        if self.stack_limit is not None and len(self._states) > 2 * self.stack_limit:
            self._trim()

    def pop(self) -> Move:
        """Undo the last ``push``; returns its move. Raises IndexError on an empty stack (or
        beyond the last :attr:`stack_limit` plies)."""
        move = self.move_stack.pop()
        self.white, self.black, self.kings, self.turn = self._states.pop()
        return move

    def peek(self) -> Move:
        return self.move_stack[-1]

    # ------------------------------------------------------------------ perft

    def perft(self, depth: int) -> int:
        """Number of leaf positions ``depth`` plies below this one (captures counted once per
        start, end and captured set). Bulk-counts the last ply."""
        if depth <= 0:
            return 1
        caps = self._capture_raw()
        if depth == 1:
            return len(caps) if caps else self._count_quiet()
        moves = caps if caps else self._quiet_raw()
        white, black, kings, turn = self.white, self.black, self.kings, self.turn
        promo = self._promo[turn]
        after = _NEXT[turn]
        total = 0
        for frm, to, capmask, _ in moves:  # make/unmake inline: the hot loop of perft
            fb, tb = 1 << frm, 1 << to
            flip = fb ^ tb
            if turn == WHITE:
                self.white, self.black = white ^ flip, black & ~capmask
            else:
                self.black, self.white = black ^ flip, white & ~capmask
            if kings & fb:
                self.kings = (kings ^ flip) & ~capmask
            elif tb & promo:
                self.kings = (kings | tb) & ~capmask
            else:
                self.kings = kings & ~capmask
            self.turn = after
            total += self.perft(depth - 1)
        self.white, self.black, self.kings, self.turn = white, black, kings, turn
        return total

    def divide(self, depth: int) -> list[tuple[Move, int]]:
        """(move, perft(depth-1) after it) for every legal move: to find the wrong branch."""
        out = []
        for m in self.legal_moves:
            self.push(m)
            out.append((m, self.perft(depth - 1)))
            self.pop()
        return out


@functools.lru_cache(maxsize=None)
def _simple_move(start: int, end: int) -> Move:
    """The move ``start``-``end`` without capture: one immutable object per pair of squares
    (at most 50 × 50), shared by every board and record that plays it, so that a long game's
    record does not hold one object per move."""
    return Move((start, end))


def _is_subsequence(needle: Sequence[int], hay: Sequence[int]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)
