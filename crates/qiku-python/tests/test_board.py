"""Board, Move and Outcome: the rules, the notations, copies, pictures and arrays."""

import copy
import pickle
import threading

import pytest

import qiku

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def test_start_position():
    b = qiku.Board()
    assert b.fen() == START == qiku.STARTING_FEN
    assert qiku.Board("startpos").fen() == START
    assert len(b.legal_moves) == 44
    assert b.turn == "red"
    assert b.ply == 0 and b.halfmove_clock == 0 and b.fullmove_number == 1
    assert b.perft(2) == 1920
    assert b.perft(3) == 79666
    assert repr(b) == f"Board('{START}')"


def test_push_in_every_notation_gives_the_same_move():
    for text in ["h2e2", "H2-E2", "C2.5", "炮二平五"]:
        b = qiku.Board()
        m = b.push(text)
        assert m == qiku.Move.from_iccs("h2e2")
        assert b.fen() == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
        assert b.turn == "black"


def test_move_notations_need_the_position_before_the_move():
    b = qiku.Board()
    m = qiku.Move.from_iccs("h2e2")
    assert (m.iccs(), m.uci(), m.wxf(b), m.chinese(b)) == ("h2e2", "h2e2", "C2.5", "炮二平五")
    b.push(m)
    black = b.parse_move("h9g7")
    assert (black.wxf(b), black.chinese(b)) == ("H8+7", "馬８進７")
    with pytest.raises(qiku.IllegalMoveError, match="illegal"):
        m.wxf(b)  # h2 is empty now


def test_move_object():
    m = qiku.Move("h2", "e2")
    assert m == qiku.Move(25, 22) == qiku.Move.from_iccs("h2e2")
    assert (m.from_square, m.to_square, m.index) == (25, 22, 25 * 90 + 22)
    assert qiku.Move.from_index(m.index) == m
    assert str(m) == "h2e2" and repr(m) == "Move.from_iccs('h2e2')"
    assert m.mirror() == qiku.Move.from_iccs("b2e2")
    assert len({m, qiku.Move.from_iccs("h2e2"), qiku.Move.from_iccs("b2e2")}) == 2
    b2e2 = qiku.Move.from_iccs("b2e2")
    assert sorted([m, b2e2]) == sorted([b2e2, m]) == [b2e2, m] and b2e2 < m
    with pytest.raises(ValueError):
        qiku.Move("e2", "e2")
    with pytest.raises(ValueError):
        qiku.Move(90, 1)
    with pytest.raises(ValueError):
        qiku.Move.from_index(8100)
    with pytest.raises(ValueError):
        qiku.Move.from_iccs("z9z9")


def test_moves_are_ordered_by_index():
    moves = qiku.Board().legal_moves
    assert sorted(moves) == sorted(moves, key=lambda m: m.index)
    a, b = qiku.Move.from_iccs("a0a1"), qiku.Move.from_iccs("b0a2")
    assert a.index < b.index and a < b and b > a and max(a, b) == b


def test_pop_and_stack():
    b = qiku.Board()
    moves = ["h2e2", "h9g7", "h0g2", "i9h9"]
    for m in moves:
        b.push(m)
    assert [str(m) for m in b.move_stack] == moves
    assert str(b.peek()) == "i9h9"
    assert str(b.pop()) == "i9h9"
    assert b.ply == 3
    while b.ply:
        b.pop()
    assert b.fen() == START and b.peek() is None
    with pytest.raises(IndexError):
        b.pop()


def test_errors_are_value_errors_with_the_librarys_message():
    with pytest.raises(qiku.InvalidFenError) as e:
        qiku.Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w - - 0 1")
    assert isinstance(e.value, ValueError)
    assert "bad FEN" in str(e.value)
    b = qiku.Board()
    with pytest.raises(qiku.IllegalMoveError) as e:
        b.push("h2h8")
    assert isinstance(e.value, ValueError) and "h2h8" in str(e.value)
    with pytest.raises(qiku.IllegalMoveError, match="cannot read|no such piece|illegal"):
        b.push("炮九平五")
    with pytest.raises(TypeError):
        b.push(42)
    assert b.fen() == START  # nothing was played
    assert b.is_legal("h2e2") and not b.is_legal("h2h8")
    with pytest.raises(qiku.IllegalMoveError):
        b.push(qiku.Move.from_iccs("a0a5"))


