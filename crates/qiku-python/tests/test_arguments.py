"""Numeric arguments: a number out of range is a ValueError naming the parameter, its range and
the value given (the ranges of the command-line tools where they have the option), and an
argument that is no number is a TypeError naming the parameter. Never PyO3's OverflowError, nor
a message that does not say which argument was wrong."""

import math
import re

import pytest

import qiku
from conftest import GAMES

SMALL = GAMES / "ccpd-sample-gbk.pgn"
MISSING = GAMES / "no-such-file.pgn"  # the arguments are checked before any file is opened


@pytest.fixture(scope="module")
def small_book(tmp_path_factory):
    out = tmp_path_factory.mktemp("args") / "small.qbk"
    qiku.book.build([SMALL], out, max_ply=4)
    return qiku.Book(out)


@pytest.fixture(scope="module")
def engine():
    return qiku.Engine()


def set_skill_level(engine, value):
    engine.skill_level = value


# (parameter, call taking the value, the range as the message states it, a value out of range
# above it or None when the range is open, the kind of number: "int" or "float")
ARGUMENTS = [
    ("hash_mb", lambda e, b, v: qiku.Engine(hash_mb=v), "between 1 and 65536", 65537, "int"),
    ("threads", lambda e, b, v: qiku.Engine(threads=v), "between 1 and 64", 65, "int"),
    ("depth", lambda e, b, v: e.analyse(qiku.Board(), depth=v), "between 1 and 100", 101, "int"),
    ("movetime", lambda e, b, v: e.analyse(qiku.Board(), movetime=v), "between 0.001 and 3600 seconds", 3601, "float"),
    ("nodes", lambda e, b, v: e.analyse(qiku.Board(), nodes=v), "at least 1", None, "int"),
    ("skill_level", lambda e, b, v: set_skill_level(e, v), "between 0 and 20", 21, "int"),
    ("min_games", lambda e, b, v: e.set_book(None, min_games=v), "at least 0", None, "int"),
    ("depth", lambda e, b, v: qiku.Board().perft(v), "between 0 and 64", 65, "int"),
    ("size", lambda e, b, v: qiku.Board().svg(v), "at least 1", None, "int"),
    ("index", lambda e, b, v: qiku.Move.from_index(v), "between 0 and 8099", 8100, "int"),
    ("from_square", lambda e, b, v: qiku.Move(v, 1), "between 0 and 89", 90, "int"),
    ("to_square", lambda e, b, v: qiku.Move(1, v), "between 0 and 89", 90, "int"),
    ("square", lambda e, b, v: qiku.Board().piece_at(v), "between 0 and 89", 90, "int"),
    ("seed", lambda e, b, v: b.pick(qiku.Board(), "games", seed=v), "at least 0", None, "int"),
    ("max_ply", lambda e, b, v: qiku.book.build([MISSING], "out.qbk", max_ply=v), "at least 1", None, "int"),
    ("min_games", lambda e, b, v: qiku.book.build([MISSING], "out.qbk", min_games=v), "at least 0", None, "int"),
    ("min_score", lambda e, b, v: qiku.book.build([MISSING], "out.qbk", min_score=v), "between 0 and 1", 1.5, "float"),
    ("min_elo", lambda e, b, v: qiku.book.build([MISSING], "out.qbk", min_elo=v), "at least 0", None, "int"),
    ("threads", lambda e, b, v: qiku.book.build([MISSING], "out.qbk", threads=v), "between 1 and 1024", 1025, "int"),
    ("max_errors", lambda e, b, v: qiku.book.build([MISSING], "out.qbk", max_errors=v), "at least 0", None, "int"),
    ("min_ply", lambda e, b, v: qiku.pgn.positions(MISSING, min_ply=v), "at least 0", None, "int"),
    ("max_ply", lambda e, b, v: qiku.pgn.positions(MISSING, max_ply=v), "at least 0", None, "int"),
    ("batch_size", lambda e, b, v: qiku.pgn.batches(MISSING, batch_size=v), "at least 1", None, "int"),
    ("min_ply", lambda e, b, v: qiku.pgn.batches(MISSING, min_ply=v), "at least 0", None, "int"),
    ("limit", lambda e, b, v: qiku.pgn.training_set(MISSING, limit=v), "at least 0", None, "int"),
    ("max_ply", lambda e, b, v: qiku.pgn.training_set(MISSING, max_ply=v), "at least 0", None, "int"),
    ("ply", lambda e, b, v: next(qiku.pgn.read_games(SMALL)).board(v), "at least 0", None, "int"),
    ("seconds", lambda e, b, v: qiku.renju.Board("h8").best_move(v), "between 0.001 and 3600 seconds", 3601, "float"),
]
IDS = [f"{name}-{i}" for i, (name, *_) in enumerate(ARGUMENTS)]


