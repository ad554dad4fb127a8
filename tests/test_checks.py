"""bgengine._checks: what counts as a real integer or number for the library's checks; and the
compiled core's integer arguments, all checked by one helper (src/bgcore/checks.pxd)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bgengine._checks import is_int, is_number

INTS = [0, -3, 10**30, np.int8(3), np.uint64(7), np.int64(-1)]
FLOATS = [0.5, float("nan"), np.float32(1.0), np.float64(2.0)]
NEITHER = [True, False, np.bool_(True), "3", None, 3 + 0j, [1], np.array([1])]


@pytest.mark.parametrize("x", INTS)
def test_integers(x):
    assert is_int(x) and is_number(x)


@pytest.mark.parametrize("x", FLOATS)
def test_floats_are_numbers_not_integers(x):
    assert not is_int(x) and is_number(x)


@pytest.mark.parametrize("x", NEITHER, ids=repr)
def test_bools_strings_and_arrays_are_neither(x):
    assert not is_int(x) and not is_number(x)


def test_the_library_uses_them():
    """A bool is refused where a count is asked for, through the shared check."""
    from bgengine.notation.moves import match_move
    from bgengine.position import Position
    from bgengine.matches.tournament.pairings import pairs_of_games

    with pytest.raises(ValueError, match="integer 1..6"):
        match_move(Position.initial().board, True, 1, "8/7 6/5")
    with pytest.raises(ValueError, match="integer of at least 2"):
        pairs_of_games(True)
    assert pairs_of_games(np.int64(5)) == 3


# ---------------------------------------------------------------- the compiled core's one helper

def _core_checks():
    """The core's integer arguments, each checked by checks.pxd's checked_int:
    (call, name in the message, lowest, highest, the range as said)."""
    from bgengine.core.dice import Dice
    from bgengine.core.movegen import MAX_THREADS, check_die, check_seed, check_threads, legal_afterstates
    from bgengine.position import STARTING_BOARD
    return [
        (lambda v: Dice(v), "seed", 0, 2**64 - 1, "0..2**64-1"),
        (lambda v: Dice(0, stream=v), "stream", 0, 2**64 - 1, "0..2**64-1"),
        (check_seed, "seed", 0, 2**64 - 1, "0..2**64-1"),
        (check_threads, "n_threads", 1, MAX_THREADS, f"1..{MAX_THREADS}"),
        (check_die, "die", 1, 6, "1..6"),
        (lambda v: legal_afterstates(STARTING_BOARD, v, 1), "d1", 1, 6, "1..6"),
        (lambda v: legal_afterstates(STARTING_BOARD, 1, v), "d2", 1, 6, "1..6"),
    ]


@pytest.mark.parametrize("case", range(7))
def test_the_core_checks_its_integer_arguments_alike(case):
    call, name, lo, hi, span = _core_checks()[case]
    for ok in (lo, hi, np.int64(lo), np.uint64(hi)):
        call(ok)
    for bad in (True, np.bool_(True), 1.0, "1", None):
        with pytest.raises(ValueError, match=rf"^{name} must be an integer.*, got "):
            call(bad)
    for out in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match=re.escape(f"{name} must be in {span}, got {out}")):
            call(out)


# ---------------------------------------------------------------- the checks that used their own test

def test_network_sizes_use_the_shared_check(tmp_path):
    """A network file's ``sizes`` go through checks.pxd: bools, floats and text refused
    (as before), numpy integers accepted (metadata built in Python), the range said."""
    from bgengine.core.network import Network, network_from_parts, network_meta

    MAX_WIDTH = 1024            # network.pxd: the widest layer, inputs included

    net = Network((4,), 5, "tesauro198", seed=1)
    meta = network_meta(net)
    for bad in (True, 4.0, "4"):
        m = dict(meta, sizes=[meta["sizes"][0], bad, 5])
        with pytest.raises(ValueError, match=r"here: metadata: sizes must be whole numbers"):
            network_from_parts(m, net.params, "here")
    with pytest.raises(ValueError, match=rf"sizes must be in 1..{MAX_WIDTH}, got 0"):
        network_from_parts(dict(meta, sizes=[meta["sizes"][0], 0, 5]), net.params, "here")
    again = network_from_parts(dict(meta, sizes=[np.int64(s) for s in meta["sizes"]]),
                               net.params, "here")
    assert again.sizes == net.sizes and all(type(s) is int for s in again.sizes)
    with pytest.raises(ValueError, match="lacks a valid 'sizes'"):
        network_from_parts({k: v for k, v in meta.items() if k != "sizes"}, net.params, "here")


def test_cube_checks_use_is_int():
    """The match table's length and the cube's value: numpy integers accepted, bools not."""
    from bgengine.decisions.cube import CubeInfo, gnubg_met

    met = gnubg_met()
    assert met.extended(np.int64(met.length + 2)).length == met.length + 2
    with pytest.raises(ValueError, match="whole number of points"):
        met.extended(True)
    assert CubeInfo(cube=np.int64(4)).cube == 4
    with pytest.raises(ValueError, match="power of two"):
        CubeInfo(cube=True)


def test_gnubg_settings_use_is_int():
    """gnubg's plies and process count: numpy integers accepted (kept as int), bools not."""
    from bgengine.opponents.gnubg.driver import GnubgSettings
    from bgengine.opponents.gnubg.process import GnubgConfig

    assert type(GnubgSettings(plies=np.int64(2)).plies) is int
    assert type(GnubgConfig(processes=np.int32(3)).processes) is int
    for bad in (True, 1.0, "2"):
        with pytest.raises(ValueError, match="gnubg plies must be an integer"):
            GnubgSettings(plies=bad)
        with pytest.raises(ValueError, match="gnubg processes must be a positive integer"):
            GnubgConfig(processes=bad)
