"""bgengine against GNU Backgammon, same machine, same run (skipped without gnubg).

Two measurements from issue 4's "Performance" section, each taken alternately
for gnubg and for us, round by round, so that both sides see the same load; the
ratios are the medians of the per-round ratios.

1. **Static 0-ply evaluations per second.**  gnubg: its ``calibrate N`` command
   (``set threads 1``), which evaluates N x 1024 random contact positions
   (no checker on the bar or off) and prints "Calibration result: R static
   evaluations/second"; R is its own timing of the evaluation loop alone.
   bgengine: one ``Network.evaluate`` call, single thread, on (a) the 95,990
   afterstates of the wildbg positions (bench/conftest.py) for three rolls each,
   and (b) 102,400 random positions drawn the way ``calibrate`` draws them; for
   the shipped evaluator, and a 198-80-5 ``tesauro198`` network for comparison.
   Target (``STATIC_TARGET``): >= 4x gnubg.
2. **Rollout trials per second** of the opening position (the side on roll to
   roll, any first roll), 0-ply chequer play for both sides, cubeless, full
   games (no truncation, bearoff-database truncation off too), no variance
   reduction, 1296 trials.  gnubg: ``rollout`` with those ``set rollout``
   settings (checked through ``show rollout`` and ``gnubg.rolloutcontext()``),
   with as many threads as ours, its defaults otherwise (quasi-random dice,
   ``prune`` on); timed inside gnubg's own Python around
   ``gnubg.command('rollout')``.  bgengine: ``bgengine.core.search.rollout(net,
   STARTING_BOARD, 1296)`` with ``n_threads`` 1 and 2.  Target (``ROLLOUT_TARGET``):
   >= 5x gnubg's trials/s.

gnubg runs as one persistent ``gnubg -t -q -p`` process fed requests on its
standard input, so no start-up time is measured.  The network is the shipped
``python/bgengine/data/default.npz``, else a copy of ``runs/default/best.npz``
(the training run's best so far, same architecture); else the module skips.

Figures (Python 3.11, gcc 12 -O3, the AVX2 network kernels; GNU Backgammon 1.07.001 from
Debian; 2-vCPU KVM guests), the latest measured on each CPU, gnubg's figures alongside ours in
the same runs:

======================================  ===========  ==============  ==============  ==============
CPU (``lscpu``), evaluator              static,      static,         rollouts,       rollouts,
                                        afterstates  calibrate-like  1 thread        2 threads
======================================  ===========  ==============  ==============  ==============
AMD EPYC family 26 model 2 (Zen 5),     6.61x        4.68x           **6.45x**       **6.13x**
an earlier evaluator (race 235-128-5),
AVX-512 kernel [5]
AMD EPYC family 25 model 17 (Zen 4),    4.77-5.63x   5.15-5.48x      **5.87-6.06x**  **5.85-6.09x**
the shipped evaluator (race
distributions), AVX-512 [6]
AMD EPYC family 26 model 2 (Zen 5),     7.01x        5.17x           6.66x           6.53x
the previous evaluator (race            (6.85-7.80x) (4.50-6.08x)    (6.60-6.97x)    (6.06-6.55x)
235-64-5), AVX-512 [4]
Intel Xeon family 6 model 207           5.72-5.90x   3.87-3.95x      6.33x           5.68x
(AVX-512), the previous evaluator [1]                                (5.89-6.59x)    (5.52-5.71x)
AMD EPYC family 23 model 1 (Zen 1),     5.02-5.14x                   4.82-4.88x      4.80-4.87x
the previous evaluator [2]
Intel Xeon family 6 model 167, one      5.35-5.37x   3.45-3.55x      5.79-5.92x      5.69-5.79x
250-128-5 contact network [3]
AMD EPYC family 25 model 17 (Zen 4),    5.33-5.68x   3.60-3.71x      5.16-5.23x      5.15-5.34x
one 250-128-5 contact network [3]
======================================  ===========  ==============  ==============  ==============

[6] Other work paused; three runs of the static tests (the 198-80-5 network 21.5-22.1x),
positions checked in C (numpy's checks took 0.44 us a position, half an evaluation; before
that 5.41-5.82x and 4.13-4.19x with the race network alone).  Half the afterstates are
races, each valued from both sides' bear-off distributions (the race distribution network,
about 0.7 us more a race).  The rollouts are [5]'s: they use the networks alone, of the same
shapes.

[5] Other work paused; Zen 5 one run of the whole file (the deep network 2.24x), Zen 4 three
runs of the static and rollout tests with the output layer reduced in registers (gnubg 477-501
trials/s on one thread; the deep network 1.80-1.90x).

[4] One run of the whole file, other work paused; gnubg 578 trials/s on one thread, 1,170 on
two; the 250-128-128-5 deep network 2.33x. The rows below predate the polynomial sigmoid.

[1] Eight contact experts of 250-128-5 (routed by two SSE2 pip counts per evaluation), race
235-64-5, exact bear-offs; three runs of the whole file, the host noisy (gnubg's own rates
212-305 trials/s): rollouts 5.89x, 6.33x, 6.59x on one thread, 5.71x, 5.52x, 5.68x on two.
Instructions a rollout trial (callgrind, 1296 minus 324 trials, deterministic): 3,724,247.
Hit counting (P1, P2, pip loss of both sides, ``bg_hits_avx2`` and ``bg_hits_bar_avx2``) takes
the 15 non-doubles as two vectors of dice pairs a < b and P2's two-blot case in vector lanes;
the contact terms a tail's made points alone decide (the head side's escapes and mobility
past them, the tail's containment) are remembered per head (8 slots keyed by the mask; per
head 44% of the made masks are new in self-play); the unit differences of a changed point in
the comparison by parts come from a table by (old count, new count).  Hit counting is 4% of a
rollout (perf).

[2] Nothing else running; three runs: rollouts 4.88x, 4.84x, 4.82x on one thread (1107-1120
vs 227-235 trials/s), 4.84x, 4.87x, 4.80x on two; static 5.13x, 5.14x, 5.02x on afterstates.
Measured without the hit counting by dice pairs, the made-points memo and the table of [1]
(there hit counting was 11% of a rollout and 256-bit operations cost double, so their gain
should be at least as large, but that is an expectation, not a measurement).  Contact
siblings are chained: each valued by difference from the previous sibling of its head (13
differing inputs on average against 20 from the head's first sibling; at most 8 links, then
from that reference again, so the rounding stays bounded: outputs within 1e-6 of the full
sums), the sums kept by the fused kernel.  The 5x rollout target is not met on Zen 1, whose
256-bit operations run as two 128-bit halves (gnubg's SSE code runs at full rate).  CPU-time
A/B of 1296-trial rollouts (best of 6-8, alternating, one process): the routing alone 0.98x,
the eight experts 0.995x the single calibrated network.  Profile of a rollout (perf, one
thread): forward kernel 31% (weight rows about 40% of it, the hidden sigmoid about 30%, the
output layer about 10%), contact tail features 10%, hit counting 10%, the comparison by parts
5%, own features 4%.

[3] Three runs each, quiet, with an older build: before the contact experts, the chained
siblings and the hit counting of [1] (sibling plays' first layers by difference, the contact
tails compared by parts).  The contact network with a second hidden layer
(``with_second_hidden_layer``: contact 250-128-128-5, reported only): 2.46-2.51x gnubg's
rollouts on the model 167 guest, 1.81-1.94x on Zen 3.  A 256-wide contact network
(``BGENGINE_BENCH_NET=training/classes-c256/network.npz``, on Zen 3 with an older build
still, the first layers by difference but the tails compared in full): rollouts 2.94-3.03x on
one thread, 2.97-3.01x on two; static 3.97-4.23x on afterstates, 2.51-2.58x calibrate-like
(the first layer of a static evaluation is summed in full: no siblings).

The first network shipped, 222-80-5 ``expert`` (Intel Xeon family 6 model 167, idle): static
8.61x gnubg on afterstates (1.59 M vs 191 k evaluations/s), 7.72x calibrate-like; rollouts
10.89x on one thread (4825 vs 445 trials/s), 10.65x on two; a 198-80-5 ``tesauro198`` network
10.14x on afterstates.  The machines are shared and their speed drifts by 10-15% over
minutes, so one round's ratio spreads widely (8.7-11.7x for that network on one thread).

Gates (on ratios of the same run only, set well below what was measured so that
they catch a regression, not noise): static, default evaluator, on afterstates >= 2.0x
(measured 5.02-5.90x); on random positions >= 1.5x (measured 3.45-3.95x); rollout trials/s on
one thread >= 4.0x gnubg for the shipped evaluator (measured 4.82-6.59x; 3.0x for a candidate
given by BGENGINE_BENCH_NET).  The 5x target is reported, not gated: Zen 1 misses it, and
one round's ratio spreads 5.10-5.67x quiet on Zen 3, lower under load.  The 198-80-5
and two-thread figures are reported only.  ``pytest bench/test_bench_vs_gnubg.py
--benchmark-disable`` takes about 50 s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bgengine.core.evaluator import Evaluator, as_evaluator
from bgengine.core.movegen import legal_afterstates_batch
from bgengine.core.network import Network
from bgengine.matches.players import default_network_path, load_network
from bgengine.position import STARTING_BOARD
from bgengine.core.search import rollout

GNUBG = shutil.which("gnubg") or (
    "/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)

pytestmark = [pytest.mark.gnubg,
              pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")]

ROOT = Path(__file__).resolve().parent.parent
TRAINING_BEST = ROOT / "runs" / "default" / "best.npz"
OPENING_ID = "4HPwATDgc/ABMA"

CALIBRATE_ITERATIONS = 100   # x 1024 evaluations: about 1 s of gnubg
STATIC_ROUNDS = 5            # alternating gnubg / bgengine rounds
RANDOM_BOARDS = 102_400      # as many as one calibrate run above
ROLLOUT_TRIALS = 1296        # both sides; a multiple of 1296 for our stratification
ROLLOUT_ROUNDS = 3
REQUEST_TIMEOUT = 120.0      # seconds for any one gnubg request

STATIC_TARGET = 4.0             # the strength issue's: the default evaluator >= 4x calibrate
ROLLOUT_TARGET = 5.0            # ... and >= 5x gnubg's rollout trials/s
#: A network or evaluator file to measure instead of the shipped default (candidates).
NET_OVERRIDE = os.environ.get("BGENGINE_BENCH_NET")
#: (kind, label) -> gate on the median ratio; measured figures in the docstring.
GATES = {
    ("static", "default afterstates"): 2.0,
    ("static", "default random (calibrate-like)"): 1.5,
    # the shipped evaluator measures 4.8-6.6x quiet, by CPU (the docstring's table); a
    # candidate given by BGENGINE_BENCH_NET (256 wide: ~3.0x) has a lower gate
    ("rollout", "1 thread"): 4.0 if NET_OVERRIDE is None else 3.0,
}

_ROWS: list[tuple[str, str, str, str, str, str]] = []   # printed at the end


# ---------------------------------------------------------------- gnubg driver

_SERVER = textwrap.dedent("""
    # Runs inside gnubg (-p): one JSON request per line on stdin, one
    # 'BGBENCH {json}' answer line on stdout.
    import ctypes, json, sys, time
    import gnubg
    _libc = ctypes.CDLL(None)

    def _flush():
        _libc.fflush(None)          # gnubg's own (C stdio) output first
        sys.stdout.flush()

    for line in sys.stdin:
        req = json.loads(line)
        t0 = time.perf_counter()
        for c in req["cmds"]:
            gnubg.command(c)
        seconds = time.perf_counter() - t0
        _flush()
        print("BGBENCH " + json.dumps({
            "seconds": seconds,
            "rollout": gnubg.rolloutcontext(),
            "position_id": gnubg.positionid(),
        }))
        _flush()
