"""``bgengine tournament {roundrobin,knockout,older}``: tournaments between many players."""

from __future__ import annotations

import argparse
import json
import math
import textwrap
from pathlib import Path

from bgengine.core.agents import MAX_GAMES
from bgengine.cli.options import (add_backend_arguments, backend_from_args, games_number,
                                  whole_number)
from bgengine.other_games import owner_of_players
from bgengine.cli.output import add_json_argument, emit
from bgengine.core.movegen import MAX_THREADS
from bgengine.cli.progress import ProgressBar
from bgengine.interrupts import stop_on_interrupt
from bgengine.matches.run import default_threads
from bgengine.matches.tournament import (Knockout, KnockoutMatch, OlderSelf, RoundRobin, knockout,
                                 load_entrants, older_self, round_robin)
from bgengine.matches.tournament.entrants import Warn, to_stderr
from bgengine.matches.tournament.elimination import KNOCKOUT_BATCH, KNOCKOUT_MARGIN, KNOCKOUT_MAX_GAMES
from bgengine.matches.tournament.pairings import resolve_threads
from bgengine.matches.tournament.reports import fmt_ppg, write_text

__all__ = ["register", "add_tournament_parser", "tournament_main"]


def _wrap(text: str) -> str:
    """Fill each paragraph of a help text to 79 columns; indented lines (examples) stay."""
    out = []
    for para in text.split("\n\n"):
        lines = para.split("\n")
        if any(line.startswith("  ") for line in lines):
            out.append(para)
        else:
            out.append(textwrap.fill(" ".join(lines), 79))
    return "\n\n".join(out)


_EPILOG_COMMON = """
Games are cubeless money games played in pairs: each dice sequence twice, with
the seats swapped.  Results depend only on --seed, never on --threads.
Ctrl-C stops after the current batch of games; the partial results are printed
and saved (marked "complete": false) and the exit status is 130.
"""


