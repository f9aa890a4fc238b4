"""Opening books: :func:`build` compiles game files into a ``.qbk`` book; :class:`qiku.Book`
opens one and probes positions.

>>> import qiku
>>> report = qiku.book.build(["books/games/ccpd-iccs.pgn.zst"], "ccpd.qbk")  # doctest: +SKIP
>>> qiku.Book("ccpd.qbk").probe(qiku.Board())[0].move                         # doctest: +SKIP
Move.from_iccs('h2e2')
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, Iterable, Optional, Union

from ._qiku import Book, BookEntry, BookFileError, _text_path, build_book

__all__ = ["Book", "BookEntry", "BookFileError", "build"]

PathLike = Union[str, "os.PathLike[str]"]


def _print_progress(done: int, total: int) -> None:
    if total:
        sys.stderr.write(f"\rqiku.book.build: {100.0 * done / total:5.1f}% of {total / 1e6:.1f} MB read")
        if done >= total:
            sys.stderr.write("\n")
    else:
        sys.stderr.write(f"\rqiku.book.build: {done / 1e6:.1f} MB read")
    sys.stderr.flush()


def build(
    inputs: Union[PathLike, Iterable[PathLike]],
    output: PathLike,
    *,
    max_ply: int = 40,
    min_games: int = 0,
    min_score: Optional[float] = None,
    only: Optional[str] = None,
    min_elo: Optional[int] = None,
    keep_prefix: bool = False,
    whole_games: bool = True,
    threads: Optional[int] = None,
    encoding: str = "auto",
    max_errors: int = 1000,
    progress: Union[bool, Callable[[int, int], Any], None] = False,
) -> Dict[str, Any]:
    """Compiles game files into an opening book at ``output`` (written atomically).

    ``inputs`` is a path or a list of paths: PGN in any notation (ICCS, WXF, Chinese) and
    encoding (UTF-8, GBK, Big5; ``.zst`` compressed or not), XQF files, or directories of them.
    The options are those of ``qiku-book build``: the first ``max_ply`` plies of each game are
    recorded; moves played in fewer than ``min_games`` games or scoring below ``min_score`` (a
    fraction) are dropped; ``only="red"``/``"black"`` keeps one side's positions; ``min_elo``
    reads only games whose players both have that rating; ``keep_prefix`` keeps the moves before
    a bad move instead of skipping the game.

    ``progress=True`` prints the share of input read to stderr; a callable receives
    ``(bytes_done, bytes_total)`` about ten times a second (anything else raises ``TypeError``
    before any work). An exception raised by the callable, or Ctrl-C (``KeyboardInterrupt``),
    stops the build at its next report and is raised; nothing is written then, and a file
    already at ``output`` is left as it was. The build runs on ``threads`` worker threads (1 to
    1024; ``None``: every core) with the GIL released.

    Returns a dict: ``output`` (the path written), ``written`` (``False`` when the build kept no
    move: nothing is written then, and a file already at ``output`` is left as it was),
    ``repeated`` (inputs left out as the same file as an earlier one), ``games_read``,
    ``games_used``, ``games_without_result``, ``positions``, ``records``, ``skipped`` (games per reason, keyed as ``qiku-book build --json`` keys them:
    ``illegal_move``, ``other_player``, ...), ``errors`` (the first ``max_errors`` messages),
    ``errors_total``, ``seconds``, ``files`` (per input: path, encoding, compressed, games,
    error). Raises :class:`qiku.BookFileError` (an ``OSError``) when an input cannot be read or
    the output cannot be written.
    """
    if isinstance(inputs, (str, bytes, os.PathLike)):
        paths = [_text_path(inputs, "inputs")]
    else:
        paths = [_text_path(p, "inputs") for p in inputs]
    output = _text_path(output, "output")
    if progress is None or progress is False:
        callback = None
    elif progress is True:
        callback = _print_progress
    else:
        callback = progress  # the native function refuses what cannot be called
    return build_book(
        paths,
        output,
        max_ply=max_ply,
        min_games=min_games,
        min_score=min_score,
        only=only,
        min_elo=min_elo,
        keep_prefix=keep_prefix,
        whole_games=whole_games,
        threads=threads,
        encoding=encoding,
        max_errors=max_errors,
        progress=callback,
    )
