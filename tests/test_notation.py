"""Move notation: gnubg's FormatMove output, ParseMove input, and finding the play meant.

Every literal expectation here was produced by GNU Backgammon 1.07.001:

* ``FORMAT_CASES``: position, roll, and the notation of every legal play as
  ``gnubg.hint()`` lists it (0-ply) -- the full list, so the move generator
  and ``format_move`` are checked together;
* ``MOVETUPLE_CASES``: ``gnubg.movetupletostring(steps, board)``;
* ``PARSE_CASES``: ``gnubg.parsemove(text)`` (``None`` = rejected);
* ``MOVE_COMMAND_CASES``: gnubg's ``move`` command in that position: the play
  gnubg recorded (``None`` = "Illegal move"), next to what ``match_move``
  picks (``None`` = ValueError).  They differ only where gnubg accepts a text
  with an impossible trailing part (it applies the steps up to the first
  impossible one) and where we accept a compressed path through a hit.
"""

from __future__ import annotations

import collections
import re

import numpy as np
import pytest

from bgengine.notation.ids import board_from_position_id
from bgengine.core.movegen import legal_afterstates
from bgengine.notation.moves import (
    format_move, format_steps_plain, legal_move_notations, legal_moves, match_move, parse_move,
)
from bgengine.position import STARTING_BOARD
from game_positions import board_from_points

START = STARTING_BOARD



