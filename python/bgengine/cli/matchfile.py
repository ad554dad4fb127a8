"""``bgengine matchfile check|convert|show``: validate match files, convert between .mat and
.sgf, list a match's actions with the position before each."""

from __future__ import annotations

import argparse
import sys

from bgengine.cli.output import add_json_argument, emit
from bgengine.core.fileio import NotARegularFile

__all__ = ["register", "summary", "stop_note", "read_match", "read_match_notes"]


def summary(match) -> str:
    """One line about a :class:`bgengine.matchfiles.record.MatchRecord`: kind, players, games,
    cube actions, resignations and the final score."""
    from bgengine.matchfiles.record import Double, Drop, Play, Resign, Take

    acts = [a for g in match.games for a in g.actions]

    def count(kind) -> int:
        return sum(isinstance(a, kind) for a in acts)

    kind = f"{match.length}-point match" if match.length else "money session"
    score = list(match.games[-1].score) if match.games else [0, 0]
    last = match.games[-1].win if match.games else None
    if last is not None:
        score[last.player] += last.points
    def n(k: int, what: str) -> str:
        return f"{k} {what}{'s' * (k != 1)}"

    return (f"{kind}, {match.players[0]} vs {match.players[1]}: {n(len(match.games), 'game')}, "
            f"{n(count(Play), 'play')}, {n(count(Double), 'double')} ({count(Take)} taken, "
            f"{count(Drop)} dropped), {n(count(Resign), 'resignation')}; "
            f"{'final' if last is not None else 'unfinished at'} {score[0]}-{score[1]}")


def stop_note(match) -> str | None:
    """Where a match record stops when that may be short of its end (a file cut at a line
    boundary reads as a shorter match): a game without a result, or a match short of its
    length; ``None`` for a finished match (or a money session after a finished game).
    :func:`bgengine.matchfiles.reading.stops_short`, which the readers warn with."""
    from bgengine.matchfiles.reading import stops_short

    return stops_short(match)


def read_match_notes(path):
    """:func:`bgengine.matchfiles.read_match_file` and the
    :class:`bgengine.matchfiles.record.MatchFileWarning` it issued (where a match stops short of
    its end, a stated cube value ignored, ...), for the caller to print; any other warning
    goes on as it came."""
    import warnings

    from bgengine.matchfiles.files import read_match_file
    from bgengine.matchfiles.record import MatchFileWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MatchFileWarning)
        match = read_match_file(path)
    notes = []
    for w in caught:
        if isinstance(w.message, MatchFileWarning):
            notes.append(w.message)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return match, notes


def read_match(path, warn: bool = True):
    """:func:`bgengine.matchfiles.read_match_file`, with each of its warnings on standard error
    (``bgengine: warning: FILE: ...``: a match that stops short of its end, unfinished or a file
    cut at a line boundary; ``warn=False``: none)."""
    match, notes = read_match_notes(path)
    if warn:
        print_notes(notes)
    return match


def print_notes(notes) -> None:
    """The warnings of :func:`read_match_notes` on standard error, one line each."""
    for note in notes:
        print(f"bgengine: warning: {note}", file=sys.stderr)


def warn_if_short(path, match) -> None:
    """A warning on standard error if ``match`` (read from ``path``) stops short of its end
    (:func:`stop_note`)."""
    note = stop_note(match)
    if note is not None:
        print(f"bgengine: warning: {path}: {note}", file=sys.stderr)


