"""Pure draughts rules for damiera: variants, positions, moves, PDN, game record, clock
arithmetic and the over-the-board arbiter. Standard library only; no I/O, clocks or threads."""