def test_stalemate_loses():
    # No legal move and not in check (from the move-generator oracle fixture): black loses.
    b = qiku.Board("5k3/3R5/4R4/9/8P/1NP6/6P2/4B4/4K4/2BA1A3 b - - 10 33")
    assert not b.is_check()
    assert b.legal_moves == []
    assert b.is_stalemate() and not b.is_checkmate()
    o = b.outcome()
    assert (o.winner, o.reason, o.result()) == ("red", "stalemate", "1-0")
    assert b.is_game_over()
    # A checkmate from the same fixture: red to move, in check, no move.
    m = qiku.Board("1n1akabn1/5C3/b8/1r2p1p1p/p8/6P2/P1P5P/2N1B4/R3A4/1NBAK1cc1 w - - 3 25")
    assert m.is_check() and m.is_checkmate()
    assert (m.outcome().winner, m.outcome().reason) == ("black", "checkmate")


def test_checkmate():
    b = qiku.Board("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
    # Rook to d1 checks along the d file; the black king escapes to e9 or e8? e-file faces the
    # red king (flying general), so d9 king can only go to d8 -- still on the d file.
    b.push("a1d1")
    assert b.is_check()
    assert b.is_checkmate()
    o = b.outcome()
    assert (o.winner, o.reason) == ("red", "checkmate")
    assert repr(o) == "Outcome(winner='red', reason='checkmate')"


def test_perpetual_check_loses():
    # From the rules fixture: red checks on every move of the cycle and loses.
    b = qiku.Board("3k5/R8/9/9/9/9/9/9/9/4K4 w - - 0 1")
    for m in "a8a9 d9d8 a9a8 d8d9 a8a9 d9d8 a9a8 d8d9".split():
        assert b.outcome() is None
        b.push(m)
    assert b.repetitions() == 2
    o = b.outcome()
    assert (o.winner, o.reason) == ("black", "perpetual_check")


def test_perpetual_chase_in_a_real_game():
    games = list(qiku.pgn.read_games(pathlib_fixture("chase_games.pgn")))
    assert len(games) == 2
    for g in games:
        assert g.errors == [] and g.result == "0-1"
        o = g.board().outcome()
        assert (o.winner, o.reason) == ("black", "perpetual_chase"), g
        # The chase begins late: the verdict first holds a few moves before the end.
        first = next(n for n in range(len(g) + 1) if g.board(n).outcome() is not None)
        assert len(g) - 8 <= first <= len(g)
        assert (g.board(first).outcome().winner, g.board(first).outcome().reason) == ("black", "perpetual_chase")


def test_repetition_without_check_or_chase_is_a_draw():
    # From the rules fixture: an idle cycle of rook moves is a draw at the third occurrence.
    b = qiku.Board("9/4c4/3k5/3r5/9/9/4C4/9/4K4/3R5 w - - 0 1")
    for m in "e3d3 d6e6 d3e3 e6d6 e3d3 d6e6 d3e3 e6d6".split():
        b.push(m)
    assert b.outcome() is not None and b.outcome().winner is None


def pathlib_fixture(name):
    from conftest import FIXTURES

    return FIXTURES / name


def test_copy_mirror_hash_and_equality():
    b = qiku.Board()
    b.push("h2e2")
    c = b.copy()
    c.push("h9g7")
    assert b.ply == 1 and c.ply == 2
    assert copy.copy(b) == b and copy.deepcopy(b) == b
    # The same position by two move orders has the same key.
    x, y = qiku.Board(), qiku.Board()
    for m in ["h2e2", "h9g7", "b0c2"]:
        x.push(m)
    for m in ["b0c2", "h9g7", "h2e2"]:
        y.push(m)
    assert x == y and x.zobrist_hash() == y.zobrist_hash()
    assert x.zobrist_hash() != qiku.Board().zobrist_hash()
    m = b.mirror()
    assert m.fen() == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/4C2C1/9/RNBAKABNR b - - 1 1"
    assert m.ply == 0
    assert b.piece_at("e2") == "C" and b.piece_at(0) == "R" and b.piece_at("e5") is None
    with pytest.raises(ValueError):
        b.piece_at("z0")


def test_pickle_keeps_the_history():
    b = qiku.Board()
    for m in ["h2e2", "h9g7"]:
        b.push(m)
    c = pickle.loads(pickle.dumps(b))
    assert c == b and [str(m) for m in c.move_stack] == ["h2e2", "h9g7"]
    m = qiku.Move.from_iccs("h9g7")
    assert pickle.loads(pickle.dumps(m)) == m
    with pytest.raises(TypeError):
        hash(b)  # boards are mutable


def test_equality_is_the_whole_fen_as_in_python_chess():
    after = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    played = qiku.Board()
    played.push("h2e2")
    # The same position by another road (here: none, set up from its FEN) is equal.
    assert played == qiku.Board(after) and not played != qiku.Board(after)
    assert played.move_stack != qiku.Board(after).move_stack
    # The clocks are part of the position: another halfmove clock or move number is not equal.
    assert played != qiku.Board(after.replace(" 1 1", " 0 1"))
    assert played != qiku.Board(after.replace(" 1 1", " 1 7"))
    assert qiku.Board(after.replace(" 1 1", " 0 1")).fen() != played.fen()
    # A shuffle back and forth returns the placement but not the clocks.
    shuffled = qiku.Board()
    for m in ["h0g2", "h9g7", "g2h0", "g7h9"]:
        shuffled.push(m)
    assert shuffled.zobrist_hash() == qiku.Board().zobrist_hash()
    assert shuffled != qiku.Board() and shuffled.halfmove_clock == 4
    # Anything but a board is left to its own __eq__ (so a FEN string is never equal).
    assert qiku.Board().__eq__(qiku.STARTING_FEN) is NotImplemented
    assert qiku.Board() != qiku.STARTING_FEN and not qiku.Board() == qiku.STARTING_FEN
    # Mutable, so unhashable, consistently with __eq__; the FEN is the key to use.
    assert qiku.Board.__hash__ is None
    with pytest.raises(TypeError, match="unhashable"):
        {qiku.Board()}
    assert len({b.fen() for b in [played, qiku.Board(after), qiku.Board()]}) == 2


def test_uci_positions_are_read_by_from_uci_position():
    b = qiku.Board.from_uci_position("startpos moves h2e2 h9g7")
    assert [str(m) for m in b.move_stack] == ["h2e2", "h9g7"] and b.start_fen() == START
    assert b.fen() == "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    same = [
        "position startpos moves h2e2 h9g7",  # the whole UCI command
        f"fen {START} moves h2e2 h9g7",
        f"position fen {START} moves h2e2 h9g7",
        f"{START} moves C2.5 馬８進７",  # any notation, as the command-line tools read
        "  startpos   moves h2e2   h9g7 ",
    ]
    for text in same:
        c = qiku.Board.from_uci_position(text)
        assert c == b and c.move_stack == b.move_stack and c.start_fen() == START, text
    assert qiku.Board.from_uci_position("startpos").ply == 0
    # The history is kept, so repetitions are judged: a perpetual check loses.
    fen = "3k5/R8/9/9/9/9/9/9/9/4K4 w - - 0 1"
    p = qiku.Board.from_uci_position(f"fen {fen} moves " + "a8a9 d9d8 a9a8 d8d9 " * 2)
    assert (p.outcome().winner, p.outcome().reason) == ("black", "perpetual_check")
    with pytest.raises(qiku.IllegalMoveError, match='move 2 "h9j7"'):
        qiku.Board.from_uci_position("startpos moves h2e2 h9j7")
    with pytest.raises(qiku.InvalidFenError, match="invalid FEN"):
        qiku.Board.from_uci_position("fen 9/9 w moves h2e2")
    with pytest.raises(qiku.InvalidFenError, match="no position given"):
        qiku.Board.from_uci_position("position")


