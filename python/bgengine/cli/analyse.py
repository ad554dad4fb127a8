"""``bgengine analyse FILE``: every play and cube decision of a played match valued."""

from __future__ import annotations

import argparse

from bgengine.cli.options import JACOBY_RULE, add_player_argument, add_quiet_argument, plies_number
from bgengine.cli.output import add_json_argument, emit
from bgengine.matches.players import NETWORK_SPEC_HELP

__all__ = ["register", "report"]


def _row(label: str, values: tuple[str, str]) -> str:
    return f"  {label:<34}{values[0]:>16}{values[1]:>16}"


def report(analysis) -> str:
    """The analysis as text: the players' figures, then the errors and blunders."""
    from bgengine.cli.matchfile import summary

    a, (p0, p1) = analysis, analysis.players
    lines = [summary(a.match), f"Analysis at {a.plies}-ply; equity lost in EMG "
             f"(normalised money equity{', from match-winning chances' if a.match.length else ''})",
             "", _row("", (p0.name[:15], p1.name[:15]))]

    figures = (("Plays (unforced)", lambda p: f"{p.plays} ({p.unforced_plays})"),
               ("Cube decisions (close or actual)", lambda p: f"{p.cube_decisions}"),
               ("Checker play error (EMG)", lambda p: f"{p.checker_error:.3f}"),
               ("Cube error (EMG)", lambda p: f"{p.cube_error:.3f}"),
               ("Error rate (mEMG per decision)", lambda p: f"{p.error_rate:.1f}"),
               ("PR (XG scale)", lambda p: f"{p.pr:.1f}"),
               ("Errors / blunders", lambda p: f"{p.errors} / {p.blunders}"),
               ("Luck (EMG)", lambda p: f"{p.luck:+.3f}"),
               ("Luck rate (mEMG per roll)", lambda p: f"{p.luck_rate:+.1f}"))
    lines += [_row(label, (f(p0), f(p1))) for label, f in figures]
    marked = a.marked
    lines += ["", f"Errors and blunders ({len(marked)}):" if marked else "No errors or blunders."]
    for d in marked:
        who = a.match.players[d.player]
        lines.append(f"  game {d.game} move {d.number}, {who}: {d.mark} (-{d.equity_lost:.3f})")
        lines.append(f"    played {d.action:<30} best {d.best}")
        try:
            xgid = d.state.to_xgid()
        except ValueError:
            xgid = "(no XGID)"
        lines.append(f"    {d.state.to_gnubgid()}  {xgid}")
    return "\n".join(lines)


def _cmd_analyse(args: argparse.Namespace) -> int:
    from bgengine.decisions.analysis import analyse_match
    from bgengine.cli.hint import engine_from_args
    from bgengine.cli.matchfile import read_match
    from bgengine.cli.progress import ProgressBar

    engine = engine_from_args(args)         # a bad --player or --plies before the file
    record = read_match(args.file)          # a bad file: the one error form (bgengine.cli)
    with ProgressBar("analysing", unit="actions", quiet=args.quiet) as bar:
        analysis = analyse_match(record, engine, args.plies, progress=bar)
    if args.plot:
        from bgengine.training.plot import plot_match_analysis

        plot_match_analysis(analysis, args.plot)
    emit(args, analysis.to_dict() | {"file": args.file, "plot": args.plot}, report(analysis))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``analyse`` to the ``bgengine`` sub-commands."""
    p = sub.add_parser("analyse", aliases=["analyze"],
                       help="analyse a played match (.mat or .sgf): errors, error rates, luck",
                       description="Every checker play and cube decision of every game "
                                   "evaluated at the chosen depth: equity lost per decision, "
                                   "each player's error rate (mEMG per decision, as gnubg) and "
                                   "PR (eXtreme Gammon's scale), the errors and blunders with "
                                   "their positions, and the luck of the rolls.  " + JACOBY_RULE)
    p.add_argument("file", metavar="FILE", help=".mat or .sgf file (or .gz)")
    p.add_argument("--plies", **plies_number, default=2, help="lookahead (0-3, default 2)")
    p.add_argument("--plot", metavar="PNG", default=None,
                   help="draw the equity (money) or match-winning chance (match) of the first "
                        "player over the match to this PNG file")
    add_player_argument(p, f"the network analysing: {NETWORK_SPEC_HELP} (default: net)")
    add_quiet_argument(p)
    add_json_argument(p)
    p.set_defaults(func=_cmd_analyse)
