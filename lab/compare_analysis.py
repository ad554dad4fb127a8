"""bgengine's analysis of the test matches against GNU Backgammon's (the golden data).

    python lab/compare_analysis.py [--golden tests/data/analysis/gnubg_2ply.json]
                                     [--plies 2] [--json]

For every match of the golden file (made by ``bgengine/data/gnubg_analyse.py``), ``bgengine
analyse`` at the same depth; then, over all players of all matches:

* the Pearson correlation of the two programs' per-player error rates (mEMG per
  decision), and of the counts of decisions each divides by;
* gnubg's blunders (very bad: 0.12 EMG lost or more) and errors (bad: 0.06 or more),
  and how many of them bgengine also marks (as an error or worse; as a blunder), a
  decision matched by game, player, kind (play or cube) and gnubg's Position ID.

``docs/analysis.md`` reports the figures and the differences found.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bgengine.opponents.gnubg.analysis import analyse_golden, compare_analyses

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "data" / "analysis" / "gnubg_2ply.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden", type=Path, default=GOLDEN)
    parser.add_argument("--plies", type=int, default=None, help="default: the golden file's")
    parser.add_argument("--json", action="store_true", help="print the whole comparison")
    args = parser.parse_args()
    golden = json.loads(args.golden.read_text())
    result = compare_analyses(golden, analyse_golden(golden, args.golden.parent,
                                            args.plies if args.plies is not None
                                            else golden["plies"]))
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'match':<28}{'player':<10}{'gnubg':>8}{'bgengine':>10}{'decisions':>14}")
    for p in result["players"]:
        print(f"{p['file']:<28}{p['player']:<10}{p['gnubg_error_rate']:8.1f}"
              f"{p['error_rate']:10.1f}{p['gnubg_decisions']:>7d}/{p['decisions']:<6d}")
    print(f"error rate correlation {result['error_rate_correlation']:.3f} (checker play "
          f"alone {result['checker_rate_correlation']:.3f}); decisions counted "
          f"correlation {result['decisions_correlation']:.3f}")
    print(f"gnubg's blunders: {result['gnubg_blunders']}, bgengine flags "
          f"{result['blunders_flagged']} as errors or blunders "
          f"({result['blunders_flagged_as_blunders']} as blunders); gnubg's errors: "
          f"{result['gnubg_errors']}, flagged {result['errors_flagged']}")
    for d in result["missed"]:
        print(f"  missed: {d['file']} game {d['game']} {d['alert']} {d['skill']:+.3f} "
              f"{d['position_id']}:{d['match_id']}; bgengine: {d['bgengine_action']} "
              f"lost {d['bgengine_lost']}, best {d['bgengine_best']}")


if __name__ == "__main__":
    main()
