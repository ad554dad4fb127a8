"""Long compiled loops stop on Ctrl-C, and never loop forever on a valid position.

The loops run in child processes sent a real SIGINT; the bounded fuzz runs in a child
too, so that a crash (a signal) or a hang fails the test instead of the test run.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from bgengine.core.agents import Player
from bgengine.core.board import validate_board, validate_boards
from bgengine.notation.ids import board_from_position_id
from bgengine.core.network import Network
from bgengine.position import Position
from bgengine.core.search import Searcher, rollout

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _child(script: str) -> subprocess.Popen:
    # a child started from a shell job may inherit SIGINT ignored: restore Python's handler
    prelude = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    proc = subprocess.Popen([sys.executable, "-c", prelude + textwrap.dedent(script)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.lines = queue.Queue()
    threading.Thread(target=lambda: [proc.lines.put(x.strip()) for x in proc.stdout],
                     daemon=True).start()
    return proc


def _readline(proc: subprocess.Popen, timeout: float) -> str:
    try:
        return proc.lines.get(timeout=timeout)
    except queue.Empty:
        proc.kill()
        pytest.fail(f"no output from the child within {timeout} s: {proc.communicate()[1][-2000:]}")


LOOPS = """
    import sys, time
    from bgengine.core.agents import Player, play_match
    from bgengine.core.network import Network
    from bgengine.training.optimizer import AdamState
    from bgengine.position import Position
    from bgengine.core.search import rollout
    from bgengine.core.td import train_games
    from bgengine.training.threaded_td import train_games_threaded

    net = Network((20,), 5, "expert", seed=1)
    board = Position.initial().board
    loops = {
        # minutes of work each (and no more memory than a few tens of MB for the results)
        "rollout": lambda: rollout(net, board, trials=10**6, n_threads=2),
        "rollout-vr": lambda: rollout(net, board, trials=10**5, n_threads=1,
                                      variance_reduction=True, plies=1),
        "play_match": lambda: play_match(Player("net", net), Player("pubeval"), 10**6, n_threads=2),
        "train_games": lambda: train_games(net, 10**6, 0.01, 0.7),
        "train_games_threaded": lambda: train_games_threaded(net, 10**6, 0.01, 0.0, threads=2,
                                                             sync_games=16, mode="rolling"),
        "train_games_adam": lambda: train_games(net, 10**6, 0.001, 0.0, adam=AdamState.zeros(net),
                                                batch_positions=256, threads=2),
    }
    for name, loop in loops.items():
        print("ready", name, flush=True)
        t = time.perf_counter()
        try:
            loop()
            print("finished", name, flush=True)
        except KeyboardInterrupt:
            print("stopped", name, round(time.perf_counter() - t, 2), flush=True)
    print("alive", flush=True)
"""


def test_ctrl_c_stops_compiled_loops():
    proc = _child(LOOPS)
    try:
        for name in ("rollout", "rollout-vr", "play_match", "train_games", "train_games_threaded",
                     "train_games_adam"):
            assert _readline(proc, 60) == f"ready {name}"
            time.sleep(0.5)                 # well inside the loop
            sent = time.perf_counter()
            proc.send_signal(signal.SIGINT)
            line = _readline(proc, 10)
            assert line.startswith(f"stopped {name}"), line
            assert time.perf_counter() - sent < 5
        assert _readline(proc, 10) == "alive"       # the process goes on normally
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()


TRAIN = """
    import sys
    from bgengine.cli import main
    sys.exit(main(["train", sys.argv[1], "--config", sys.argv[2], "--quiet"]))