FORMAT_CASES = [
    ('LzA0AxVDK8DZBA', 6, 4, [
        '18/14 7/1', '18/14 8/2*', '18/8', '19/13* 18/14', '19/13* 5/1', '19/13* 6/2*',
        '19/13* 7/3*', '19/13* 8/4*', '19/13*/9', '19/15 19/13*', '19/15 7/1', '19/15 8/2*',
        '19/9', '21/11', '21/15 18/14', '21/15 19/15', '21/15 5/1', '21/15 6/2*', '21/15 7/3*',
        '21/15 8/4*', '7/1 5/1', '7/1 6/2*', '8/2* 5/1', '8/2* 6/2', '8/2* 7/3*', '8/4* 7/1',
    ]),
    ('jo7kAgOFL+JBBA', 2, 4, [
        '10/4', '10/8 6/2', '10/8 7/3', '13/11* 10/6', '13/11* 13/9', '13/11* 6/2',
        '13/11* 7/3', '13/11*/7', '13/7', '13/9 10/8', '13/9 6/4', '18/14* 10/8',
        '18/14* 13/11*', '18/14* 6/4', '18/16* 10/6', '18/16* 13/9', '18/16* 6/2',
        '18/16* 7/3', '21/15', '21/17 10/8', '21/17 13/11*', '21/17 18/16*', '21/17 6/4',
        '6/4 6/2', '7/1', '7/3 6/4',
    ]),
    ('loKh4BwTEwVwXA', 3, 1, [
        'bar/21', 'bar/22* 11/10*', 'bar/22* 12/11', 'bar/22* 21/20*', 'bar/22* 6/5',
        'bar/22* 8/7', 'bar/22*/21', 'bar/24 11/8', 'bar/24 12/9*', 'bar/24 21/18',
        'bar/24 6/3', 'bar/24 8/5',
    ]),
    ('/84AAIL3wIREIA', 6, 6, [
        'bar/1', 'bar/13 10/4* 8/2', 'bar/13 14/2', 'bar/13 14/8 10/4*', 'bar/13 16/10 14/8',
        'bar/13 16/10 8/2', 'bar/13 16/4*', 'bar/13 19/13 10/4*', 'bar/13 19/13 14/8',
        'bar/13 19/13 16/10', 'bar/13 19/13 8/2', 'bar/13 8/2(2)', 'bar/19 10/4* 8/2(2)',
        'bar/19 14/2 10/4*', 'bar/19 14/2 8/2', 'bar/19 16/10 14/2', 'bar/19 16/10 8/2(2)',
        'bar/19 16/4* 10/4', 'bar/19 16/4* 14/8', 'bar/19 16/4* 8/2', 'bar/7 10/4*',
        'bar/7 14/8', 'bar/7 16/10', 'bar/7 19/13', 'bar/7 8/2',
    ]),
    ('fwAAAOMfQEgGAA', 4, 4, [
        '17/1', '17/5 13/9', '19/11 13/5', '19/11 17/9', '19/15 13/1', '19/15 17/5',
        '19/15 17/9 13/9', '19/3', '19/7 13/9', '19/7 17/13', '21/13 19/11',
        '21/13 19/15 17/13', '21/13 21/17 19/15', '21/13(2)', '21/17 13/1', '21/17 19/11 13/9',
        '21/17 19/15 13/5', '21/17 19/7', '21/17(2) 13/5', '21/17(2) 19/11',
        '21/17(2) 19/15 13/9', '21/5', '21/9 13/9', '21/9 17/13', '21/9 19/15', '21/9 21/17',
    ]),
    ('GwAA4H1vAAAAAA', 2, 2, [
        '2/off(4)', '3/1 2/off(3)', '3/1(2) 2/off(2)', '3/1(3) 2/off', '3/1(4)', '4/2 3/1(3)',
        '4/2(2) 3/1(2)', '4/off 2/off(2)', '4/off 3/1 2/off', '4/off 3/1(2)', '4/off 4/2 3/1',
        '4/off(2)',
    ]),
    ('4HPwATDgc/ABMA', 6, 6, [
        '13/7 8/2(3)', '13/7(2) 8/2(2)', '13/7(3) 8/2', '13/7(4)', '24/18 13/7 8/2(2)',
        '24/18 13/7(2) 8/2', '24/18 13/7(3)', '24/18 8/2(3)', '24/18(2) 13/7 8/2',
        '24/18(2) 13/7(2)', '24/18(2) 8/2(2)',
    ]),
    ('nxMk4ATfCwAAAA', 1, 1, [
        '1/off(4)', '2/1(4)', '2/off 1/off(2)', '2/off 2/1(2)', '2/off(2)', '3/1 2/1(2)',
        '3/2 1/off(3)', '3/off 1/off', '3/off 2/1',
    ]),
    ('5vmBAgJnOEAwWQ', 3, 3, [
        'bar/22 15/12* 7/1', 'bar/22 15/12* 7/4(2)', 'bar/22 15/12*/6', 'bar/22 15/12*/9 7/4',
        'bar/22 20/11', 'bar/22 20/14 15/12*', 'bar/22 20/14 20/17', 'bar/22 20/14 7/4',
        'bar/22 20/17 15/12* 7/4', 'bar/22 20/17 15/12*/9', 'bar/22 20/17 7/1',
        'bar/22 20/17 7/4(2)', 'bar/22 20/17(2) 15/12*', 'bar/22 20/17(2) 7/4',
        'bar/22 7/1 7/4', 'bar/22 7/4(3)',
    ]),
    ('dyQmEQk/AAAAAA', 5, 5, [
        '1/off(4)',
    ]),
    ('d8eAIAa3+AEgAQ', 1, 1, [
        '18/14', '18/15 2/1', '18/15 3/2', '18/15 6/5', '18/16 2/1(2)', '18/16 3/1',
        '18/16 6/5 2/1', '18/16 6/5 3/2', '18/16 6/5(2)', '18/17 3/1 2/1', '18/17 6/5 2/1(2)',
        '18/17 6/5 3/1', '18/17 6/5(2) 2/1', '18/17 6/5(2) 3/2', '18/17 6/5(3)', '3/1 2/1(2)',
        '6/5 3/1 2/1', '6/5(2) 2/1(2)', '6/5(2) 3/1', '6/5(3) 2/1', '6/5(3) 3/2', '6/5(4)',
    ]),
    ('6UFAB0c3/AYEAQ', 5, 5, [
        '14/9* 6/1(3)', '14/9* 7/2 6/1(2)', '14/9* 7/2(2) 6/1', '14/9*/4 6/1(2)',
        '14/9*/4 7/2 6/1', '14/9*/4 7/2(2)', '19/14 6/1(3)', '19/14 7/2 6/1(2)',
        '19/14 7/2(2) 6/1', '19/9* 14/9 6/1', '19/9* 14/9 7/2', '19/9* 6/1(2)',
        '19/9* 7/2 6/1', '19/9* 7/2(2)', '19/9*/4 14/9', '19/9*/4 6/1', '19/9*/4 7/2',
        '6/1(4)', '7/2 6/1(3)', '7/2(2) 6/1(2)',
    ]),
    ('LAyIjjye7wEEQA', 3, 6, [
        'bar/16', 'bar/19 14/11', 'bar/19 5/2',
    ]),
    ('yOfCAxDYZvAAWA', 3, 4, [
        'bar/18', 'bar/21* 13/10', 'bar/21* 24/21', 'bar/21* 4/1', 'bar/21* 5/2*',
        'bar/21* 6/3', 'bar/21* 8/5', 'bar/21*/18', 'bar/22 13/9', 'bar/22 24/20',
        'bar/22 5/1', 'bar/22 6/2*', 'bar/22 8/4',
    ]),
    ('vgAo8BmfBMDCQw', 5, 3, [
        'bar/17', 'bar/20 16/13', 'bar/20 17/14', 'bar/20 21/18', 'bar/22* 16/11*',
        'bar/22* 17/12', 'bar/22* 21/16', 'bar/22*/17',
    ]),
    ('DwAA4AcAAAAAAA', 1, 3, [
        '1/off(2)',
    ]),
    ('/9sgAAD/LwAAAA', 6, 5, [
        '2/off 1/off',
    ]),
    ('vQzAQFz+dxIAAA', 5, 1, [
        '7/2 3/2', '7/2 5/4*', '7/6 5/off',
    ]),
    ('NGfDQQTEOfGAQQ', 3, 3, [
        'bar/22* 10/7* 6/3(2)', 'bar/22* 10/7* 8/2', 'bar/22* 10/7* 8/5 6/3',
        'bar/22* 10/7* 8/5(2)', 'bar/22* 10/7*/4* 6/3', 'bar/22* 10/7*/4* 8/5',
        'bar/22* 10/7*/4*/1', 'bar/22* 13/10 6/3(2)', 'bar/22* 13/10 8/2',
        'bar/22* 13/10 8/5 6/3', 'bar/22* 13/10 8/5(2)', 'bar/22* 13/10(2) 6/3',
        'bar/22* 13/10(2) 8/5', 'bar/22* 13/10(3)', 'bar/22* 13/7* 10/7',
        'bar/22* 13/7* 13/10', 'bar/22* 13/7* 6/3', 'bar/22* 13/7* 8/5', 'bar/22* 13/7*/4*',
        'bar/22* 6/3(3)', 'bar/22* 8/2 6/3', 'bar/22* 8/2 8/5', 'bar/22* 8/5 6/3(2)',
        'bar/22* 8/5(2) 6/3', 'bar/22* 8/5(3)',
    ]),
    ('XL2QQwBdHBwANg', 5, 5, [
        '11/1 11/6(2)', '11/1 6/1(2)', '11/1(2)', '23/18* 11/1 11/6', '23/18* 11/1 6/1',
        '23/18* 11/6(3)', '23/18* 6/1(3)', '23/18*(2) 11/1', '23/18*(2) 11/6(2)',
        '23/18*(2) 6/1(2)', '23/18*/13 11/1', '23/18*/13 11/6(2)', '23/18*/13 23/18 11/6',
        '23/18*/13 23/18 6/1', '23/18*/13 6/1(2)', '23/18*/13(2)', '23/18*/8* 11/6',
        '23/18*/8* 23/18', '23/18*/8* 6/1', '23/18*/8*/3',
    ]),
    ('F1Cg9Ak3GD0AQw', 6, 6, [
        'bar/1', 'bar/13 10/4 7/1', 'bar/13 21/15* 10/4', 'bar/13 21/15* 7/1',
        'bar/13 21/15*(2)', 'bar/13 21/15*/9*', 'bar/13 7/1(2)', 'bar/19 10/4 7/1(2)',
        'bar/19 21/15* 10/4 7/1', 'bar/19 21/15* 7/1(2)', 'bar/19 21/15*(2) 10/4',
        'bar/19 21/15*(2) 7/1', 'bar/19 21/15*/9* 10/4', 'bar/19 21/15*/9* 21/15',
        'bar/19 21/15*/9* 7/1', 'bar/19 21/15*/9*/3*', 'bar/7 10/4', 'bar/7 21/15*',
    ]),
    ('aF+GERBUz4MDIA', 4, 3, [
        '13/10 13/9*', '13/10 5/1', '13/10 6/2*', '13/10 8/4', '13/6', '13/9* 4/1',
        '13/9* 5/2*', '13/9* 6/3', '13/9* 8/5', '13/9*/6', '24/21* 13/9*', '24/21* 5/1',
        '24/21* 6/2*', '24/21* 8/4', '24/21*/17', '5/1 4/1', '6/2* 4/1', '6/2* 5/2', '6/3 5/1',
        '6/3 6/2*', '8/1', '8/4 5/2*', '8/4 6/3', '8/5 6/2*', '8/5 8/4',
    ]),
    ('bgMEOTF+ExACPA', 1, 1, [
        '12/10 3/2(2)', '12/10 5/4* 3/2', '12/10 5/4*/3', '12/11 5/4* 3/2(2)', '12/11 5/4*/2',
        '12/8*', '12/9 3/2', '12/9 5/4*', '16/13* 12/11', '16/13* 3/2', '16/13* 5/4*',
        '16/13*/12', '16/14 12/10', '16/14 12/11 3/2', '16/14 12/11 5/4*', '16/14 3/2(2)',
        '16/14 5/4* 3/2', '16/14 5/4*/3', '16/15 12/10 3/2', '16/15 12/10 5/4*',
        '16/15 12/11 3/2(2)', '16/15 12/11 5/4* 3/2', '16/15 12/11 5/4*/3', '16/15 12/9',
        '16/15 5/4* 3/2(2)', '16/15 5/4*/2', '5/4*/2 3/2',
    ]),
    ('FWfkATDQz+ABQg', 2, 1, [
        'bar/23* 21/20', 'bar/23* 5/4', 'bar/23* 6/5', 'bar/23* 8/7', 'bar/23*/22*',
        'bar/24* 13/11', 'bar/24* 5/3', 'bar/24* 6/4', 'bar/24* 8/6', 'bar/24*/22*',
    ]),
    ('rScUQgZ7H6ACQA', 5, 3, [
        'bar/17', 'bar/20 11/8', 'bar/20 12/9', 'bar/20 13/10*', 'bar/22* 11/6*',
        'bar/22* 12/7', 'bar/22* 13/8', 'bar/22*/17',
    ]),
    ('7x8KABD8yIiERA', 2, 4, [
        'bar/19*', 'bar/21 11/9', 'bar/21 14/12', 'bar/21 16/14', 'bar/21 20/18*',
        'bar/21 22/20', 'bar/21 3/1', 'bar/21 6/4', 'bar/21 8/6',
    ]),
    ('vwSIPAG/FBgQcA', 6, 6, [
        'bar/13* bar/19(2)', 'bar/19(3) 11/5', 'bar/19(3) 18/12',
    ]),
    ('/2IEYATvfgIgAA', 6, 6, [
        '16/4*/off 5/off',
    ]),
    ('1+kCgAXt8Q8AAA', 2, 4, [
        '6/2 3/1', '6/4* 6/2', '6/4*/off', '6/off',
    ]),
    ('i5iIQjn+PwQAAA', 2, 4, [
        '6/4*/off', '6/off',
    ]),
    ('3wVoJAhvADD0QQ', 6, 3, [
        'bar/16', 'bar/19 15/12', 'bar/19 20/17', 'bar/22* 15/9', 'bar/22* 20/14*',
        'bar/22*/16',
    ]),
    ('/7cAAAG/cwQBQA', 3, 4, [
        'bar/18', 'bar/21 12/9', 'bar/21 4/1', 'bar/21 7/4', 'bar/22* 12/8', 'bar/22* 7/3',
        'bar/22*/18',
    ]),
    ('/REeBAE9B0EURg', 1, 6, [
        'bar/18', 'bar/19 14/13', 'bar/19 18/17', 'bar/19 2/1', 'bar/19 22/21', 'bar/19 4/3',
        'bar/19 9/8', 'bar/24* 14/8', 'bar/24* 17/11*', 'bar/24* 18/12', 'bar/24* 9/3',
        'bar/24*/18',
    ]),
    ('FwrsQCb+QIsUAg', 5, 5, [
        '13/8 10/5* 9/4(2)', '15/10 13/8 9/4(2)', '15/5* 10/5 9/4', '15/5* 13/8 10/5',
        '15/5* 13/8 9/4', '15/5* 9/4(2)', '20/10 13/8 9/4', '20/10 15/10 13/8',
        '20/10 15/10 9/4', '20/10 9/4(2)', '20/15 10/5* 9/4(2)', '20/15 13/8 10/5* 9/4',
        '20/15 13/8 9/4(2)', '20/5* 10/5', '20/5* 13/8', '20/5* 15/10', '20/5* 9/4',
    ]),
    ('/qmLAAAXAAAAAA', 1, 2, [
        '2/off', '2/off 1/off',
    ]),
    ('dwAAgPu9AAAAAA', 4, 2, [
        '4/2 3/off', '4/off 2/off', '4/off 3/1',
    ]),
    ('vwmBwQHvHwCIAQ', 6, 5, [
        '16/5', '19/14 16/10', '19/14 19/13', '19/8',
    ]),
    ('9S8AADz2OMEBQQ', 4, 6, [
        'bar/15', 'bar/19 13/9', 'bar/19 20/16', 'bar/19 6/2', 'bar/19 8/4', 'bar/21* 13/7',
        'bar/21* 20/14', 'bar/21* 8/2', 'bar/21*/15',
    ]),
    ('4A8B9DD2DYpIQA', 4, 5, [
        'bar/16', 'bar/20 10/6*', 'bar/20 13/9', 'bar/20 16/12', 'bar/20 18/14', 'bar/21 13/8',
        'bar/21 16/11', 'bar/21 18/13', 'bar/21 9/4',
    ]),
    ('fwcKgBL/B4QAQg', 5, 5, [
        'bar/10 12/7', 'bar/10 21/16*', 'bar/10 8/3', 'bar/15 12/2*', 'bar/15 12/7 8/3',
        'bar/15 21/16* 12/7', 'bar/15 21/16* 8/3', 'bar/15 21/16*/11', 'bar/20 12/2* 8/3',
        'bar/20 21/16* 12/2*', 'bar/20 21/16* 12/7 8/3', 'bar/20 21/16*/11 12/7',
        'bar/20 21/16*/11 8/3', 'bar/20 21/16*/6', 'bar/5*',
    ]),
    ('TM+MAQrBPGMAXA', 1, 3, [
        'bar/21', 'bar/24 10/7', 'bar/24 13/10', 'bar/24 6/3*', 'bar/24 8/5',
    ]),
]