def add_tournament_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``tournament {roundrobin,knockout,older}`` to an argparse subparsers object."""
    from bgengine.matches.players import SPEC_HELP

    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "tournament", help="round robin, knock-out or self-vs-older-self tournaments",
        formatter_class=fmt,
        description="Tournaments between many players, on all cores.\n\n"
                    "  roundrobin  every pair of players plays; ppg matrix, ranking, heatmap\n"
                    "  knockout    'win or leave' over a folder of checkpoints: 50 points behind "
                    "is out\n"
                    "  older       the latest network of a run against its older selves\n\n"
                    "Run 'bgengine tournament KIND --help' for the options of each.",
        epilog=_EPILOG_COMMON)
    p.set_defaults(func=tournament_main, tournament=None, _tournament_parser=p)
    sub = p.add_subparsers(dest="tournament", metavar="KIND")

    def common(q: argparse.ArgumentParser, games_help: str, games_default: int, out: str) -> None:
        q.add_argument("--games", **games_number, default=games_default, help=games_help)
        q.add_argument("--seed", type=int, default=0,
                       help="master seed (default 0); every pairing's dice seed is derived from "
                            "it and the two players' names, so the same seed gives the same "
                            "results")
        q.add_argument("--threads", **whole_number(1, MAX_THREADS), default=None, metavar="N",
                       help=f"threads for the games (default: all cores, here {default_threads()})")
        add_backend_arguments(q)
        q.add_argument("--out", default=out,
                       help=f"directory for the result files (default ./{out}; created if missing)")
        q.add_argument("--quiet", action="store_true",
                       help="no progress on stderr (a bar on a terminal, and a line per result)")
        add_json_argument(q)
        q.set_defaults(func=tournament_main)

    players_help = ("players: benchmark specs (" + SPEC_HELP.split(" | gnubg-external")[0] +
                    "), network files (PATH.npz or net:PATH), or directories (all their *.npz "
                    "networks; unloadable files are skipped with a warning)")

    q = sub.add_parser("roundrobin", formatter_class=fmt,
                       help="every pair of players plays N games: the ppg matrix",
                       description=_wrap("Round robin: every pair of players plays --games games.  "
                                   "Prints the matrix of points per game (row player against "
                                   "column player, ± the 95% confidence interval) and a ranking "
                                   "by mean ppg over all opponents; writes roundrobin.json, "
                                   "roundrobin_matrix.csv (the ppg matrix), roundrobin_pairs.csv "
                                   "(every pairing with win/gammon rates), roundrobin.txt and a "
                                   "heatmap roundrobin.png to --out.\n\n"
                                   "example:\n  bgengine tournament roundrobin pubeval simple3 "
                                   "random runs/a/best.npz --games 2000"),
                       epilog=_EPILOG_COMMON)
    q.add_argument("players", nargs="+", metavar="PLAYER", help=players_help)
    common(q, "games per pairing (default 1000; rounded up to an even number)", 1000,
           "tournament")

    q = sub.add_parser("knockout", formatter_class=fmt,
                       help="'win or leave' knock-out over a folder of checkpoints",
                       description=_wrap("The sources' 'win or leave' knock-out, to pick the best of "
                                   "many checkpoints.  The players are shuffled (from --seed) and "
                                   "paired; each pairing plays batches of --batch game pairs and "
                                   "after each batch a player --margin points behind (default "
                                   "50) is out.  If nobody is out after --games games, the player "
                                   "ahead on points (higher ppg) goes through; an exact tie is "
                                   "decided by lot.  With an odd number of players the last "
                                   "drawn has a bye.  The pool halves each round until one "
                                   "player is left.  Files that are not loadable networks are "
                                   "named in a warning and left out.  Writes knockout.txt (the "
                                   "bracket) and knockout.json to --out.\n\n"
                                   "example:\n  bgengine tournament knockout runs/a/checkpoints "
                                   "--games 10000"),
                       epilog=_EPILOG_COMMON)
    q.add_argument("players", nargs="+", metavar="FOLDER_OR_PLAYER",
                   help="a folder of network checkpoints (*.npz); more folders, files or "
                        "benchmark specs may be added")
    common(q, f"at most this many games per pairing (default {KNOCKOUT_MAX_GAMES}); at the cap "
              "the higher ppg goes through", KNOCKOUT_MAX_GAMES, "tournament")
    q.add_argument("--margin", **whole_number(1), default=KNOCKOUT_MARGIN,
                   help=f"points behind at which a player is out (default {KNOCKOUT_MARGIN})")
    q.add_argument("--batch", **whole_number(1, MAX_GAMES // 2, "1..5*10**7"),
                   default=KNOCKOUT_BATCH,
                   help=f"game pairs between checks of the margin (default {KNOCKOUT_BATCH}, "
                        f"i.e. {2 * KNOCKOUT_BATCH} games)")

    q = sub.add_parser("older", formatter_class=fmt,
                       help="the latest network against its older selves: ppg vs age",
                       description=_wrap("Self against older self: the newest network of a run "
                                   "directory (its network.npz, with the older snapshots kept "
                                   "in checkpoint.npz, best.npz and RUN/checkpoints/*.npz) or of "
                                   "a folder of checkpoints (ordered by the games of training "
                                   "recorded in each file, else by file name) plays --games games "
                                   "against every --every-th older network.  Writes older.txt, "
                                   "older.csv, older.json and older.png (ppg against age) to "
                                   "--out.\n\n"
                                   "example:\n  bgengine tournament older runs/a/checkpoints "
                                   "--every 5 --games 2000"),
                       epilog=_EPILOG_COMMON)
    q.add_argument("source", help="a run directory or a folder of network checkpoints")
    common(q, "games against each older network (default 1000)", 1000, "tournament")
    q.add_argument("--every", **whole_number(1), default=1,
                   help="play every k-th older network, counting back from the latest (default 1)")
    q.add_argument("--max-opponents", **whole_number(1), default=None,
                   help="play at most this many older networks, the nearest first")
    return p


def tournament_main(args: argparse.Namespace) -> int:
    """Run the tournament chosen by ``args`` (from :func:`add_tournament_parser`).

    Returns 0 when finished, 130 when stopped by Ctrl-C (partial results
    printed and saved).  Bad input raises ``ValueError`` with a clear message.
    """
    kind = getattr(args, "tournament", None)
    if kind is None:
        parser = getattr(args, "_tournament_parser", None)
        if parser is not None:
            parser.print_help()
        return 2
    other = owner_of_players(getattr(args, "players", []))
    if other is not None:                   # players of another game: a round robin only
        if kind != "roundrobin":
            raise ValueError(f"{', '.join(args.players)}: only round robins take players of "
                             f"other games (e.g. bgengine tournament roundrobin connect4:mm2 "
                             f"connect4:random)")
        with stop_on_interrupt(again_raises=True) as stop, \
                ProgressBar("roundrobin", "pairings", quiet=args.quiet) as bar:
            doc, text, complete, files = other.round_robin(args, stop, bar)
        return _finish(args, doc, text, complete, files, to_stderr)
    warn: Warn = to_stderr
    threads = resolve_threads(args.threads)
    out = Path(args.out)

    def notice() -> None:
        warn("\ninterrupted: stopping after the current batch of games "
             "(Ctrl-C again to abort at once)")

    units = {"roundrobin": "pairings", "knockout": "matches", "older": "opponents"}
    with backend_from_args(args, threads) as backend, \
            stop_on_interrupt(notice=notice, again_raises=True) as stop, \
            ProgressBar(kind, units.get(kind, "games"), quiet=args.quiet) as bar:
        if kind == "roundrobin":
            return _main_roundrobin(args, backend, out, stop, warn, bar)
        if kind == "knockout":
            return _main_knockout(args, backend, out, stop, warn, bar)
        if kind == "older":
            return _main_older(args, backend, out, stop, warn, bar)
    raise ValueError(f"unknown tournament {kind!r}")


def _finish(args: argparse.Namespace, doc: dict, text: str, complete: bool, files: list[Path],
            warn: Warn) -> int:
    """Print the result (``text``, or ``doc`` with ``--json``) and the files written;
    the exit status."""
    emit(args, {**doc, "complete": complete, "files": files},
         text + "wrote " + ", ".join(str(f) for f in files))
    if not complete:
        warn("interrupted: the results above are partial")
        return 130
    return 0


def _main_roundrobin(args, backend, out, stop, warn, bar: ProgressBar) -> int:
    entrants = load_entrants(args.players, warn)
    n = len(entrants)
    total = n * (n - 1) // 2
    count = [0]
    bar.note(f"round robin: {n} players, {total} pairings of {args.games} games, "
             f"{backend!r}, seed {args.seed}")
    bar(0, total)

    def on_pairing(rr: RoundRobin, i: int, j: int) -> None:
        count[0] += 1
        res = rr.results.get((i, j))
        if res is not None:
            bar.note(f"[{count[0]}/{total}] {rr.names[i]} vs {rr.names[j]}: "
                     f"{fmt_ppg(res.ppg, res.ci95)} ({res.games} games)")
        bar(count[0], total)
        out.mkdir(parents=True, exist_ok=True)  # progress survives a crash
        write_text(out / "roundrobin.json", json.dumps(
            {**rr.as_dict(), "complete": False}, indent=2) + "\n")

    rr = round_robin(entrants, args.games, seed=args.seed, backend=backend, stop=stop,
                     on_pairing=on_pairing)
    files = rr.save(out, warn)
    return _finish(args, rr.as_dict(), rr.table(), rr.complete, files, warn)


def _main_knockout(args, backend, out, stop, warn, bar: ProgressBar) -> int:
    skipped: list = []
    entrants = load_entrants(args.players, warn, skipped)
    if not entrants:
        raise ValueError("no loadable players: nothing to play")
    bar.note(f"knock-out: {len(entrants)} players, out at {args.margin} points behind, at most "
             f"{args.games} games per pairing, {backend!r}, seed {args.seed}")

    played = [0]

    def on_match(ko: Knockout, m: KnockoutMatch) -> None:
        played[0] += 1
        bar.note(f"round {m.round}: " + m.line(0))
        bar(played[0], len(entrants) - 1)      # a knock-out of n players has n - 1 matches
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / "knockout.json", json.dumps(
            {**ko.as_dict(), "complete": False}, indent=2) + "\n")

    ko = knockout(entrants, max_games=args.games, margin=args.margin, seed=args.seed,
                  backend=backend, batch_pairs=args.batch, stop=stop, skipped=skipped,
                  on_match=on_match)
    files = ko.save(out)
    return _finish(args, ko.as_dict(), ko.text(), ko.complete, files, warn)


def _main_older(args, backend, out, stop, warn, bar: ProgressBar) -> int:
    def on_row(res: OlderSelf) -> None:
        r = res.rows[-1]
        bar(len(res.rows))
        bar.note(f"{res.latest['name']} vs {r['opponent']} (age {r['age_label']}): "
                 f"{fmt_ppg(r['ppg'], r['ci95'] if r['ci95'] is not None else math.inf)}")
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / "older.json", json.dumps(
            {**res.as_dict(), "complete": False}, indent=2) + "\n")

    res = older_self(args.source, args.games, every=args.every, seed=args.seed, backend=backend,
                     stop=stop, warn=warn, max_opponents=args.max_opponents, on_row=on_row)
    files = res.save(out, warn)
    return _finish(args, res.as_dict(), res.text(), res.complete, files, warn)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``tournament`` to the ``bgengine`` sub-commands."""
    add_tournament_parser(sub)