@pytest.mark.parametrize(
    "text",
    ["startpos moves h2e2 h9g7", "position startpos moves h2e2", f"fen {START} moves h2e2", f"{START} moves h2e2"],
)
def test_the_constructor_names_from_uci_position_for_a_uci_position(text):
    with pytest.raises(qiku.InvalidFenError) as e:
        qiku.Board(text)
    message = str(e.value)
    assert "is a UCI position, not a FEN" in message and "Board.from_uci_position(text)" in message
    # What the message proposes works.
    assert qiku.Board.from_uci_position(text).ply >= 1


def test_a_bad_fen_is_not_taken_for_a_uci_position():
    with pytest.raises(qiku.InvalidFenError) as e:
        qiku.Board("rnbakabnr/9/9 w - - 0 1")
    assert "from_uci_position" not in str(e.value) and "rnbakabnr/9/9" in str(e.value)


def test_str_and_svg():
    b = qiku.Board()
    text = str(b)
    assert text.splitlines()[0] == "9 車馬象士將士象馬車"
    assert START in text
    svg = b._repr_svg_()
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<circle") == 32
    assert 'width="300"' in b.svg(300)
    b.push("h2e2")
    assert b._repr_svg_().count("<rect") == 3  # background and the last move's two squares


def test_planes():
    b = qiku.Board()
    p = b.planes()
    assert p.shape == (15, 10, 9) and str(p.dtype) == "uint8"
    assert int(p[:14].sum()) == 32
    assert p[0, 0, 4] == 1  # red king e0
    assert p[7, 9, 4] == 1  # black king e9
    assert p[4, 0, 0] == 1 and p[11, 9, 8] == 1  # rooks a0 and i9
    assert p[13, 6].tolist() == [1, 0, 1, 0, 1, 0, 1, 0, 1]  # black pawns on rank 6
    assert int(p[14].sum()) == 90  # red to move
    b.push("h2e2")
    q = b.planes()
    assert int(q[14].sum()) == 0
    assert q[5, 2, 4] == 1 and q[5, 2, 7] == 0
    batch = qiku.planes_batch([qiku.Board(), b, START])
    assert batch.shape == (3, 15, 10, 9)
    assert (batch[0] == p).all() and (batch[1] == q).all() and (batch[2] == p).all()
    with pytest.raises(qiku.InvalidFenError):
        qiku.planes_batch(["not a fen"])
    # One FEN is not an iterable of FENs (it would be read character by character).
    with pytest.raises(TypeError, match="not one string"):
        qiku.planes_batch(START)
    assert qiku.planes_batch([START]).shape == (1, 15, 10, 9)


