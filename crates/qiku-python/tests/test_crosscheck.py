"""Cross-check against Fairy-Stockfish (pyffish), an independent implementation: legal moves,
check and the end of the game by no legal move, on positions of seeded random games.

What is compared: the set of legal moves (pyffish writes ranks 1-10, qiku's ICCS 0-9: converted),
whether the side to move is in check, and whether the game is over because the side to move has
no legal move (checkmate or stalemate, both a loss in Xiangqi). pyffish is called on the FEN
alone, so its repetition rules (which differ from the Asian rules qiku's Board judges) and move
counters never come in; qiku's other endings (repetition, 120 plies, no attacking material) are
counted but not compared. Skipped with a message when pyffish is not installed.
"""

import random

import pytest

import qiku

sf = pytest.importorskip("pyffish", reason="pyffish is not installed (pip install pyffish): cross-check skipped")

VARIANT = "xiangqi"
POSITIONS = 1200


def to_iccs(uci):
    """pyffish's `h3e3` / `a10a9` (ranks 1-10) as ICCS `h2e2` / `a9a8`."""
    i = 1
    while uci[i].isdigit():
        i += 1
    return f"{uci[0]}{int(uci[1:i]) - 1}{uci[i]}{int(uci[i + 1:]) - 1}"


def random_positions(seed, count):
    """Positions of random games (every 4th ply and the last): moves that leave the opponent without a move, checks
    and captures are preferred, so that games reach endgames, checks and mates."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = qiku.Board()
        for ply in range(300):
            moves = board.legal_moves
            over = not moves or board.outcome() is not None
            # Every 4th position of a game and its last, so that many games (and ends) are seen.
            if ply % 4 == 0 or over:
                out.append(board.copy())
            if over:
                break
            captures = [m for m in moves if board.piece_at(m.to_square) is not None]
            r = rng.random()
            if r < 0.4:
                checks, ends = [], []
                for m in moves:
                    board.push(m)
                    if board.is_check():
                        checks.append(m)
                    if not board.legal_moves:
                        ends.append(m)
                    board.pop()
                if ends or checks:
                    board.push(rng.choice(ends or checks))
                    continue
            if captures and r < 0.8:
                board.push(rng.choice(captures))
            else:
                board.push(rng.choice(moves))
    return out[:count]


def test_pyffish_agrees_on_moves_check_and_game_end():
    positions = random_positions(20261125, POSITIONS)
    disagreements = []
    stats = {"positions": 0, "moves": 0, "in_check": 0, "no_legal_move": 0, "other_endings": 0}
    for board in positions:
        fen = board.fen()
        stats["positions"] += 1
        ours = sorted(str(m) for m in board.legal_moves)
        theirs = sorted(to_iccs(m) for m in sf.legal_moves(VARIANT, fen, []))
        stats["moves"] += len(ours)
        if ours != theirs:
            disagreements.append((fen, "legal moves", set(ours) ^ set(theirs)))
        check = board.is_check()
        stats["in_check"] += check
        if check != sf.gives_check(VARIANT, fen, []):
            disagreements.append((fen, "check", check))
        outcome = board.outcome()
        no_move = outcome is not None and outcome.reason in ("checkmate", "stalemate")
        stats["no_legal_move"] += no_move
        stats["other_endings"] += outcome is not None and not no_move
        # pyffish: no legal move ends the game, scored as a loss for the side to move.
        sf_end = not theirs and sf.game_result(VARIANT, fen, []) < 0
        if no_move != sf_end:
            disagreements.append((fen, "game end", outcome))
        if no_move and outcome.winner == board.turn:
            disagreements.append((fen, "winner", outcome))
    print(
        f"\npyffish cross-check: {stats['positions']} positions, {stats['moves']} legal moves, "
        f"{stats['in_check']} in check, {stats['no_legal_move']} with no legal move "
        f"({stats['other_endings']} other endings not compared), {len(disagreements)} disagreements"
    )
    assert stats["positions"] >= 1000 and stats["no_legal_move"] > 0 and stats["in_check"] > 0
    assert disagreements == []
