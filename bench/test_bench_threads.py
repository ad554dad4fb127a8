"""Scaling over threads: matches (issue 5) and self-play training (issue 12), 2 threads over 1
(targets >= 1.8x).

Matches spread game pairs over threads inside the compiled core (the GIL is
released); results do not depend on the thread count (checked here too).

Figures on the development machine (2-core Intel Xeon KVM guest, idle), 3 repetitions,
medians: the 222-80-5 ``expert`` network vs pubeval, 8000 games: 5914 games/s
on one thread, 11548 on two, **1.95x** (1.91-2.02); a 198-40-4 network vs pubeval,
20000 games: 7693 and 15177 games/s, **1.98x** (1.89-2.00); this file's test
1.90x.  Per-thread move lists and searchers are padded to a cache line of their
own: side by side in an array they share one, and the scaling falls to
1.55-1.73x once a game is fast enough for it to show.  Gate: >= 1.5x (noise on a
shared machine), only where 2 cores are available.
"""

from __future__ import annotations

import os
import statistics
import time

import pytest

from bgengine.core.agents import Player
from bgengine.matches.run import run_match
from bgengine.core.network import Network

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@pytest.mark.skipif(CORES < 2, reason="needs 2 cores")
def test_match_scaling_on_two_threads(benchmark):
    net = Player("net", Network((40,), 4, "tesauro198", seed=1), name="198-40-4")
    pub = Player("pubeval")

    def ratio() -> float:
        t = time.perf_counter()
        one = run_match(net, pub, 6000, seed=1, threads=1)
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        two = run_match(net, pub, 6000, seed=1, threads=2)
        t2 = time.perf_counter() - t
        assert one == two
        return t1 / t2

    r = benchmark.pedantic(ratio, rounds=3, iterations=1)
    ratios = sorted(ratio() for _ in range(2)) + [r]
    med = sorted(ratios)[1]
    benchmark.extra_info["scaling"] = med
    print(f"\n2-thread scaling: {med:.2f}x")
    assert med >= 1.5


#: CPU cores other processes may use during a measurement that still counts.
OTHERS_BUSY = 0.05


