"""Game record, results and the draw rules of SPEC §6 (engine.game)."""

from engine.game import Game


def play_fresh(g: Game, plies: int) -> None:
    """Play king moves that neither repeat a position nor allow the opponent a capture."""
    seen = {g.board.position_key()}
    for _ in range(plies):
        if g.is_over:
            return
        for m in g.legal_moves():
            g.board.push(m)
            ok = g.board.position_key() not in seen and not g.board.has_capture()
            g.board.pop()
            if ok:
                break
        else:
            raise AssertionError("no fresh move found")
        g.play(m)
        seen.add(g.board.position_key())


def test_no_pieces_loses() -> None:  # IT 9.2.3
    g = Game("italian", fen="W:W14:B10")
    g.play_notation("14x5")
    assert g.result == "1-0" and g.outcome.code == "IT 9.2.3"


def test_no_legal_move_loses() -> None:  # IT 9.2.2
    g = Game("italian", fen="W:W9:B1,2,5")
    assert g.result == "0-1" and g.outcome.code == "IT 9.2.2"


def test_international_no_legal_move_code() -> None:  # INT 7.2.2
    g = Game("international", fen="W:W6:B1,11,17")
    assert g.outcome is not None and g.outcome.code == "INT 7.2.2" and g.result == "0-2"


def test_resign_and_agreement() -> None:
    g = Game("english")
    assert g.resign(0).result == "0-1"
    g = Game("international")
    assert g.agree_draw().result == "1-1"


def test_international_third_repetition_is_a_draw() -> None:  # INT 6.1
    g = Game("international", fen="W:WK46,K50,37:BK5,K1,14")
    for _ in range(2):
        for text in ("46-41", "5-10", "41-46", "10-5"):
            assert not g.is_over
            g.play_notation(text)
    assert g.outcome is not None and g.outcome.code == "INT 6.1" and g.result == "1-1"
    assert g.repetition_count() == 3


def test_international_25_king_moves() -> None:  # INT 6.2
    g = Game("international", fen="W:WK46,K50:BK1,K5")
    play_fresh(g, 60)
    assert g.outcome is not None and g.outcome.code == "INT 6.2" and g.ply == 50


def test_brazilian_20_king_moves() -> None:  # BR: 20 successive king moves
    g = Game("brazilian", fen="W:WK29,K30,K31:BK1,K2,K3")
    play_fresh(g, 60)
    assert g.outcome is not None and g.outcome.code == "BR 6.2" and g.ply == 40


def test_international_king_against_king_five_moves() -> None:  # INT 6.4
    g = Game("international", fen="W:WK47:BK4")
    play_fresh(g, 20)
    assert g.outcome is not None and g.outcome.code == "INT 6.4" and g.ply == 10


def test_international_three_kings_against_one_ten_moves() -> None:  # INT 6.3
    g = Game("international", fen="W:WK47,K48,K49:BK4")
    play_fresh(g, 30)
    assert g.outcome is not None and g.outcome.code == "INT 6.3" and g.ply == 20


def test_brazilian_two_kings_against_two_five_moves() -> None:  # BR endings (original list)
    g = Game("brazilian", fen="W:WK29,K30:BK1,K2")
    play_fresh(g, 20)
    assert g.outcome is not None and g.outcome.code == "BR 6.4" and g.ply == 10


def test_italian_repetition_only_on_request_and_at_the_fourth() -> None:  # IT 9.3b
    g = Game("italian", fen="W:WK32,21:BK1,12")
    cycle = ("32-28", "1-5", "28-32", "5-1")
    for _ in range(2):
        for text in cycle:
            g.play_notation(text)
    assert not g.is_over and g.repetition_count() == 3
    assert g.claim_repetition() is False  # 3rd occurrence: not yet
    for text in cycle:
        g.play_notation(text)
    assert not g.is_over  # never automatic in Italian
    assert g.claim_repetition() is True
    assert g.outcome.code == "IT 9.3b" and g.result == "1/2-1/2"


def test_italian_repetition_needs_transcription() -> None:  # IT 9.3b
    g = Game("italian", fen="W:WK32,21:BK1,12", transcribed=False)
    for _ in range(3):
        for text in ("32-28", "1-5", "28-32", "5-1"):
            g.play_notation(text)
    assert g.claim_repetition() is False and not g.is_over


def test_english_has_no_repetition_rule() -> None:  # EN 9.3
    g = Game("english", fen="W:WK29,5:BK4,28")
    for _ in range(4):
        for text in ("29-25", "4-8", "25-29", "8-4"):
            g.play_notation(text)
    assert g.claim_repetition() is False


def test_italian_count_forty_king_moves() -> None:  # IT 10.1-10.4
    g = Game("italian", fen="W:WK32,K31:BK1,K2")
    assert g.start_count() is True
    play_fresh(g, 100)
    assert g.outcome is not None and g.outcome.code == "IT 10.4" and g.ply == 80


def test_english_count_fifty() -> None:  # EN 10.4
    g = Game("english", fen="B:WK29,K30:BK1,K2")
    assert g.start_count(imposed=True) is True
    play_fresh(g, 120)
    assert g.outcome is not None and g.outcome.code == "EN 10.4" and g.ply == 100


def test_count_needs_a_king_each() -> None:  # IT 10.1
    assert Game("italian", fen="W:WK32:B1").start_count() is False
    assert Game("international", fen="W:WK46:BK5").start_count() is False  # no such rule


def test_count_restarts_after_a_man_move() -> None:  # IT 10.5
    g = Game("italian", fen="W:WK32,21:BK1,12")
    g.start_count()
    g.play_notation("32-28")
    g.play_notation("1-5")
    assert g.count_status == (1, 1, 40)
    g.play_notation("21-17")  # a man moves: the count restarts from the player to move
    assert g.count_status == (0, 0, 40)


def test_recorded_move_dict_is_the_trace_report_shape() -> None:
    g = Game("italian")
    rec = g.play_notation("22-18", t=2.0)
    assert rec.to_dict() == {"ply": 1, "side": "white", "from": 22, "to": 18, "path": [22, 18],
                             "captures": [], "notation": "22-18", "t": 2.0}


def test_flag_fall_keeps_the_final_clock() -> None:  # COMP 4.8
    from engine.pdn import write_pdn
    g = Game("italian", time_control="1800")
    g.play_notation("22-18", clock=(1700.0, 1800.0))
    g.lose_on_time(1, clock=(1650.5, 0.0))
    text = write_pdn(g)
    assert g.result == "1-0" and '[WhiteTime "0:27:30.5"]' in text and '[BlackTime "0:00:00"]' in text


def test_kept_irregular_move_is_recorded_with_a_setup() -> None:  # IT 8.3
    from engine.board import Move
    from engine.pdn import read_pdn, write_pdn
    g = Game("italian")
    g.record_irregular(Move((22, 17)), "22-17", 0, "B:W17,21,23-32:B1-12", t=3.0)
    text = write_pdn(g)
    assert '1. 22-17 /FEN "B:W17,21,23-32:B1-12"/' in text
    assert read_pdn(text)[0].board.fen() == "B:W17,21,23-32:B1-12"
