"""The Renju judge reads game text and diagrams as `qiku renju judge` and `--board` read files:
`#` comments, and lines ending in LF, CRLF or a lone CR (old Mac OS) alike."""

import pytest

from qiku import renju

# The game of the command-line tests: black's ninth move, h8, is a double three.
GAME = "# a double three\nf8 a1 g8 a3 # threes\nh9 a5 h10 a7\nh8 a9 # forbidden\n"
ENDINGS = ["\n", "\r\n", "\r"]


@pytest.mark.parametrize("ending", ENDINGS, ids=["LF", "CRLF", "CR"])
def test_judge_reads_comments_and_every_line_ending(ending):
    j = renju.judge(GAME.replace("\n", ending))
    assert (j.winner, j.reason, j.ply, j.point, j.forbidden) == ("white", "forbidden", 9, "h8", "double-three")
    assert j.extra_moves == 1


@pytest.mark.parametrize("ending", ENDINGS, ids=["LF", "CRLF", "CR"])
def test_boards_read_game_text_and_diagrams_with_every_line_ending(ending):
    before = GAME.split("h8 a9")[0]  # the eight moves before the forbidden one
    b = renju.Board(before.replace("\n", ending))
    assert b.moves == ["f8", "a1", "g8", "a3", "h9", "a5", "h10", "a7"]
    assert b.forbidden("h8") == "double-three"
    diagram = "# black to move; h8 is forbidden\n" + str(b)
    d = renju.Board.from_diagram(diagram.replace("\n", ending))
    assert str(d) == str(b) and d.to_move == "black" and d.forbidden("h8") == "double-three"


def test_errors_number_moves_and_lines_across_comments_and_line_endings():
    with pytest.raises(ValueError, match='move 4: "zz"'):
        renju.judge("h8 h9 # two moves\rh10 zz")
    with pytest.raises(ValueError, match="move 3: h8 is already occupied"):
        renju.Board("h8 h9 # then\r\nh8")
    rows = str(renju.Board()).splitlines()
    rows[2] = "..............q"
    with pytest.raises(ValueError, match="board line 4: unknown cell 'q'"):
        renju.Board.from_diagram("\r".join(["# a comment"] + rows))


def test_a_comment_runs_to_the_end_of_its_line_only():
    # A lone CR ends a comment as LF does: the moves on the lines after it count.
    j = renju.judge("# black wins\rh8 a1\ri8 a2\rj8 a3\rk8 a4\rl8")
    assert (j.winner, j.reason, j.ply, j.point) == ("black", "five", 9, "l8")


def rebuilt(board):
    """The board `repr(board)` evaluates to."""
    return eval(repr(board), {"renju": renju})


def test_repr_shows_the_stones_of_a_diagram_and_rebuilds_the_board():
    played = renju.Board("h8 h9 i9")
    assert repr(played) == "renju.Board('h8 h9 i9')"
    diagram = renju.Board.from_diagram(str(played))
    assert diagram.moves == [] and diagram.to_move == "white"
    # The stones set up by the diagram are in the repr, which rebuilds the same board.
    assert "x" in repr(diagram) and "o" in repr(diagram), repr(diagram)
    again = rebuilt(diagram)
    assert (str(again), again.moves, again.to_move) == (str(played), [], "white")
    # Moves played after the set-up stones are kept apart from them.
    diagram.play("g7")
    again = rebuilt(diagram)
    assert (str(again), again.moves, again.to_move) == (str(diagram), ["g7"], "black")
    assert again.undo() == "g7" and str(again) == str(played)


def test_a_diagram_black_could_not_have_reached_is_refused():
    rows = str(renju.Board()).splitlines()
    rows[7] = ".......xx......"  # two black stones, no white one
    with pytest.raises(ValueError, match="the diagram has 2 black and 0 white stones: black moves first"):
        renju.Board.from_diagram("\n".join(rows))
    rows[7] = ".......oo......"
    with pytest.raises(ValueError, match="has 0 black and 2 white stones"):
        renju.Board.from_diagram("\n".join(rows))
    rows[7] = ".......xo......"
    assert renju.Board.from_diagram("\n".join(rows)).to_move == "black"


def test_boards_compare_by_their_stones_as_xiangqi_boards_compare_by_position():
    # The same stones, reached by other moves or set up from a diagram: equal, as lists with the
    # same items are; the moves (what `undo` takes back) are not compared.
    played = renju.Board("h8 h9 i9")
    assert played == renju.Board("h8 h9 i9") and played == played
    assert played == renju.Board("i9 h9 h8")
    assert played == renju.Board.from_diagram(str(played))
    assert not played != renju.Board("i9 h9 h8")
    # Another stone, a stone of the other colour, one stone fewer: not equal.
    assert played != renju.Board("h8 h9 i9 a1")
    assert played != renju.Board("h9 h8 i9")
    assert played != renju.Board("h8 h9")
    # Equality follows the board as it changes.
    other = renju.Board("h8 h9")
    other.play("i9")
    assert other == played
    other.undo()
    assert other != played
    # Anything else is not equal (and is asked in its turn: NotImplemented, not False).
    assert played != str(played) and played != played.moves
    assert played.__eq__("h8 h9 i9") is NotImplemented


def test_boards_are_unhashable_as_mutable_containers_are():
    board = renju.Board("h8")
    with pytest.raises(TypeError, match="unhashable"):
        hash(board)
    with pytest.raises(TypeError):
        {board}
    # Their diagram is a key that compares as they do.
    assert {str(board): 1}[str(renju.Board.from_diagram(str(board)))] == 1
