"""Pickling and copying: every value class comes back field for field (so that results travel to
and from multiprocessing workers), and the handles on open files refuse with a TypeError that
says what to send instead."""

import copy
import multiprocessing
import pathlib
import pickle

import pytest

import qiku
from conftest import GAMES

KRK = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"


def state(x):
    """Everything a value shows (its public attributes, recursively), to compare two of them."""
    if isinstance(x, (list, tuple)):
        return [state(i) for i in x]
    if isinstance(x, dict):
        return {k: state(v) for k, v in x.items()}
    if x is None or isinstance(x, (str, int, float, bool, pathlib.PurePath, qiku.Move)):
        return x
    if isinstance(x, qiku.Board):
        return ("Board", x.start_fen(), x.fen(), [m.iccs() for m in x.move_stack])
    if isinstance(x, qiku.renju.Board):
        return ("renju.Board", str(x), x.moves, x.to_move)
    fields = {}
    for name in dir(x):
        if name.startswith("_"):
            continue
        value = getattr(x, name)
        if not callable(value):
            fields[name] = state(value)
    assert fields, f"{type(x).__name__} shows no field to compare"
    return (type(x).__name__, fields)


def round_trips(value):
    """`value` through pickle (every protocol), copy.copy and copy.deepcopy, each compared."""
    want = state(value)
    copies = [pickle.loads(pickle.dumps(value, protocol=p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)]
    copies += [copy.copy(value), copy.deepcopy(value)]
    for c in copies:
        assert type(c) is type(value)
        assert state(c) == want
        # Values compare equal (boards by position), and the immutable ones hash alike.
        assert c == value and not (c != value)
        if type(value).__hash__ is not None:
            assert hash(c) == hash(value)
    return copies[-1]


@pytest.fixture(scope="module")
def small_book(tmp_path_factory):
    path = tmp_path_factory.mktemp("pickle-book") / "small.qbk"
    qiku.book.build([GAMES / "ccpd-sample-gbk.pgn"], path, max_ply=4)
    return path


def test_boards_and_moves_round_trip():
    b = qiku.Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 7 12")
    for m in ["h2e2", "h9g7", "h0g2"]:
        b.push(m)
    c = round_trips(b)
    assert c == b and c.halfmove_clock == 10 and c.fullmove_number == 13
    c.push("i9h9")  # a copy shares nothing with the original
    assert b.ply == 3 and c.ply == 4
    round_trips(qiku.Move.from_iccs("h2e2"))
    # The history survives, so the rules that need it still judge: a perpetual check loses.
    perpetual = qiku.Board("3k5/R8/9/9/9/9/9/9/9/4K4 w - - 0 1")
    for m in "a8a9 d9d8 a9a8 d8d9 a8a9 d9d8 a9a8 d8d9".split():
        perpetual.push(m)
    back = pickle.loads(pickle.dumps(perpetual))
    assert qiku.Board(perpetual.fen()).outcome() is None  # the position alone decides nothing
    assert (back.outcome().winner, back.outcome().reason) == ("black", "perpetual_check")


def test_values_compare_field_for_field_and_hash():
    b = qiku.Board("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
    b.push("a1d1")
    assert hash(b.outcome()) == hash(qiku.Outcome._from_state("red", "checkmate"))
    assert len({b.outcome(), qiku.Outcome._from_state("red", "checkmate")}) == 1
    j = qiku.renju.judge("h8 a1 i8 a2 j8 a3 k8 a4 l8")
    assert j == qiku.renju.judge("h8 a1 i8 a2 j8 a3 k8 a4 l8") != qiku.renju.judge("h8")
    assert j != "h8" and len({j, qiku.renju.judge("h8 a1 i8 a2 j8 a3 k8 a4 l8")}) == 1
    # A sample's board is mutable: samples compare, but do not hash.
    s = next(qiku.pgn.positions(GAMES / "ccpd-iccs.pgn.zst"))
    assert s == next(qiku.pgn.positions(GAMES / "ccpd-iccs.pgn.zst"))
    with pytest.raises(TypeError, match="unhashable"):
        hash(s)


def test_outcomes_round_trip():
    b = qiku.Board("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
    b.push("a1d1")
    o = b.outcome()
    assert (o.winner, o.reason) == ("red", "checkmate")
    assert round_trips(o) == o
    with pytest.raises(ValueError, match='reason "resigned" is not one of'):
        qiku.Outcome._from_state("red", "resigned")


def test_book_entries_round_trip(small_book):
    entries = qiku.Book(small_book).probe(qiku.Board())
    assert entries and entries[0].with_mirror is not None
    for e in entries:
        round_trips(e)


def test_table_values_round_trip(tables_dir):
    p = qiku.Tablebases(tables_dir).probe(KRK)
    assert p.wdl == "win" and p.moves and p.best_moves
    c = round_trips(p)
    assert [m.move for m in c.moves] == [m.move for m in p.moves]
    round_trips(p.moves[0])
    engine = qiku.Engine()
    engine.set_tablebases(tables_dir)
    a = engine.analyse(qiku.Board(KRK), depth=4)
    assert a.source == "tablebase" and a.verdict is not None
    round_trips(a.verdict)
    c = round_trips(a)
    assert c.verdict.text == a.verdict.text and c.info == a.info
    with pytest.raises(ValueError, match='wdl "won" is not one of win, draw, loss'):
        qiku.TablebaseVerdict._from_state("won", 3, 3, False, "asian", "plies", "")


def test_an_analysis_score_is_always_the_text_of_cp_or_mate():
    """`score` is made from `cp` and `mate` (PYTHON.md): a pickle that says otherwise is refused,
    so that no Analysis, unpickled or not, holds a score text its numbers do not give."""
    a = qiku.Engine().analyse(qiku.Board(), depth=2)
    constructor, state = a.__reduce__()
    assert constructor(*state) == a
    best, cp, mate, score, *rest = state
    assert (cp, mate, score) == (a.cp, None, f"cp {a.cp}")
    for cp, mate, score, wrong in [
        (cp, None, "mate 3", f'score "mate 3" is not "cp {cp}", the text cp and mate make'),
        (cp, None, None, f'score None is not "cp {cp}"'),
        (None, 3, "cp 3", 'score "cp 3" is not "mate 3"'),
        (None, None, "cp 0", 'score "cp 0" is not None'),
        (cp, 3, None, "cp and mate are both set"),
    ]:
        with pytest.raises(ValueError, match=wrong):
            constructor(best, cp, mate, score, *rest)
    # The three None together: a book move's analysis.
    assert constructor(best, None, None, None, *rest).score is None


def test_games_and_samples_round_trip():
    reader = qiku.pgn.read_games(GAMES / "ccpd-chinese-utf8.pgn.zst")
    games = [next(reader) for _ in range(3)]
    bad = next(g for g in qiku.pgn.read_games(GAMES / "ccpd-chinese-utf8.pgn.zst") if g.errors)
    for g in games + [bad]:
        c = round_trips(g)
        assert c.board() == g.board() and len(c) == len(g)
    samples = qiku.pgn.positions(GAMES / "ccpd-iccs.pgn.zst", max_ply=3)
    for _ in range(3):
        round_trips(next(samples))


def test_renju_values_round_trip():
    # Stones set up from a diagram, then moves played on it: both come back, in their roles.
    setup = qiku.renju.Board("h8 a1 i9")
    r = qiku.renju.Board.from_diagram(str(setup))
    r.play("j10")
    r.play("b2")
    c = round_trips(r)
    assert c.moves == ["j10", "b2"] and c.undo() == "b2" and c.undo() == "j10"
    assert str(c) == str(setup)
    j = qiku.renju.judge("f8 a1 g8 a3 h9 a5 h10 a7 h8 b1")
    assert round_trips(j).forbidden == "double-three"


@pytest.mark.parametrize(
    "make, name, instead",
    [
        (lambda d: qiku.Book(d["book"]), "qiku.Book", "qiku.Book(path)"),
        (lambda d: qiku.Tablebases(d["tables"]), "qiku.Tablebases", "qiku.Tablebases(directory)"),
        (lambda d: qiku.Engine(), "qiku.Engine", "set_book(path)"),
        (lambda d: qiku.pgn.read_games(d["games"]), "qiku.pgn.GameReader", "qiku.pgn.read_games(paths)"),
        (lambda d: qiku.pgn.positions(d["games"]), "qiku.pgn.SampleReader", "qiku.pgn.positions(paths)"),
        (lambda d: qiku.pgn.batches(d["games"]), "qiku.pgn.BatchReader", "qiku.pgn.batches(paths)"),
    ],
)
def test_handles_refuse_pickling_and_say_what_to_send(make, name, instead, small_book, tables_dir):
    handle = make({"book": small_book, "tables": tables_dir, "games": GAMES / "ccpd-sample-gbk.pgn"})
    for attempt in [pickle.dumps, copy.copy, copy.deepcopy]:
        with pytest.raises(TypeError) as e:
            attempt(handle)
        assert f"cannot pickle or copy a {name}" in str(e.value) and instead in str(e.value)


def analyse_in_worker(board):
    """Runs in a spawned process: a board arrives pickled, an analysis goes back pickled."""
    return board, qiku.Engine().analyse(board, depth=3)


def test_boards_and_analyses_cross_process_boundaries():
    boards = [qiku.Board(), qiku.Board.from_uci_position("startpos moves h2e2 h9g7")]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(analyse_in_worker, boards)
    for sent, (received, analysis) in zip(boards, results):
        assert received == sent and received.move_stack == sent.move_stack
        assert analysis.source == "search" and analysis.best in sent.legal_moves
        assert analysis.pv[0] == analysis.best and analysis.depth >= 3
