"""Moves per second answered by ``bgengine serve``, over a real TCP socket.

A client thread plays gnubg's part: it sends the ``board:`` line of a position
with dice (as gnubg's external-player role does, NUL-terminated) and waits for
the one-line answer, one request at a time, for wildbg's 2000 contact and race
positions with a roll each.  The server runs in this process with the shipped
network at 0-ply and at 2-ply; the client measures the round trip.

Gate (ratio in the same run): at 0-ply the server answers at least 0.1x as
many moves per second as calling ``Engine.choose_move`` directly on the same
positions (a regression guard: measured 0.16-0.35x, see below).

Figures on the development machine (2-core KVM guest, Python 3.11, gcc 12
-O3), shipped 222-80-5 network, one client; 3 runs of this file each (each
the median of 3 rounds):

=============================  ====================  ======================  ==============
machine state, plies           serve moves/s         direct choose_move/s    ratio
=============================  ====================  ======================  ==============
other core training, 0-ply     5964 (5537-6395)      17309 (16447-18201)     0.34 (0.34-0.35)
other core training, 2-ply     22.9 (21.8-23.2)
idle, later build, 0-ply       3475 (3264-3595)      18457 (18008-18748)     0.19 (0.18-0.19)
idle, later build, 2-ply       29.7 (29.2-30.6)
=============================  ====================  ======================  ==============

The round trip, not the engine, sets the 0-ply rate: in-process (no socket)
the same session answers about 7200 lines/s, and parsing the board line costs
about as much as choosing the move.  On an idle machine the round trip is
*slower* (the old serve.py gives the same figure, so it is not the code): each
request wakes the server thread and each answer the client on an idle core.
2-ply answers take 33-45 ms.
"""

from __future__ import annotations

import socket
import time

import numpy as np
import pytest

from bgengine.notation.fibs import format_fibs_board
from bgengine.notation.ids import MatchState
from bgengine.matches.players import default_network_path, make_player
from bgengine.decisions.engine import Engine
from bgengine.protocols.serve import start_server

pytestmark = pytest.mark.skipif(not default_network_path().exists(), reason="no shipped network")


@pytest.fixture(scope="module")
def requests(wildbg_boards, rolls) -> list[tuple[np.ndarray, int, int, bytes]]:
    rng = np.random.default_rng(7)
    out = []
    for b in wildbg_boards:
        d1, d2 = (int(x) for x in rolls[rng.integers(len(rolls))])
        line = format_fibs_board(b, MatchState(dice=(d1, d2), player_on_roll=1),
                                 names=("gnubg", "bgengine"))
        out.append((b, d1, d2, line.encode() + b"\x00\n"))
    return out


def _ask_all(addr: tuple[str, int], lines: list[bytes]) -> float:
    """Send each line, wait for its answer; seconds taken."""
    with socket.create_connection(addr, timeout=60) as s:
        f = s.makefile("rb")
        t = time.perf_counter()
        for line in lines:
            s.sendall(line)
            if not f.readline():
                raise ConnectionError("server closed the connection")
        return time.perf_counter() - t


@pytest.mark.parametrize("plies", [0, 2])
def test_serve_moves_per_second(benchmark, requests, plies):
    engine = Engine(make_player("net"), plies=plies)
    srv = start_server(engine)
    try:
        n = len(requests) if plies == 0 else 100
        lines = [r[3] for r in requests[:n]]
        host, port = srv.server_address[:2]
        times: list[float] = []

        def run() -> float:
            times.append(_ask_all((host, port), lines))
            return times[-1]

        # (with --benchmark-disable pytest-benchmark runs it once and keeps no stats)
        secs = benchmark.pedantic(run, rounds=3, iterations=1)
        served = n / sorted(times)[len(times) // 2]
        benchmark.extra_info["moves_per_s"] = served
        if plies == 0:
            direct = Engine(make_player("net"))
            t = time.perf_counter()
            for b, d1, d2, _ in requests:
                direct.choose_move(b, d1, d2)
            direct_rate = len(requests) / (time.perf_counter() - t)
            benchmark.extra_info["direct_moves_per_s"] = direct_rate
            print(f"\nserve 0-ply: {served:.0f} moves/s; direct choose_move {direct_rate:.0f}/s; "
                  f"ratio {served / direct_rate:.2f}")
            assert served >= 0.1 * direct_rate
        else:
            print(f"\nserve {plies}-ply: {served:.1f} moves/s")
        assert secs > 0
    finally:
        srv.close()
