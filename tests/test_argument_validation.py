"""One validation layer for public arguments (issue "Reliability II", items 3 and 5), one test
per defect: integers are integers (a bool or a float is refused, numpy integers are
fine), sizes and counts lie within documented bounds before anything is allocated,
numbers are finite, and every refusal is a ``ValueError`` naming the argument.  On the
command line a huge number is one ``bgengine: error: ...`` line with exit status 2, never a
traceback; a property test fuzzes the options of a few commands to hold them to that."""

from __future__ import annotations

import contextlib
import io
import math
import time

import numpy as np
import pytest

from bgengine.core.agents import MAX_GAMES, Player, play_match
from bgengine.cli import build_parser, main
from bgengine.cli.options import bad_values
from bgengine.core.network import Network
from bgengine.position import STARTING_BOARD
from bgengine.core.search import MAX_TRIALS, MAX_TRUNCATE, Searcher, play_outputs, rollout

START = "4HPwATDgc/ABMA"
#: the start, X on roll with 3-1 rolled, money
XGID_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
HUGE = str(2**63)           # one more than a C ssize_t holds
NET = Network((8,), 5, "tesauro198", seed=1)


def run(argv: list[str]) -> tuple[int, str, str]:
    """``bgengine ARGV`` in this process: (exit status, stdout, stderr); argparse's own exit
    counts as the status it gives; any other exception escapes (a failure)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def assert_one_error_line(code: int, err: str) -> str:
    assert code == 2, (code, err)
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bgengine: error: "), err
    return lines[0]


def refused(call, name: str) -> str:
    """``call()`` raises ``ValueError`` naming ``name``, at once (nothing allocated, no game
    played); the message."""
    start = time.perf_counter()
    with pytest.raises(ValueError) as info:
        call()
    assert time.perf_counter() - start < 5.0
    assert name in str(info.value), str(info.value)
    return str(info.value)


# ---------------------------------------------------------------- huge numbers on the command line

@pytest.mark.parametrize("argv", [
    ["rollout", START, "--trials", HUGE],                    # was an OverflowError traceback
    ["rollout", START, "--trials", "2", "--truncate", HUGE],     # ... as was this one
    ["rollout", START, "--trials", "2", "--dice", "31", "--candidates", HUGE],
    ["hint", XGID_31, "--rollout", HUGE],                    # a traceback too
    ["hint", XGID_31, "--num", HUGE],
    ["match", "random", "random", "--games", HUGE],          # ran (and allocated) for ever
    ["match", "random", "random", "--games", str(2**31)],
    ["match", "connect4:random", "connect4:random", "--games", HUGE],
    ["tournament", "roundrobin", "random", "pubeval", "--games", HUGE],
    ["tournament", "knockout", "random", "pubeval", "--batch", HUGE],
    ["compare", "--games", HUGE],
    ["compare", "--rr-games", HUGE],
    ["match", "random", "random", "--games", "4", "--threads", HUGE],
    ["match", "random", "random", "--games", "4", "--match-length", HUGE],
])
def test_a_huge_number_on_the_command_line_is_one_error_line(argv):
    code, out, err = run(argv)
    assert out == ""
    assert_one_error_line(code, err)


#: (the command before the option, the option, the API's bound)
CLI_BOUNDS = [
    (["rollout", START], "--trials", MAX_TRIALS),
    (["rollout", START], "--truncate", MAX_TRUNCATE),
    (["rollout", START, "--dice", "31"], "--candidates", 10**6),
    (["hint", XGID_31], "--num", 10**6),
    (["hint", XGID_31], "--rollout", MAX_TRIALS),
    (["match", "random", "random"], "--games", MAX_GAMES),
    (["tournament", "roundrobin", "random", "pubeval"], "--games", MAX_GAMES),
]


@pytest.mark.parametrize("case", range(len(CLI_BOUNDS)))
def test_the_command_lines_bounds_are_the_apis(case):
    """Each count's largest value parses; one more is refused before the command runs."""
    prefix, option, bound = CLI_BOUNDS[case]
    parser = build_parser()
    assert bad_values(parser.parse_args([*prefix, option, str(bound)])) == []
    notes = bad_values(parser.parse_args([*prefix, option, str(bound + 1)]))
    assert notes and notes[0].startswith(f"{option} must be in "), notes


