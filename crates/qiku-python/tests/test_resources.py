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