def _others_busy() -> float:
    """CPU seconds every process has used so far (Linux; 0 elsewhere): minus ours over a
    measurement, it tells whether something else ran meanwhile."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0.0
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")     # minus idle


def _medians_of_clean_rounds(benchmark, ratios, modes: tuple[str, ...], what: str,
                             key: str) -> dict[str, float]:
    """Median of each mode's 2-thread ratio over the rounds of ``ratios()`` (a dict: each
    mode's ratio and ``others_busy``) during which other processes used at most
    ``OTHERS_BUSY`` cores; skips the test if there is none.  A round during which other
    processes took CPU compares two threads against one with less than two cores: it is
    shown, not counted (up to 8 tries for 3 clean rounds)."""
    runs = [benchmark.pedantic(ratios, rounds=1, iterations=1)]
    while sum(r["others_busy"] <= OTHERS_BUSY for r in runs) < 3 and len(runs) < 8:
        runs.append(ratios())
    print(f"\n2-thread training scaling ({what}), {'/'.join(modes)}: " + "; ".join(
        "/".join(f"{r[m]:.2f}" for m in modes) + f" (others {r['others_busy']:.2f} cores)"
        for r in runs))
    clean = [r for r in runs if r["others_busy"] <= OTHERS_BUSY]
    benchmark.extra_info["rounds"] = runs
    if not clean:
        pytest.skip("other processes kept the CPU busy in every round")
    med = {m: statistics.median(r[m] for r in clean) for m in modes}
    benchmark.extra_info.update({f"{key}_{m}": v for m, v in med.items()})
    print(f"medians of {len(clean)} clean rounds: " + ", ".join(
        f"{m} {v:.2f}x" for m, v in med.items()))
    return med


def _training_model(kind: str):
    """The benchmark's model, past random weights' long games, and its config."""
    from bgengine.core.td import train_games
    from bgengine.training.trainer import TrainConfig, _new_network

    if kind == "expert":
        cfg = TrainConfig(encoder="expert", hidden=[128], lam=0.0, games=100_000, seed=4)
    else:       # the shipped class evaluator's shapes, as the real runs train it
        cfg = TrainConfig(encoder="contact", hidden=[128], race_encoder="race", race_hidden=[64],
                          bearoff=True, lam=0.0, games=100_000, seed=4)
    model = _new_network(cfg, {})
    train_games(model, 300, 0.1, 0.0, seed=99)
    return cfg, model


@pytest.mark.skipif(CORES < 2, reason="needs 2 cores")
@pytest.mark.parametrize("kind", ["expert", "classes"])
def test_training_scaling_on_two_threads(benchmark, kind):
    """TD(0) self-play moves/s of a run on two threads (``train_threads = 2``, ``sync_games =
    16``: each thread plays 16 games on its own copy, then the changes are merged, see
    ``bgengine.training.threaded_td``) over one thread, from the same weights, the same games; both
    sync modes.  Models: ``expert`` 222-128-5; ``classes`` contact 250-128-5 + race 235-64-5
    + bear-off database (the shipped evaluator's shapes).  A round is 1 thread, "round",
    "rolling" back to back; medians of the rounds during which other processes used at most
    ``OTHERS_BUSY`` cores (3 wanted, at most 8 tries; skipped if none).  Gates: "round" >= 1.5x, "rolling" >= 1.7x (issue target
    1.8x; noise on a shared machine).

    Figures (threads live for the whole batch, each merges its own change in turn; AMD
    EPYC 2-core KVM guest, training paused, rounds with other processes busy discarded; the
    machine's speed for two threads drifted between runs): this test once, medians of 3
    clean rounds: expert "round" 1.65x, "rolling" 1.77x; classes 1.73x and **1.81x**; a
    later run, with another process busy in most rounds: classes "round" 1.79x and 1.81x,
    "rolling" 1.86x and 1.89x in its two clean rounds (expert: none clean, skipped).  The
    same measurement by a script, 3 clean rounds, two runs: expert "round" 1.77x (1.74-1.83)
    and "rolling" **1.97x** (1.93-1.98); "rolling" 1.87x (one clean round) later; class
    evaluator with 1-ply targets at ``sync_games = 8`` (192 games, 2 clean rounds): "round"
    1.77x and 1.67x, "rolling" 1.89x and 1.77x.  "rolling" keeps each thread in its games
    93-97% of the time ("round": 82-91%); one thread's games run at the speed of one alone."""
    from bgengine.core.td import train_games
    from bgengine.training.threaded_td import train_games_threaded

    cfg, start = _training_model(kind)
    n = 2400 if kind == "expert" else 1600

    def rate(mode: str) -> tuple[float, float]:
        """(moves/s, CPU cores other processes used meanwhile)"""
        model = start.copy()
        busy, cpu, t = _others_busy(), time.process_time(), time.perf_counter()
        if mode == "one":
            stats = train_games(model, n, 0.01, 0.0, seed=cfg.seed)
        else:
            stats = train_games_threaded(model, n, 0.01, 0.0, threads=2, sync_games=16,
                                         mode=mode, seed=cfg.seed)
        dt = time.perf_counter() - t
        others = (_others_busy() - busy - (time.process_time() - cpu)) / dt
        return stats["moves"].sum() / dt, others

    def ratios() -> dict[str, float]:
        one, busy = rate("one")
        out = {"others_busy": busy}
        for mode in ("round", "rolling"):
            r, busy = rate(mode)
            out[mode] = r / one
            out["others_busy"] = max(out["others_busy"], busy)
        return out

    med = _medians_of_clean_rounds(benchmark, ratios, ("round", "rolling"),
                                   f"{kind}, moves/s", "training_scaling")
    assert med["round"] >= 1.5
    assert med["rolling"] >= 1.7


#: The shipped evaluator's games per round of the test below, per mode.
SHIPPED_GAMES = 3000


@pytest.mark.skipif(CORES < 2, reason="needs 2 cores")
def test_training_scaling_of_the_shipped_evaluator(benchmark):
    """Games/s of a TD(0) run on two threads over one, on the same games, from the shipped
    evaluator (``python/bgengine/data/default.npz``: contact 250-128-5 + race 235-64-5 +
    bear-off database), with the real runs' settings: SGD ``sync_mode = "rolling"``,
    ``sync_games = 16``, alpha 0.004 (``training/classes-c256-b``); batch TD(0) with Adam,
    1024 positions a step, rate 3e-6 (``training/adam-c128``).  A round is one and two
    threads of each, back to back; medians of the rounds during which other processes used
    at most ``OTHERS_BUSY`` cores (3 wanted, at most 8 tries; skipped if none).  Gates:
    SGD rolling >= 1.8x (the issue's target), Adam >= 1.75x (its threads wait for each
    other every step: less margin, see below).

    Figures (AMD EPYC, ``lscpu`` family 25 model 17, 2-vCPU KVM guest, background
    training paused by the benchmark lock, other engineers' compilers often busy: rounds
    with other processes on more than 0.05 cores discarded), this test three times,
    medians of 3 clean rounds each: rolling **2.05x / 1.93x / 1.98x**, Adam **1.84x / 1.87x
    / 1.85x** (clean rounds 1.82-2.11 and 1.69-1.91).  Ceiling on this guest: a C busy loop
    1.94-1.98x.  With another process busy on a whole core, Adam 0.96-0.98x (8 rounds);
    a ``prange`` every step in place of the barrier (OpenMP's spinning waits) gives
    0.59-0.68x there (an alternating A/B, 12 rounds each: medians 0.60x against the
    barrier's 1.00x); on a quiet machine the barrier gains nothing (alternating A/B, 6 clean
    rounds each: medians 1.81x against the ``prange``'s 1.85x).  By parts (instrumented,
    quiet): an Adam
    thread plays its share 91-95% of the time, waits 4-7% for the other's share (the
    step's imbalance: 512 positions a thread of varying cost), sums and steps its half of
    the parameters 1.1%; an SGD rolling thread plays its games at 0.96-0.99 of one thread
    alone, waits 0.2-2.4% for the other's merge and merges 0.7-0.9%.  See
    docs/experiments.md ("Training on two threads at equal games").
    """
    from bgengine.training.optimizer import AdamState
    from bgengine.matches.players import load_default_network
    from bgengine.core.td import train_games
    from bgengine.training.threaded_td import train_games_threaded

    start = load_default_network()
    n = SHIPPED_GAMES

    def rate(mode: str, threads: int) -> tuple[float, float]:
        """(games/s, CPU cores other processes used meanwhile)"""
        model = start.copy()
        busy, cpu, t = _others_busy(), time.process_time(), time.perf_counter()
        if mode == "adam":
            train_games(model, n, 3e-6, 0.0, seed=2041, first_game=1000,
                        adam=AdamState.zeros(model), batch_positions=1024, threads=threads)
        elif threads == 1:
            train_games(model, n, 0.004, 0.0, seed=2031, first_game=1000)
        else:
            train_games_threaded(model, n, 0.004, 0.0, threads=threads, sync_games=16,
                                 mode="rolling", seed=2031, first_game=1000)
        dt = time.perf_counter() - t
        return n / dt, (_others_busy() - busy - (time.process_time() - cpu)) / dt

    def ratios() -> dict[str, float]:
        out = {"others_busy": 0.0}
        for mode in ("rolling", "adam"):
            (one, b1), (two, b2) = rate(mode, 1), rate(mode, 2)
            out[mode] = two / one
            out["others_busy"] = max(out["others_busy"], b1, b2)
        return out

    med = _medians_of_clean_rounds(benchmark, ratios, ("rolling", "adam"),
                                   "shipped evaluator, games/s", "shipped_scaling")
    assert med["rolling"] >= 1.8
    assert med["adam"] >= 1.75