MOVETUPLE_CASES = [
    ('4HPwATDgc/ABMA', [(24, 18), (18, 13)], '24/13'),
    ('4HPwATDgc/ABMA', [(24, 18), (13, 8)], '24/18 13/8'),
    ('4HPwATDgc/ABMA', [(6, 5), (8, 5)], '8/5 6/5'),
    ('4HPwATDgc/ABMA', [(24, 18), (24, 18), (13, 7), (13, 7)], '24/18(2) 13/7(2)'),
    ('4HPwATDgc/ABMA', [(13, 9), (13, 9), (9, 5), (6, 2)], '13/5 13/9 6/2'),
    ('4HPwATDgc/ABMA', [(6, 4), (4, 2), (6, 4), (4, 2)], '6/2(2)'),
    ('4HPwATDgc/ABMA', [(8, 5), (8, 5), (8, 5), (6, 3)], '8/5(3) 6/3'),
    ('4HPwATDgc/ABMA', [(13, 8), (8, 2)], '13/2'),
    ('4HPwATDgc/ABMA', [(13, 11), (6, 1)], '13/11 6/1*'),
    ('4HPwATDgc/ABMA', [(24, 23), (23, 22), (22, 21), (21, 20)], '24/20'),
    ('VQD/BwDg/wcAQA', [(25, 24), (24, 23), (23, 22), (22, 21)], 'bar/24*/23*/22*/21*'),
    ('VQD/BwDg/wcAQA', [(25, 24), (6, 5)], 'bar/24* 6/5'),
    ('VQD/BwDg/wcAQA', [(25, 23), (23, 21)], 'bar/23*/21*'),
    ('VQD/BwDg/wcAQA', [(25, 22), (6, 3)], 'bar/22* 6/3'),
    ('4HPwQiDgc/ABMA', [(13, 7), (13, 7)], '13/7*(2)'),
    ('4HPwQiDgc/ABMA', [(13, 7), (13, 7), (7, 1), (8, 2)], '13/7*/1* 13/7 8/2'),
    ('4HPwQiDgc/ABMA', [(13, 8), (8, 7)], '13/7*'),
    ('4HPwQiDgc/ABMA', [(8, 7), (7, 1)], '8/7*/1*'),
    ('4HPwQiDgc/ABMA', [(13, 7), (7, 1)], '13/7*/1*'),
    ('4HPwQiDgc/ABMA', [(24, 23), (23, 22), (22, 21), (21, 20)], '24/20'),
    ('4HPwQiDgc/ABMA', [(8, 7), (8, 7), (8, 7), (6, 5)], '8/7*(3) 6/5'),
    ('4HPwEQTgc/ABMA', [(13, 9), (9, 4)], '13/9*/4*'),
    ('4HPwEQTgc/ABMA', [(13, 8), (8, 4)], '13/4*'),
    ('4HPwEQTgc/ABMA', [(13, 9), (13, 9)], '13/9*(2)'),
    ('4HPwEQTgc/ABMA', [(13, 9), (9, 5), (5, 1), (8, 4)], '13/9*/1 8/4*'),
    ('3/cBAADt7g4AAA', [(6, 0), (5, 0)], '6/off 5/off'),
    ('3/cBAADt7g4AAA', [(3, 0), (3, 0), (3, 0), (2, 0)], '3/off(3) 2/off'),
    ('3/cBAADt7g4AAA', [(6, 2), (2, 0)], '6/off'),
    ('3/cBAADt7g4AAA', [(6, 1), (1, 0)], '6/off'),
    ('3/cBAADt7g4AAA', [(4, 0), (4, 0), (4, 0), (1, 0)], '4/off(3) 1/off'),
    ('MAAA0AMAAAAAAA', [(3, 0), (3, 0), (3, 0), (3, 0)], '3/off(4)'),
    ('MAAA0AMAAAAAAA', [(3, 0), (2, 0)], '3/off 2/off'),
    ('MAAA0AMAAAAAAA', [(3, 1), (1, 0)], '3/off'),
]