def test_the_apis_bounds_are_the_documented_ones():
    from bgengine.decisions.engine import Engine
    from bgengine.matches.run import run_match
    from bgengine.decisions.rollouts import rollout_moves
    from bgengine.state import GameState

    assert (MAX_GAMES, MAX_TRIALS, MAX_TRUNCATE) == (10**8, 10**7, 10000)
    refused(lambda: rollout(NET, STARTING_BOARD, MAX_TRIALS + 1), "trials must be in 1..10**7")
    refused(lambda: rollout(NET, STARTING_BOARD, 2, truncate=MAX_TRUNCATE + 1),
            "truncate must be in 0..10000")
    refused(lambda: rollout_moves(NET, STARTING_BOARD, 3, 1, 2, candidates=10**6 + 1),
            "candidates must be in 1..10**6")
    refused(lambda: run_match(Player("random"), Player("random"), MAX_GAMES + 1),
            "games must be in 2..10**8")
    engine = Engine("net", plies=0)
    state = GameState.from_string(XGID_31)
    refused(lambda: engine.hint(state, n=10**6 + 1), "plays to show")
    refused(lambda: engine.hint(state, rollout=MAX_TRIALS + 1), "rollout")
    assert len(engine.hint(state, n=10**6).plays) == 16        # every play of 3-1


# ---------------------------------------------------------------- dice: integers 1..6

def _dice_calls():
    from bgengine.core.bearoff import afterstates
    from bgengine.core.movegen import count_afterstates

    searcher = Searcher(NET)
    return {
        "Searcher.best_move": lambda d: searcher.best_move(STARTING_BOARD, d, 1),
        "Searcher.rank_moves": lambda d: searcher.rank_moves(STARTING_BOARD, d, 1),
        "Player.choose": lambda d: Player("random").choose(STARTING_BOARD, d, 1),
        "play_outputs": lambda d: play_outputs(NET, STARTING_BOARD, d, 1),
        "count_afterstates": lambda d: count_afterstates([STARTING_BOARD], [[d, 1]]),
        "bearoff.afterstates": lambda d: afterstates([2, 2, 2, 3, 3, 3], d, 1),
    }


@pytest.mark.parametrize("die", [1.5, True, np.bool_(True), 3.0, "3"], ids=repr)
@pytest.mark.parametrize("where", list(_dice_calls()))
def test_a_die_is_an_integer_everywhere(where, die):
    """Was: 1.5 played as 1 and True as 1 (count_afterstates: True in a list), while
    ``legal_afterstates`` refused the same die."""
    call = _dice_calls()[where]
    refused(lambda: call(die), "must be")
    call(np.int64(3))                   # numpy integers are integers
    call(3)


# ---------------------------------------------------------------- integers are integers

def _integer_calls():
    """(call of one value, a good value, the argument's name in the message) by place."""
    from bgengine.core.bearoff import position
    from bgengine.core.dice import Dice

    searcher = Searcher(NET)
    return {
        "Searcher.evaluate": (lambda v: searcher.evaluate(STARTING_BOARD, v), 1, "plies"),
        "Searcher.best_move": (lambda v: searcher.best_move(STARTING_BOARD, 3, 1, v), 1,
                               "plies"),
        "Searcher.best_plays": (lambda v: searcher.best_plays(STARTING_BOARD, [[3, 1]], v), 1,
                                "plies"),
        "Searcher.rank_moves": (lambda v: searcher.rank_moves(STARTING_BOARD, 3, 1, v), 1,
                                "plies"),
        "Searcher.evaluate_sampled": (lambda v: searcher.evaluate_sampled(STARTING_BOARD, 2, v),
                                      3, "samples"),
        "Searcher.evaluate_sampled offset": (
            lambda v: searcher.evaluate_sampled(STARTING_BOARD, 2, 3, v), 1, "offset"),
        "Searcher candidates": (lambda v: Searcher(NET, candidates=v), 4, "candidates"),
        "Searcher cache_bits": (lambda v: Searcher(NET, cache_bits=v), 4, "cache_bits"),
        "Player plies": (lambda v: Player("net", NET, plies=v), 1, "plies"),
        "rollout trials": (lambda v: rollout(NET, STARTING_BOARD, v, n_threads=1), 2, "trials"),
        "rollout truncate": (lambda v: rollout(NET, STARTING_BOARD, 2, truncate=v), 1,
                             "truncate"),
        "rollout plies": (lambda v: rollout(NET, STARTING_BOARD, 1, plies=v), 1, "plies"),
        "rollout first_trial": (lambda v: rollout(NET, STARTING_BOARD, 2, first_trial=v), 1,
                                "first_trial"),
        "play_match": (lambda v: play_match(Player("random"), Player("random"), v), 1,
                       "n_pairs"),
        "Dice.rolls": (lambda v: Dice(0).rolls(v), 1, "n"),
        "Network n_outputs": (lambda v: Network((4,), v), 1, "n_outputs"),
        "Network.weights": (lambda v: NET.weights(v), 1, "layer"),
        "bearoff.position": (lambda v: position(v), 1, "index"),
    }


