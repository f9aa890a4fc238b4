"""Memory and open files: the training arrays grow with what is read (a process with little
address space gets its samples, or a MemoryError, never an abort), and the handles on files
close, by `close()` or a `with` block."""

import subprocess
import sys
import textwrap

import pytest

import qiku
from conftest import GAMES

ICCS = GAMES / "ccpd-iccs.pgn.zst"

# A few moves of one game with a result: 14 samples.
FOURTEEN = """[Event "short"]
[Result "1-0"]

1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 b9c7 4. b0c2 a9b9 5. a0b0 b7b3 6. h0h6 c6c5 7. h6g6 g9e7 1-0
"""


def limited(code, address_space=1_200_000_000):
    """Runs `code` in a Python process whose address space is limited to `address_space` bytes
    (`RLIMIT_AS`, as `ulimit -v`); returns the finished process."""
    script = "import resource\n" f"resource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))\n" + (
        textwrap.dedent(code)
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)


def test_a_small_training_set_needs_no_more_memory_than_its_samples(tmp_path):
    games = tmp_path / "short.pgn"
    games.write_text(FOURTEEN, encoding="utf-8")
    run = limited(
        f"""
        import qiku
        data = qiku.pgn.training_set({str(games)!r})
        print(len(data["moves"]), data["planes"].shape)
        print(sum(len(b["moves"]) for b in qiku.pgn.batches({str(games)!r}, batch_size=10**9)))
        """
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("\n")[:2] == ["14 (14, 15, 10, 9)", "14"]


def test_a_training_set_too_large_for_memory_is_a_memory_error():
    # Some two million samples (2.7 GB of planes) in 1.2 GB of address space.
    run = limited(
        f"""
        import qiku
        try:
            qiku.pgn.training_set({str(ICCS)!r})
        except MemoryError as e:
            print("MemoryError:", e)
        """
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("MemoryError: cannot allocate memory for"), run.stdout


@pytest.fixture(scope="module")
def small_book(tmp_path_factory):
    path = tmp_path_factory.mktemp("closing-book") / "small.qbk"
    qiku.book.build([GAMES / "ccpd-sample-gbk.pgn"], path, max_ply=4)
    return path


def open_handles(book, tables):
    """Each handle on files, with a call that uses it."""
    games = GAMES / "ccpd-sample-gbk.pgn"
    return [
        (lambda: qiku.Book(book), lambda b: b.probe(qiku.Board()), "qiku.Book"),
        (lambda: qiku.Tablebases(tables), lambda t: t.probe("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"), "qiku.Tablebases"),
        (lambda: qiku.pgn.read_games(games), next, "qiku.pgn.GameReader"),
        (lambda: qiku.pgn.positions(games), next, "qiku.pgn.SampleReader"),
        (lambda: qiku.pgn.batches(games, batch_size=8), next, "qiku.pgn.BatchReader"),
    ]


def test_handles_on_files_close_in_a_with_block(small_book, tables_dir):
    for make, use, name in open_handles(small_book, tables_dir):
        with make() as handle:
            assert not handle.closed
            use(handle)
        assert handle.closed
        with pytest.raises(ValueError, match=f"I/O operation on a closed {name}"):
            use(handle)
        handle.close()  # closing again does nothing
        # An exception in the block goes on, the handle closed all the same.
        with pytest.raises(KeyError):
            with make() as other:
                raise KeyError("inside")
        assert other.closed


def test_closed_books_and_tables_refuse_every_use(small_book, tables_dir):
    book = qiku.Book(small_book)
    book.close()
    assert "(closed)" in repr(book) and book.path == small_book
    for use in [lambda: len(book), lambda: book.positions, lambda: book.pick(qiku.Board())]:
        with pytest.raises(ValueError, match="closed qiku.Book"):
            use()
    with pytest.raises(ValueError, match="closed qiku.Book"):
        qiku.Engine().set_book(book)
    tables = qiku.Tablebases(tables_dir)
    engine = qiku.Engine()
    engine.set_tablebases(tables)
    tables.close()
    for use in [lambda: tables.materials, lambda: tables.wdl(qiku.Board())]:
        with pytest.raises(ValueError, match="closed qiku.Tablebases"):
            use()
    # An engine the tables were attached to keeps them.
    assert engine.analyse(qiku.Board("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1"), depth=2).source == "tablebase"
