"""qiku: Xiangqi (Chinese chess) in Rust, from Python.

Boards and moves in ICCS, WXF and Chinese notation, the full rules of the game (perpetual check
and chase, repetition, 120 plies without capture), game files (PGN in any notation and encoding,
``.zst``, XQF), opening books, endgame tablebases, an engine, training data as NumPy arrays, and
a Renju judge.

>>> import qiku
>>> board = qiku.Board()
>>> board.push("炮二平五")
Move.from_iccs('h2e2')
>>> board.push("h9g7")
Move.from_iccs('h9g7')
>>> board.outcome() is None
True

Submodules: :mod:`qiku.pgn` (reading games, training samples), :mod:`qiku.book` (building
books), :mod:`qiku.renju` (the Renju judge).
"""

from ._qiku import (
    STARTING_FEN,
    Analysis,
    Board,
    Book,
    BookEntry,
    BookFileError,
    Engine,
    GameFileError,
    IllegalMoveError,
    InvalidFenError,
    Move,
    Outcome,
    TablebaseError,
    TablebaseMove,
    TablebaseProbe,
    TablebaseVerdict,
    Tablebases,
    generate_tablebases,
    planes_batch,
)
from . import book, pgn, renju

__all__ = [
    "STARTING_FEN",
    "Analysis",
    "Board",
    "Book",
    "BookEntry",
    "BookFileError",
    "Engine",
    "GameFileError",
    "IllegalMoveError",
    "InvalidFenError",
    "Move",
    "Outcome",
    "TablebaseError",
    "TablebaseMove",
    "TablebaseProbe",
    "TablebaseVerdict",
    "Tablebases",
    "book",
    "generate_tablebases",
    "pgn",
    "planes_batch",
    "renju",
]

__version__ = "0.1.0"
