"""``bgengine play``: a human against the engine at the terminal."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import TextIO

from bgengine.cli.options import JACOBY_RULE, add_player_argument, seed_number
from bgengine.other_games import game_names, owner_of_game, players_help
from bgengine.notation.ids import MAX_MATCH_LENGTH
from bgengine.matches.players import SPEC_HELP, is_network_spec, network_file
from bgengine.matchfiles.session_file import check_session_path, default_session_path, load_session
from bgengine.terminal import HELP, LEVELS, PlaySession

__all__ = ["register", "play_main"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``play`` to the ``bgengine`` sub-commands; returns its parser."""
    p = subparsers.add_parser(
        "play", help="play against the engine in the terminal",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Play backgammon against the engine in the terminal.  You are X; moves are typed\n"
            "in standard notation (24/18 13/11, 8/5(2), bar/22*, 6/off) or by their number in\n"
            "the 'moves' list.  Dice are shown and saved with the higher die first.\n\n"
            + HELP + "\n\n"
            "Levels: easy (the network at 0-ply with 20% random plays), medium (0-ply),\n"
            "hard (2-ply lookahead).  --player SPEC: another network at the level, or any\n"
            "player instead: " + SPEC_HELP + ".\n\n" + JACOBY_RULE + "\n\n"
            "Ctrl-C ends the session (saved as far as it was played), exit status 130."),
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--match", type=int, default=None, metavar="N",
                      help=f"play a match to N points (1..{MAX_MATCH_LENGTH}), Crawford rule")
    mode.add_argument("--money", action="store_true", help="money play (the default)")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="money play: stop after N games, N more with --continue (default: "
                        "until you quit)")
    p.add_argument("--jacoby", action="store_true",
                   help="money play with the Jacoby rule (gammons count only after a double; "
                        "default off)")
    p.add_argument("--level", choices=sorted(LEVELS), default=None,
                   help="engine strength (default medium; with --continue, the saved level)")
    add_player_argument(p, "who plays for the engine: a network (net, net:PATH, PATH.npz) "
                           "plays at --level and gives the hints and cube decisions too; any "
                           "other player (pubeval, gnubg, ...) plays instead of the level's "
                           "network (default: net, the shipped network)", old=("--net",))
    p.add_argument("--hint-plies", type=int, default=2, choices=range(0, 4), metavar="N",
                   help="lookahead of 'hint' for its best candidates (0..3, default 2)")
    p.add_argument("--position", default=None, metavar="STATE",
                   help="start the first game from this position, you on roll: a Position ID, "
                        "a gnubg ID or an XGID (its position; the 'XGID=' prefix optional)")
    p.add_argument("--seed", **seed_number, default=None,
                   help="dice seed (default: random, printed); same seed and input, same game")
    saving = p.add_mutually_exclusive_group()
    saving.add_argument("--save", default=None, metavar="FILE",
                        help="save the match to this .mat file after every move (default: a "
                             "new file in $XDG_DATA_HOME/bgengine/sessions, or the --continue "
                             "file)")
    saving.add_argument("--no-save", action="store_true", help="do not save the match")
    p.add_argument("--continue", dest="resume", default=None, metavar="FILE",
                   help="continue the match saved in FILE (a .mat file) where it stopped: "
                        "score, cube, Crawford, the game in progress and whose turn it is")
    p.add_argument("--game", choices=("backgammon", *game_names()), default="backgammon",
                   help="the game (default backgammon); another game's --player is a spec "
                        f"of that game ({players_help()}, without the GAME: prefix); "
                        "--second to let it start")
    p.add_argument("--second", action="store_true",
                   help="another game than backgammon: the engine moves first")
    p.set_defaults(func=play_main)
    return p


def play_main(args: argparse.Namespace, input: TextIO | None = None,
              output: TextIO | None = None) -> int:
    """Run ``bgengine play`` with parsed ``args``; returns the exit status."""
    match_length = args.match if getattr(args, "match", None) is not None else 0
    if getattr(args, "match", None) is not None and not 1 <= args.match <= MAX_MATCH_LENGTH:
        raise ValueError(f"--match must be 1..{MAX_MATCH_LENGTH} points, got {args.match}")
    if args.jacoby and match_length:
        raise ValueError("--jacoby is a rule of money play: matches (--match) never use it")
    if args.games is not None and args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.seed is not None and not 0 <= args.seed < 1 << 64:
        raise ValueError("--seed must be in 0..2**64-1")
    inp = input if input is not None else sys.stdin
    out = output if output is not None else sys.stdout
    for stream in (inp, out):
        if isinstance(stream, io.TextIOWrapper):
            try:   # garbage bytes on stdin become U+FFFD, never a decoding error
                stream.reconfigure(errors="replace" if stream is inp else "backslashreplace")
            except (AttributeError, ValueError, io.UnsupportedOperation):  # pragma: no cover
                pass
    echo = False
    try:
        echo = not inp.isatty()
    except (AttributeError, ValueError, OSError):
        pass
    other = owner_of_game(getattr(args, "game", "backgammon"))
    if other is not None:                   # another game at the console
        return other.play(args, inp, out, echo)
    resume = _resume(args)
    if resume is not None:
        match_length = resume.record.length
    level = args.level or (resume.tags.get("level") if resume is not None else None) or "medium"
    if level not in LEVELS:
        raise ValueError(f"{args.resume}: its level {level!r} is none of {', '.join(LEVELS)}")
    save = _save_path(args, match_length)
    player, network = args.player, None
    if player is not None and is_network_spec(player):  # a network: at the level, hints, cube
        file = network_file(player)
        player, network = None, (str(file) if file is not None else None)
    if save is None and getattr(args, "position", None) is not None and not args.no_save:
        out.write("Not saved: a game from a set position has no .mat file (its games start "
                  "from the opening position).\n")
    session = PlaySession(inp, out, seed=args.seed, match_length=match_length,
                          level=level, player=player, network=network,
                          games=args.games, jacoby=args.jacoby,
                          hint_plies=args.hint_plies, echo=echo,
                          position=getattr(args, "position", None), save=save, resume=resume)
    return session.run()


def _resume(args: argparse.Namespace):
    """The saved session of ``--continue FILE`` (checked), or ``None``."""
    if getattr(args, "resume", None) is None:
        return None
    clash = [flag for flag, given in (("--match", args.match is not None), ("--money", args.money),
                                      ("--jacoby", args.jacoby),
                                      ("--position", getattr(args, "position", None) is not None))
             if given]
    if clash:
        raise ValueError(f"--continue takes the match from its file: {', '.join(clash)} "
                         "cannot be given with it")
    return load_session(args.resume)


def _save_path(args: argparse.Namespace, match_length: int) -> Path | None:
    """Where the session is saved: ``--save``, else the ``--continue`` file, else a new
    file in the sessions folder; ``None`` with ``--no-save`` or a game from ``--position``
    (a .mat file cannot start from one)."""
    if getattr(args, "no_save", False):
        return None
    if getattr(args, "save", None) is not None:
        return check_session_path(args.save)
    if getattr(args, "resume", None) is not None:
        return Path(args.resume)
    if getattr(args, "position", None) is not None:
        return None
    return default_session_path(match_length)
