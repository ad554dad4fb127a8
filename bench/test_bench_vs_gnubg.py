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
   the shipped 222-80-5 ``expert`` network, and a 198-80-5 ``tesauro198`` network
   for comparison.  Target: >= 2x gnubg.
2. **Rollout trials per second** of the opening position (the side on roll to
   roll, any first roll), 0-ply chequer play for both sides, cubeless, full
   games (no truncation, bearoff-database truncation off too), no variance
   reduction, 1296 trials.  gnubg: ``rollout`` with those ``set rollout``
   settings (checked through ``show rollout`` and ``gnubg.rolloutcontext()``),
   with as many threads as ours, its defaults otherwise (quasi-random dice,
   ``prune`` on); timed inside gnubg's own Python around
   ``gnubg.command('rollout')``.  bgengine: ``bgengine.search.rollout(net,
   STARTING_BOARD, 1296)`` with ``n_threads`` 1 and 2.  Target: >= 10x gnubg's
   trials/s.

gnubg runs as one persistent ``gnubg -t -q -p`` process fed requests on its
standard input, so no start-up time is measured.  The network is the shipped
``python/bgengine/data/default.npz``, else a copy of ``runs/default/best.npz``
(the training run's best so far, same architecture); else the module skips.

Figures on the development machine (``lscpu``: "Intel(R) Xeon(R) Processor",
family 6 model 167, 2-core KVM guest with AVX-512; Python 3.11, gcc 12 -O3, the
AVX2 network kernels; GNU Backgammon 1.07.001 from Debian), shipped network
``python/bgengine/data/default.npz``, idle machine (2026-11-23, session 5, after the
work listed in the README's Performance section).  Medians of 3 runs of this file
(each the median of 5 or 3 alternating rounds), per-run ratios in brackets:

=====================================  =======  ========  ========================  ======  ======
measurement                            gnubg    bgengine  ratio (runs)              target  met
=====================================  =======  ========  ========================  ======  ======
static evals/s, 222-80-5, afterstates  191 k    1.59 M    8.61x (8.62 8.61 8.41)    2x      yes
static evals/s, 222-80-5, random       185 k    1.42 M    7.72x (7.68 7.72 7.74)    2x      yes
static evals/s, 198-80-5, afterstates  187 k    1.87 M    10.14x (9.62 10.18 10.14) 2x      yes
rollout trials/s, 1 thread             445      4825      10.89x (10.92 10.89 10.51) 10x    yes
rollout trials/s, 2 threads            875      9528      10.65x (10.65 10.91 10.09) 10x    yes
=====================================  =======  ========  ========================  ======  ======

The 2-thread line gives gnubg two threads too (``set threads 2``).  The machine is
shared and its speed drifts by 10-15% over minutes; the per-round ratios of one
run spread about 8.7-11.7x on one thread, so the rollout figure is about 10.5-11x,
not much more: the target is met, with little to spare.  Before this session's
work, the same file gave 6.19x (2959 vs 478 trials/s) on one thread; earlier that
day 2.47x, and 1.66x at its start.  Profile of our rollout now (perf): network
about 50% (first-layer rows fused with the hidden sigmoid 29%, output layer 8%),
encoder 20% (shot counts 3.5%), move generation 9%, move choice 3.6%.

Session 6 (2026-11-24), AMD EPYC 2-core KVM guest, idle, the class evaluator now shipped
(contact 250-128-5, race 235-64-5, exact bear-offs), one run of this file: static 987 k/s on
afterstates vs gnubg's 203 k = 4.86x (rounds 4.63-5.00), 655 k/s on calibrate-like positions =
3.22x (3.07-3.48); rollouts 1777 vs 500 trials/s = 3.58x on one thread, 3654 vs 1010 = 3.62x on
two.  The strength issue's targets (static >= 4x, rollouts >= 5x) are met on afterstates only;
the rollout gate is 3x until the contact encoder gets faster.

Session 7 (2026-11-24, same AMD EPYC guest, ``lscpu`` "AMD EPYC" family 25 model 17, training
paused, other jobs still running), after the speed work of that session, two runs of this
file, each right after a run of the session's starting commit (installed beside it) for
the rollouts: rollouts 1953 and 1966 trials/s vs gnubg's 491 and 496 = 3.97x and 3.97x on
one thread (the starting commit, same runs: 3.73x, 4.02x), 3.90x and 4.00x on two (3.75x,
4.01x); static 1.04 M/s on afterstates = 5.15x and 5.25x, 653-659 k/s on calibrate-like
positions = 3.24x and 3.27x.  The gain is below this file's noise: alternating 1296-trial
rollouts of the two builds, CPU time, best of 3 each, four rounds: 1.023-1.036x.  Where a
rollout's time goes (perf, one thread): network 39% (first-layer rows about 20%, the hidden
sigmoid's table gathers about 10%, output layer 7%), contact encoder 30% (P1/P2/pip loss 10%),
move generation 5%.  The first layer runs at the fused multiply-add throughput of this CPU
(a C loop over its rows with the weights in L1 is no faster), so 5x needs the contact
encoder (about 180 ns an afterstate) or the sigmoid to get much cheaper: not met.

Session 8 (2026-11-24, same AMD EPYC guest, ``lscpu`` family 25 model 17, training paused,
other engineers' test suites running): sibling plays' first layers by difference from a
reference sibling (``src/bgcore/layer_delta.pxd``), used for networks at least 256 wide.
Shipped evaluator (sums in full), three runs: rollouts 3.93x, 4.19x, 3.93x gnubg on one
thread (1829-1998 vs 477-496 trials/s), 3.86x, 4.21x, 3.99x on two; static 4.95x and 5.03x
on afterstates, 3.10x and 3.37x calibrate-like (a third run gave 7.97x / 4.84x: gnubg's
calibrate fell to 132 k/s in it, an outlier).  With ``BGENGINE_BENCH_NET=
training/classes-c256/network.npz`` (contact 250-256-5, race 235-64-5, bear-offs), three
runs: rollouts 2.94x, 2.97x, 3.03x on one thread (1390-1461 trials/s), 3.01x, 2.97x, 3.01x
on two; static 3.97x, 4.20x, 4.23x on afterstates, 2.51x, 2.51x, 2.58x calibrate-like (the
first layer of a static evaluation is summed in full: no siblings).  Against main, CPU-time
A/B of 1296-trial rollouts (best of 3 per process, three alternations in one locked
session): the 256-wide evaluator +9.2%, +8.6%, +8.9%; the shipped one, which sums in full,
-3.4% to +6.6% in eight rounds over two sessions (median +2.6%: no change beyond this
machine's drift).  The 5x rollout target is not met by either.  Profile of a rollout with
the difference also at 128 units (perf, shipped): forward kernel 22%, contact encoder 26%
(tail 14%, hits 8.7%, own features 3.5%), the comparison of sibling inputs 9.4%: at 128
units finding the differing inputs costs more than their rows save (in-build A/B,
``bench/test_bench_layer_delta.py`` with the threshold set to 128: 0.958x; against main
about 5% slower), hence the 256 threshold.

Session 9 (2026-11-24, same AMD EPYC guest, ``lscpu`` family 25 model 17, training paused,
other engineers' jobs running): contact tails compared by parts (the mover's checkers point by
point, the 34 features as a dense vector), so that the shipped evaluator's 128-wide contact
network takes the first layer by difference too, and the AVX2 sigmoid's table pairs by scalar
loads.  Three runs of this file in one locked session: rollouts 4.79x, 4.34x, 4.69x gnubg on
one thread (1845-1888 vs 356-435 trials/s: gnubg's own rate drifted), 4.49x, 4.21x, 4.26x on
two; our two threads 1.93x, 2.05x, 1.76x our one (same runs); static 4.42x, 4.57x, 5.22x on
afterstates, 2.89x, 2.73x, 3.44x calibrate-like.  Against main, CPU-time A/B of 1296-trial
rollouts (best of 3 per process, two alternations): +18.9%, +15.2%.  The 5x rollout target is
still not met.  Profile of a rollout process (perf, one thread, the bear-off tables' start-up
about 10% of it; taken before the features-only tails, the SIMD feature mask and the sigmoid's
scalar loads): network forward 24%, contact encoder about 27% (its tail 14.5%, hit counting
8.6%, own features 3.5%), the comparison by parts 5%, move generation 4%: the encoder is what
is left.

Session 10 (2026-11-25, same AMD EPYC guest, ``lscpu`` "AMD EPYC" family 25 model 17, training
paused, other engineers' niced runs and gnubg matches still busy on both cores: gnubg's own rates
were 224-312 trials/s and 62-96 k evaluations/s, against about 450 and 200 k on a quiet
machine).  The output layer with K a constant (its sums in registers), ``outputs_flip`` without
a libc memcpy, no per-input reference state when comparing by parts, the tail side's escapes
remembered per head, the sigmoid's pairs loaded from the value table; and the later hidden
layers of deeper networks in SIMD kernels.  Three runs of this file in one locked session:
rollouts 4.08x, 4.45x, 4.41x gnubg on one thread (median 4.41x; 951-1340 trials/s), 4.52x,
4.80x, 4.22x on two; static 6.38x, 6.61x, 7.53x on afterstates, 3.41x, 4.70x, 4.93x
calibrate-like.  Against main, alternating 1296-trial rollouts in two long-lived processes (CPU
time, 8 rounds, same locked session): +3.0% (per round 1.009-1.031x; an earlier session, before
the last two changes: +3.4%).  The 5x rollout target is NOT met.  The default evaluator with a
second hidden layer (``with_second_hidden_layer``: contact 250-128-128-5, reported only):
1.38x, 1.39x, 1.34x gnubg (310-419 trials/s); its later layer had run as plain C, 14.5x slower
(46 against 669 trials/s, same A/B).  Profile of a rollout (perf, one thread, start-up
excluded) before these changes: forward kernel 35% (rows about 40% of it, the hidden sigmoid
28%, the output layer 20%), contact encoder about 40% (tail features 13.4%, hit counting 12.2%,
comparison by parts 5.7%, own features 4.6%, the mover's summary 4.2%), first-layer sums of
new heads 4.6%, move generation 6%, bear-off database 2.5%.

Session 11 (2026-11-25, same AMD EPYC guest, ``lscpu`` "AMD EPYC" family 25 model 17, training
paused, the machine otherwise quiet: gnubg's own rates 477-491 trials/s and 197-203 k
evaluations/s).  Encoder work, results unchanged (encoder units bit for bit, rollouts byte for
byte): P1/P2/pip loss of a side with checkers on the bar in AVX2 (``bg_hits_bar_avx2``: the
plain-C loop over the rolls had been 4.5% of a rollout, branches it mispredicted), moment2 and
the break-contact / free-pip / timing terms from branch-free sums over ranges of points
(``bg_range_sums``), a side's summary sums by SSE2 (``bg_side_counts``).  Three runs of this
file in one locked session: rollouts 4.98x, 4.98x, 4.96x gnubg on one thread (median 4.98x;
2352-2438 trials/s), 5.01x, 5.04x, 4.86x on two; static 5.35x, 5.13x, 5.28x on afterstates,
3.55x, 3.41x, 3.49x calibrate-like; the contact network with a second hidden layer 1.93x,
1.88x, 1.92x.  Against the session's starting commit (alternating 1296-trial rollouts in two
long-lived processes, CPU time, best of 2 per round, 6 rounds each): the summary sums alone
0.975x (slower), the bar hits on top of them 1.092x (summary + bar hits against the start:
1.076x), the range sums on top of those 1.025-1.030x: about 1.10x in all.  The summary sums
measured slower alone, but removing them from the final tree gave 0.985x (against 1.025x with
them, same reference), so they stay: code layout moves these figures by a few per cent.  The
5x rollout target is missed by a hair (4.96-4.98x
on one thread, met on two in two runs of three).  Profile of a rollout now (perf, one thread):
forward kernel 22% (plus the output layer 10%), the contact tail's features 11%, hits of two
or more blots without bar checkers (``bg_hits_avx2``) 8.7%, the comparison by parts 6%, own
features 4.6%.

Session 12 (2026-11-25, same AMD EPYC guest, ``lscpu`` "AMD EPYC" family 25 model 17, training
paused, the machine otherwise quiet: gnubg's own rates 473-491 trials/s and 197-200 k
evaluations/s).  Kernel and memory changes, results unchanged (encoder units untouched,
rollouts byte for byte, every kernel test bit for bit): the hidden sigmoid's table offsets out
of the register two lanes at a time (+0.5%); rollouts and batch evaluations on frozen copies of
the networks (``net_freeze``, ``ev_freeze``) that carry the output layer transposed, so the AVX2
output kernel needs no lane permutes; and the weights on a 64-byte boundary.  The last one
matters more than it looks: numpy had put the weights 16 bytes off a 32-byte boundary in some
processes (among them this file's) and not in others, so that half the first layer's 32-byte row
loads straddled two cache lines: in this file's process rollouts went from 2343-2365 to
2544-2572 trials/s with it alone, while an A/B harness whose process had them aligned by chance
saw nothing (and earlier sessions' "code layout moves these figures by a few per cent" was
probably this).  Three runs of this file in one locked session: rollouts **5.16x, 5.20x, 5.23x
gnubg on one thread** (median 5.20x; 2498-2571 trials/s), 5.15x, 5.34x, 5.17x on two; static
5.68x, 5.58x, 5.33x on afterstates, 3.68x, 3.60x, 3.71x calibrate-like; the contact network
with a second hidden layer 1.81x, 1.91x, 1.94x.  Against main (alternating 1296-trial rollouts
in two long-lived processes, CPU time, best of 2 per round, 6 rounds, same locked session):
1.126x (per round 1.126-1.129x; main's weights 16 bytes off in its process).  The 5x rollout
target is met on one thread and on two.  Profile of a rollout now (perf, one thread): first
layer rows and hidden sigmoid about 24% (the output layer about 4%, was 8-10%), contact tail
features 12%, hit counting 9%, the comparison by parts 6%, own features 4%.

Session 14 (2026-11-25), an Intel machine (``lscpu`` "Intel(R) Xeon(R) Processor", family 6
model 167, 2-vCPU KVM guest), quiet, the round-6 default (same sizes and kernels, new
weights), three runs: rollouts **5.92x, 5.79x, 5.82x gnubg on one thread** (2487-2501 vs
422-430 trials/s), 5.79x, 5.69x, 5.71x on two; static 5.35x, 5.36x, 5.37x on afterstates,
3.55x, 3.45x, 3.52x calibrate-like; second hidden layer 2.51x, 2.46x, 2.46x.

Session 25 (2026-11-29), an older AMD CPU (``lscpu`` "AMD EPYC", family 23 model 1, Zen 1,
2-vCPU KVM guest), quiet, the calibrated round-7 default, three runs: static 5.20x, 5.40x,
5.19x on afterstates (520-571 k/s vs 99-106 k), 3.35x, 3.61x, 3.40x calibrate-like;
rollouts **4.58x, 4.70x, 4.41x on one thread** (1072-1194 vs 235-249 trials/s), 4.70x,
4.61x, 4.62x on two: the 5x rollout target is not met on Zen 1, whose 256-bit operations
run as two 128-bit halves (gnubg's SSE code runs at full rate); the first layer's
weight-row loads are a third of a rollout (perf).

Session 28 (2026-11-29, the same Zen 1 guest, quiet), the eight-contact-expert default
(routed by two SSE2 pip counts per evaluation), three runs alternating with two of the
session-22 default: static 5.16x, 5.15x, 5.57x on afterstates (the session-22 file 4.90x,
5.20x); rollouts **4.64x, 4.96x, 4.68x on one thread** (4.67x, 4.78x), 4.60x, 4.59x,
4.54x on two (4.69x, 4.71x).  CPU-time A/B of 1296-trial rollouts (best of 6-8,
alternating, one process): the routing alone 0.98x, the eight experts 0.995x the
session-22 file.  Profile of a rollout (perf, one thread, session 29): forward kernel 31%
(weight rows about 40% of it, the hidden sigmoid about 30%, the output layer about 10%),
contact tail features 10%, hit counting 10%, the comparison by parts 5%, own features 4%.

Session 29 (same Zen 1 guest, nothing else running), contact siblings chained: each valued by
difference from the previous sibling of its head (13 differing inputs on average against 20
from the head's first sibling; at most 8 links, then from that reference again, so the
rounding stays bounded: outputs within 1e-6 of the full sums), the sums kept by the fused
kernel.  Three runs: rollouts **4.88x, 4.84x, 4.82x on one thread** (1107-1120 vs 227-235
trials/s), 4.84x, 4.87x, 4.80x on two; static 5.13x, 5.14x, 5.02x on afterstates.  CPU-time
A/B of 1296-trial rollouts against the session's starting commit, eight alternating rounds
(best of 3-4 per process): median 1.045x (0.98-1.11x).  The 5x target is still not met on
Zen 1.

Session 30 (2026-11-29, an Intel guest: ``lscpu`` "Intel(R) Xeon(R) Processor" family 6
model 207, 2 vCPUs with AVX-512; the host noisy, gnubg's own rates moving 258-369 trials/s
between runs), hit counting (P1, P2, pip loss of both sides, ``bg_hits_avx2`` and
``bg_hits_bar_avx2``) with the 15 non-doubles as two vectors of dice pairs a < b, in place
of six passes over ordered pairs in 6-lane vectors, and P2's two-blot case in vector lanes
in place of a scalar fallback; the contact terms a tail's made points alone decide (the
head side's escapes and mobility past them, the tail's containment) remembered per head
(8 slots keyed by the mask; per head 44% of the made masks are new in self-play); the
unit differences of a changed point in the comparison by parts copied from a table by (old
count, new count).  Instructions a rollout trial (callgrind, 1296 minus 324 trials,
deterministic): 4,077,553 at the session's start, 3,842,501 with the hits (-5.8%), 3,785,812
with the memo, 3,724,247 with the table (-8.7% in all; the same output bits).  The runs
below were made before the table.  Hit counting fell from 12% of a rollout to 4% (perf).  ``-k rollout`` of this file,
the session's starting commit (a second install) and this one alternating, three runs each,
plus six more runs of this one: one thread **5.30x** at the start (4.97-5.55x, six runs)
against **6.10x** now (4.78-7.66x, nine runs), two threads 5.31x (5.10-5.50x) against
5.85x (4.73-6.14x); static 5.61x-6.16x on afterstates, 3.73x-4.09x calibrate-like.  Not
measured on Zen 1 (4.82-4.88x in session 29): there the hit counting was 11% of a rollout
and its 256-bit operations cost double, so the gain should be at least as large, but that
is an expectation, not a measurement.  With the table (the final commit), three runs of the
whole file alternating with three of the start (gnubg down to 212-305 trials/s): rollouts
**6.33x** (5.89x, 6.33x, 6.59x) on one thread, **5.68x** (5.71x, 5.52x, 5.68x) on two, the
start 5.00x, 7.07x, 5.43x and 4.90x, 5.02x, 4.95x; static 5.72-5.90x on afterstates,
3.87-3.95x calibrate-like.

Gates (on ratios of the same run only, set well below what was measured so that
they catch a regression, not noise): static, default evaluator, on afterstates >= 2.0x
(measured ~5.5x); on random positions >= 1.5x (measured ~3.6x); rollout trials/s on one
thread >= 4.0x gnubg for the shipped evaluator (measured 5.16-5.23x; 3.0x for a candidate
given by BGENGINE_BENCH_NET).  The 5x target is reported, not gated: it is met with 3-5% to
spare, and one round's ratio spreads 5.10-5.67x quiet, lower under load.  The 198-80-5
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

from bgengine.evaluator import Evaluator, as_evaluator
from bgengine.movegen import legal_afterstates_batch
from bgengine.network import Network
from bgengine.players import default_network_path, load_network
from bgengine.position import STARTING_BOARD
from bgengine.search import rollout

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
    # the shipped evaluator measures ~5.2x quiet (4.1-4.5x under load before session 12's
    # +12%); a candidate given by BGENGINE_BENCH_NET (256 wide: ~3.0x) keeps the old gate
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