def test_perft_depth_is_bounded():
    assert qiku.Board().perft(0) == 1 and qiku.Board().perft(4) == 3290240
    with pytest.raises(ValueError, match="depth must be between 0 and 64, got 65"):
        qiku.Board().perft(65)


def test_threads_share_boards_safely():
    shared = qiku.Board()
    errors = []
    probe = qiku.Board()
    probe.push("h2e2")
    probe.push("h9g7")
    expected = len(probe.legal_moves)

    def work():
        try:
            own = qiku.Board()
            for _ in range(200):
                own.push("h2e2")
                own.push("h9g7")
                assert len(own.legal_moves) == expected
                own.pop()
                own.pop()
                assert len(shared.legal_moves) == 44
                assert shared.perft(2) == 1920
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_every_public_name_is_typed_and_documented():
    import ast
    import pathlib

    stub = pathlib.Path(qiku.__file__).with_name("_qiku.pyi")
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    typed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    typed |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    native = {n for n in dir(qiku._qiku) if not n.startswith("__")}
    assert native - typed == set()
    for name in native:
        obj = getattr(qiku._qiku, name)
        if callable(obj):
            assert obj.__doc__, f"{name} has no docstring"
    for cls in [qiku.Board, qiku.Move, qiku.Book, qiku.Tablebases, qiku.Engine]:
        for attr, value in vars(cls).items():
            if not attr.startswith("_") and callable(value):
                assert value.__doc__, f"{cls.__name__}.{attr} has no docstring"
    # Every public method and field of every class (the fields of the value classes included).
    undocumented = [
        f"{name}.{attr}"
        for name in native
        if isinstance(getattr(qiku._qiku, name), type)
        for attr, value in vars(getattr(qiku._qiku, name)).items()
        if not attr.startswith("_") and not getattr(value, "__doc__", None)
    ]
    assert undocumented == []
    assert "push" in qiku.Board.__doc__ and qiku.Board.push.__doc__.startswith("Plays a move")


def test_docstring_examples_run():
    import doctest

    attempted = 0
    for module in [qiku, qiku.renju, qiku.book, qiku.pgn]:
        failed, tried = doctest.testmod(module)
        assert failed == 0, module.__name__
        attempted += tried
    assert attempted >= 6
