"""Game files: PGN in every notation (ICCS, WXF, Chinese) and encoding (UTF-8, GBK, Big5),
``.zst``-compressed or not, and XQF; directories stand for the game files in them.

:func:`read_games` streams games; :func:`positions` streams training samples (position, move
played, result); :func:`batches` and :func:`training_set` give the same samples as NumPy arrays,
built in Rust; :func:`write_training_set` saves them as a ``.npz`` file.

Training arrays (one row per sample):

* ``planes``: ``uint8`` ``(n, 15, 10, 9)`` -- planes 0-6 red king, advisor, elephant, horse,
  rook, cannon, pawn; 7-13 the same for black; 14 all ones when red is to move. Index
  ``[plane, rank, file]`` with rank 0 red's back rank, as in ``a0``.
* ``moves``: ``int16`` -- the move played as ``from_square * 90 + to_square`` (see
  :attr:`qiku.Move.index` and :meth:`qiku.Move.from_index`).
* ``values``: ``int8`` -- the game's result for the side to move: 1 won, 0 drawn, -1 lost.
* ``plies``: ``uint16`` -- the move's 0-based ply in its game.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Optional, Union

from ._qiku import (
    BatchReader,
    Game,
    GameFileError,
    GameReader,
    Sample,
    SampleReader,
    _AtomicWriter,
    _check_output_place,
    _text_path,
    batches,
    count_games,
    positions,
    read_games,
    training_set,
)

__all__ = [
    "BatchReader",
    "Game",
    "GameFileError",
    "GameReader",
    "Sample",
    "SampleReader",
    "batches",
    "count_games",
    "positions",
    "read_games",
    "training_set",
    "write_training_set",
]

PathLike = Union[str, "os.PathLike[str]"]


def write_training_set(
    inputs: Union[PathLike, Iterable[PathLike]],
    output: PathLike,
    limit: Optional[int] = None,
    **options: Any,
) -> Dict[str, Any]:
    """Writes :func:`training_set` ``(inputs, limit, **options)`` to ``output`` as an uncompressed
    ``.npz`` file (arrays ``planes``, ``moves``, ``values``, ``plies``), atomically: a temporary
    file in the same directory is renamed over ``output`` when complete (through a symbolic link,
    over the file it points to). A directory, FIFO or device at ``output``, or no directory to
    write it in, is refused before any game is read. Returns ``{"samples": n, "games": n, "bytes": size}``: the samples written, the
    games they came from and the file's size.
    """
    import numpy as np

    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = _text_path(inputs, "inputs")
    else:
        inputs = [_text_path(p, "inputs") for p in inputs]
    output = _text_path(output, "output")
    # Before reading the games: the library's rules for an output, as its programs apply them.
    _check_output_place(output)
    data = training_set(inputs, limit, **options)
    f = _AtomicWriter(output)
    try:
        np.savez(f, planes=data["planes"], moves=data["moves"], values=data["values"], plies=data["plies"])
        f.commit()
    finally:
        f.close()
    return {"samples": int(len(data["moves"])), "games": int(data["games"]), "bytes": os.path.getsize(output)}
