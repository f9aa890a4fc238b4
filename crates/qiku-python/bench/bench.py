#!/usr/bin/env python3
"""Side-by-side speed of qiku's Python bindings, plain Rust (the same library called once for the
whole loop, in this process), cchess (pure Python) and pyffish (Fairy-Stockfish), on the games
shipped in books/games/.

    python crates/qiku-python/bench/bench.py [--positions 2000] [--games 300]

1. Legal-move generation, positions per second, on positions taken from real games (every 10th
   position of the ICCS file's games): each library produces the list of legal moves of every
   position. The move counts of the libraries are compared and printed.
2. Game reading, games per second: qiku reads the whole ICCS file (25,368 games, zstd, every move
   checked legal) as Python `Game` objects, and in Rust alone (`qiku.pgn.count_games`); cchess
   reads `--games` of the same games, written one per PGN file (its reader takes one game a
   file); pyffish has no game reader, so it replays the same games' moves (`get_fen` on the
   whole move list, one call a game).

cchess and pyffish are skipped with a message when they are not installed. Figures depend on the
machine and its load; run it on an idle machine for comparable numbers.
"""

import argparse
import os
import pathlib
import sys
import tempfile
import time

import qiku
from qiku import _qiku

ROOT = pathlib.Path(__file__).resolve().parents[3]
ICCS = ROOT / "books" / "games" / "ccpd-iccs.pgn.zst"


def timed(fn, min_seconds=1.0):
    """Runs fn() until min_seconds have passed; returns (seconds per run, last result)."""
    runs, start = 0, time.perf_counter()
    while True:
        result = fn()
        runs += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / runs, result


def best_of(fn):
    """(seconds, result) of one run of fn()."""
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def line(name, rate, unit, note=""):
    print(f"  {name:<44} {rate:>14,.0f} {unit}{('  ' + note) if note else ''}")


def to_iccs(uci):
    i = 1
    while uci[i].isdigit():
        i += 1
    return f"{uci[0]}{int(uci[1:i]) - 1}{uci[i]}{int(uci[i + 1:]) - 1}"


def bench_moves(fens):
    n = len(fens)
    print(f"\nlegal-move generation: {n} positions from real games")
    boards = [qiku.Board(f) for f in fens]
    secs, total = timed(lambda: sum(len(b.legal_moves) for b in boards))
    line("qiku bindings (Board.legal_moves)", n / secs, "positions/s", f"{total} moves")
    secs, _ = timed(lambda: sum(len(qiku.Board(f).legal_moves) for f in fens))
    line("qiku bindings (Board(fen).legal_moves)", n / secs, "positions/s")
    repeat = 50
    secs, rust_total = timed(lambda: _qiku._legal_moves_rust(fens, repeat))
    line("plain Rust (one call, same library)", n * repeat / secs, "positions/s", f"{rust_total // repeat} moves")
    try:
        import cchess
    except ImportError:
        print("  cchess: not installed (pip install cchess), skipped")
    else:
        cboards = [cchess.ChessBoard(f) for f in fens]

        def cchess_moves():
            total = 0
            for b in cboards:
                total += sum(
                    1 for m in b.create_moves() if b.is_valid_move_t(m) and not b.is_checked_move(m[0], m[1])
                )
            return total

        secs, ctotal = timed(cchess_moves)
        line("cchess 1.25 (create_moves + legality)", n / secs, "positions/s", f"{ctotal} moves")
    try:
        import pyffish as sf
    except ImportError:
        print("  pyffish: not installed (pip install pyffish), skipped")
    else:
        sample = fens[: max(1, n // 10)]
        secs, stotal = timed(lambda: sum(len(sf.legal_moves("xiangqi", f, [])) for f in sample))
        same = sum(len(qiku.Board(f).legal_moves) for f in sample)
        line(
            "pyffish 0.0.90 (legal_moves)",
            len(sample) / secs,
            "positions/s",
            f"{stotal} moves on {len(sample)} positions (qiku: {same})",
        )


def write_single_game_files(games, directory):
    """The games as one ICCS PGN file each, in the form cchess's reader takes."""
    paths = []
    for i, g in enumerate(games):
        moves = [str(m).upper() for m in g.moves]
        pairs = [
            f"{k // 2 + 1}. {moves[k][:2]}-{moves[k][2:]}"
            + (f" {moves[k + 1][:2]}-{moves[k + 1][2:]}" if k + 1 < len(moves) else "")
            for k in range(0, len(moves), 2)
        ]
        text = f'[Game "Chinese Chess"]\n[Result "{g.result}"]\n[Format "ICCS"]\n\n' + "\n".join(pairs) + f"\n{g.result}\n"
        path = os.path.join(directory, f"{i:05}.pgn")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
    return paths


def bench_games(limit):
    print(f"\ngame reading: {ICCS.name}")
    # Best of two runs each (the first also warms the file cache).
    secs, count = min(best_of(lambda: sum(1 for _ in qiku.pgn.read_games(ICCS))) for _ in range(2))
    line("qiku bindings (pgn.read_games, Game objects)", count / secs, "games/s", f"{count} games in {secs:.2f} s")
    secs, c = min((best_of(lambda: qiku.pgn.count_games(ICCS)) for _ in range(2)), key=lambda r: r[0])
    line("plain Rust (pgn.count_games)", c["games"] / secs, "games/s", f"{c['moves']} moves in {secs:.2f} s")
    games = [g for _, g in zip(range(limit), qiku.pgn.read_games(ICCS))]
    try:
        import cchess
    except ImportError:
        print("  cchess: not installed (pip install cchess), skipped")
    else:
        with tempfile.TemporaryDirectory() as d:
            paths = write_single_game_files(games, d)
            t = time.perf_counter()
            moves = 0
            for p in paths:
                game = cchess.read_from_pgn(p)
                moves += len(game.dump_iccs_moves()[0]) if game.dump_iccs_moves() else 0
            secs = time.perf_counter() - t
            expected = sum(len(g) for g in games)
            line(
                "cchess 1.25 (read_from_pgn, one file a game)",
                len(paths) / secs,
                "games/s",
                f"{moves} of {expected} moves, {len(paths)} games",
            )
    try:
        import pyffish as sf
    except ImportError:
        print("  pyffish: not installed (pip install pyffish), skipped")
    else:
        lists = [[m.uci() for m in g.moves] for g in games]
        # pyffish's moves use ranks 1-10.
        lists = [[f"{m[0]}{int(m[1]) + 1}{m[2]}{int(m[3]) + 1}" for m in ms] for ms in lists]
        t = time.perf_counter()
        for ms in lists:
            sf.get_fen("xiangqi", qiku.STARTING_FEN, ms)
        secs = time.perf_counter() - t
        line("pyffish 0.0.90 (get_fen over each move list)", len(lists) / secs, "games/s", f"{len(lists)} games replayed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=2000, help="positions for move generation (default 2000)")
    ap.add_argument("--games", type=int, default=300, help="games for cchess and pyffish (default 300)")
    args = ap.parse_args()
    if not ICCS.exists():
        sys.exit(f"bench.py: {ICCS} not found: run it from a clone of the qiku repository")
    fens = []
    for s in qiku.pgn.positions(ICCS):
        if s.ply % 10 == 0:
            fens.append(s.board.fen())
            if len(fens) >= args.positions:
                break
    print(f"qiku {qiku.__version__}, Python {sys.version.split()[0]}")
    bench_moves(fens)
    bench_games(args.games)


if __name__ == "__main__":
    main()
