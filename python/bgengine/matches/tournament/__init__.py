"""Tournaments: round robin, knock-out ("win or leave") and self against older self.

Every game here is a cubeless money game played by the compiled match loop
(:func:`bgengine.core.agents.play_match`), or for GNU Backgammon (players ``gnubg``,
``gnubg:N``) by a pool of gnubg processes (:mod:`bgengine.opponents.gnubg`), in *game pairs*: one dice sequence played
twice with the seats swapped, so most of the luck cancels.  Games are spread
over ``threads`` threads inside the compiled core; pair ``i`` of a pairing
depends only on the pairing's seed and ``i``, so every result below is a
function of the master seed alone, whatever the number of threads or the batch
size.

Seeds
    Each pairing gets its own dice seed, derived from the master seed, the
    kind of tournament and the two players' names (SHA-256; see
    :func:`derive_seed`).  Adding or removing a player does not change the
    games of the other pairings.

Round robin (:func:`round_robin`)
    Every pair of players plays ``games`` games.  The result is the ppg matrix
    ``ppg[i, j]`` = points per game of player ``i`` (row) against player ``j``
    (column), with 95% confidence intervals from the spread of the game-pair
    means.  Each unordered pairing is played once and read from both sides,
    so ``ppg[j, i] == -ppg[i, j]`` exactly.  Players are ranked by their mean
    ppg over all opponents.

Knock-out (:func:`knockout`), the sources' "win or leave"
    The pool is shuffled (deterministically, from the seed) and paired; a
    pairing plays batches of ``batch_pairs`` game pairs and, after each batch,
    a player 50 (``margin``) or more points behind is out.  If neither is out
    after ``max_games`` games, the player ahead on points (higher ppg) goes
    through; an exact tie at the cap is decided by lot (from the seed).  With
    an odd pool the player drawn last has a bye.  Rounds repeat, the pool
    halving each time, until one player is left.  Files that cannot be loaded
    are named in a warning and left out.

Self against older self (:func:`older_self`)
    The latest network of a run directory or a checkpoint folder plays
    ``games`` games against every ``every``-th older one; the report is ppg
    against age (games of training between the two).

From the command line: ``bgengine tournament {roundrobin,knockout,older}``
(see :mod:`bgengine.cli.tournament`).  Ctrl-C stops after the current batch of
games; the partial results are printed and saved, marked as partial.

The modules: :mod:`~bgengine.matches.tournament.entrants` (loading and naming players),
:mod:`~bgengine.matches.tournament.pairings` (seeds, game pairs in batches, stopping),
:mod:`~bgengine.matches.tournament.roundrobin`, :mod:`~bgengine.matches.tournament.elimination`,
:mod:`~bgengine.matches.tournament.older` (with a run's history of networks) and
:mod:`~bgengine.matches.tournament.reports` (number formats, CSV and PNG files).
"""

from bgengine.matches.tournament.entrants import Entrant, load_entrants, load_network_folder
from bgengine.matches.tournament.elimination import Knockout, KnockoutMatch, knockout
from bgengine.matches.tournament.older import OlderSelf, history, older_self
from bgengine.matches.tournament.pairings import derive_seed
from bgengine.matches.tournament.roundrobin import RoundRobin, round_robin

__all__ = [
    "Entrant", "RoundRobin", "Knockout", "KnockoutMatch", "OlderSelf",
    "derive_seed", "load_entrants", "load_network_folder", "round_robin", "knockout",
    "older_self", "history",
]