PARSE_CASES = [
    ('24/18 13/11', [(24, 18), (13, 11)]),
    ('bar/22*', [(25, 22)]),
    ('b/22', [(25, 22)]),
    ('ba/22', [(25, 22)]),
    ('BAR/22', [(25, 22)]),
    ('Bar/22*', [(25, 22)]),
    ('25/22', [(25, 22)]),
    ('6/off', [(6, 0)]),
    ('6/OFF', [(6, 0)]),
    ('6/of', [(6, 0)]),
    ('6/o', [(6, 0)]),
    ('6/0', [(6, 0)]),
    ('8/5(2)', [(8, 5), (8, 5)]),
    ('8/5*(2)', [(8, 5), (8, 5)]),
    ('8/5(2)*', [(8, 5), (8, 5)]),
    ('13/7*/5', [(13, 7), (7, 5)]),
    ('13/7/5', [(13, 7), (7, 5)]),
    ('13/7/5(2)', [(13, 7), (13, 7), (7, 5), (7, 5)]),
    ('24/18/12(2)', [(24, 18), (24, 18), (18, 12), (18, 12)]),
    ('8/5(2) 6/5(2)', [(8, 5), (8, 5), (6, 5), (6, 5)]),
    ('13/8(3)', [(13, 8), (13, 8), (13, 8)]),
    ('1/0(4)', [(1, 0), (1, 0), (1, 0), (1, 0)]),
    ('6/2(4)', [(6, 2), (6, 2), (6, 2), (6, 2)]),
    ('13 8 6 5', [(13, 8), (6, 5)]),
    ('13 8/5', [(13, 8), (8, 5)]),
    ('  13/8   6/5  ', [(13, 8), (6, 5)]),
    ('13/8,13/7', [(13, 8), (13, 7)]),
    ('13/8, 6/5', [(13, 8), (6, 5)]),
    ('13 / 8', [(13, 8)]),
    ('bar/20/14', [(25, 20), (20, 14)]),
    ('bar/20*/14*/8/2', [(25, 20), (20, 14), (14, 8), (8, 2)]),
    ('6/5 8/5', [(8, 5), (6, 5)]),
    ('5/1 6/5', [(6, 5), (5, 1)]),
    ('13/8 13/8 13/8 13/8', [(13, 8), (13, 8), (13, 8), (13, 8)]),
    ('13/10/7/4(2)', None),
    ('13/8 13/8 13/8 13/8 13/8', None),
    ('13/8/', None),
    ('/13/8', None),
    ('13//8', None),
    ('13/8(1)', None),
    ('13/8(0)', None),
    ('13/(2)', None),
    ('13/8(5)', None),
    ('13/8 6/5(3)', [(13, 8), (6, 5), (6, 5), (6, 5)]),
    ('0/5', None),
    ('6/25', None),
    ('13/25', None),
    ('off/5', None),
    ('6/off/3', None),
    ('bar/bar', None),
    ('13/26', None),
    ('13/8 x', None),
    ('13.8', None),
    ('', []),
    ('   ', []),
    ('o', None),
    ('13', None),
    ('13/8 6', None),
    ('13/8(2 6/5', [(13, 8), (13, 8), (6, 5)]),
    ('13 8 6 5 4 3 2 1', [(13, 8), (6, 5), (4, 3), (2, 1)]),
    ('13 8 6 5 4 3 2 1 0', None),
    ('b/24/18', [(25, 24), (24, 18)]),
    ('25/24/23/22/21', [(25, 24), (24, 23), (23, 22), (22, 21)]),
    ('25/24/23/22/21/20', None),
    ('bar/23 23/17', [(25, 23), (23, 17)]),
    ('offf', None),
    ('6/offf', None),
    ('6/barr', None),
    ('24/18 18/13', [(24, 18), (18, 13)]),
    ('13/8(2) 6/5(2)', [(13, 8), (13, 8), (6, 5), (6, 5)]),
    ('6/5(2)(2)', [(6, 5), (6, 5), (6, 5)]),
    ('8/5((2)', None),
    ('24*/18', [(24, 18)]),
]