""")

_ROLLOUT_SETTINGS = [
    "set rollout cubeful off",
    "set rollout chequerplay cubeful off",
    "set rollout chequerplay plies 0",
    "set rollout players-are-same on",
    "set rollout later enable off",
    "set rollout truncation enable off",
    "set rollout bearofftruncation exact off",
    "set rollout bearofftruncation onesided off",
    "set rollout varredn off",
    "set rollout limit enable off",
    "set rollout initial off",
    "set rollout seed 1",
    f"set rollout trials {ROLLOUT_TRIALS}",
]


class Gnubg:
    """A persistent ``gnubg -t -q -p server.py`` process."""

    def __init__(self, exe: str, workdir: Path) -> None:
        script = workdir / "bgbench_gnubg_server.py"
        script.write_text(_SERVER)
        self.proc = subprocess.Popen(
            [exe, "-t", "-q", "-p", str(script)], cwd=workdir, text=True, bufsize=1,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def request(self, *cmds: str) -> tuple[dict, str]:
        """Run gnubg commands; (answer, gnubg's text output) with the time taken
        inside gnubg in ``answer['seconds']``."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"cmds": list(cmds)}) + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("gnubg exited: " + "".join(lines[-20:]))
            if line.startswith("BGBENCH "):
                return json.loads(line[len("BGBENCH "):]), "".join(lines)
            lines.append(line)
        raise TimeoutError(f"gnubg did not answer {cmds!r}")

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    # -- the two measurements

    def calibrate(self, iterations: int = CALIBRATE_ITERATIONS) -> float:
        """gnubg's own figure: static evaluations per second."""
        _, text = self.request(f"calibrate {iterations}")
        found = re.findall(r"Calibration result: (\d+) static evaluations/second", text)
        assert found, f"no calibration result in gnubg's output:\n{text[-2000:]}"
        return float(found[-1])

    def rollout_trials_per_second(self) -> float:
        answer, _ = self.request("rollout")
        assert answer["position_id"] == OPENING_ID
        assert answer["rollout"]["trials"] == ROLLOUT_TRIALS
        return ROLLOUT_TRIALS / answer["seconds"]


@pytest.fixture(scope="module")
def gnubg(tmp_path_factory) -> Gnubg:
    g = Gnubg(GNUBG, tmp_path_factory.mktemp("gnubg"))
    try:
        try:
            g.request("set threads 1")
        except (RuntimeError, TimeoutError) as exc:
            pytest.skip(f"gnubg cannot run Python scripts (-p): {exc}")
        g.request("set player 0 human", "set player 1 human", "set display off",
                  *_ROLLOUT_SETTINGS, "new game", f"set board {OPENING_ID}")
        _, shown = g.request("show rollout")
        ctx, _ = g.request()
        r = ctx["rollout"]
        # the settings the issue asks for, as gnubg itself reports them
        assert (r["cubeful"], r["variance-reduction"], r["truncated-rollouts"], r["late-eval"],
                r["truncate-bearoff2"], r["truncate-bearoffOS"], r["stop-on-std"],
                r["stop-on-jsd"], r["initial-position"]) == (0,) * 9, r
        assert r["trials"] == ROLLOUT_TRIALS
        chequer = shown.split("Chequer play parameters:", 1)[1].split("Cube decision", 1)[0]
        assert "0-ply evaluation" in chequer and "Cubeless evaluations" in chequer, shown
        assert "No truncation." in shown and "variance reduction is disabled" in shown, shown
        assert ctx["position_id"] == OPENING_ID
        g.calibrate(20)                      # warm-up
        yield g
    finally:
        g.close()


# ---------------------------------------------------------------- our side

@pytest.fixture(scope="module")
def shipped_net(tmp_path_factory) -> tuple[Network, str]:
    """$BGENGINE_BENCH_NET, else the shipped default network or evaluator, else a copy of
    the training run's best so far."""
    if NET_OVERRIDE:
        return load_network(NET_OVERRIDE), NET_OVERRIDE
    path = default_network_path()
    if path.exists():
        return load_network(path), "default.npz"
    if not TRAINING_BEST.exists():
        pytest.skip(f"no network: neither {path} nor {TRAINING_BEST} exists")
    copy = tmp_path_factory.mktemp("net") / "best.npz"
    for attempt in range(3):             # the run may be rewriting it right now
        shutil.copyfile(TRAINING_BEST, copy)
        try:
            return Network.load(copy), "runs/default/best.npz"
        except ValueError:
            if attempt == 2:
                raise
            time.sleep(1.0)
    raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def nets(shipped_net) -> dict[str, Network]:
    """The default evaluator, and for comparison a 198-80-5 network (random weights: static
    evaluation speed does not depend on them)."""
    net, _ = shipped_net
    return {"default": net, "198-80-5": Network((80,), 5, "tesauro198", seed=1)}


@pytest.fixture(scope="module")
def afterstates(wildbg_boards, rolls) -> np.ndarray:
    """Afterstates of every wildbg position for rolls k, k+7, k+14 (mod 21),
    swapped to the opponent on roll (as in test_bench_learning)."""
    n = len(wildbg_boards)
    boards = np.repeat(wildbg_boards, 3, axis=0)
    dice = rolls[(np.repeat(np.arange(n), 3) + np.tile([0, 7, 14], n)) % len(rolls)]
    after, _, _ = legal_afterstates_batch(boards, dice)
    return np.ascontiguousarray(after[:, ::-1, :])


@pytest.fixture(scope="module")
def calibrate_boards() -> np.ndarray:
    """Random positions drawn as gnubg's ``calibrate`` draws them: each side's
    15 checkers dropped one by one on random points 1..24 not held by the
    other side; none on the bar or off."""
    rng = np.random.default_rng(7)
    b = np.zeros((RANDOM_BOARDS, 2, 25), dtype=np.uint8)
    rows = np.arange(RANDOM_BOARDS)
    for _ in range(15):
        for side in (0, 1):
            k = rng.integers(0, 24, RANDOM_BOARDS)
            bad = b[rows, 1 - side, 23 - k] != 0
            while bad.any():
                k[bad] = rng.integers(0, 24, int(bad.sum()))
                bad = b[rows, 1 - side, 23 - k] != 0
            b[rows, side, k] += 1
    assert np.all(b[:, :, :24].sum(axis=2) == 15)
    assert not np.any((b[:, 0, :24] > 0) & (b[:, 1, 23::-1] > 0))
    return b


def with_second_hidden_layer(net) -> Evaluator:
    """The evaluator ``net`` with a second hidden layer as wide as the first in its contact
    network, near the identity, so that it plays much as ``net`` does (games as long, the
    same kinds of positions) at the cost of a two-hidden-layer network: a stand-in for a
    trained one, for speed.  On [0, 1], sigmoid(a - 0.5) = 0.5 + (a - 0.5) / 4 within 0.003,
    so the output layer takes 4 W (and b - 1.5 W 1) in place of W (and b)."""
    ev = as_evaluator(net)
    c = ev.contact
    n_in, H, K = c.sizes
    p = np.asarray(c.params, np.float64)
    head = p[:n_in * H + H]                              # W0 and b0 as they are
    W = p[n_in * H + H:n_in * H + H + H * K].reshape(H, K)
    b = p[n_in * H + H + H * K:]
    params = np.concatenate([head, np.eye(H).ravel(), np.full(H, -0.5),
                             (4 * W).ravel(), b - 1.5 * W.sum(axis=0)])
    deep = Network((H, H), K, c.encoder, params=params)
    return Evaluator(deep, None if ev.race is ev.contact else ev.race, database=ev.database)


# ---------------------------------------------------------------- helpers

@pytest.fixture(scope="module", autouse=True)
def _print_summary(request):
    """Print the table once pytest is done (after pytest-benchmark's)."""
    def show() -> None:
        if not _ROWS:
            return
        head = ("measurement", "gnubg", "bgengine", "ratio", "target", "met")
        widths = [max(len(r[i]) for r in [head, *_ROWS]) for i in range(len(head))]
        print("\nbgengine vs GNU Backgammon, same run, one thread each unless stated "
              "(medians of alternating rounds):")
        for row in [head, *_ROWS]:
            print("  " + "  ".join(f"{c:<{w}}" for c, w in zip(row, widths)))
    request.config.add_cleanup(show)
    yield


def _versus(benchmark, theirs: Callable[[], float], ours: Callable[[], object],
            rounds: int) -> tuple[list[float], list[float], object]:
    """Alternate gnubg's measurement (``theirs()`` -> its rate, run as the
    untimed set-up of each round) with ours (``ours()``, timed) under
    pytest-benchmark.  Returns gnubg's rates, our seconds per round, and our
    last result.  With ``--benchmark-disable`` pytest-benchmark runs a single
    round; the remaining rounds are then run here, the same way."""
    gnubg_rates: list[float] = []
    our_seconds: list[float] = []

    def setup():
        gnubg_rates.append(theirs())
        return (), {}

    def timed():
        t0 = time.perf_counter()
        out = ours()
        our_seconds.append(time.perf_counter() - t0)
        return out

    result = benchmark.pedantic(timed, setup=setup, rounds=rounds, warmup_rounds=0)
    while len(our_seconds) < rounds:
        setup()
        result = timed()
    assert len(gnubg_rates) == len(our_seconds) == rounds
    return gnubg_rates, our_seconds, result


def _report(benchmark, kind: str, label: str, unit: str, gnubg_rates: list[float],
            our_rates: list[float], target: float) -> float:
    ratios = [o / g for o, g in zip(our_rates, gnubg_rates)]
    g, o, ratio = (statistics.median(x) for x in (gnubg_rates, our_rates, ratios))
    gate = GATES.get((kind, label))
    benchmark.extra_info.update(gnubg_per_s=g, bgengine_per_s=o, ratio=ratio,
                                ratios=[round(r, 3) for r in ratios], target=target, gate=gate)

    def fmt(x: float) -> str:
        return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k" if x >= 1e4 else f"{x:.0f}"

    met = "yes" if ratio >= target else "NO"
    gated = f" (gate >= {gate}x)" if gate is not None else " (not gated)"
    _ROWS.append((f"{kind} {unit}/s, {label}", fmt(g), fmt(o),
                  f"{ratio:.2f}x  [{min(ratios):.2f}-{max(ratios):.2f}]", f">= {target:g}x",
                  met + gated))
    return ratio


def shipped_net_label(net) -> str:
    return repr(net)


# ---------------------------------------------------------------- 1. static evaluations

@pytest.mark.parametrize(("net_label", "positions"), [
    ("default", "afterstates"),
    ("default", "random (calibrate-like)"),
    ("198-80-5", "afterstates"),
])
def test_static_evaluations_vs_gnubg(benchmark, nets, gnubg, afterstates, calibrate_boards,
                                     net_label, positions):
    net = nets[net_label]
    boards = afterstates if positions == "afterstates" else calibrate_boards
    out = net.evaluate(boards)                 # warm-up (the first call is slower)
    assert out.shape == (len(boards), 5) and np.all(np.isfinite(out))
    if net_label == "default" and positions == "afterstates":
        print(f"\ndefault evaluator: {shipped_net_label(net)}")
    gnubg_rates, seconds, out = _versus(benchmark, gnubg.calibrate,
                                        lambda: net.evaluate(boards), STATIC_ROUNDS)
    assert out.shape == (len(boards), 5)
    our_rates = [len(boards) / s for s in seconds]
    label = f"{net_label} {positions}"
    ratio = _report(benchmark, "static", label, "evals", gnubg_rates, our_rates, STATIC_TARGET)
    gate = GATES.get(("static", label))
    if gate is not None:
        assert ratio >= gate, (f"static evaluations ({label}) only {ratio:.2f}x gnubg's "
                               f"calibrate figure (gate {gate}x)")


# ---------------------------------------------------------------- 2. rollouts

@pytest.mark.parametrize(("n_threads", "layers"), [(1, "default"), (2, "default"),
                                                   (1, "two hidden layers")])
def test_rollout_trials_vs_gnubg(benchmark, nets, gnubg, n_threads, layers):
    """The default evaluator, and (reported only) the same with a second hidden layer in its
    contact network (``with_second_hidden_layer``: [128, 128] for the shipped one)."""
    net = nets["default"] if layers == "default" else with_second_hidden_layer(nets["default"])
    board = np.array(STARTING_BOARD)

    def ours():
        return rollout(net, board, ROLLOUT_TRIALS, seed=1, truncate=0,
                       variance_reduction=False, plies=0, n_threads=n_threads)

    rollout(net, board, 324, seed=2, n_threads=n_threads)     # warm-up
    gnubg.request(f"set threads {n_threads}")                # all cores against all cores
    try:
        gnubg_rates, seconds, out = _versus(benchmark, gnubg.rollout_trials_per_second,
                                            ours, ROLLOUT_ROUNDS)
    finally:
        gnubg.request("set threads 1")
    assert out["trials"] == ROLLOUT_TRIALS and np.isfinite(out["equity"])
    assert abs(out["equity"]) < 0.5            # the opening is roughly even
    our_rates = [ROLLOUT_TRIALS / s for s in seconds]
    label = f"{n_threads} thread{'s' * (n_threads > 1)}"
    if layers != "default":
        label += f", contact {'-'.join(map(str, as_evaluator(net).contact.sizes))}"
    ratio = _report(benchmark, "rollout", label, "trials", gnubg_rates, our_rates,
                    ROLLOUT_TARGET)
    gate = GATES.get(("rollout", label))
    if gate is not None:
        assert ratio >= gate, (f"rollout trials/s ({label}) only {ratio:.2f}x gnubg's "
                               f"(gate {gate}x)")
