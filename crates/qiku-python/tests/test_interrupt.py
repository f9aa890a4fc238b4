"""Stopping long calls: an exception from a book build's progress callback, and Ctrl-C
(SIGINT, i.e. KeyboardInterrupt) during searches, perft, book builds, table generation and
training sets. A stopped call writes nothing and raises at once; thread counts are bounded."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import qiku
from conftest import GAMES

ICCS = GAMES / "ccpd-iccs.pgn.zst"
SMALL = GAMES / "ccpd-sample-gbk.pgn"


def leftovers(directory):
    """Temporary files and spill directories a build or generation left."""
    return sorted(p for p in os.listdir(directory) if p.startswith(".") or p.endswith(".tmp"))


# --- the progress callback -----------------------------------------------------------------


@pytest.mark.parametrize("exception", [RuntimeError, KeyboardInterrupt])
def test_an_exception_of_the_progress_callback_stops_the_build_and_writes_nothing(tmp_path, exception):
    out = tmp_path / "book.qbk"
    qiku.book.build([SMALL], out)
    before = out.read_bytes()
    calls = []

    def progress(done, total):
        calls.append((done, total))
        raise exception("stop the build")

    t = time.perf_counter()
    with pytest.raises(exception, match="stop the build"):
        qiku.book.build([ICCS], out, progress=progress)
    seconds = time.perf_counter() - t
    # Called once: the build stopped at the report that raised, not at the end of the reading.
    assert len(calls) == 1 and calls[0][0] < calls[0][1], calls
    assert out.read_bytes() == before, "a stopped build replaced the book"
    assert leftovers(tmp_path) == []
    print(f"\nbuild stopped by its callback after {seconds:.2f} s")


def test_a_progress_that_cannot_be_called_is_refused_before_any_work(tmp_path):
    for progress in ["yes", 1, [print]]:
        # The input does not exist: a TypeError, not a BookFileError, shows that nothing was
        # opened before the refusal.
        with pytest.raises(TypeError, match="progress must be a callable"):
            qiku.book.build([tmp_path / "missing.pgn"], tmp_path / "out.qbk", progress=progress)
    with pytest.raises(qiku.BookFileError):
        qiku.book.build([tmp_path / "missing.pgn"], tmp_path / "out.qbk", progress=False)
    assert os.listdir(tmp_path) == []


# --- thread counts -------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [0, -1, 1025, 10**6])
def test_book_threads_are_those_of_the_command_line(tmp_path, threads):
    with pytest.raises(ValueError, match=f"threads must be between 1 and 1024, got {threads}"):
        qiku.book.build([SMALL], tmp_path / "out.qbk", threads=threads)
    assert not (tmp_path / "out.qbk").exists()


def test_book_threads_within_bounds_give_the_same_book(tmp_path):
    one = qiku.book.build([SMALL], tmp_path / "one.qbk", threads=1)
    every = qiku.book.build([SMALL], tmp_path / "all.qbk", threads=None)
    assert one["written"] and (tmp_path / "one.qbk").read_bytes() == (tmp_path / "all.qbk").read_bytes()
    assert every["records"] == one["records"]


@pytest.mark.parametrize("threads", [0, -1, 65])
def test_engine_threads_out_of_range_are_value_errors(threads):
    with pytest.raises(ValueError, match=f"threads must be between 1 and 64, got {threads}"):
        qiku.Engine(threads=threads)
    with pytest.raises(ValueError, match="hash_mb must be between 1 and 65536, got -1"):
        qiku.Engine(hash_mb=-1)


# --- Ctrl-C --------------------------------------------------------------------------------


def interrupt(code, cwd, after, limit=60, setup=""):
    """Runs `setup` then `code` in a Python process, sends it SIGINT `after` seconds after
    `code` started, and returns (seconds from the signal to its exit, its stdout). The time is
    counted from the end of `setup`, however long a loaded machine takes over it."""
    setup = textwrap.indent(textwrap.dedent(setup).strip(), "    ")
    body = textwrap.indent(textwrap.dedent(code).strip(), "    ")
    # Python leaves SIGINT alone when it starts with SIGINT ignored, as every background job of a
    # shell without job control does (`cargo test ... &` in a script): the child takes it back.
    script = (
        "import signal, time, qiku\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "try:\n"
        f"{setup}\n"
        "    print('started', flush=True)\n"
        f"{body}\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "started"
    time.sleep(after)
    child.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    try:
        out, err = child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"still running {limit} s after Ctrl-C")
    seconds = time.perf_counter() - sent
    assert child.returncode == 0, err
    return seconds, out.strip()


@pytest.mark.parametrize(
    "name, code",
    [
        ("search", "qiku.Engine().analyse(qiku.Board(), depth=40)"),
        ("perft", "qiku.Board().perft(7)"),
        ("training set", f"qiku.pgn.training_set({str(ICCS)!r})"),
    ],
)
def test_ctrl_c_interrupts_long_calls(tmp_path, name, code):
    seconds, out = interrupt(code, tmp_path, after=0.5)
    print(f"\n{name}: interrupted {seconds:.2f} s after Ctrl-C")
    assert out == "interrupted"
    assert seconds < 3


def test_ctrl_c_stops_a_search_and_the_engine_searches_again(tmp_path):
    code = """
    engine = qiku.Engine()
    try:
        engine.analyse(qiku.Board(), depth=40)
    except KeyboardInterrupt:
        # The stop was for that search only: the next one runs to its depth.
        a = engine.analyse(qiku.Board(), depth=3)
        print("again", a.depth, a.best is not None)
        raise
    """
    seconds, out = interrupt(code, tmp_path, after=0.3)
    assert out.splitlines() == ["again 3 True", "interrupted"]
    assert seconds < 3


def test_ctrl_c_stops_a_book_build_which_writes_nothing(tmp_path):
    # Copies of a collection (a file named twice would be read once): a few seconds of work.
    copies = []
    for i in range(3):
        copies.append(tmp_path / f"copy{i}.pgn.zst")
        shutil.copy(ICCS, copies[-1])
    code = f"qiku.book.build({[str(c) for c in copies]!r}, 'out.qbk', threads=1)"
    seconds, out = interrupt(code, tmp_path, after=0.3)
    print(f"\nbook build: interrupted {seconds:.2f} s after Ctrl-C")
    assert out == "interrupted"
    assert not (tmp_path / "out.qbk").exists() and leftovers(tmp_path) == []
    assert seconds < 3


def test_ctrl_c_stops_table_generation_before_the_table_is_written(tmp_path):
    # KRNvKR and the five tables it captures into take about half a minute; stopped while they
    # are solved, the one being solved is not written.
    code = "qiku.generate_tablebases(['KRNvKR'], 'tables')"
    seconds, out = interrupt(code, tmp_path, after=2.0)
    print(f"\ngeneration: interrupted {seconds:.2f} s after Ctrl-C; written: {sorted(os.listdir(tmp_path / 'tables'))}")
    assert out == "interrupted"
    written = os.listdir(tmp_path / "tables")
    assert "KRNvKR.qtw" not in written and leftovers(tmp_path / "tables") == []
    assert seconds < 5


# An engine, and a long search of another thread holding it. Run before the signal's clock
# starts: under load, making the engine alone can take half a second, and a signal arriving
# before the search has started would interrupt the set-up, not the wait.
ANOTHER_SEARCH = """
import threading
engine = qiku.Engine()
other = threading.Thread(target=engine.analyse, args=(qiku.Board(),), kwargs={"depth": 40})
other.start()
time.sleep(0.2)
"""


def test_ctrl_c_interrupts_a_search_waiting_for_the_engine(tmp_path):
    # Another thread's long search holds the engine: this call waits for it, and Ctrl-C ends the
    # wait at once (the other search goes on until stopped).
    code = """
    try:
        engine.analyse(qiku.Board(), depth=3)
    finally:
        engine.stop()
        other.join()
    """
    seconds, out = interrupt(code, tmp_path, after=0.5, limit=20, setup=ANOTHER_SEARCH)
    print(f"\nwaiting search: interrupted {seconds:.2f} s after Ctrl-C")
    assert out == "interrupted"
    assert seconds < 3


@pytest.mark.parametrize(
    "call",
    [
        "engine.new_game()",
        "engine.skill_level = 5",
        "engine.skill_level",
        "engine.set_book(None)",
        "engine.set_tablebases(None)",
    ],
)
def test_ctrl_c_interrupts_every_call_waiting_for_the_engine(tmp_path, call):
    # As a search waiting for the engine: the other calls that need it wait for another thread's
    # search too, and Ctrl-C ends their wait at once instead of leaving them blocked. The
    # interrupted call did nothing (the skill level is still the default) and the engine answers.
    code = f"""
    try:
        {call}
    finally:
        engine.stop()
        other.join()
        print("level", engine.skill_level)
    """
    seconds, out = interrupt(code, tmp_path, after=0.5, limit=10, setup=ANOTHER_SEARCH)
    print(f"\n{call}: interrupted {seconds:.2f} s after Ctrl-C")
    assert out.splitlines() == ["level 20", "interrupted"]
    assert seconds < 3