MOVE_COMMAND_CASES = [
    ('djkDADq8vDCAQQ', 5, 1, '25/20 7/6', 'bar/20 7/6', 'bar/20 7/6'),
    ('fxUAIUk/A7iEQA', 6, 1, '25/19 13/12', 'bar/19 13/12', 'bar/19 13/12'),
    ('b5MrBAAPAAAAAA', 4, 6, '1/off 1/off', '1/off(2)', '1/off(2)'),
    ('f+YACgi/MwAgQw', 2, 1, '25/23 19/18', 'bar/23 19/18', 'bar/23 19/18'),
    ('1oMABw83/EIAIQ', 4, 6, '24/20 20/14', '24/14', '24/14'),
    ('e8JUggKPiAR2RA', 6, 1, '25/19 19/18', 'bar/18', 'bar/18'),
    ('/wcSBBCfnyAARA', 2, 5, '25/20 3/1', 'bar/20 3/1', 'bar/20 3/1'),
    ('nfkEBBRhrxcARA', 3, 2, '25/22 8/6', 'bar/22 8/6', 'bar/22 8/6'),
    ('/sqBoAAe7wBAWA', 5, 5, '25/20 20/15 15/10 6/1', 'bar/10 6/1', 'bar/10 6/1'),
    ('OWchARrHpgBITg', 2, 6, '25/19 21/19', 'bar/19 21/19', 'bar/19 21/19'),
    ('/Q4UVAD3jJCQAQ', 2, 4, '11/9 7/3', '11/9* 7/3', '11/9* 7/3'),
    ('/5QgiEADPsiGSA', 6, 3, '25/19 13/10', 'bar/19* 13/10', 'bar/19* 13/10'),
    ('Dp/gIgHcAE4wPA', 2, 3, '13/11 13/10', '13/11* 13/10', '13/11* 13/10'),
    ('9gsgJwF/NIGEAQ', 6, 3, '15/12 7/1', '15/12* 7/1', '15/12* 7/1'),
    ('c6YA5CEyY2UgQw', 6, 1, 'bar/19 2/1', 'bar/19 2/1*', 'bar/19 2/1*'),
    ('v5LCAAlfPiEJAA', 3, 3, '10/7 7/4 6/3 4/1', '10/1 6/3*', '10/1 6/3*'),
    ('mE9wCgOd3JARIA', 5, 2, '16/9', '16/9*', '16/9*'),
    ('3AoUOA33QCCAPg', 2, 6, '24/18 14/12', '24/18 14/12*', '24/18 14/12*'),
    ('znwGBBSh50tACA', 6, 1, '8/7 8/2', '8/7 8/2*', '8/7 8/2*'),
    ('sSCCR1PGBrwYFA', 1, 2, '14/12 2/1', '14/12* 2/1*', '14/12* 2/1*'),
    ('/n4gAAE7IHGIOA', 2, 3, '24/21 14/12', '24/21 14/12', '24/21 14/12'),
    ('/+SFAAD/PgAAAA', 1, 4, '2/off 1/off', '2/off 1/off', '2/off 1/off'),
    ('8Qk0IFbs8yQEEA', 6, 1, '10/4 8/7', '10/4 8/7', '10/4 8/7'),
    ('/5QgiEADPsiGSA', 6, 3, 'bar/22* 23/17', 'bar/22* 23/17', 'bar/22* 23/17'),
    ('24MJghH/uRAAAQ', 6, 4, '19/15* 8/2*', '19/15* 8/2*', '19/15* 8/2*'),
    ('24MJKgL/uYAAAQ', 1, 2, '11/9* 3/2', '11/9* 3/2', '11/9* 3/2'),
    ('wtfBIEHCuXCEMA', 3, 2, '13/8 8/13', '13/8', None),
    ('/Q4UVAD3jJCQAQ', 2, 4, '13/7 13/7 13/7', '13/7', None),
    ('xB8YQyIOQCLMLw', 4, 2, '24/18(2)', '24/18', None),
    ('xGfwCSCkc/ABMA', 1, 4, '13/8 8/13', '13/8', None),
    ('wfMVAQng80EwFA', 6, 6, '22/16 18/6 8/2', None, '22/16* 18/12*/6 8/2'),
    ('0jZhwBjIZ2ICUg', 2, 2, 'bar/21 8/4', None, 'bar/23*/21* 8/4'),
    ('720kAAL7e4EAAA', 5, 5, '10/off 4/off 3/off', None, '10/5*/off 4/off 3/off'),
    ('0jZhwBjIZ2ICUg', 2, 2, 'bar/21 24/22 13/11', None, 'bar/23*/21* 24/22 13/11'),
    ('Lj2DRQDcCCRiXA', 3, 6, 'bar/16', None, 'bar/22*/16'),
    ('72cBAgF3QWQHAQ', 1, 5, 'bar/20', None, None),
    ('0F/gEQjg6yMANA', 2, 3, '24/1', None, None),
    ('recDCQBnMUCOYA', 6, 1, '6/off', None, None),
    ('dYMGoDIensGAYA', 2, 2, '1/off(2)', None, None),
    ('/20JAAD7vgEAAA', 6, 4, '8/5 6/5 24/1', None, None),
    ('m9waQAEfsCDwQQ', 5, 2, '6/off', None, None),
]


