"""Game files, books, tablebases, the engine, training data and Renju, on the shipped data."""

import errno
import os
import pathlib
import re
import stat
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import qiku
from conftest import FIXTURES, GAMES, XQF

ICCS = GAMES / "ccpd-iccs.pgn.zst"
CHINESE = GAMES / "ccpd-chinese-utf8.pgn.zst"


# --- reading games -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, games, bad",
    [
        ("ccpd-iccs.pgn.zst", 25368, 0),
        ("ccpd-chinese-utf8.pgn.zst", 25372, 4),
        ("ccpd-sample-big5.pgn", 2000, None),
        ("ccpd-sample-gbk.pgn", 2000, None),
        ("wukong-hu-ronghua-uci.pgn", 1391, None),
    ],
)
def test_every_shipped_file_reads(name, games, bad):
    counts = qiku.pgn.count_games(GAMES / name)
    assert counts["games"] == games
    assert counts["moves"] > 40 * games
    if bad is not None:
        assert counts["errors"] == bad


def test_read_games_streams_headers_moves_and_results():
    reader = qiku.pgn.read_games(ICCS)
    first = next(reader)
    assert first.number == 1 and first.errors == []
    assert first.headers["Format"] == "ICCS"
    assert first.result in ("1-0", "0-1", "1/2-1/2")
    assert first.start_fen == qiku.STARTING_FEN
    assert len(first) == len(first.moves) > 10
    board = first.board()
    assert board.ply == len(first)
    assert first.board(len(first)).ply == len(first)
    with pytest.raises(IndexError, match="past the end of the game"):
        first.board(len(first) + 1)
    # The same game in Chinese notation reads to the same moves.
    chinese = next(qiku.pgn.read_games(CHINESE))
    assert [str(m) for m in chinese.moves] == [str(m) for m in first.moves]
    assert chinese.result == first.result
    assert "Game(number=1" in repr(first)


def test_big5_and_gbk_samples_match_the_utf8_file():
    utf8 = [g for _, g in zip(range(50), qiku.pgn.read_games(CHINESE))]
    for name in ["ccpd-sample-big5.pgn", "ccpd-sample-gbk.pgn"]:
        sample = [g for _, g in zip(range(50), qiku.pgn.read_games(GAMES / name))]
        assert all(g.errors == [] for g in sample)
        # The samples are games of the same collection: each reads to legal moves and a result.
        assert all(len(g) > 0 and g.result != "*" for g in sample)
    assert len(utf8) == 50


def test_chinese_file_names_the_four_bad_games():
    bad = [g for g in qiku.pgn.read_games(CHINESE) if g.errors]
    assert [g.number for g in bad] == [17902, 25233, 25241, 25268]
    for g in bad:
        assert "ccpd-chinese-utf8.pgn.zst" in g.errors[0] and "line" in g.errors[0]