def _cmd_show(args: argparse.Namespace) -> int:
    from bgengine.matchfiles.record import replay

    match = read_match(args.file)
    lines, actions = [summary(match)], []
    for m in replay(match):
        if args.game is not None and m.game + 1 != args.game:
            continue
        if m.number == 1 and m.action is match.games[m.game].actions[0]:
            g = match.games[m.game]
            lines.append(f"game {m.game + 1}: {match.players[0]} {g.score[0]}, {match.players[1]} "
                         f"{g.score[1]}{' (Crawford)' if g.crawford else ''}")
        who = match.players[m.action.player]
        gnubg_id = f"{m.position.position_id}:{m.state.match_id}"
        lines.append(f"{m.number:4d} {who:<16.16} {m.describe():<32} {gnubg_id}")
        actions.append({"game": m.game + 1, "number": m.number, "player": who,
                        "action": m.describe(), "gnubg_id": gnubg_id})
    emit(args, {"file": args.file, "summary": summary(match), "actions": actions},
         "\n".join(lines))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from bgengine.cli.status import EXIT_FAILURE, EXIT_USAGE, file_error_text

    status, lines, files = 0, [], []
    for path in args.files:
        try:
            match = read_match(path)
        except (ValueError, OSError) as exc:
            # the one form of every file error; a file that fails the check is a failure
            # (1), one that cannot be read at all bad input (2)
            text = file_error_text(exc)
            print(f"bgengine: error: {text}", file=sys.stderr)
            files.append({"file": path, "ok": False, "error": text})
            status = max(status, EXIT_USAGE if isinstance(exc, (OSError, NotARegularFile)) else EXIT_FAILURE)
            continue
        lines.append(f"ok: {path}: {summary(match)}")
        files.append({"file": path, "ok": True, "summary": summary(match)})
    emit(args, {"files": files}, "\n".join(lines) if lines else None)
    return status


def _cmd_convert(args: argparse.Namespace) -> int:
    from bgengine.matchfiles.files import file_format, write_match_file

    file_format(args.output)                  # refuse a bad name before reading
    match, notes = read_match_notes(args.input)
    write_match_file(match, args.output)
    print_notes(notes)                        # once written (a failed write is the one line)
    emit(args, {"input": args.input, "output": args.output, "summary": summary(match)},
         f"{args.input} -> {args.output}: {summary(match)}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``matchfile`` (``check``, ``convert``, ``show``) to the ``bgengine`` sub-commands."""
    p = sub.add_parser("matchfile", help="check, convert or list match files (.mat, .sgf)",
                       description="Match files as GNU Backgammon writes them: Jellyfish .mat "
                                   "(export match mat) and .sgf (save match), optionally .gz. "
                                   "Every play is checked against the rules.")
    kinds = p.add_subparsers(dest="matchfile", metavar="ACTION", required=True)
    q = kinds.add_parser("check", help="read match files, every play checked; one line each",
                         description="Read each file and replay every game: an illegal play or a "
                                     "garbled line is reported with its game, move number and "
                                     "line, in the one form of every file error ('bgengine: "
                                     "error: FILE: ...').  A match that stops short of its end "
                                     "(unfinished, or a file cut at a line boundary) is named in "
                                     "a warning.  Exit status 1 if a file fails the check, 2 if "
                                     "one cannot be read at all.")
    q.add_argument("files", nargs="+", metavar="FILE", help=".mat or .sgf file (or .gz)")
    add_json_argument(q)
    q.set_defaults(func=_cmd_check)
    q = kinds.add_parser("convert", help="convert a match file (.mat <-> .sgf)",
                         description="Read INPUT (checked) and write OUTPUT in the format its "
                                     "name says.")
    q.add_argument("input", metavar="INPUT", help=".mat or .sgf file (or .gz)")
    q.add_argument("output", metavar="OUTPUT", help=".mat or .sgf file (or .gz) to write")
    add_json_argument(q)
    q.set_defaults(func=_cmd_convert)
    q = kinds.add_parser("show", help="list a match's actions with the position before each",
                         description="Every action of every game (or of one): move number, "
                                     "player, the play in gnubg's notation or the cube action, "
                                     "and gnubg's PositionID:MatchID just before it.")
    q.add_argument("file", metavar="FILE", help=".mat or .sgf file (or .gz)")
    q.add_argument("--game", type=int, metavar="N", help="only game N (from 1)")
    add_json_argument(q)
    q.set_defaults(func=_cmd_show)