# ---------------------------------------------------------------- formatting

@pytest.mark.parametrize("pid, d1, d2, expected", FORMAT_CASES,
                         ids=[f"{c[0]}-{c[1]}{c[2]}" for c in FORMAT_CASES])
def test_notation_of_every_legal_play_matches_gnubg(pid, d1, d2, expected):
    board = board_from_position_id(pid)
    ours = legal_move_notations(board, d1, d2)
    assert collections.Counter(ours) == collections.Counter(expected)
    # and each notation leads back to its own play
    for i, text in enumerate(ours):
        assert match_move(board, d1, d2, text) == i


@pytest.mark.parametrize("pid, steps, expected", MOVETUPLE_CASES)
def test_format_move_matches_movetupletostring(pid, steps, expected):
    board = board_from_position_id(pid)
    assert format_move(board, steps) == expected
    # the order of the steps does not matter
    assert format_move(board, list(reversed(steps))) == expected


def test_format_move_accepts_padded_step_arrays():
    after, steps = legal_afterstates(START, 3, 1)
    texts = [format_move(START, st) for st in steps]
    assert "8/5 6/5" in texts and "24/20" in texts
    assert format_move(START, np.array([[8, 5], [6, 5], [-1, -1], [-1, -1]], dtype=np.int8)) == "8/5 6/5"
    assert format_move(START, []) == ""


