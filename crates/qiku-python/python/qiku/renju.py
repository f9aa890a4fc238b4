"""Renju: 15x15 five-in-a-row under the RIF rules, where black (who moves first) may not make an
overline, a double four or a double three.

Points are named as in Renju literature: columns ``a``..``o`` from the left, rows ``1``..``15``
from the bottom, ``h8`` the centre. :func:`judge` and :class:`Board` read moves as
``qiku renju judge`` reads a game file (spaces, commas or line breaks between moves, ``#``
comments to the end of the line), and :meth:`Board.from_diagram` reads what
``qiku renju forbidden --board`` reads; lines may end in LF, CRLF or a lone CR.

>>> from qiku import renju
>>> renju.Board("f8 a1 g8 a3 h9 a5 h10 a7").forbidden("h8")
'double-three'
>>> renju.judge("h8 a1 i8 a2 j8 a3 k8 a4 l8").winner
'black'
"""

from ._qiku import Judgement, judge
from ._qiku import RenjuBoard as Board

__all__ = ["Board", "Judgement", "judge"]