@pytest.mark.parametrize("value", [1.5, True, 1.0, "1"], ids=repr)
@pytest.mark.parametrize("where", list(_integer_calls()))
def test_an_integer_argument_refuses_bools_and_floats(where, value):
    """Was: typed ``int``/``Py_ssize_t`` signatures truncated 1.5 to 1 and took True for 1
    (plies, truncate, candidates, samples...)."""
    call, ok, name = _integer_calls()[where]
    assert refused(lambda: call(value), name).startswith(f"{name} must be ")
    call(np.int64(ok))
    call(ok)


@pytest.mark.parametrize("hidden", [(1.5,), ("36",), (True,), (36.0,), "36", 36], ids=repr)
def test_network_hidden_widths_are_whole_numbers(hidden):
    """Was: (1.5,) built a 1-unit layer, ("36",) a 36-unit one, (True,) a 1-unit one."""
    refused(lambda: Network(hidden, 5), "hidden")
    assert Network((np.int64(36),), 5).sizes == (198, 36, 5)


def test_training_games_counts_are_integers():
    from bgengine.core.td import train_games

    net = Network((4,), 5, seed=1)
    for bad in (1.5, True):
        refused(lambda: train_games(net, bad, 0.1), "n_games")
        refused(lambda: train_games(net, 1, 0.1, target_plies=bad), "target_plies")
    assert train_games(net, np.int64(1), 0.1)["moves"].shape == (1,)


# ---------------------------------------------------------------- numbers are finite

@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, True, "0.1"], ids=repr)
@pytest.mark.parametrize("where", ["Searcher margin", "Player epsilon", "Network init_range",
                                   "train_games alpha", "train_games lam",
                                   "train_games epsilon"])
def test_a_number_argument_is_finite(where, value):
    """Was: margin=nan accepted (every comparison with it false), Network(init_range=1e300)
    built infinite weights, a bool taken for 0 or 1."""
    from bgengine.core.td import train_games

    name = where.split()[1]
    calls = {
        "Searcher margin": lambda v: Searcher(NET, margin=v),
        "Player epsilon": lambda v: Player("random", epsilon=v),
        "Network init_range": lambda v: Network((4,), 5, init_range=v),
        "train_games alpha": lambda v: train_games(Network((4,), 5), 1, v),
        "train_games lam": lambda v: train_games(Network((4,), 5), 1, 0.1, v),
        "train_games epsilon": lambda v: train_games(Network((4,), 5), 1, 0.1, epsilon=v),
    }
    refused(lambda: calls[where](value), name)
    calls[where](np.float32(0.5) if name != "alpha" else np.float64(0.1))


def test_initial_weights_are_finite():
    refused(lambda: Network((4,), 5, init_range=1e300), "init_range must be in [0, 10]")
    refused(lambda: Network((4,), 5, init_range=2**2000), "init_range must be in [0, 10]")
    assert np.isfinite(Network((4,), 5, init_range=10).params).all()


# ---------------------------------------------------------------- counts bounded, before allocation

def _count_calls():
    from bgengine.core.dice import Dice
    from bgengine.training.learners import mutation_games
    from bgengine.matches.run import play_external_match, play_python_pairs, run_cube_match, run_match
    from bgengine.decisions.rollouts import rollout_moves, rollout_position
    from bgengine.training.startpositions import play_positions, sample_positions
    from bgengine.core.td import train_games
    from bgengine.training.threaded_td import train_games_threaded
    from bgengine.matches.tournament.pairings import pairs_of_games

    r = Player("random")
    return {
        "play_match": (lambda: play_match(r, r, 2**30), "n_pairs"),
        "train_games": (lambda: train_games(Network((4,), 5), 2**31, 0.1), "n_games"),
        "train_games_threaded": (lambda: train_games_threaded(
            Network((4,), 5), 2**31, 0.1, 0.0, threads=2, sync_games=4), "n_games"),
        "mutation_games": (lambda: mutation_games(Network((4,), 5), 2**32), "n_games"),
        "run_match": (lambda: run_match(r, r, 2**31), "games"),
        "run_cube_match": (lambda: run_cube_match(r, r, 2**31, cube_network=NET), "games"),
        "play_external_match": (lambda: play_external_match(r, r, 2**31), "games"),
        "play_python_pairs": (lambda: play_python_pairs(r, r, 2**30), "n_pairs"),
        "pairs_of_games": (lambda: pairs_of_games(2**31), "games"),
        "play_positions": (lambda: play_positions(NET, 2**31), "n_games"),
        "sample_positions": (lambda: sample_positions(NET, 2**31), "n"),
        "rollout": (lambda: rollout(NET, STARTING_BOARD, 2**31), "trials"),
        "rollout_position": (lambda: rollout_position(NET, STARTING_BOARD, 2**31), "trials"),
        "rollout_moves": (lambda: rollout_moves(NET, STARTING_BOARD, 3, 1, 2**31), "trials"),
        "Dice.rolls": (lambda: Dice(0).rolls(2**31), "n"),
    }


