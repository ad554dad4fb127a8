"""GNU Backgammon as a built-in opponent: a pool of gnubg processes.

``bgengine match net gnubg`` (or ``gnubg:1``, ``gnubg:2`` for gnubg's
lookahead) measures a player against gnubg's own chequer play in cubeless
money games; with ``--cube`` (``--jacoby``) in money games with the cube and
with ``--match-length N`` in matches, gnubg playing cubefully at the cube and
score and taking its cube actions as its own player does (the double decision
before each roll, the take or pass of a double).  bgengine starts the gnubg processes itself and stops them at the
end; gnubg is an optional system program (``apt-get install gnubg``), found
through :func:`find_gnubg`.

How it works
------------
Each process is ``gnubg -t -q -r -s DIR -p gnubg_driver.py``: gnubg's text
mode running the small driver script shipped in ``bgengine/data``, which
reads one request per line (board and dice, and with the cube the cube and
score) and writes gnubg's play as single-die steps (``gnubg.findbestmove`` with
the board, dice, cube, evaluation context and move filters all passed
explicitly) or its cube action (``gnubg.cfevaluate``'s cube decision, behind
the market-window test of gnubg's own player).  gnubg hands every such call
to a worker thread and polls for its end every 10 ms, so one process answers at
most about 100 requests per second while using little CPU; the pool therefore
keeps many processes busy at once (one game each), driven from one Python
thread by ``selectors``.  The other side's plays are answered in that thread
(compiled players take about 20 us a play).

Determinism: every setting that matters is explicit in each process or request
(cubeless and no Jacoby rule, or the cube, score, Crawford and Jacoby flags of
the game; beavers off; the Kazaross-XG2 match equity table, checked at start;
deterministic evaluation, no noise, ``plies`` N, pruning as gnubg's "World
class" uses it for N > 0, gnubg's normal move filters), gnubg's
preference files are not read (``-r``, ``HOME`` and ``-s`` point at a private
temporary directory), and a reply depends only on the request, so a match
gives the same result whatever the number of processes.  Plays that are forced
(a single legal afterstate) are made without asking; nor is gnubg asked to
double without access to the cube.  With the cube, a process plays a whole
money game or match (:class:`bgengine.matches.game.CubeSeries`) before the next.

Checking: every reply is matched against our own legal plays
(:func:`bgengine.notation.match_move` over
:func:`bgengine.core.movegen.legal_afterstates`).  A game with a reply that is not
a legal play, a cube action that is not one of the two allowed (double or
roll; take or pass: beavers are off), or an error from gnubg, is stopped and
reported: its pair is left out of the result and counted in
``MatchResult.bad_games`` (``CubeMatchResult.bad_games``).  A process
that exits or does not answer within ``GnubgConfig.timeout`` is killed and
replaced, and its game replayed from the start (same dice, same plays: the
result is unchanged); after ``GnubgConfig.replays`` failed replays the game is
reported as bad too.  Every process is stopped, and reaped, when the match
ends, also on an exception or Ctrl-C; a process whose parent dies sees its
input close and exits by itself.

Modules, bottom to top: :mod:`~bgengine.opponents.gnubg.binary` (finding gnubg, its errors),
:mod:`~bgengine.opponents.gnubg.driver` (the driver's requests and replies, :class:`GnubgSettings`),
:mod:`~bgengine.opponents.gnubg.process` (one process, :class:`GnubgConfig`),
:mod:`~bgengine.opponents.gnubg.pool` (:class:`GnubgPool`: many games at once) and
:mod:`~bgengine.opponents.gnubg.player` (:class:`GnubgPlayer` and matches against it).
"""

from bgengine.opponents.gnubg.binary import ENV_BINARY, GnubgError, GnubgNotFound, find_gnubg
from bgengine.opponents.gnubg.driver import MAX_PLIES, BadReply, GnubgSettings, parse_gnubg_spec
from bgengine.opponents.gnubg.player import (GnubgPlayer, play_gnubg_cube_pairs, play_gnubg_match,
                                   play_gnubg_pairs)
from bgengine.opponents.gnubg.pool import CubePairResults, GnubgPool, PairResults
from bgengine.opponents.gnubg.process import GnubgConfig

__all__ = [
    "GnubgError", "GnubgNotFound", "GnubgSettings", "GnubgConfig", "GnubgPlayer", "GnubgPool",
    "PairResults", "CubePairResults", "BadReply", "find_gnubg", "parse_gnubg_spec",
    "play_gnubg_match", "play_gnubg_pairs", "play_gnubg_cube_pairs",
    "ENV_BINARY", "MAX_PLIES",
]