@pytest.mark.parametrize("steps", [[(26, 20)], [(0, 5)], [(6, 25)], [(6, 5)] * 5])
def test_format_move_rejects_bad_steps(steps):
    with pytest.raises(ValueError):
        format_move(START, steps)


def test_legal_moves_helper():
    moves = legal_moves(START, 3, 1)
    assert len(moves) == 16
    steps, text, after = moves[[m[1] for m in moves].index("8/5 6/5")]
    assert sorted(steps) == [(6, 5), (8, 5)]
    assert after[1, 4] == 2 and after[1, 7] == 2 and after[1, 5] == 4
    closed = board_from_points({25: 1, 11: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 18: 3})
    (only,) = legal_moves(closed, 6, 6)
    assert only[:2] == ((), "")
    np.testing.assert_array_equal(only[2], closed)
    assert legal_move_notations(closed, 6, 6) == [""]


def test_format_steps_plain():
    steps = [(13, 9), (25, 24)]
    assert format_steps_plain(steps) == "25/24 13/9"
    assert format_steps_plain(steps, words=True) == "bar/24 13/9"
    b = board_from_points({25: 1, 13: 14}, {9: 1, 24: 1})
    assert format_steps_plain(steps, b, words=True) == "bar/24* 13/9*"
    assert format_steps_plain([(6, 0), (6, 0)], words=True) == "6/off 6/off"


# ---------------------------------------------------------------- parsing

@pytest.mark.parametrize("text, expected", PARSE_CASES)
def test_parse_move_matches_gnubg(text, expected):
    if expected is None:
        with pytest.raises(ValueError, match="cannot parse move"):
            parse_move(text)
    else:
        assert parse_move(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("24-18 13-11", [(24, 18), (13, 11)]),      # '-' between points read as '/'
    ("24-18-13", [(24, 18), (18, 13)]),
    ("bar-20 6-off", [(25, 20), (6, 0)]),
    ("6 -", [(6, 0)]),                          # gnubg's ParseMove: '-' is "off"
    ("6/- 5/-", [(6, 0), (5, 0)]),
])
def test_parse_move_dashes(text, expected):
    assert parse_move(text) == expected


@pytest.mark.parametrize("text, message", [
    ("13/8(2", None),                            # count at the very end is fine
    ("x", "unexpected character 'x'"),
    ("13/8 6", "no destination"),
    ("6/25", "to the bar"),
    ("off/3", "from off"),
    ("6/off/3", "cannot continue"),
    ("13/8(1)", "invalid count"),
    ("/13", "before the first point"),
    ("13//8", "two '/'"),
    ("13/8/", "at the end"),
    ("13/10/7/4/1/0", "more than 4 steps"),
    ("27/20", "no point 27"),
])
def test_parse_move_errors(text, message):
    if message is None:
        assert parse_move(text) == [(13, 8), (13, 8)]
    else:
        with pytest.raises(ValueError, match=message):
            parse_move(text)


def test_parse_move_needs_a_string():
    with pytest.raises(ValueError, match="string"):
        parse_move(None)


# ---------------------------------------------------------------- matching

@pytest.mark.parametrize("pid, d1, d2, text, gnubg, ours", MOVE_COMMAND_CASES)
def test_match_move_against_gnubgs_move_command(pid, d1, d2, text, gnubg, ours):
    board = board_from_position_id(pid)
    notations = legal_move_notations(board, d1, d2)
    if ours is None:
        with pytest.raises(ValueError):
            match_move(board, d1, d2, text)
    else:
        assert notations[match_move(board, d1, d2, text)] == ours
    if gnubg is not None and ours is not None:
        assert ours == gnubg


@pytest.mark.parametrize("text", [
    "8/5 6/5", "6/5 8/5", "8/5, 6/5", "8 5 6 5", "8-5 6-5", " 8/5   6/5 ", "6/5 8/5*",
])
def test_match_move_forms_of_one_play(text):
    for d1, d2 in ((3, 1), (1, 3)):
        notations = legal_move_notations(START, d1, d2)
        assert notations[match_move(START, d1, d2, text)] == "8/5 6/5"


@pytest.mark.parametrize("d1, d2, text, expected", [
    (6, 5, "24/13", "24/13"),
    (6, 5, "24/18 18/13", "24/13"),
    (6, 5, "24/18/13", "24/13"),
    (6, 5, "24-13", "24/13"),
    (6, 6, "24/18(2) 13/7(2)", "24/18(2) 13/7(2)"),
    (6, 6, "24/18 24/18 13/7 13/7", "24/18(2) 13/7(2)"),
    (6, 6, "13/7(4)", "13/7(4)"),
    (4, 4, "24/16(2)", "24/16(2)"),
    (4, 4, "24/20/16(2)", "24/16(2)"),
    (6, 2, "24/18 13/11", "24/18 13/11"),
    (6, 1, "13/7 8/7", "13/7 8/7"),
])
def test_match_move_from_the_start(d1, d2, text, expected):
    notations = legal_move_notations(START, d1, d2)
    assert notations[match_move(START, d1, d2, text)] == expected