def test_xqf_files_and_directories():
    games = [g for g in qiku.pgn.read_games(XQF) if g.path.suffix.lower() == ".xqf"]
    names = sorted(p.name for p in XQF.iterdir() if p.suffix.lower() == ".xqf")
    assert sorted(g.path.name for g in games) == names
    bad = [g for g in games if g.errors]
    assert [os.path.basename(g.path) for g in bad if "BadMoveTest3" in str(g.path)] == ["BadMoveTest3.xqf"]
    bm3 = next(g for g in games if g.path.name == "BadMoveTest3.xqf")
    assert len(bm3) == 9  # the 10th main-line move cannot be played


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_named_xqf_is_refused_not_waited_on(tmp_path):
    """A FIFO named .xqf, given or found in a directory, raises at once: it used to be opened
    as a file and waited on forever for a writer. Read in a child process with a time limit, so
    that a wait fails the test instead of hanging it."""
    games = tmp_path / "games"
    games.mkdir()
    fifo = games / "pipe.xqf"
    os.mkfifo(fifo)
    script = (
        "import sys, qiku\n"
        "for call in (lambda p: list(qiku.pgn.read_games(p)), qiku.pgn.count_games):\n"
        "    for p in sys.argv[1:]:\n"
        "        try:\n"
        "            call(p)\n"
        "            print('read')\n"
        "        except qiku.GameFileError as e:\n"
        "            print(e.filename, '|', e)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(fifo), str(games)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    refused = f"{fifo} | {fifo}: cannot read: not a regular file (a FIFO (named pipe))"
    assert run.stdout.splitlines() == [refused] * 4, run.stdout


def test_syntax_errors_are_reported_per_game(tmp_path):
    f = tmp_path / "two.pgn"
    f.write_text('[Result "1-0"]\n\n1. h2e2 h9g7 2. h2h9 1-0\n\n[Result "0-1"]\n\n1. c3c4 0-1\n', encoding="utf-8")
    games = list(qiku.pgn.read_games(str(f)))
    assert [len(g) for g in games] == [2, 1]
    assert len(games[0].errors) == 1 and "line 3" in games[0].errors[0] and "h2h9" in games[0].errors[0]
    assert games[1].errors == [] and games[1].result == "0-1"


def test_a_game_the_file_ends_in_is_reported_cut_short(tmp_path):
    # The file ends in game 2's movetext, before its result token (truncated there): its moves so
    # far are read, and its errors say it was cut short, where.
    f = tmp_path / "cut.pgn"
    f.write_text('[Result "1-0"]\n\n1. h2e2 h9g7 1-0\n\n[Result "0-1"]\n\n1. c3c4 h9g7 2.', encoding="utf-8")
    games = list(qiku.pgn.read_games(str(f)))
    assert [len(g) for g in games] == [2, 2]
    assert games[0].errors == []
    assert games[1].errors == [
        f"{f}: game 2, line 7, column 16: cut short: the input ends in this game, before its result token "
        "(the file is truncated or damaged here)"
    ]
    assert qiku.pgn.count_games(str(f))["errors"] == 1


def test_bad_tags_are_named_at_their_line(tmp_path):
    # Game 2 starts on line 5; its FEN tag is on line 7 and its Result tag on line 8.
    f = tmp_path / "tags.pgn"
    f.write_text(
        '[Event "a"]\n\n1. h2e2 *\n\n[Event "b"]\n[Round "1"]\n[Site "c"] [FEN "garbage"]\n[Result "nope"]\n\n1. h2e2 *\n',
        encoding="utf-8",
    )
    games = list(qiku.pgn.read_games(str(f)))
    assert games[0].errors == []
    fen, result = games[1].errors
    assert "tags.pgn: game 2, line 7, column 12: bad FEN tag \"garbage\": " in fen, fen
    assert "tags.pgn: game 2, line 8, column 1: Result tag \"nope\"" in result, result


def test_a_game_with_an_unreadable_fen_tag_has_no_start_position(tmp_path):
    # Not the standard start: the game's start is unknown, and its board cannot be made.
    f = tmp_path / "badfen.pgn"
    f.write_text('[Event "b"]\n[FEN "garbage"]\n[Result "1-0"]\n\n1. h2e2 h9g7 1-0\n', encoding="utf-8")
    (game,) = qiku.pgn.read_games(f)
    assert game.start_fen is None and game.moves == [] and "bad FEN tag" in game.errors[0]
    with pytest.raises(qiku.InvalidFenError, match='bad FEN tag "garbage"'):
        game.board()
    assert qiku.pgn.training_set(f, skip_errors=False)["games"] == 0
    import pickle

    back = pickle.loads(pickle.dumps(game))
    assert back == game and back.start_fen is None


def test_binary_files_are_refused(book):
    with pytest.raises(qiku.GameFileError, match="ccpd.qbk"):
        list(qiku.pgn.read_games(book[0]))


def test_missing_files_raise_oserror():
    with pytest.raises(qiku.GameFileError) as e:
        list(qiku.pgn.read_games("/nonexistent/games.pgn"))
    assert isinstance(e.value, OSError) and "/nonexistent/games.pgn" in str(e.value)
    # errno as for any OSError (and as for books): a missing file is ENOENT.
    assert e.value.errno == errno.ENOENT
    with pytest.raises(ValueError, match="encoding"):
        qiku.pgn.read_games(ICCS, encoding="latin-1")


# --- training data -------------------------------------------------------------------------


def test_positions_and_training_set_agree():
    samples = [s for _, s in zip(range(300), qiku.pgn.positions(ICCS))]
    first_game = next(qiku.pgn.read_games(ICCS))
    assert samples[0].board.fen() == qiku.STARTING_FEN
    assert samples[0].move == first_game.moves[0] and samples[0].ply == 0
    expected = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[first_game.result]
    assert samples[0].value == expected and samples[1].value == -expected
    data = qiku.pgn.training_set(ICCS, 300)
    assert data["planes"].shape == (300, 15, 10, 9)
    assert data["moves"].dtype == np.int16 and data["values"].dtype == np.int8
    assert (data["moves"] == [s.move.index for s in samples]).all()
    assert (data["values"] == [s.value for s in samples]).all()
    assert (data["planes"] == qiku.planes_batch([s.board for s in samples])).all()
    batches = list(qiku.pgn.batches(ICCS, 128, max_ply=2))
    assert all(len(b["moves"]) == 128 for b in batches[:-1])
    assert set(np.concatenate([b["plies"] for b in batches]).tolist()) == {0, 1}


def test_write_a_training_set_of_100000_samples(tmp_path):
    out = tmp_path / "train.npz"
    t = time.perf_counter()
    info = qiku.pgn.write_training_set([ICCS], out, 100_000)
    seconds = time.perf_counter() - t
    print(f"\n100,000-sample training set: {seconds:.2f} s, {info['games']} games, {info['bytes'] / 1e6:.0f} MB")
    assert info["samples"] == 100_000
    with np.load(out) as z:
        assert z["planes"].shape == (100_000, 15, 10, 9)
        assert set(np.unique(z["values"]).tolist()) <= {-1, 0, 1}
        # Every position has both kings, and the side-to-move plane alternates with the ply.
        assert (z["planes"][:, 0].sum(axis=(1, 2)) == 1).all() and (z["planes"][:, 7].sum(axis=(1, 2)) == 1).all()
        assert ((z["planes"][:, 14, 0, 0] == 1) == (z["plies"] % 2 == 0)).all()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")], "a temporary file was left"


def test_a_training_set_is_written_as_other_files_are(tmp_path):
    # Ordinary permissions (0666 less the umask), through a link to the file it points to, and
    # a FIFO or a directory at the output refused before any game is read, left as it was.
    out = tmp_path / "train.npz"
    info = qiku.pgn.write_training_set([ICCS], out, 10)
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o666 & ~mask
    assert (info["samples"], info["bytes"]) == (10, os.path.getsize(out)) and info["games"] >= 1
    link = tmp_path / "link.npz"
    os.symlink(out, link)
    qiku.pgn.write_training_set([ICCS], link, 20)
    assert os.path.islink(link)
    with np.load(out) as z:
        assert len(z["moves"]) == 20
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file") as e:
        qiku.pgn.write_training_set([ICCS], fifo, 10)
    assert e.value.filename == str(fifo) and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(IsADirectoryError):
        qiku.pgn.write_training_set([ICCS], tmp_path, 10)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")], "a temporary file was left"


def test_a_training_set_into_a_missing_directory_names_the_output(tmp_path):
    out = tmp_path / "missing" / "train.npz"
    with pytest.raises(FileNotFoundError) as e:
        qiku.pgn.write_training_set([ICCS], out, 100)
    assert e.value.filename == str(out) and str(tmp_path / "missing") in str(e.value), e.value
    assert ".tmp" not in str(e.value) and os.listdir(tmp_path) == []


def test_the_writer_of_training_sets_replaces_its_output_only_when_committed(tmp_path):
    import io

    from qiku._qiku import _AtomicWriter

    out = tmp_path / "train.npz"
    out.write_bytes(b"old")
    arrays = {"moves": np.arange(5, dtype=np.int16), "values": np.array([1, 0, -1, 0, 1], dtype=np.int8)}
    f = _AtomicWriter(out)
    np.savez(f, **arrays)
    assert out.read_bytes() == b"old" and len(os.listdir(tmp_path)) == 2
    f.close()
    # Not committed: the output as it was, no temporary file.
    assert out.read_bytes() == b"old" and os.listdir(tmp_path) == [out.name]
    with pytest.raises(ValueError, match="closed"):
        f.write(b"more")
    f = _AtomicWriter(out)
    np.savez(f, **arrays)
    size = f.tell()
    f.commit()
    f.close()
    assert os.path.getsize(out) == size and os.listdir(tmp_path) == [out.name]
    # The same archive as numpy writes to an ordinary file: arrays that load back as they were.
    ordinary = io.BytesIO()
    np.savez(ordinary, **arrays)
    assert size == len(ordinary.getvalue())
    with np.load(out) as z:
        assert sorted(z.files) == ["moves", "values"]
        assert all((z[k] == v).all() and z[k].dtype == v.dtype for k, v in arrays.items())


# --- books ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    out = tmp_path_factory.mktemp("book") / "ccpd.qbk"
    seen = []
    t = time.perf_counter()
    report = qiku.book.build([ICCS], out, progress=lambda done, total: seen.append((done, total)))
    print(f"\nbook from {report['games_used']} games: {time.perf_counter() - t:.2f} s")
    assert report["games_read"] == 25368 and report["games_used"] > 25000
    assert report["errors_total"] == 0
    assert seen and seen[-1][0] == seen[-1][1] > 0
    return out, report


def test_book_probe(book):
    path, report = book
    b = qiku.Book(path)
    assert b.games == report["games_used"] and b.positions == report["positions"] and len(b) == report["records"]
    entries = b.probe(qiku.Board())
    assert str(entries[0].move) == "h2e2"  # the central cannon is the most played
    # The start is its own mirror image: h2e2 stands for b2e2 too, as qiku-book probe says.
    assert str(entries[0].with_mirror) == "b2e2"
    assert all(e.with_mirror is None or str(e.with_mirror) != str(e.move) for e in entries)
    assert [e.games for e in entries] == sorted((e.games for e in entries), reverse=True)
    assert sum(e.games for e in entries) == report["games_used"]
    for e in entries:
        assert e.red + e.draws + e.black + e.unknown == e.games
        assert (e.wins, e.losses) == (e.red, e.black)  # red moves at the start
    after = qiku.Board()
    after.push("h2e2")
    black = b.probe(after.fen())
    assert black and all((e.wins, e.losses) == (e.black, e.red) for e in black)
    assert all(e.with_mirror is None for e in black)
    assert b.pick(qiku.Board()) == b.pick(qiku.Board(), "best")
    assert b.pick(qiku.Board(), "games", seed=7) == b.pick(qiku.Board(), "games", seed=7)
    assert b.pick("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1") is None
    with pytest.raises(ValueError, match="policy"):
        b.pick(qiku.Board(), "random")


def test_book_build_counts_skipped_games_by_key(tmp_path):
    # Four games of the Chinese file hold a move that is illegal as written.
    report = qiku.book.build([CHINESE], tmp_path / "zh.qbk", max_ply=4)
    assert report["skipped"] == {"illegal_move": 4}
    assert report["errors_total"] == 4 and report["games_used"] == 25368


def test_book_errors(tmp_path):
    with pytest.raises(qiku.BookFileError) as e:
        qiku.Book(tmp_path / "missing.qbk")
    assert isinstance(e.value, OSError) and "missing.qbk" in str(e.value)
    assert e.value.errno == errno.ENOENT
    junk = tmp_path / "junk.qbk"
    junk.write_bytes(b"not a book at all" * 10)
    with pytest.raises(qiku.BookFileError) as e:
        qiku.Book(junk)
    assert str(e.value) == f"{junk}: not a qiku opening book (no QIKUBOOK magic at the start)"
    with pytest.raises(qiku.BookFileError):
        qiku.book.build([tmp_path / "none.pgn"], tmp_path / "out.qbk")
    with pytest.raises(ValueError):
        qiku.book.build([ICCS], tmp_path / "out.qbk", only="green")


def test_book_build_errors_carry_errno_and_filename(tmp_path):
    # As read_games on the same path: the input's name, and ENOENT for a missing file.
    missing = tmp_path / "none.pgn"
    with pytest.raises(qiku.BookFileError) as e:
        qiku.book.build([missing], tmp_path / "out.qbk")
    assert (e.value.errno, e.value.filename) == (errno.ENOENT, str(missing))
    assert str(e.value) == f"{missing}: cannot open: No such file or directory (os error 2)"
    # A file that is not text: named, with no system cause.
    binary = tmp_path / "binary.pgn"
    binary.write_bytes(b"\0" * 2000)
    with pytest.raises(qiku.BookFileError) as e:
        qiku.book.build([binary], tmp_path / "out.qbk")
    assert (e.value.errno, e.value.filename) == (None, str(binary))
    assert str(e.value) == f"{binary}: not a game file: binary data (2000 NUL bytes in the first 2000 bytes), not text"
    # An output that cannot be written: the output named.
    with pytest.raises(qiku.BookFileError) as e:
        qiku.book.build([GAMES / "ccpd-sample-gbk.pgn"], tmp_path)
    assert e.value.filename == str(tmp_path) and str(e.value).startswith(f"{tmp_path}: cannot write the book there")
    assert not (tmp_path / "out.qbk").exists()


# --- tablebases ----------------------------------------------------------------------------


def test_tablebase_probe(tables_dir):
    t = time.perf_counter()
    tb = qiku.Tablebases(tables_dir)
    first = tb.probe("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
    print(f"\ntable directory opened and probed: {1000 * (time.perf_counter() - t):.1f} ms ({first})")
    assert tb.materials == ["KCvK", "KNvK", "KRvK"] and tb.problems == []
    fen = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"
    p = tb.probe(fen)
    assert (p.wdl, p.rules) == ("win", "asian")
    assert p.dtm > 0 and p.dtm % 2 == 1 and p.distance == p.dtm
    assert p.moves[0].wdl == "win" and p.moves[0].dtm == p.dtm
    board = qiku.Board(fen)
    for m in p.best_moves:
        board.push(m)
        after = tb.probe(board)
        assert (after.wdl, after.dtm) == ("loss", -(p.dtm - 1))
        board.pop()
    assert tb.wdl(fen) == "win" and tb.wdl(fen, rules="plain") == "win"
    assert tb.probe(fen, rules="plain").dtm == p.dtm
    assert tb.probe(qiku.Board()) is None  # no table for 32 pieces
    assert tb.probe("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1").wdl == "draw"  # bare kings
    with pytest.raises(ValueError, match="rules"):
        tb.probe(fen, rules="chinese")


def test_tablebase_marks_values_the_asian_rules_decide(tmp_path):
    # Rook against horse: black can hold here only by checking forever, which the Asian rules
    # forbid, so red wins under them and it is a draw without them.
    qiku.generate_tablebases(["KRvKN"], tmp_path)
    tb = qiku.Tablebases(tmp_path)
    fen = "4k4/9/9/9/9/9/9/9/1n7/R2K5 w - - 0 1"
    asian, plain = tb.probe(fen), tb.probe(fen, rules="plain")
    assert (asian.wdl, asian.by_rule, asian.rules, asian.unit) == ("win", True, "asian", "line rank")
    assert (plain.wdl, plain.by_rule, plain.rules, plain.unit) == ("draw", False, "plain", "plies")
    assert asian.text.startswith("win by the perpetual-check rule") and "not plies to mate" in asian.text
    assert all(m.unit == ("line rank" if m.by_rule else "plies") for m in asian.moves)
    assert not any(m.by_rule for m in plain.moves)
    decided = [m for m in asian.moves if m.by_rule]
    assert decided and all(m.wdl == "win" for m in decided)
    assert {str(m.move) for m in plain.moves} == {str(m.move) for m in asian.moves}
    # The best moves keep the win, and each leads to a loss for black the rules decide.
    board = qiku.Board(fen)
    assert asian.best_moves
    for m in asian.best_moves:
        assert next(x for x in asian.moves if str(x.move) == str(m)).wdl == "win"
        board.push(m)
        after = tb.probe(board)
        assert (after.wdl, after.by_rule) == ("loss", True)
        board.pop()


def test_tablebase_errors(tmp_path):
    with pytest.raises(qiku.TablebaseError):
        qiku.Tablebases(tmp_path / "missing")
    (tmp_path / "KRvK.qtb").write_bytes(b"\0" * 100)
    tb = qiku.Tablebases(tmp_path)
    assert len(tb.problems) == 1 and "KRvK.qtb" in tb.problems[0]
    with pytest.raises(qiku.TablebaseError):
        tb.probe("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
    with pytest.raises(ValueError):
        qiku.generate_tablebases(["KQvK"], tmp_path)



def test_generating_tables_without_attacking_pieces_says_there_are_none(tmp_path):
    # As qiku-tb generate: a dead draw has no table, and naming only such materials is an error.
    for m in ["KAvK", "KvK", "KABvKAB"]:
        with pytest.raises(ValueError) as e:
            qiku.generate_tablebases([m], tmp_path / m)
        assert str(e.value) == f"{m} has no attacking piece: every position is a draw, and there is no table to make"
        assert not (tmp_path / m).exists()
    with pytest.raises(ValueError) as e:
        qiku.generate_tablebases(["KvK", "KAvK"], tmp_path / "two")
    assert str(e.value).startswith("KvK, KAvK have no attacking piece: every position is a draw")
    # Beside a table that exists: that one is made, and a warning says what was left out.
    with pytest.warns(RuntimeWarning) as w:
        made = qiku.generate_tablebases(["KAvK", "KRvK"], tmp_path / "mixed")
    assert [str(x.message) for x in w] == [
        "KAvK has no attacking piece: every position is a draw, and there is no table; left out"
    ]
    assert [m for m, _, _ in made] == ["KRvK"]


def test_tablebase_names_a_missing_smaller_table(tmp_path):
    # KRvKN alone: the position has its value, but the knight's capture leads into KNvK, which
    # is not there. The probe says so, as qiku-tb probe does, instead of giving no moves.
    qiku.generate_tablebases(["KRvKN"], tmp_path / "all")
    (tmp_path / "lone").mkdir()
    for ext in ("qtb", "qtr", "qtw"):
        (tmp_path / "lone" / f"KRvKN.{ext}").write_bytes((tmp_path / "all" / f"KRvKN.{ext}").read_bytes())
    tb = qiku.Tablebases(tmp_path / "lone")
    with pytest.raises(qiku.TablebaseError, match="KRvKN needs the table KNvK, which is missing") as e:
        tb.probe("4k4/9/9/9/7R1/9/8n/9/9/5K3 b")
    # With the way to make it, as the command line and the C API say it.
    lone = tmp_path / "lone"
    assert str(e.value).endswith(f"in {lone} (generate it with `qiku-tb generate KNvK -d {lone}`)"), str(e.value)
    assert tb.probe("4k4/9/9/8R/9/9/8n/9/9/5K3 b").moves

# --- engine --------------------------------------------------------------------------------


def test_engine_threads_are_those_of_the_uci_option():
    qiku.Engine(threads=64)
    with pytest.raises(ValueError, match="threads must be between 1 and 64, got 65"):
        qiku.Engine(threads=65)


def test_engine_finds_the_mate():
    e = qiku.Engine(hash_mb=16)
    a = e.analyse(qiku.Board("3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1"), depth=6)
    assert a.source == "search" and a.mate is not None and a.mate > 0 and a.cp is None
    # A mate in 1 is settled at depth 4 (twice its plies plus two): the search stops short of 6.
    assert a.best == a.pv[0] and a.mate == 1 and a.depth == 4 and a.nodes > 0
    assert a.info and a.info[-1].startswith("info depth")
    assert a.score == f"mate {a.mate}"
    t = e.analyse(qiku.Board(), movetime=0.2)
    assert t.best in qiku.Board().legal_moves
    with pytest.raises(ValueError):
        e.analyse(qiku.Board(), depth=0)
    with pytest.raises(ValueError):
        qiku.Engine(hash_mb=0)


def test_engine_skill_level_weakens_it_reproducibly():
    e = qiku.Engine()
    assert e.skill_level == 20
    start = qiku.Board()
    full = e.analyse(start, depth=6)
    e.skill_level = 0
    assert e.skill_level == 0
    e.new_game()  # what the full search left in the hash table would change the lines' scores
    weak = e.analyse(start, depth=6)
    # Level 0 searches one ply and plays one of its lines, the same one every time.
    assert weak.depth == 1 and full.depth >= 6
    assert weak.best in start.legal_moves and weak.best == weak.pv[0]
    assert all(qiku.Engine().analyse(start, depth=6).best == full.best for _ in range(2))
    again = qiku.Engine()
    again.skill_level = 0
    assert again.analyse(start, depth=6).best == weak.best
    for bad in (-1, 21):
        with pytest.raises(ValueError, match=f"skill_level must be between 0 and 20, got {bad}"):
            e.skill_level = bad
    assert e.skill_level == 0


def test_engine_with_book_and_tables(book, tables_dir):
    e = qiku.Engine()
    e.set_book(qiku.Book(book[0]))
    a = e.analyse(qiku.Board(), depth=4)
    assert a.source == "book" and a.best == qiku.Book(book[0]).pick(qiku.Board(), "best")
    e.set_book(None)
    assert e.analyse(qiku.Board(), depth=2).source == "search"
    e.set_tablebases(tables_dir)
    fen = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"
    a = e.analyse(qiku.Board(fen), depth=4)
    tb = qiku.Tablebases(tables_dir).probe(fen)
    assert a.source == "tablebase" and a.best in tb.best_moves


def test_engine_stop_from_another_thread():
    e = qiku.Engine()
    threading.Timer(0.3, e.stop).start()
    t = time.perf_counter()
    a = e.analyse(qiku.Board(), depth=60)
    assert time.perf_counter() - t < 30 and a.best is not None


# --- Renju ---------------------------------------------------------------------------------


def test_renju():
    r = qiku.renju.Board("f8 a1 g8 a3 h9 a5 h10 a7")
    assert r.forbidden("h8") == "double-three"
    assert r.forbidden_points() == [("h8", "double-three")]
    assert r.to_move == "black" and r.stone("f8") == "black" and r.stone("a1") == "white" and r.stone("h8") is None
    r.play("h8")
    assert r.moves[-1] == "h8" and r.undo() == "h8"
    with pytest.raises(ValueError, match="occupied"):
        r.play("f8")
    with pytest.raises(ValueError):
        r.forbidden("z99")
    j = qiku.renju.judge("h8 a1 i8 a2 j8 a3 k8 a4 l8")
    assert (j.winner, j.reason, j.ply, j.point) == ("black", "five", 9, "l8")
    j = qiku.renju.judge("f8 a1 g8 a3 h9 a5 h10 a7 h8 b1")
    assert (j.winner, j.reason, j.forbidden, j.extra_moves) == ("white", "forbidden", "double-three", 1)
    assert qiku.renju.judge("h8").reason == "unfinished"
    assert qiku.renju.Board.from_diagram(str(r)).moves == [] and str(qiku.renju.Board.from_diagram(str(r))) == str(r)
    assert qiku.renju.Board("h8 h9").best_move(0.2) is not None


def test_wxf_and_gbk_files_read_back_to_the_same_moves(tmp_path):
    game = next(qiku.pgn.read_games(ICCS))
    board = qiku.Board()
    wxf, chinese = [], []
    for m in game.moves:
        wxf.append(m.wxf(board))
        chinese.append(m.chinese(board))
        board.push(m)

    def movetext(tokens):
        pairs = [tokens[i : i + 2] for i in range(0, len(tokens), 2)]
        return " ".join(f"{n + 1}. {' '.join(p)}" for n, p in enumerate(pairs))

    (tmp_path / "wxf.pgn").write_text(f'[Format "WXF"]\n[Result "{game.result}"]\n\n{movetext(wxf)} {game.result}\n', encoding="utf-8")
    # GBK has the traditional piece names and the full-width digits too.
    (tmp_path / "gbk.pgn").write_bytes(f'[Result "{game.result}"]\n\n{movetext(chinese)} {game.result}\n'.encode("gbk"))
    for name in ["wxf.pgn", "gbk.pgn"]:
        (read,) = list(qiku.pgn.read_games(tmp_path / name))
        assert read.errors == [], read.errors
        assert read.moves == game.moves and read.result == game.result


def test_books_tables_and_engines_are_shared_between_threads(book, tables_dir):
    from concurrent.futures import ThreadPoolExecutor

    b = qiku.Book(book[0])
    tb = qiku.Tablebases(tables_dir)
    engine = qiku.Engine()
    fen = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"
    expected_book = [(e.move, e.games) for e in b.probe(qiku.Board())]
    expected_tb = tb.probe(fen).dtm

    def work(i):
        for _ in range(50):
            assert [(e.move, e.games) for e in b.probe(qiku.Board())] == expected_book
            assert tb.probe(fen).dtm == expected_tb
        a = engine.analyse(qiku.Board("3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1"), depth=5)
        assert a.mate is not None and a.mate > 0
        return i

    with ThreadPoolExecutor(4) as pool:
        assert sorted(pool.map(work, range(8))) == list(range(8))


# --- what the engine reports, and where its scores come from -------------------------------


def lone_krvkn(tmp_path):
    """KRvKN without the KNvK table it captures into, and a damaged KCvK file beside it."""
    qiku.generate_tablebases(["KRvKN"], tmp_path / "all")
    lone = tmp_path / "lone"
    lone.mkdir()
    for ext in ("qtb", "qtr", "qtw"):
        (lone / f"KRvKN.{ext}").write_bytes((tmp_path / "all" / f"KRvKN.{ext}").read_bytes())
    (lone / "KCvK.qtb").write_bytes(b"\0" * 300)
    return lone


def test_engine_reports_table_problems_as_warnings_and_info_not_on_stdout(tmp_path, capfd):
    lone = lone_krvkn(tmp_path)
    engine = qiku.Engine()
    with pytest.warns(RuntimeWarning, match="KCvK.qtb: invalid tablebase file"):
        engine.set_tablebases(lone)
    # A capture into the missing table: the engine plays on without it, and says so.
    with pytest.warns(RuntimeWarning, match="KRvKN needs the table KNvK, which is missing"):
        a = engine.analyse(qiku.Board("4k4/9/9/9/7R1/9/8n/9/9/5K3 b"), depth=4)
    assert "info string KRvKN needs the table KNvK, which is missing" in a.info
    assert a.best is not None
    # Nothing went to the process's stdout (file descriptor 1), which Python does not own.
    assert "info string" not in capfd.readouterr().out


def test_engine_reports_an_unreadable_book(tmp_path, book, capfd):
    copy = tmp_path / "book.qbk"
    copy.write_bytes(book[0].read_bytes())
    engine = qiku.Engine()
    engine.set_book(copy)
    # Damaged after it was opened: the first probe finds out, and the engine searches instead.
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    data[20] ^= 0xFF
    copy.write_bytes(bytes(data))
    with pytest.warns(RuntimeWarning, match="playing on without the book"):
        a = engine.analyse(qiku.Board(), depth=2)
    assert a.source == "search"
    assert any(line.startswith("info string") and "without the book" in line for line in a.info)
    assert "info string" not in capfd.readouterr().out


def test_analysis_says_where_its_move_and_score_come_from(book, tmp_path):
    engine = qiku.Engine()
    # A book move has no score: UCI gives none, only the move at depth 0 and "info string book move".
    engine.set_book(qiku.Book(book[0]))
    a = engine.analyse(qiku.Board(), depth=4)
    assert (a.source, a.score, a.cp, a.mate, a.verdict) == ("book", None, None, None, None)
    assert a.info == [f"info depth 0 pv {a.best}", "info string book move"]
    assert "score=None" in repr(a)
    engine.set_book(None)
    # The tables' mate: a mate score, with the verdict qiku-tb probe gives.
    qiku.generate_tablebases(["KRvKN", "KCvK"], tmp_path)
    tb = qiku.Tablebases(tmp_path)
    engine.set_tablebases(tb)
    fen = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"
    a, p = engine.analyse(qiku.Board(fen)), tb.probe(fen)
    assert a.source == "tablebase" and a.best in p.best_moves
    v = a.verdict
    assert (v.wdl, v.dtm, v.distance, v.by_rule, v.rules, v.unit, v.text) == (
        p.wdl, p.dtm, p.distance, p.by_rule, p.rules, p.unit, p.text
    )
    assert a.mate == (p.dtm + 1) // 2 and a.cp is None and a.score == f"mate {a.mate}"
    assert a.info[-1] == f"info string tablebase move: {v.text}"
    # A win only the perpetual-check rule decides: no made-up centipawns, the verdict says why.
    fen = "4k4/9/9/9/9/9/9/9/1n7/R2K5 w - - 0 1"
    a = engine.analyse(qiku.Board(fen))
    assert a.source == "tablebase" and (a.score, a.cp, a.mate) == (None, None, None)
    v = a.verdict
    assert (v.wdl, v.by_rule, v.unit, v.rules) == ("win", True, "line rank", "asian")
    assert v.text.startswith("win by the perpetual-check rule") and "not plies to mate" in v.text
    assert a.info[-1] == f"info string tablebase move: {v.text}"
    # A drawn position (a lone cannon cannot mate; bare kings would be a game over): the search
    # chooses among the drawing moves, and the verdict says draw.
    a = engine.analyse(qiku.Board("4k4/9/9/9/9/9/9/9/4C4/3K5 w - - 0 1"), depth=3)
    assert a.source == "search" and a.verdict.wdl == "draw" and a.score is not None
    assert a.info[-1] == f"info string tablebase: {a.verdict.text}; the search chooses among the drawing moves"
    # No table covers the start position: no verdict.
    a = engine.analyse(qiku.Board(), depth=2)
    assert a.verdict is None and a.cp is not None and a.info[-1].startswith("info depth")


def test_a_mated_side_the_tables_cover_has_their_verdict(tables_dir):
    # No move to search, but the tables cover the position: the verdict is theirs, as
    # Tablebases.probe and qiku probe --tb give it (loss, 0 plies), said in an info string.
    fen = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1"
    tb = qiku.Tablebases(tables_dir)
    engine = qiku.Engine()
    engine.set_tablebases(tb)
    a, p = engine.analyse(qiku.Board(fen), depth=3), tb.probe(fen)
    assert (a.best, a.source, a.mate) == (None, "search", 0) and a.outcome.reason == "checkmate"
    v = a.verdict
    assert (v.wdl, v.dtm, v.by_rule, v.rules, v.unit, v.text) == ("loss", 0, False, "asian", "plies", p.text)
    assert (p.wdl, p.dtm) == ("loss", 0)
    assert a.info[-1] == f"info string tablebase: {p.text}"


def test_analysis_score_is_the_text_of_cp_or_mate():
    """As PYTHON.md says: `score` is a str made from `cp` or `mate`, None when both are."""
    engine = qiku.Engine()
    centipawns = engine.analyse(qiku.Board(), depth=3)
    mate = engine.analyse(qiku.Board("3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1"), depth=6)
    assert centipawns.cp is not None and centipawns.mate is None
    assert isinstance(centipawns.score, str) and centipawns.score == f"cp {centipawns.cp}"
    assert mate.mate is not None and mate.cp is None
    assert isinstance(mate.score, str) and mate.score == f"mate {mate.mate}"


def test_engine_refuses_zero_nodes():
    with pytest.raises(ValueError, match="nodes must be at least 1, got 0"):
        qiku.Engine().analyse(qiku.Board(), nodes=0)
    assert qiku.Engine().analyse(qiku.Board(), nodes=1).best is not None


def test_opened_books_and_tables_survive_a_change_of_directory(book, tables_dir, tmp_path, monkeypatch):
    here = tmp_path / "here"
    (here / "tables").mkdir(parents=True)
    (here / "book.qbk").write_bytes(book[0].read_bytes())
    for f in tables_dir.iterdir():
        (here / "tables" / f.name).write_bytes(f.read_bytes())
    monkeypatch.chdir(here)
    b, tb = qiku.Book("book.qbk"), qiku.Tablebases("tables")
    # Elsewhere, the same relative names are another (broken) book and no tables at all.
    there = tmp_path / "there"
    there.mkdir()
    (there / "book.qbk").write_bytes(b"not a book" * 100)
    monkeypatch.chdir(there)
    engine = qiku.Engine()
    engine.set_book(b)
    engine.set_tablebases(tb)
    a = engine.analyse(qiku.Board(), depth=2)
    assert a.source == "book" and a.best == b.pick(qiku.Board())
    a = engine.analyse(qiku.Board("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"), depth=2)
    assert a.source == "tablebase"
    # A path is opened where the call is made: here, the broken book.
    with pytest.raises(qiku.BookFileError, match="book.qbk"):
        engine.set_book("book.qbk")


# --- files: duplicate tags, error messages -------------------------------------------------


def test_duplicate_tags_count_with_their_last_value(tmp_path):
    f = tmp_path / "twice.pgn"
    f.write_text(
        f'[FEN "{qiku.STARTING_FEN}"]\n[FEN "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"]\n'
        '[Result "1-0"]\n[Result "0-1"]\n[Format "Chinese"]\n[Format "ICCS"]\n\n1. a1d1 *\n',
        encoding="utf-8",
    )
    (game,) = qiku.pgn.read_games(f)
    # As Game.headers shows them, and as the book compiler reads them.
    assert game.headers["FEN"] == game.start_fen == "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"
    assert game.headers["Result"] == game.result == "0-1"
    assert game.errors == [] and [str(m) for m in game.moves] == ["a1d1"]


def test_a_damaged_zstd_file_is_named_once(tmp_path):
    cut = tmp_path / "cut.pgn.zst"
    cut.write_bytes(ICCS.read_bytes()[:200_000])
    with pytest.raises(qiku.GameFileError) as e:
        list(qiku.pgn.read_games(cut))
    assert str(e.value).count("cut.pgn.zst") == 1, str(e.value)


def test_a_missing_table_directory_has_its_errno(tmp_path):
    with pytest.raises(qiku.TablebaseError) as e:
        qiku.Tablebases(tmp_path / "missing")
    assert e.value.errno == errno.ENOENT and "missing" in str(e.value)


def test_a_table_directory_without_tables_is_refused(tmp_path):
    # As the command line and the C API refuse it: such tables could only ever answer "no table",
    # which is what a wrong path looks like. The error says how to make tables there.
    empty = tmp_path / "empty"
    empty.mkdir()
    for open_ in (qiku.Tablebases, lambda d: qiku.Engine().set_tablebases(d)):
        with pytest.raises(qiku.TablebaseError) as e:
            open_(empty)
        assert e.value.errno is None and e.value.filename == str(empty)
        said = str(e.value)
        assert said.startswith(f"{empty}: it holds no table (.qtb file): generate tables there with"), said
        assert f"qiku.generate_tablebases(materials, {str(empty)!r})" in said.replace('"', "'"), said
        with pytest.raises(qiku.TablebaseError) as e:
            open_(tmp_path / "missing")
        assert e.value.errno == errno.ENOENT and "the directory does not exist" in str(e.value)
    qiku.generate_tablebases(["KRvK"], empty)
    assert qiku.Tablebases(empty).materials == ["KRvK"]


def test_generate_tablebases_makes_the_tables_it_captures_into(tmp_path):
    made = qiku.generate_tablebases(["KRvKN"], tmp_path)
    assert [m for m, _, _ in made] == ["KNvK", "KRvK", "KRvKN"]
    assert "must already" not in qiku.generate_tablebases.__doc__
    assert "capture into" in qiku.generate_tablebases.__doc__
    # A tuple is a list of materials; one string or a number is refused, saying what is expected.
    assert [m for m, kept, _ in qiku.generate_tablebases(("KRvK",), tmp_path)] == ["KRvK"]
    with pytest.raises(TypeError, match=r"materials must be a list of materials, such as \['KRvK'\], not one string"):
        qiku.generate_tablebases("KRvK", tmp_path)
    with pytest.raises(TypeError, match="materials must be a list of materials .* not int"):
        qiku.generate_tablebases(7, tmp_path)


def test_generate_tablebases_takes_a_memory_budget_as_qiku_tb_generate(tmp_path):
    # Within a budget a table that fits in memory is made as without one: the same bytes.
    qiku.generate_tablebases(["KRvKN"], tmp_path / "free")
    made = qiku.generate_tablebases(["KRvKN"], tmp_path / "budget", memory="16M")
    assert [m for m, kept, _ in made] == ["KNvK", "KRvK", "KRvKN"] and not any(k for _, k, _ in made)
    for name in ["KRvKN.qtb", "KRvKN.qtr", "KRvKN.qtw"]:
        assert (tmp_path / "budget" / name).read_bytes() == (tmp_path / "free" / name).read_bytes()
    assert qiku.generate_tablebases(["KRvKN"], tmp_path / "bytes", memory=16 << 20) == made
    # A budget no way of solving fits (paging keeps a working set) is refused before any work,
    # in Python's words.
    with pytest.raises(qiku.TablebaseError) as e:
        qiku.generate_tablebases(["KRvKN"], tmp_path / "small", memory="8M")
    assert str(e.value).startswith("KRvKN: cannot be generated within memory=8388608: it needs about ")
    assert str(e.value).endswith("give memory= at least that") and "--memory" not in str(e.value)
    assert not (tmp_path / "small").exists() or list((tmp_path / "small").glob("*.qt?")) == []
    for bad, kind in [("lots", ValueError), ("1Q", ValueError), (0, ValueError), (-5, ValueError), (1.5, TypeError)]:
        with pytest.raises(kind, match="memory"):
            qiku.generate_tablebases(["KRvKN"], tmp_path / "bad", memory=bad)


def test_generate_tablebases_above_a_control_groups_limit_names_the_memory_argument(tmp_path):
    # A container's or a job's memory limit: without `memory=`, a table above it is refused before
    # any work, and the message says what to give in Python (not the command line's option).
    groups = open("/proc/self/cgroup").read().splitlines()
    v1 = [line.split(":memory:", 1)[1] for line in groups if ":memory:" in line]
    v2 = [line[3:] for line in groups if line.startswith("0::")]
    if v1:
        group, limit = pathlib.Path("/sys/fs/cgroup/memory" + v1[0]) / f"qiku-py-{os.getpid()}", "memory.limit_in_bytes"
    elif v2:
        group, limit = pathlib.Path("/sys/fs/cgroup" + v2[0]) / f"qiku-py-{os.getpid()}", "memory.max"
    else:
        pytest.skip("no memory control group")
    try:
        group.mkdir()
        (group / limit).write_text(str(192 << 20))
    except OSError as e:
        pytest.skip(f"cannot make a memory control group ({e}; root can)")
    code = (
        "import os, sys, qiku\n"
        "open(sys.argv[1] + '/cgroup.procs', 'w').write(str(os.getpid()))\n"
        "try:\n"
        "    qiku.generate_tablebases(['KRNvKR'], sys.argv[2])\n"
        "except qiku.TablebaseError as e:\n"
        "    print(e)\n"
    )
    try:
        out = subprocess.run([sys.executable, "-c", code, str(group), str(tmp_path / "t")], capture_output=True, text=True)
    finally:
        group.rmdir()
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("KRNvKR: needs about "), out.stdout
    assert "MiB is available here" in out.stdout and "give memory=SIZE of at most that" in out.stdout
    assert "--memory" not in out.stdout
    assert not (tmp_path / "t").exists() or list((tmp_path / "t").glob("*.qt?")) == []


def test_analysis_of_a_game_already_over_searches_nothing_as_the_cli():
    # A threefold repetition: `qiku analyze --json` says "bestmove": null and "game_over".
    moves = " ".join(["h0g2 h9g7 g2h0 g7h9"] * 3)
    board = qiku.Board.from_uci_position(f"startpos moves {moves}")
    assert board.outcome() == qiku.Board.from_uci_position(f"startpos moves {moves}").outcome()
    a = qiku.Engine().analyse(board, depth=3)
    assert a.outcome == board.outcome() and a.outcome.reason == "repetition"
    assert (a.best, a.source, a.pv, a.depth, a.nodes, a.score, a.cp, a.mate) == (None, None, [], 0, 0, None, None, None)
    assert "outcome=Outcome(winner=None, reason='repetition')" in repr(a)
    # A checkmate is searched, as by the CLI: no move, and the outcome says why.
    mated = qiku.Board("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
    mated.push("a1d1")
    a = qiku.Engine().analyse(mated, depth=3)
    assert a.best is None and a.source == "search" and a.outcome == mated.outcome()
    # A game going on has no outcome.
    assert qiku.Engine().analyse(qiku.Board(), depth=2).outcome is None


def test_file_errors_carry_errno_and_filename(tmp_path):
    missing = tmp_path / "missing.qbk"
    for call in [lambda: qiku.Book(missing), lambda: qiku.Engine().set_book(missing)]:
        with pytest.raises(qiku.BookFileError) as e:
            call()
        assert e.value.errno == errno.ENOENT and e.value.filename == str(missing)
        assert str(e.value) == f"{missing}: cannot open: No such file or directory (os error 2)"
    with pytest.raises(qiku.GameFileError) as e:
        next(qiku.pgn.read_games(tmp_path / "missing.pgn"))
    assert e.value.errno == errno.ENOENT and e.value.filename == str(tmp_path / "missing.pgn")
    assert str(e.value) == f"{tmp_path / 'missing.pgn'}: cannot open: No such file or directory (os error 2)"
    with pytest.raises(qiku.TablebaseError) as e:
        qiku.Tablebases(tmp_path / "none")
    assert e.value.errno == errno.ENOENT and e.value.filename == str(tmp_path / "none")
    assert str(e.value).startswith(f"{tmp_path / 'none'}: ") and "PosixPath" not in str(e.value)


def test_file_errors_without_a_system_cause_print_the_library_message(tmp_path):
    # No errno: OSError's own str() would be "[Errno None] None: PosixPath('...')".
    junk = tmp_path / "junk.qbk"
    junk.write_bytes(b"not a book at all" * 10)
    truncated = tmp_path / "trunc.pgn.zst"
    data = ICCS.read_bytes()
    truncated.write_bytes(data[: len(data) // 3])
    xqf = tmp_path / "bad.xqf"
    xqf.write_bytes(b"XQ" + b"\0" * 50)
    not_a_book = "not a qiku opening book (no QIKUBOOK magic at the start)"
    cut_frame = re.compile(r"decompression failed at byte [0-9]+ of the text: incomplete frame")
    not_tables = "is a text file, not a directory of tables"
    cases = [
        (qiku.BookFileError, lambda: qiku.Book(tmp_path), tmp_path, "cannot open: not a regular file (a directory)"),
        (qiku.BookFileError, lambda: qiku.Book(junk), junk, not_a_book),
        (qiku.BookFileError, lambda: qiku.Engine().set_book(junk), junk, not_a_book),
        (qiku.TablebaseError, lambda: qiku.Tablebases(junk), junk, not_tables),
        (qiku.TablebaseError, lambda: qiku.Engine().set_tablebases(junk), junk, not_tables),
        # The games before the damage are read first; the error says where it is.
        (qiku.GameFileError, lambda: list(qiku.pgn.read_games(truncated)), truncated, cut_frame),
        (qiku.GameFileError, lambda: qiku.pgn.training_set(truncated), truncated, cut_frame),
        (
            qiku.GameFileError,
            lambda: qiku.pgn.count_games(xqf),
            xqf,
            "not a readable XQF file: 52 bytes, shorter than the 1024-byte header",
        ),
        (
            qiku.BookFileError,
            lambda: qiku.Book(f"{tmp_path}/a\0b.qbk"),
            f"{tmp_path}/a\0b.qbk",
            "cannot open: file name contained an unexpected NUL byte",
        ),
    ]
    for kind, call, path, cause in cases:
        with pytest.raises(kind) as e:
            call()
        if isinstance(cause, re.Pattern):
            assert str(e.value).startswith(f"{path}: ") and cause.fullmatch(str(e.value)[len(f"{path}: ") :])
        else:
            assert str(e.value) == f"{path}: {cause}"
        assert (e.value.errno, e.value.strerror, e.value.filename) == (None, str(e.value), str(path))
    # A pickled error (sent from a worker process) prints the same.
    import pickle

    assert str(pickle.loads(pickle.dumps(e.value))) == str(e.value)


def test_bytes_paths_are_refused_with_a_clear_message(tmp_path):
    small = bytes(GAMES / "ccpd-sample-gbk.pgn")
    with pytest.raises(TypeError, match="inputs must be a str path, not bytes"):
        qiku.book.build([small], tmp_path / "out.qbk")
    with pytest.raises(TypeError, match="output must be a str path, not bytes"):
        qiku.book.build([GAMES / "ccpd-sample-gbk.pgn"], bytes(tmp_path / "out.qbk"))
    with pytest.raises(TypeError, match="inputs must be a str path, not bytes"):
        qiku.pgn.write_training_set(small, tmp_path / "out.npz")
    with pytest.raises(TypeError, match="output must be a path"):
        qiku.pgn.write_training_set(GAMES / "ccpd-sample-gbk.pgn", 3)


def test_every_path_parameter_refuses_bytes_naming_itself(tmp_path):
    # The native functions say what the Python wrappers say, naming the parameter.
    calls = [
        ("path", lambda p: qiku.Book(p)),
        ("directory", lambda p: qiku.Tablebases(p)),
        ("book", lambda p: qiku.Engine().set_book(p)),
        ("tables", lambda p: qiku.Engine().set_tablebases(p)),
        ("directory", lambda p: qiku.generate_tablebases(["KRvK"], p)),
        ("inputs", lambda p: qiku.pgn.read_games(p)),
        ("inputs", lambda p: qiku.pgn.read_games([p])),
        ("inputs", lambda p: qiku.pgn.count_games([p])),
        ("inputs", lambda p: qiku.pgn.positions(p)),
        ("inputs", lambda p: qiku.pgn.batches(p)),
        ("inputs", lambda p: qiku.pgn.training_set(p)),
        ("inputs", lambda p: qiku.book.build(p, tmp_path / "out.qbk")),
    ]

    class BytesPath:
        """An os.PathLike whose path is bytes."""

        def __fspath__(self):
            return bytes(tmp_path / "x")

    for bad in [bytes(tmp_path / "x"), BytesPath()]:
        for name, call in calls:
            with pytest.raises(TypeError) as e:
                call(bad)
            assert str(e.value) == f"{name} must be a str path, not bytes: decode it first (os.fsdecode)"
    # What is no path at all is named too.
    for call, said in [
        (lambda: qiku.Tablebases(3), "directory must be a path (str or os.PathLike), not int"),
        (lambda: qiku.pgn.count_games(3), "inputs must be a path (str or os.PathLike) or a list of paths, not int"),
        (lambda: qiku.Engine().set_book(3), "book must be a qiku.Book, a path (str or os.PathLike) or None, not int"),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == said
    # Any iterable of paths is a list of inputs.
    gbk = GAMES / "ccpd-sample-gbk.pgn"
    assert qiku.pgn.count_games(p for p in [gbk, str(gbk)])["games"] == 4000