@pytest.mark.parametrize("name, call, accepted, above, kind", ARGUMENTS, ids=IDS)
def test_a_negative_number_names_the_parameter_and_its_range(engine, small_book, name, call, accepted, above, kind):
    with pytest.raises(ValueError) as e:
        call(engine, small_book, -1)
    assert str(e.value) == f"{name} must be {accepted}, got -1"


@pytest.mark.parametrize("name, call, accepted, above, kind", ARGUMENTS, ids=IDS)
def test_a_number_above_the_range_names_the_parameter_and_its_range(engine, small_book, name, call, accepted, above, kind):
    if above is None:
        # An open range ends where the Rust type does: a number past it is refused the same way.
        huge = 2**200
        with pytest.raises(ValueError) as e:
            call(engine, small_book, huge)
        assert re.fullmatch(rf"{name} must be at most \d+, got {huge}", str(e.value)), str(e.value)
    else:
        # The far value first: a call that took the nearer one would run for an hour.
        with pytest.raises(ValueError) as e:
            call(engine, small_book, 10**40)
        assert str(e.value) == f"{name} must be {accepted}, got {10**40}"
        with pytest.raises(ValueError) as e:
            call(engine, small_book, above)
        assert str(e.value) == f"{name} must be {accepted}, got {above}"


@pytest.mark.parametrize("name, call, accepted, above, kind", ARGUMENTS, ids=IDS)
def test_an_argument_of_the_wrong_type_names_the_parameter(engine, small_book, name, call, accepted, above, kind):
    # A bool is an int to Python, but never a count or a square here (`Move(True, 5)`).
    wrong = [[3]] if kind == "float" else [[3], 2.5, True]
    if name not in ("from_square", "to_square", "square"):
        wrong.append("x")  # a square may be a name
    for value in wrong:
        with pytest.raises(TypeError) as e:
            call(engine, small_book, value)
        assert str(e.value).startswith(f"{name} must be "), str(e.value)
        assert type(value).__name__ in str(e.value)


def test_floats_that_are_no_number_are_out_of_range(engine):
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError) as e:
            engine.analyse(qiku.Board(), movetime=value)
        assert str(e.value) == f"movetime must be between 0.001 and 3600 seconds, got {value}"


def test_the_ends_of_the_ranges_are_accepted(engine, small_book, tmp_path):
    board = qiku.Board()
    assert engine.analyse(board, depth=1).depth >= 1
    assert engine.analyse(board, movetime=0.001).best is not None
    assert engine.analyse(board, nodes=1).best is not None
    engine.skill_level = 0
    engine.skill_level = 20
    assert qiku.Move.from_index(8099 - 1) == qiku.Move(89, 88)
    assert qiku.Board().piece_at(89) == "r" and qiku.Board().piece_at(0) == "R"
    assert small_book.pick(board, "games", seed=2**64 - 1) is not None
    assert qiku.Board().svg(1).startswith("<svg")
    # NumPy's integers stand for ints, and ints for floats.
    np = pytest.importorskip("numpy")
    assert engine.analyse(board, depth=np.int64(1)).depth >= 1
    assert engine.analyse(board, movetime=1).best is not None


def test_a_game_past_its_last_move_is_still_an_index_error():
    game = next(qiku.pgn.read_games(SMALL))
    with pytest.raises(IndexError, match="past the end"):
        game.board(len(game.moves) + 1)


def test_a_worker_thread_count_out_of_range_in_the_environment_is_replaced_with_a_warning(tmp_path):
    """RAYON_NUM_THREADS=99999 would start that many threads at the first parallel call (a book
    build here): the module starts one per CPU instead and says why."""
    import os
    import subprocess
    import sys

    script = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import qiku\n"
        "print('\\n'.join(str(w.message) for w in caught if w.category is RuntimeWarning))\n"
        f"import qiku.book; qiku.book.build([{str(SMALL)!r}], 'out.qbk')\n"
        "print('ok')\n"
    )
    env = dict(os.environ, RAYON_NUM_THREADS="99999")
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert 'RAYON_NUM_THREADS is "99999"' in run.stdout, run.stdout
    assert re.search(r"qiku uses \d+ worker threads, one per CPU", run.stdout), run.stdout
    assert run.stdout.rstrip().endswith("ok"), run.stdout
