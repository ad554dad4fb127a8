"""What reading a match file adds to the rules of :mod:`bgengine.matchfiles.record`: the dice
alone read as gnubg's ``import mat`` reads them (:func:`settle_unplayed_rolls`), and where a
record stops short of its match's end (:func:`stops_short`, which the readers warn with, a
:class:`bgengine.matchfiles.record.MatchFileWarning`)."""

from __future__ import annotations

from dataclasses import replace

from bgengine.matchfiles.record import Action, MatchRecord, Play, Win, _GameReplay, move_numbers
from bgengine.core.movegen import legal_afterstates
from bgengine.position import STARTING_BOARD

__all__ = ["settle_unplayed_rolls", "stops_short"]


def settle_unplayed_rolls(match: MatchRecord) -> MatchRecord:
    """Each :class:`Play` without steps (a ``.mat`` file's dice alone, eXtreme Gammon's
    ``???``, ``Cannot Move``) read as gnubg's ``import mat`` reads it: with no legal play
    the roll stays (forfeited); with one legal play it is that play (forced); with
    several it is the roll of a player who then resigned, and is dropped when the game's
    result (or the end of the record) follows it.  Anywhere else it stays, for
    :func:`replay` to refuse ("no move given").  The games are otherwise unchanged; a
    game that breaks the rules before such a roll is left as it is, for :func:`replay`
    to report."""
    games = []
    for i, g in enumerate(match.games):
        if not any(isinstance(a, Play) and not a.steps for a in g.actions):
            games.append(g)
            continue
        rules = _GameReplay(match, i, g)
        actions: list[Action] = []
        try:
            for k, a in enumerate(g.actions):
                if isinstance(a, Play) and not a.steps and rules.pending_double == -1 \
                        and rules.on_roll in (-1, a.player):
                    board = rules.board if rules.on_roll != -1 else STARTING_BOARD
                    after, steps = legal_afterstates(board, int(a.dice[0]), int(a.dice[1]))
                    plays = [tuple((int(x), int(y)) for x, y in st if x >= 0) for st in steps]
                    if len(after) == 1 and plays[0]:
                        a = replace(a, steps=plays[0])               # forced
                    elif len(after) > 1 and all(isinstance(b, Win) for b in g.actions[k + 1:]):
                        continue                                       # rolled, then resigned
                if not isinstance(a, Win):            # a resignation's is inferred later
                    rules.apply(a)
                actions.append(a)
        except (ValueError, TypeError, IndexError):
            games.append(g)                   # broken before: the replay says where
            continue
        games.append(replace(g, actions=actions))
    return replace(match, games=games)


def stops_short(match: MatchRecord) -> str | None:
    """Where ``match`` stops, when that may be short of its end (a match file cut at a line
    boundary reads as a shorter match): in a game without a result, or after a game that
    leaves the match short of its length.  ``None`` for a finished match, or a money
    session after a finished game (which may end anywhere)."""
    if not match.games:
        return "it holds no game: the match is unfinished, or the file was cut there"
    g = match.games[-1]
    n = len(match.games)
    if g.win is None:
        where = f"after move {move_numbers(g.actions)[-1]}" if g.actions else "at its start"
        return (f"it stops in game {n} {where}, without the game's result: the match is "
                "unfinished, or the file was cut there")
    if match.length:
        score = list(g.score)
        score[g.win.player] += g.win.points
        if max(score) < match.length:
            return (f"it stops after game {n} at {score[0]}-{score[1]} of a {match.length}-point "
                    "match: the match is unfinished, or the file was cut there")
    return None
