"""A person plays the engine in the terminal (``bgengine play``).

The board is drawn in text from the human's side (you are ``X``, moving from
your 24-point at the top right round to your 1-point at the bottom right),
with pip counts, the cube, the score, the GNU Backgammon Position ID and
Match ID.  Moves are typed in any notation the notation parser accepts
(``24/18 13/11``, ``8/5(2)``, ``bar/22*``, ``13/7*/5``, ``6/off``...).

Commands (at any prompt; ``help`` lists them)::

    roll                roll the dice (Enter also rolls)
    double              offer the cube (before rolling)
    take / drop         answer the engine's double
    hint                what `bgengine hint` says: the best plays of your roll
                        ranked with equities, or the cube action before you roll
                        or when doubled (money: cubeful equities; match:
                        match-winning chances)
    moves               list every legal play of the roll, numbered (typing a
                        number plays that play: the numbers of `bgengine moves`)
    undo                take back your last move
    resign [single|gammon|backgammon]   offer to resign; the engine accepts or declines
    accept / reject                     answer the engine's offer to resign
    show                redraw the board
    score               the score
    help, quit

Dice are shown and saved with the higher die first, as gnubg writes them.  When
you have exactly one legal play, or none, it is played for you (and said so).  When you cannot usefully double (the engine owns the cube, the
Crawford game, a dead cube) your dice are rolled for you.

Difficulty (``--level``): ``easy`` = the network at 0-ply with a random play
20% of the time, ``medium`` = the network at 0-ply, ``hard`` = 2-ply
lookahead (:class:`bgengine.core.search.Searcher`).  ``--player SPEC`` plays any
:func:`bgengine.matches.players.make_player` spec instead.  Without a network (none
shipped yet and no ``--net FILE``) the engine plays pubeval and hints are
unavailable.

Cube decisions (the engine's doubles, takes and its answer to a
resignation) come from :class:`bgengine.decisions.engine.Engine`; see its
``cube_decision`` for the rule used and its match equity table.

The match (or money session) is saved as a ``.mat`` file after every action
when a file is given (``save``; ``bgengine play`` saves by default) and a saved
one is continued where it stopped (``resume``): :mod:`~bgengine.terminal.saving`
over :mod:`bgengine.matchfiles.session_file`.

Everything runs through an ``input`` / ``output`` stream pair
(:class:`PlaySession`), so a game can be driven from a script; no input line
ever crashes it (every line is handled inside its own ``try``), and end of
input ends the session cleanly.  With the same ``--seed`` and the same input
lines a session is replayed exactly.

Modules: :mod:`~bgengine.terminal.session` (the session, a thin controller over
:mod:`bgengine.matches.game` and :mod:`bgengine.decisions.engine`), :mod:`~bgengine.terminal.commands`
(the words typed), :mod:`~bgengine.terminal.console` (the streams),
:mod:`~bgengine.terminal.drawing` (the board in text),
:mod:`~bgengine.terminal.table` (the seats and the game in progress),
:mod:`~bgengine.terminal.cube_actions` (doubles, takes and drops),
:mod:`~bgengine.terminal.advice` (hints), :mod:`~bgengine.terminal.opponent`
(the engine's plays) and :mod:`~bgengine.terminal.saving` (the saved file).
"""

from bgengine.terminal.commands import HELP
from bgengine.terminal.session import LEVELS, PlaySession
from bgengine.terminal.table import ENGINE, HUMAN

__all__ = ["PlaySession", "LEVELS", "HELP", "ENGINE", "HUMAN"]