"""


def test_ctrl_c_stops_training_with_everything_saved(tmp_path):
    from bgengine.training.trainer import TrainConfig, _load_checkpoint, train

    cfg = TrainConfig(hidden=[10], outputs=1, games=10**7, checkpoint_every=200,
                      eval_every=10**6, eval_games=10, threads=1, seed=5)
    (tmp_path / "c.toml").write_text(cfg.to_toml())
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, "
                             "signal.default_int_handler)\n" + textwrap.dedent(TRAIN),
                             str(run), str(tmp_path / "c.toml")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not (run / "checkpoint.npz").exists() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err          # interrupted, as every command says it
    assert "interrupted" in err and "Traceback" not in err
    # what was kept: the checkpoint, its log records, the latest network, all consistent
    net = Network((10,), 1, "tesauro198")
    state = _load_checkpoint(run, net, cfg)
    games = [json.loads(line)["games"] for line in (run / "log.jsonl").read_text().splitlines()]
    assert state.games > 0 and games[-1] == state.games
    latest = Network.load(run / "network.npz")
    np.testing.assert_array_equal(latest.params, net.params)
    # and it resumes exactly: 200 more games give the same weights as a run never stopped
    resumed = train(cfg, run, progress=False, stop_after=state.games + 200)
    straight = train(cfg, tmp_path / "straight", progress=False, stop_after=state.games + 200)
    np.testing.assert_array_equal(resumed.params, straight.params)


# ---------------------------------------------------------------- impossible positions

def both_shut_out() -> np.ndarray:
    b = np.zeros((2, 25), np.uint8)
    b[:, 0:6] = 2
    b[:, 24] = 3
    return b


def test_the_hanging_position_is_rejected_everywhere():
    """Both sides on the bar against closed boards: neither could ever move (the rollout
    used to spin forever).  Rejected by the one board check every entry point uses."""
    net = Network((5,), 5, "expert", seed=1)
    b = both_shut_out()
    calls = [lambda: validate_board(b), lambda: validate_boards(b[None]),
             lambda: rollout(net, b, trials=1, n_threads=1), lambda: Searcher(net).evaluate(b, 1),
             lambda: Searcher(net).best_move(b, 3, 1, 1), lambda: Position(b),
             lambda: net.evaluate(b), lambda: Player("pubeval").choose(b, 3, 1)]
    for call in calls:
        with pytest.raises(ValueError, match="both sides are on the bar against closed boards"):
            call()
    # one side shut out is a real position, and it is played out
    b[0, 24] = 0
    b[0, 10] = 3
    assert np.isfinite(rollout(net, b, trials=4, n_threads=1)["equity"])


def test_both_sides_borne_off_is_rejected_everywhere():
    empty = np.zeros((2, 25), np.uint8)
    for call in (lambda: validate_board(empty), lambda: Position(empty),
                 lambda: Position.from_id("AAAAAAAAAAAAAA"),
                 lambda: board_from_position_id("AAAAAAAAAAAAAA"),
                 lambda: rollout(Network((5,), 1, "expert"), empty, trials=1)):
        with pytest.raises(ValueError, match="both sides have borne off"):
            call()


def test_position_ids_and_boards_agree():
    """Position.from_id accepts exactly the boards validate_board accepts."""
    import base64

    from bgengine.notation.ids import position_key
    rng = np.random.default_rng(3)
    for _ in range(3000):
        b = np.zeros((2, 25), np.int64)
        for side in (0, 1):
            slots = rng.choice([0, 1, 2, 3, 4, 5, 24, int(rng.integers(25))], size=rng.integers(0, 16))
            np.add.at(b[side], slots, 1)
        if rng.random() < 0.2:
            b[:, :6] = np.maximum(b[:, :6], 2)
        try:
            key = position_key(b)
        except ValueError:
            continue                     # more than 30 checkers: no Position ID
        pid = base64.b64encode(key).decode()[:14]
        try:
            ok = validate_board(b)
        except ValueError as exc:
            with pytest.raises(ValueError, match=str(exc).split(" (")[0][:40]):
                Position.from_id(pid)
        else:
            np.testing.assert_array_equal(Position.from_id(pid).board, ok)


# ---------------------------------------------------------------- bounded fuzz

FUZZ = """
    import sys, time
    import numpy as np
    from bgengine.core.agents import Player
    from bgengine.core.board import validate_board
    from bgengine.notation.ids import board_from_position_id, position_id
    from bgengine.core.network import Network
    from bgengine.position import Position
    from bgengine.core.search import Searcher, rollout

    rng = np.random.default_rng(int(sys.argv[1]))
    net = Network((8,), 5, "expert", seed=2)
    searcher = Searcher(net, cache_bits=10)
    start = Position.initial().board.astype(np.int64)
    B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    def boards(n):
        for k in range(n):
            f = k % 6
            if f == 0:                       # the opening, mutated a little
                b = start.copy()
                for _ in range(rng.integers(1, 6)):
                    b[rng.integers(2), rng.integers(25)] += rng.integers(-2, 3)
            elif f == 1:                     # sparse random
                b = rng.integers(0, 4, (2, 25)) * (rng.random((2, 25)) < 0.3)
            elif f == 2:                     # closed boards and bars
                b = np.zeros((2, 25), np.int64)
                b[:, :6] = 2
                b[:, 24] = rng.integers(0, 4, 2)
                b[rng.integers(2), rng.integers(6, 24)] += rng.integers(0, 2)
            elif f == 3:                     # raw bytes
                b = np.frombuffer(rng.bytes(50), np.uint8).reshape(2, 25)
            elif f == 4:                     # near-empty: finished games and worse
                b = np.zeros((2, 25), np.int64)
                b[rng.integers(2), rng.integers(25)] = rng.integers(0, 2)
            else:                            # one side shut out, the other free
                b = np.zeros((2, 25), np.int64)
                s = rng.integers(2)
                b[s, 24] = rng.integers(1, 4)
                b[1 - s, :6] = 2
                b[1 - s, rng.integers(6, 24)] = rng.integers(0, 4)
                b[s, rng.integers(6, 18)] = rng.integers(0, 3)
            yield b

    counts = {"ok": 0, "ValueError": 0}
    slowest = 0.0
    for b in boards(int(sys.argv[2])):
        t = time.perf_counter()
        try:
            validate_board(b)
        except ValueError:
            for call in (lambda: rollout(net, b, trials=2), lambda: Position(b),
                         lambda: searcher.evaluate(b, 1), lambda: position_id(b)):
                try:
                    call()
                    raise AssertionError(f"accepted {b.tolist()}")
                except ValueError:
                    pass
            counts["ValueError"] += 1
            continue
        r = rollout(net, b, trials=2, n_threads=1, seed=int(rng.integers(1000)))
        assert np.isfinite(r["equity"])
        searcher.evaluate(b, 1)
        searcher.best_move(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)), 1)
        Player("random").choose(b, 6, 6)
        assert Position.from_id(position_id(b)) == Position(b)
        slowest = max(slowest, time.perf_counter() - t)
        counts["ok"] += 1
    for _ in range(int(sys.argv[2])):        # random Position IDs
        pid = "".join(rng.choice(list(B64), 14))
        try:
            p = Position.from_id(pid)
        except ValueError:
            continue
        validate_board(p.board)
    print(counts["ok"], counts["ValueError"], round(slowest, 3))