AMBIGUOUS = board_from_points({13: 5, 6: 5, 4: 3, 24: 2}, {8: 1, 10: 1, 12: 4, 17: 3, 19: 5, 1: 1})
ONE_DIE = board_from_points({20: 1}, {12: 2, 24: 13})            # 6-2: 20/14 or 20/18, never both
OUTSIDE = board_from_points({8: 2, 5: 13}, {24: 15})
ON_BAR = board_from_position_id("4HPDARLgc/AAWA")      # captured from gnubg 1.07: one checker on the bar
DANCE = board_from_position_id("2nY3AADvEwAAXg")       # captured from gnubg 1.07: 6-5 cannot enter


@pytest.mark.parametrize("board, d1, d2, text, message", [
    (START, 6, 5, "24/19 13/7", "24/19: point 19 is blocked (5 opposing checkers)"),
    (START, 6, 5, "13/9 13/8", "13/9: not playable with 6-5"),
    (START, 6, 5, "24/18", "'24/18' uses one die, but both dice of 6-5 can be played"),
    (START, 6, 5, "23/17 13/8", "23/17: no checker on 23"),
    # the step at fault is named as written (gnubg's order would name 24/21 each time)
    (START, 3, 1, "24/21 24/23 24/22", "24/22: no checker left on 24"),
    (START, 3, 1, "24/22 24/21 24/23", "24/23: no checker left on 24"),
    (START, 3, 1, "24-21 24-23 24-22", "24/22: no checker left on 24"),
    (START, 6, 5, "8/13 6/1", "8/13: checkers move from higher to lower points"),
    (START, 6, 5, "13/13 24/13", "13/13: a checker cannot stay put"),
    (START, 5, 5, "13/8", "'13/8' uses 1 of the four 5s, but 4 can be played"),
    (START, 6, 6, "24/18(2) 13/7", "uses 3 of the four 6s"),
    (START, 6, 6, "24/12", "24/12: point 12 is blocked"),
    (START, 2, 2, "6/off", "6/off: cannot bear off while checkers are outside the home board"),
    (START, 6, 5, "", "no move given, but 6-5 can be played"),
    (START, 6, 5, "hello", "cannot parse move 'hello'"),
    (START, 3, 1, "8/5 6/5 24/1", "24/1: point 1 is blocked"),   # gnubg accepts (ignores the tail)
    (AMBIGUOUS, 5, 3, "13/5", "'13/5' is ambiguous with 5-3: it could be '13/8*/5' or '13/10*/5'"),
    (ONE_DIE, 6, 2, "20/18", "only one die of 6-2 can be played, so it must be the larger (6)"),
    (ONE_DIE, 6, 2, "20/12", "20/12: point 12 is blocked"),
    (OUTSIDE, 6, 5, "8/2 5/off", "5/off: cannot bear off while checkers are outside the home board"),
    (ON_BAR, 1, 4, "13/9 13/12", "13/9: must enter from the bar first"),   # the first step written
    (DANCE, 6, 5, "bar/20", "no legal play with 6-5; the roll is forfeited"),
])
def test_match_move_errors(board, d1, d2, text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        match_move(board, d1, d2, text)


def test_match_move_special_cases():
    notations = legal_move_notations(AMBIGUOUS, 5, 3)
    assert notations[match_move(AMBIGUOUS, 5, 3, "13/8*/5")] == "13/8*/5"
    assert notations[match_move(AMBIGUOUS, 5, 3, "13/8 8/5")] == "13/8*/5"
    assert notations[match_move(AMBIGUOUS, 5, 3, "13/10/5")] == "13/10*/5"
    assert legal_move_notations(ONE_DIE, 6, 2)[match_move(ONE_DIE, 6, 2, "20/14")] == "20/14"
    assert legal_move_notations(OUTSIDE, 6, 5)[match_move(OUTSIDE, 6, 5, "8/2 8/3")] == "8/3 8/2"
    assert legal_move_notations(ON_BAR, 1, 4)[match_move(ON_BAR, 1, 4, "bar/24 13/9")] == "bar/24 13/9"
    assert match_move(DANCE, 6, 5, "") == 0
    assert match_move(DANCE, 6, 5, "   ") == 0


@pytest.mark.parametrize("d1, d2", [(0, 1), (7, 1), (True, 2), ("3", 1), (2.0, 1)])
def test_match_move_bad_dice(d1, d2):
    with pytest.raises(ValueError, match="1..6|integer"):
        match_move(START, d1, d2, "8/5 6/5")


def test_match_move_bad_board():
    with pytest.raises(ValueError):
        match_move(np.zeros((2, 24)), 3, 1, "8/5 6/5")


def test_every_play_in_single_steps_is_understood():
    # what an external player sends: one step per die, source descending
    for pid, d1, d2, _ in FORMAT_CASES:
        board = board_from_position_id(pid)
        for i, (steps, text, after) in enumerate(legal_moves(board, d1, d2)):
            assert match_move(board, d1, d2, format_steps_plain(steps, words=True)) == i
            assert match_move(board, d1, d2, format_steps_plain(steps)) == i
