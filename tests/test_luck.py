"""Luck-adjusted match results (:mod:`bgengine.decisions.luck`).

* :class:`LuckMeter` against a plain reference: each roll's best play valued
  play by play (``Searcher.rank_moves``), the mean over the rolls taken here;
  its luck averages to zero over the dice, on the opening roll and after;
* the pool's bookkeeping (whose luck, which sign, the opening roll) with a
  meter whose values are known, so every game's sum is known from its length;
* the point of it, against the real gnubg (an opponent of about the same
  strength: against a hopeless one the luck of the dice matters little): the
  luck-adjusted interval is far narrower than the raw one;
* :func:`bgengine.matches.results.summarize` and the command line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.cli import main
from bgengine.matches.game import STARTING_BOARD
from bgengine.decisions.luck import ROLLS as DISTINCT_ROLLS, LuckMeter, Roll, roll_luck
from bgengine.matches.players import default_network_path, load_default_network, make_player
from bgengine.matches.results import ci95, summarize
from bgengine.core.search import Searcher

from game_positions import random_positions  # noqa: E402  (tests/ is on sys.path)
from test_gnubg import GNUBG, _fake_player, fake, no_leftovers  # noqa: F401  (fixtures)

needs_net = pytest.mark.skipif(not default_network_path().exists(),
                               reason="no shipped network")

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]


@pytest.fixture(scope="module")
def meter() -> LuckMeter:
    return LuckMeter(load_default_network())


def _reference_luck(searcher: Searcher, board, d1: int, d2: int, opening: bool) -> float:
    """The best play's equity of each of the 36 (or 30) rolls, every play valued
    one by one, minus their mean."""
    best = {roll: searcher.rank_moves(board, *roll, plies=0)[0][2] for roll in ROLLS
            if not (opening and roll[0] == roll[1])}
    return best[(d1, d2)] - float(np.mean(list(best.values())))


@needs_net
def test_luck_matches_a_play_by_play_reference(meter):
    reference = Searcher(load_default_network())
    boards = [STARTING_BOARD] + random_positions(1, seed=3, every=7)[1:9]
    for i, board in enumerate(boards):
        opening = i == 0
        for d1, d2 in ((6, 5), (2, 1), (4, 4) if not opening else (4, 3)):
            got = meter.luck(board, d1, d2, opening=opening)
            want = _reference_luck(reference, board, d1, d2, opening)
            assert got == pytest.approx(want, abs=2e-6), (i, d1, d2)
            assert meter.luck(board, d2, d1, opening=opening) == got     # order of the dice


@needs_net
def test_luck_averages_to_zero_over_the_dice(meter):
    board = random_positions(1, seed=8, every=5)[3]
    assert np.mean([meter.luck(board, *r) for r in ROLLS]) == pytest.approx(0, abs=1e-6)
    opening = [meter.luck(STARTING_BOARD, *r, opening=True) for r in ROLLS if r[0] != r[1]]
    assert np.mean(opening) == pytest.approx(0, abs=1e-6)
    assert max(opening) == meter.luck(STARTING_BOARD, 3, 1, opening=True) > 0.05  # the best opening
    assert min(opening) < -0.02


@needs_net
def test_game_luck_sums_ours_less_theirs(meter):
    boards = random_positions(1, seed=4, every=9)[1:4]
    rolls = [Roll(boards[0], 6, 2, False, True), Roll(boards[1], 5, 5, False, False),
             Roll(boards[2], 4, 1, False, True)]
    want = (meter.luck(boards[0], 6, 2) - meter.luck(boards[1], 5, 5)
            + meter.luck(boards[2], 4, 1))
    assert meter.game_luck(rolls) == pytest.approx(want, abs=1e-12)
    assert meter.game_luck([]) == 0.0


def test_roll_luck_picks_the_rolled_value_and_weighs_the_dice():
    values = np.arange(21.0)                 # in DISTINCT_ROLLS' order: 11, 21, 22, 31, ...
    weights = np.where(DISTINCT_ROLLS[:, 0] == DISTINCT_ROLLS[:, 1], 1, 2)
    mean = (weights * values).sum() / 36
    assert roll_luck(values, 2, 1) == roll_luck(values, 1, 2) == pytest.approx(1 - mean)
    assert roll_luck(values, 6, 6) == pytest.approx(20 - mean)
    opening = np.where(DISTINCT_ROLLS[:, 0] == DISTINCT_ROLLS[:, 1], 0, 2)
    assert roll_luck(values, 6, 5, opening=True) == pytest.approx(
        19 - (opening * values).sum() / 30)


class _CountingMeter(LuckMeter):
    """Luck 1000 for the opening roll, 1 for every other: a game's sum for the
    side that opened is then 999 + (plays % 2), whoever plays."""

    def __init__(self) -> None:
        self.cubeful = False

    def copy(self) -> _CountingMeter:
        return _CountingMeter()

    def luck(self, board, d1, d2, opening=False, *cube):
        return 1000.0 if opening else 1.0


def test_pool_counts_each_roll_for_the_right_side(fake, no_leftovers):  # noqa: F811
    from bgengine.opponents.gnubg import play_gnubg_pairs

    res = play_gnubg_pairs(make_player("pubeval"), _fake_player(fake, processes=2), 4, seed=5,
                           luck=_CountingMeter())
    assert res.luck is not None and res.luck.shape == (4, 2)
    opened = 999 + res.moves % 2                     # a opens game 0 of a pair, b game 1
    assert np.array_equal(res.luck[:, 0], opened[:, 0])
    assert np.array_equal(res.luck[:, 1], -opened[:, 1])
    plain = play_gnubg_pairs(make_player("pubeval"), _fake_player(fake, processes=2), 4, seed=5)
    assert plain.luck is None and np.array_equal(plain.points, res.points)


def test_summarize_with_luck_drops_bad_pairs_too():
    points = np.array([[1, -2], [3, 1], [-1, -1]], np.int8)
    luck = np.array([[0.5, -1.5], [9.0, 9.0], [-0.25, -1.25]])
    bad = np.array([[False, False], [True, False], [False, False]])
    result = summarize("a", "b", points, np.full((3, 2), 50), bad, luck=luck)
    adjusted = np.array([(0.5 - 0.5) / 2, (-0.75 + 0.25) / 2])   # pair means of points - luck
    assert result.luck_adjusted_ppg == pytest.approx(adjusted.mean())
    assert result.luck_adjusted_ci95 == pytest.approx(ci95(adjusted))
    assert summarize("a", "b", points, np.full((3, 2), 50)).luck_adjusted_ppg is None


def test_luck_is_refused_where_it_is_not_measured(capsys):
    assert main(["match", "pubeval", "random", "--games", "2", "--luck",
                 "--match-length", "3"]) == 2
    assert "--luck measures money games" in capsys.readouterr().err
    from bgengine.matches.run import run_cube_match
    with pytest.raises(ValueError, match="cubeful luck meter"):
        run_cube_match(make_player("pubeval"), make_player("pubeval"), 2,
                       luck=_CountingMeter())
    assert main(["match", "pubeval", "random", "--games", "2", "--luck", "--backend", "ray"]) == 2
    assert "on this machine" in capsys.readouterr().err


@needs_net
def test_compiled_players_with_luck_play_the_same_games():
    """With a meter, compiled players' games are played from Python: the very games
    of the compiled runner (deterministic players), each roll's luck counted for the
    right side."""
    from bgengine.core.agents import play_match
    from bgengine.matches.run import run_match

    a, b = make_player("pubeval"), make_player("net")
    plain = run_match(a, b, 40, seed=9, threads=1)
    counted = run_match(a, b, 40, seed=9, luck=_CountingMeter())
    assert (counted.ppg, counted.win, counted.mean_moves) == (plain.ppg, plain.win, plain.mean_moves)
    # a's luck is +(999 + plays % 2) in game 0 of a pair (a opened), -(...) in game 1
    points, moves = play_match(a, b, 20, seed=9, n_threads=1)
    opened = 999 + moves % 2
    want = summarize("a", "b", points, moves, luck=np.stack([opened[:, 0], -opened[:, 1]], 1))
    assert counted.luck_adjusted_ppg == pytest.approx(want.luck_adjusted_ppg, abs=1e-12)
    assert counted.luck_adjusted_ci95 == pytest.approx(want.luck_adjusted_ci95, abs=1e-12)


@needs_net
@pytest.mark.gnubg
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_luck_against_the_real_gnubg(capsys, no_leftovers):  # noqa: F811
    assert main(["match", "net", "gnubg", "--games", "60", "--seed", "3", "--luck", "--json",
                 "--gnubg-processes", "4", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bad_games"] == 0 and out["games"] == 60
    assert out["luck_adjusted_ci95"] < 0.5 * out["ci95"]


_OTHER = {"centre": "centre", "me": "opponent", "opponent": "me"}


@needs_net
def test_cubeful_luck_is_the_cube_model_play_by_play():
    """A cubeful meter values each roll's best play by the cube model over the position it
    leaves (the other side on roll), at the roll's cube and owner, in points; a play that
    ends the game by its points (single under the Jacoby rule with the cube centred)."""
    from bgengine.core.movegen import legal_afterstates
    from bgengine.decisions.cube import CubeEfficiency, CubeInfo, cubeful_value
    from bgengine.notation.ids import board_from_position_id

    ev = load_default_network()
    meter, reference = LuckMeter(ev, cubeful=True), Searcher(ev)
    xs = CubeEfficiency.of_evaluator(ev)
    middle = random_positions(1, seed=8, every=5)[3]
    bearoff = board_from_position_id("4P8PAAABAAAAAA")      # some rolls bear off the last
    for board in (middle, bearoff):
        for cube, owner, jacoby in ((1, "centre", False), (4, "me", False),
                                    (2, "opponent", False), (1, "centre", True)):
            values = {}
            for roll in ROLLS:
                index = reference.rank_moves(board, *roll, plies=0)[0][0]
                after = legal_afterstates(board, *roll)[0][index]
                if after[1].sum() == 0:
                    won = 1 if after[0].sum() < 15 else 2
                    values[roll] = cube * (1 if jacoby and owner == "centre" else won)
                    continue
                turned = np.ascontiguousarray(after[::-1])
                info = CubeInfo(owner=_OTHER[owner], jacoby=jacoby)
                x = float(xs.of_boards(turned[None])[0])
                values[roll] = -cube * cubeful_value(ev.evaluate(turned), info, x)
            mean = float(np.mean(list(values.values())))
            for roll in ((6, 5), (2, 2), (1, 1)):
                got = meter.luck(board, *roll, False, cube, owner, jacoby)
                assert got == pytest.approx(values[roll] - mean, abs=1e-4), (cube, owner, roll)
        assert meter.luck(board, 6, 5, False, 4) == pytest.approx(
            4 * meter.luck(board, 6, 5, False, 1), abs=1e-12)
    assert any(v > 0 for v in values.values())


@needs_net
def test_cube_games_of_bgengine_players_with_luck():
    from bgengine.matches.run import run_cube_match

    net, pub = make_player("net"), make_player("pubeval")
    res = run_cube_match(net, pub, 4, seed=2, luck=LuckMeter(load_default_network(),
                                                              cubeful=True))
    plain = run_cube_match(net, pub, 4, seed=2)
    assert res.value == plain.value and plain.luck_adjusted_ppg is None
    assert res.luck_adjusted_ppg is not None and res.luck_adjusted_ppg != res.value
    assert "luck-adjusted" in str(res)


@needs_net
@pytest.mark.gnubg
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_cubeful_luck_against_the_real_gnubg(capsys, no_leftovers):  # noqa: F811
    assert main(["match", "net", "gnubg", "--cube", "--games", "40", "--seed", "3", "--luck",
                 "--json", "--gnubg-processes", "4", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bad_games"] == 0 and out["n"] == 40
    assert out["luck_adjusted_ci95"] < 0.6 * out["ci95"]
