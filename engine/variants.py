"""The four variants as data: one frozen ``Variant`` each, a registry and ``find_variant``.

Rule differences live in the fields of ``Variant`` and in its capture-choice strategy; the move
generator reads them and never tests a variant's name.

Board geometry (SPEC §1). Squares have two names:

* the *official number* 1..N of the variant (IT 2.4, EN 2.4, INT 2.6), used in PDN and traces;
* the *algebraic name* seen from White's side ("e3"; a1 is White's left-hand corner), used by the
  sensors, which lie under every square, light ones included.

Internally a square is a bit index in a padded layout: row ``r`` (0 = the row of square 1) and column
``c`` (0 = leftmost dark square of the row) sit at bit ``r*half + (r+s)//2 + c``, with one unused
"ghost" bit every two rows. Every diagonal step is then a constant shift (``half`` or ``half+1``), and
a step off the board lands on a ghost or outside the mask, so men's moves are generated with shifts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from engine.colour import BLACK, WHITE, Colour
from engine.errors import InvalidSquareError, UnknownVariantError, excerpt
from engine.squares import all_squares, numbered_squares, square_file, square_rank

__all__ = ["Variant", "VARIANTS", "find_variant",
           "Geometry", "DrawRules", "CaptureCandidate", "free_choice", "majority",
           "italian_priority", "ITALIAN", "ENGLISH", "INTERNATIONAL", "BRAZILIAN"]

# Directions, as indices into ray tables: 0 and 1 go towards square 1 (White's forward),
# 2 and 3 towards square N (Black's forward).
UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT = 0, 1, 2, 3
FORWARD = ((UP_LEFT, UP_RIGHT), (DOWN_LEFT, DOWN_RIGHT))
ALL_DIRECTIONS = (UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT)


class Geometry:
    """Square names, bit layout and rays of one board. Immutable after construction.

    ``first_dark_file_even``: True when square 1 is on file a (Italian: 1 = a8), False when it is
    on file b (English, international, Brazilian: 1 = b8 / b10).
    """

    def __init__(self, size: int, first_dark_file_even: bool) -> None:
        self.size = size
        self.half = half = size // 2
        self.count = count = size * half
        s = 1 if first_dark_file_even else 0
        self.bit_of: list[int] = [-1] * (count + 1)  # official number -> bit
        self.number_of: dict[int, int] = {}  # bit -> official number
        self.algebraic_of: dict[int, str] = {}  # official number -> "e3"
        self.number_of_algebraic: dict[str, int] = {}
        coords: dict[int, tuple[int, int]] = {}  # number -> (file, rank) 0-based, rank 0 = White's row
        for n, name in enumerate(numbered_squares(size, first_dark_file_even), start=1):
            r, c = divmod(n - 1, half)
            bit = r * half + (r + s) // 2 + c
            self.bit_of[n] = bit
            self.number_of[bit] = n
            coords[n] = (square_file(name), square_rank(name))
            self.algebraic_of[n] = name
            self.number_of_algebraic[name] = n
        self.coords = coords
        self.mask = sum(1 << b for b in self.number_of)
        by_coord = {v: k for k, v in coords.items()}
        # rays[bit][direction] = tuple of bits walking away from the square
        self.rays: dict[int, tuple[tuple[int, ...], ...]] = {}
        self.shift = [0, 0, 0, 0]
        deltas = {UP_LEFT: (-1, 1), UP_RIGHT: (1, 1), DOWN_LEFT: (-1, -1), DOWN_RIGHT: (1, -1)}
        for n, (f, rk) in coords.items():
            rays = []
            for d in ALL_DIRECTIONS:
                df, dr = deltas[d]
                ray = []
                ff, rr = f + df, rk + dr
                while (ff, rr) in by_coord:
                    ray.append(self.bit_of[by_coord[(ff, rr)]])
                    ff, rr = ff + df, rr + dr
                if ray:
                    step = ray[0] - self.bit_of[n]
                    if self.shift[d] == 0:
                        self.shift[d] = step
                    elif self.shift[d] != step:  # the layout guarantees constant shifts
                        raise AssertionError("padded layout broken")
                rays.append(tuple(ray))
            self.rays[self.bit_of[n]] = tuple(rays)
        # Promotion rows: White promotes on the row of square 1, Black on the row of square N.
        self.promotion_row = (
            sum(1 << self.bit_of[n] for n in range(1, half + 1)),
            sum(1 << self.bit_of[n] for n in range(count - half + 1, count + 1)),
        )
        self.all_names = frozenset(all_squares(size))

    def square(self, token: str | int) -> int:
        """Official number of a square given as a number, a numeric string or an algebraic name.

        Raises InvalidSquareError for a square that does not exist or is light.
        """
        if isinstance(token, int):
            if 1 <= token <= self.count:
                return token
            raise InvalidSquareError(f"no square {token} on this board (1-{self.count})")
        t = token.strip().lower()
        if t.isdigit():
            # ASCII only (int() also reads '²' and Arabic-Indic digits), a few digits only (int()
            # of thousands of digits raises a bare ValueError): neither names a square
            if not t.isascii() or len(t) > 4:
                raise InvalidSquareError(f"no square {excerpt(token)} on this board")
            return self.square(int(t))
        n = self.number_of_algebraic.get(t)
        if n is None:
            if t in self.all_names:
                raise InvalidSquareError(f"{t} is a light square")
            raise InvalidSquareError(f"no square {excerpt(token)} on this board")
        return n

    def algebraic(self, number: int) -> str:
        return self.algebraic_of[number]


# --- capture choice (the only place where the variants differ in which captures are legal) ---

@dataclass(frozen=True, slots=True)
class CaptureCandidate:
    """One capture sequence as generated, with what the choice rules look at."""

    path: tuple[int, ...]  # bits, start first
    captured: tuple[int, ...]  # bits, in capture order
    by_king: bool
    king_flags: tuple[bool, ...]  # for each captured piece in order: was it a king


CaptureChoice = Callable[[Sequence[CaptureCandidate]], Sequence[CaptureCandidate]]


def free_choice(cands: Sequence[CaptureCandidate]) -> Sequence[CaptureCandidate]:
    """EN 6.6: any capture may be chosen, whatever the number or kind of pieces."""
    return cands


def majority(cands: Sequence[CaptureCandidate]) -> Sequence[CaptureCandidate]:
    """INT 4.13: the capture of the greatest number of pieces; a king has no priority."""
    best = max(len(c.captured) for c in cands)
    return [c for c in cands if len(c.captured) == best]


def italian_priority(cands: Sequence[CaptureCandidate]) -> Sequence[CaptureCandidate]:
    """IT 6.6-6.10, in order: most pieces (6.6), with a king rather than a man (6.7), most kings
    (6.8), kings met earliest in the sequence (6.9), then free choice (6.10)."""
    def key(c: CaptureCandidate) -> tuple[int, bool, int, tuple[bool, ...]]:
        return (len(c.captured), c.by_king, sum(c.king_flags), c.king_flags)
    best = max(key(c) for c in cands)
    return [c for c in cands if key(c) == best]


@dataclass(frozen=True)
class DrawRules:
    """Draw rules of SPEC §6, as data.

    ``repetitions``: the occurrence of a position that draws (IT 4th, INT 3rd); ``repetition_automatic``:
    whether it ends the game by itself (INT/BR) or only on request or when imposed (IT 9.3b).
    ``count_moves``: king moves each for the count procedure on request (IT 40, EN 50; 0 = none).
    ``king_moves_draw``: successive king-only moves (each side) drawing automatically (INT 25, BR 20).
    ``small_endings``: (max moves, set of material signatures) automatic endings (INT 6.3, 6.4).
    """

    repetitions: int
    repetition_automatic: bool
    count_moves: int
    king_moves_draw: int
    small_endings: tuple[tuple[int, frozenset[tuple[tuple[int, int], tuple[int, int]]]], ...] = ()
    code: str = ""
    # IT 9.3b speaks of "the same position of all the pieces"; INT 6.1 adds "the same player to move"
    repetition_includes_turn: bool = True


Material = tuple[tuple[int, int], tuple[int, int]]


def _endings(*pairs: Material) -> frozenset[Material]:
    # material as ((kings, men) strong side, (kings, men) weak side); stored both ways round
    out = set()
    for a, b in pairs:
        out.add((a, b))
        out.add((b, a))
    return frozenset(out)


# INT 6.3: at most three kings, two kings and a man, or a king and two men against one king:
# drawn after 10 moves (each) at most. INT 6.4: two kings, a king and a man, or a king, against a
# king: after 5 moves at most.
_INT_TEN = _endings(((3, 0), (1, 0)), ((2, 1), (1, 0)), ((1, 2), (1, 0)))
_INT_FIVE = _endings(((2, 0), (1, 0)), ((1, 1), (1, 0)), ((1, 0), (1, 0)))
# BR (seeds 001, second part; the original lists more than SPEC's digest): 2 kings v 2 kings,
# 2 kings v 1, 2 kings v king and man, king v king, king v king and man: drawn after 5 moves.
_BR_FIVE = _endings(((2, 0), (2, 0)), ((2, 0), (1, 0)), ((2, 0), (1, 1)), ((1, 0), (1, 0)),
                    ((1, 0), (1, 1)))


@dataclass(frozen=True)
class Variant:
    """The rules of one variant. Frozen: compare and hash by identity of fields."""

    name: str
    code: str  # rule-set code in flags: IT, EN, INT, BR
    size: int
    first_dark_file_even: bool
    first_to_move: Colour
    men_rows: int
    flying_kings: bool
    men_capture_backwards: bool
    men_capture_kings: bool
    promotion_stops_capture: bool  # IT 6.5 / EN 6.5; INT 4.15: passing the far row keeps a man
    capture_choice: CaptureChoice
    draws: DrawRules
    game_type: str  # PDN GameType tag, full string
    # the rule set whose article numbers this variant's flags carry (engine.articles): its own
    # code, except Brazilian draughts, the international rules on 64 squares (001, second part,
    # has no article numbers): BR flags carry the international numbers (``BR 5.4.03``)
    numbering: str = ""
    # IT 8.3 / EN 8.3: a move of the opponent, "even just touching one of his movable pieces",
    # keeps an irregularity; INT 5.7 (and BR): only a move he executes accepts it
    touch_accepts_irregularity: bool = True
    algebraic_pdn: bool = False  # Brazilian PDN (GameType 26, notation A0) writes e3-d4
    results: tuple[str, str, str] = ("1-0", "1/2-1/2", "0-1")  # white wins, draw, black wins
    geometry: Geometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "geometry", Geometry(self.size, self.first_dark_file_even))
        if not self.numbering:
            object.__setattr__(self, "numbering", self.code)

    @property
    def squares(self) -> int:
        return self.geometry.count

    def initial_fen(self) -> str:
        n = self.geometry.count
        k = self.men_rows * self.size // 2
        turn = "W" if self.first_to_move == WHITE else "B"
        return f"{turn}:W{n - k + 1}-{n}:B1-{k}"


ITALIAN = Variant(
    name="italian", code="IT", size=8, first_dark_file_even=True, first_to_move=WHITE, men_rows=3,
    flying_kings=False, men_capture_backwards=False, men_capture_kings=False,  # IT 5.3
    promotion_stops_capture=True, capture_choice=italian_priority,
    draws=DrawRules(repetitions=4, repetition_automatic=False, count_moves=40, king_moves_draw=0,
                    code="IT", repetition_includes_turn=False),
    game_type="22,W,8,8,N2,1",
)
ENGLISH = Variant(
    name="english", code="EN", size=8, first_dark_file_even=False, first_to_move=BLACK, men_rows=3,
    flying_kings=False, men_capture_backwards=False, men_capture_kings=True,  # EN 5.3
    promotion_stops_capture=True, capture_choice=free_choice,
    # EN 9.3: draw by agreement or by the count procedure only; the extract has no repetition rule
    draws=DrawRules(repetitions=0, repetition_automatic=False, count_moves=50, king_moves_draw=0,
                    code="EN"),
    game_type="21,B,8,8,N1,0",
)
INTERNATIONAL = Variant(
    name="international", code="INT", size=10, first_dark_file_even=False, first_to_move=WHITE,
    men_rows=4, flying_kings=True, men_capture_backwards=True, men_capture_kings=True,
    promotion_stops_capture=False, capture_choice=majority,
    draws=DrawRules(repetitions=3, repetition_automatic=True, count_moves=0, king_moves_draw=25,
                    small_endings=((10, _INT_TEN), (5, _INT_FIVE)), code="INT"),
    game_type="20,W,10,10,N2,0", results=("2-0", "1-1", "0-2"),  # COMP 6.14 scoring 2/1/0
    touch_accepts_irregularity=False,
)
BRAZILIAN = Variant(
    name="brazilian", code="BR", size=8, first_dark_file_even=False, first_to_move=WHITE, men_rows=3,
    flying_kings=True, men_capture_backwards=True, men_capture_kings=True,
    promotion_stops_capture=False, capture_choice=majority,
    draws=DrawRules(repetitions=3, repetition_automatic=True, count_moves=0, king_moves_draw=20,
                    small_endings=((5, _BR_FIVE),), code="BR"),
    game_type="26,W,8,8,A0,0", algebraic_pdn=True, numbering="INT",
    touch_accepts_irregularity=False,
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (ITALIAN, ENGLISH, INTERNATIONAL, BRAZILIAN)}


def find_variant(name: str) -> Variant:
    """The variant called ``name`` (case-insensitive). Raises UnknownVariantError."""
    v = VARIANTS.get(name.strip().lower())
    if v is None:
        raise UnknownVariantError(f"unknown variant {excerpt(name)} (known: {', '.join(VARIANTS)})")
    return v