@pytest.mark.parametrize("where", list(_count_calls()))
def test_a_huge_count_is_refused_before_any_allocation(where):
    """Was: 2**31 games or trials accepted, allocating 8 to 16 GiB (or playing for days);
    ``rollout`` overflowed a C integer."""
    call, name = _count_calls()[where]
    message = refused(call, name)
    assert " must be in " in message, message


def test_a_fractional_count_is_a_value_error_naming_it():
    """Was: a TypeError from range() or slicing, or run_match's 2.5 games taken as 1 pair."""
    from bgengine.matches.run import run_match
    from bgengine.decisions.rollouts import rollout_moves
    from bgengine.training.startpositions import play_positions

    r = Player("random")
    refused(lambda: run_match(r, r, 2.5), "games must be an integer")
    refused(lambda: play_positions(NET, 1.5), "n_games must be an integer")
    refused(lambda: play_positions(NET, True), "n_games must be an integer")
    refused(lambda: rollout_moves(NET, STARTING_BOARD, 3, 1, 2, candidates=1.5), "candidates")
    refused(lambda: rollout_moves(NET, STARTING_BOARD, 3, 1, 2, candidates=True), "candidates")
    refused(lambda: rollout_moves(NET, STARTING_BOARD, 3, 1, 2, indices=[True]), "indices")
    assert len(rollout_moves(NET, STARTING_BOARD, 3, 1, 2, candidates=np.int64(2))) == 2


# ---------------------------------------------------------------- fuzzed command lines

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

#: values past every bound, or not whole numbers at all
BAD = ["-1", "-0", "1.5", "nan", "inf", "", "x", "0x10", "1e3", "9" * 30, HUGE, str(2**31),
       str(10**8 + 1), str(-2**63 - 1)]


def _values(*good: str) -> st.SearchStrategy[str]:
    """An option's value: one of its cheap valid ones (two times in three), or a bad one."""
    return st.one_of(st.sampled_from(good), st.sampled_from(good), st.sampled_from(BAD))


COMMON = {"--threads": _values("1", "2", "0", "257"),
          "--seed": _values("0", "7", str(2**64 - 1), str(2**64))}
STATES = st.sampled_from([START, XGID_31, START, XGID_31, "nonsense", "XGID=", ""])
#: command: (its positional arguments, the options always given (a cheap count: the
#: defaults play thousands of games), the options perhaps given)
FUZZED = {
    "rollout": ([STATES], {"--trials": _values("1", "2", "36", "0")},
                {"--truncate": _values("0", "3", "10000"),
                 "--candidates": _values("1", "3", "1000000", "0"),
                 "--dice": _values("31", "66", "77"), "--plies": _values("0", "4"), **COMMON}),
    "hint": ([STATES], {},
             {"--num": _values("1", "5", "1000000", "0"), "--rollout": _values("0", "2", "36"),
              "--plies": _values("0", "1", "4"), "--dice": _values("31", "55", "70"), **COMMON}),
    "eval": ([STATES], {}, {"--plies": _values("0", "1", "4")}),
    "moves": ([STATES, st.sampled_from(["31", "6-6", "77", "x", "1.5"])], {}, {}),
    "match": ([st.sampled_from(["random", "pubeval", "random", "nobody"]),
               st.sampled_from(["random", "simple1"])],
              {"--games": _values("2", "4", "6", "1", "7")},
              {"--match-length": _values("0", "1", "99"), "--cube": st.just(None), **COMMON}),
}


@st.composite
def argument_vectors(draw) -> list[str]:
    command = draw(st.sampled_from(sorted(FUZZED)))
    positional, always, options = FUZZED[command]
    argv = [command, *(draw(s) for s in positional)]
    chosen = draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=3)
                  if options else st.just([]))
    for option in [*always, *chosen]:
        value = draw((always | options)[option])
        argv += [option] if value is None else [option, value]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@settings(max_examples=150)
@given(argument_vectors())
def test_fuzzed_command_lines_exit_0_or_2_and_never_with_a_traceback(argv):
    code, out, err = run(argv)
    assert code in (0, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        assert_one_error_line(code, err)
    else:
        assert out, argv