"""


def test_bounded_fuzz_of_boards_no_crash_no_hang():
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(FUZZ), "11", "2000"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]       # a signal would be negative
    ok, errors, slowest = p.stdout.split()
    assert int(ok) > 100 and int(errors) > 100, p.stdout
    assert float(slowest) < 10, p.stdout


# ---------------------------------------------------------------- bgengine.interrupts

def _ignore(signum, frame) -> None:
    pass


@pytest.mark.parametrize("previous", [signal.SIG_IGN, signal.SIG_DFL, signal.default_int_handler,
                                      _ignore], ids=["SIG_IGN", "SIG_DFL", "default", "python"])
def test_stop_on_interrupt_sets_the_event_and_restores_the_callers_handler(previous):
    from bgengine.interrupts import stop_on_interrupt

    saved = signal.signal(signal.SIGINT, previous)
    try:
        with stop_on_interrupt() as stop:
            assert not stop.is_set()
            signal.raise_signal(signal.SIGINT)
            assert stop.is_set()
            signal.raise_signal(signal.SIGINT)          # again: still no exception
        assert signal.getsignal(signal.SIGINT) is previous
        with pytest.raises(RuntimeError), stop_on_interrupt():
            raise RuntimeError("the block fails")       # restored on the way out too
        assert signal.getsignal(signal.SIGINT) is previous
    finally:
        signal.signal(signal.SIGINT, saved)


def test_a_second_ctrl_c_aborts_when_asked_and_the_notice_comes_once():
    from bgengine.interrupts import stop_on_interrupt

    notices = []
    saved = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(KeyboardInterrupt):
            with stop_on_interrupt(notice=lambda: notices.append(1), again_raises=True) as stop:
                signal.raise_signal(signal.SIGINT)
                assert stop.is_set() and notices == [1]
                signal.raise_signal(signal.SIGINT)
        assert notices == [1] and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, saved)


def test_outside_the_main_thread_nothing_is_installed():
    from bgengine.interrupts import handling, stop_on_interrupt

    given = threading.Event()
    seen = []

    def worker() -> None:
        with stop_on_interrupt(given) as stop, handling(signal.SIGTERM, lambda: None) as installed:
            seen.append((stop is given, installed, signal.getsignal(signal.SIGINT)))

    before = signal.getsignal(signal.SIGINT)
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [(True, False, before)]


def test_handling_sigterm_like_ctrl_c():
    from bgengine.interrupts import handling, raise_keyboard_interrupt

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        with handling(signal.SIGTERM, raise_keyboard_interrupt) as installed:
            assert installed
            signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before
