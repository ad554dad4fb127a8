"""Live tests against the real GNU Backgammon (skipped when gnubg is not installed).

1. gnubg plays 20 cubeless money games and a 5-point match with the cube
   against ``bgengine serve`` (gnubg drives the games headless through its
   Python interface; our server runs in a thread of this process).  Every
   game must finish, every play we sent must be the play gnubg recorded, no
   roll may be forfeited, every cube action must be recorded as we sent it,
   and the scores must add up.
2. Our :class:`ExternalPlayer` client plays through gnubg's own ``external``
   server.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from bgengine.opponents.external import ExternalPlayer
from bgengine.matches.run import play_external_match
from bgengine.notation.ids import board_from_position_id
from bgengine.notation.moves import format_steps_plain, match_move
from bgengine.matches.players import default_network_path, make_player
from bgengine.decisions.engine import Engine
from bgengine.protocols.gnubg_socket import ExchangeLog
from bgengine.protocols.serve import start_server

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)

pytestmark = [pytest.mark.gnubg,
              pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")]

MONEY_GAMES = 20
MATCH_LENGTH = 5
#: gnubg's dice seed (our side is deterministic, so a run is reproducible).
SEED = int(os.environ.get("BGENGINE_GNUBG_SEED", "20260101"))


def _engine() -> Engine:
    """The shipped network if installed, else pubeval (cube decisions then
    come from the pip-count estimate); the protocol, not the strength, is
    under test, but games between sensible players exercise the cube more."""
    if default_network_path().exists():
        return Engine("net")
    return Engine("pubeval")


def _gnubg_script(address: str, out: Path) -> str:
    # player 0 = gnubg at 0-ply, player 1 = us.  'new match' resets the names,
    # so the external side is called 'root' there; we identify it by seat (O).
    return textwrap.dedent(f"""
        import gnubg, json
        cmd = gnubg.command
        for c in ['set rng mersenne', 'set seed {SEED}',
                  'set display off', 'set automatic game off', 'set automatic roll on',
                  'set jacoby off', 'set beavers 0', 'set confirm new off',
                  'set player 0 gnubg',
                  'set player 0 chequerplay evaluation plies 0',
                  'set player 0 cubedecision evaluation plies 0',
                  'set player 1 external {address}',
                  'set cube use off']:
            cmd(c)
        result = {{}}
        cmd('new session')                  # plays the first game
        for i in range({MONEY_GAMES - 1}):
            cmd('new game')
        result['money'] = gnubg.match()
        cmd('set cube use on')
        cmd('new match {MATCH_LENGTH}')     # plays the first game
        def match_over():
            info = gnubg.match()['games'][-1]['info']
            if info.get('winner') is None:
                return True                 # unfinished: stop, the test reports it
            score = [info['score-X'], info['score-O']]
            score[info['winner'] == 'O'] += info['points-won']
            return max(score) >= {MATCH_LENGTH}
        for i in range(40):
            if match_over():
                break
            cmd('new game')
        result['match'] = gnubg.match()
        json.dump(result, open({str(out)!r}, 'w'), default=str)
    """)


def _apply_text(pid: str, dice, text: str) -> bytes:
    """The afterstate of a play given as text, found the way gnubg finds it."""
    board = board_from_position_id(pid)
    d1, d2 = int(dice[0]), int(dice[1])
    from bgengine.core.movegen import legal_afterstates
    after, _ = legal_afterstates(board, d1, d2)
    return after[match_move(board, d1, d2, text)].tobytes()


def _check_session(games: list, entries: list, *, match_length: int) -> dict:
    """Compare gnubg's record of one session/match with our exchange log."""
    ours_moves = [e for e in entries if e["kind"] == "move"]
    ours_cube = [e["out"] for e in entries if e["kind"] in ("cube", "take") and e["out"] != "roll"]
    offers = [e for e in entries if e["kind"] == "offer"]
    theirs_moves, theirs_cube = [], []
    for g in games:
        for rec in g["game"]:
            if rec.get("player") != "O":
                continue
            if rec["action"] == "move":
                theirs_moves.append(rec)
            elif rec["action"] != "resign":  # double, take, drop (anything else then fails)
                theirs_cube.append(rec["action"])
    assert len(theirs_moves) == len(ours_moves), (
        f"gnubg recorded {len(theirs_moves)} plays by the external player, we made {len(ours_moves)}")
    for k, (mine, rec) in enumerate(zip(ours_moves, theirs_moves)):
        assert rec["board"] == mine["position_id"], f"play {k}: positions differ"
        assert sorted(rec["dice"]) == sorted(mine["dice"]), f"play {k}: dice differ"
        d1, d2 = rec["dice"]
        recorded = " ".join(f"{a}/{b}" for a, b in rec["move"])
        intended = format_steps_plain(mine["steps"])
        if mine["steps"]:
            assert rec["move"], (f"play {k}: gnubg forfeited our roll {d1}{d2} at {rec['board']} "
                                 f"(we sent {mine['out']!r})")
        else:
            assert not rec["move"], f"play {k}: we had no play but gnubg recorded {recorded}"
            continue
        assert _apply_text(rec["board"], rec["dice"], recorded) == \
            _apply_text(mine["position_id"], mine["dice"], intended), (
            f"play {k} at {rec['board']} with {d1}{d2}: we sent {mine['out']!r}, "
            f"gnubg recorded {recorded!r}")
    assert theirs_cube == ours_cube, f"cube actions: gnubg recorded {theirs_cube}, we sent {ours_cube}"
    # gnubg records the resignations it accepted; the ones it declined it asked again about
    resigned = [g for g in games if g["info"].get("resigned")]
    assert len(resigned) == sum(r.get("action") == "resign" for g in games for r in g["game"])
    assert len(resigned) <= len(offers)
    assert all(o["out"].startswith("resign ") for o in offers)

    # every game finished, and the scores add up
    score = {"X": 0, "O": 0}
    for i, g in enumerate(games):
        info = g["info"]
        assert info.get("winner") in ("X", "O"), f"game {i + 1} did not finish: {info}"
        assert (info["score-X"], info["score-O"]) == (score["X"], score["O"]), (
            f"game {i + 1} starts at {info['score-X']}-{info['score-O']}, expected "
            f"{score['X']}-{score['O']}")
        assert info["points-won"] >= 1
        score[info["winner"]] += info["points-won"]
    if match_length:
        assert max(score.values()) >= match_length and min(score.values()) < match_length
    return score


def _run_gnubg(script: str, tmp: Path, timeout: float = 150.0) -> subprocess.CompletedProcess:
    path = tmp / "drive.py"
    path.write_text(script)
    return subprocess.run([GNUBG, "-t", "-q", "-p", str(path)], capture_output=True, text=True,
                          timeout=timeout, cwd=tmp)


def test_gnubg_plays_against_bgengine_serve(tmp_path):
    log_path = tmp_path / "exchanges.jsonl"
    xlog = ExchangeLog(log_path)
    srv = start_server(_engine(), exchange_log=xlog)
    out = tmp_path / "record.json"
    try:
        t0 = time.monotonic()
        proc = _run_gnubg(_gnubg_script(srv.address, out), tmp_path)
        elapsed = time.monotonic() - t0
    finally:
        srv.close()
        xlog.close()
    text = proc.stdout + proc.stderr
    assert out.exists(), f"gnubg did not finish its script:\n{text[-3000:]}"
    for bad in ("External connection closed", "badly formed", "Error"):
        assert bad not in text, f"gnubg printed {bad!r}:\n{text[-3000:]}"
    record = json.loads(out.read_text())
    entries = [json.loads(line) for line in log_path.read_text().splitlines()]
    lines = [e for e in entries if e["event"] == "line"]
    assert all(e["role"] == "player" for e in lines)
    assert not [e for e in lines if e.get("error")], "the engine reported errors"
    assert not [e for e in lines if (e["out"] or "").startswith("Error")]
    assert sum(e["event"] == "connect" for e in entries) == 1     # one connection for everything

    # the board line's match-length field tells the money session from the match
    money_lines = [e for e in lines if e["in"].split(":")[3] == "0"]
    match_lines = [e for e in lines if e["in"].split(":")[3] != "0"]
    assert lines == money_lines + match_lines

    money = record["money"]
    assert len(money["games"]) == MONEY_GAMES
    # moves, and the engine's offers to resign decided games (gnubg accepts or declines)
    assert not [e for e in money_lines if e["kind"] not in ("move", "offer")], \
        "cube questions in cubeless play"
    score = _check_session(money["games"], money_lines, match_length=0)
    assert score["X"] + score["O"] == sum(g["info"]["points-won"] for g in money["games"])
    assert all(g["info"]["points-won"] in (1, 2, 3) for g in money["games"])

    match = record["match"]
    assert match["match-info"]["match-length"] == MATCH_LENGTH
    assert any(e["kind"] in ("cube", "take") for e in match_lines), "no cube question in the match"
    _check_session(match["games"], match_lines, match_length=MATCH_LENGTH)
    # generous: the whole run takes a few seconds
    assert elapsed < 120


@pytest.fixture()
def gnubg_external_server():
    """gnubg's own ``external`` server on a free port, 0-ply; yields its address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([GNUBG, "-t", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: [lines.append(ln) for ln in proc.stdout], daemon=True)
    reader.start()
    try:
        proc.stdin.write("set evaluation chequerplay evaluation plies 0\n"
                         "set evaluation cubedecision evaluation plies 0\n"
                         f"external 127.0.0.1:{port}\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while not any("Waiting for a connection" in ln for ln in lines):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("gnubg's external server did not start:\n" + "".join(lines))
            time.sleep(0.05)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()


def test_external_player_against_gnubg_external(gnubg_external_server):
    from bgengine.notation.ids import MatchState
    from bgengine.notation.moves import legal_move_notations
    from bgengine.position import STARTING_BOARD

    with ExternalPlayer(gnubg_external_server, timeout=30) as gnubg:
        assert gnubg.version()["Interface"] == "2"
        # gnubg's opening plays at 0-ply
        k = gnubg.choose(STARTING_BOARD, 3, 1)
        assert legal_move_notations(STARTING_BOARD, 3, 1)[k] == "8/5 6/5"
        # no legal play: gnubg answers an empty line, which maps to the pass
        dance = np.zeros((2, 25), dtype=np.uint8)
        dance[1, 24], dance[1, 12], dance[0, 0:6], dance[0, 10] = 1, 14, 2, 3
        assert gnubg.choose(dance, 6, 5) == 0
        assert gnubg.decide(STARTING_BOARD, MatchState(player_on_roll=1)) == "roll"
        probs = gnubg.evaluate(STARTING_BOARD)
        assert probs.shape == (6,) and 0.4 < probs[0] < 0.6

        result = play_external_match(make_player("pubeval"), gnubg, 20, seed=5)
    assert result.games == 20
    assert result.b.startswith("external:")
    # gnubg, even at 0-ply, is far stronger than pubeval
    assert result.ppg < 0.5


def test_run_gnubg_scripts_passes_environments_and_reports_failures(tmp_path):
    from bgengine.opponents.gnubg.binary import GnubgError, run_gnubg_scripts

    script = tmp_path / "echo.py"
    script.write_text("import os\nopen(os.environ['OUT'], 'w').write(os.environ['WORD'])\n")
    outs = [tmp_path / f"out-{j}" for j in range(2)]
    run_gnubg_scripts(script, [{"OUT": str(o), "WORD": w} for o, w in zip(outs, ("a", "b"))])
    assert [o.read_text() for o in outs] == ["a", "b"]
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(GnubgError, match="bad.py failed"):
        run_gnubg_scripts(bad, [{}])


def test_run_gnubg_scripts_at_once_on_a_fresh_home(tmp_path, monkeypatch):
    """Processes started together where ``~/.gnubg`` does not exist yet all succeed (they
    raced to create it before each had a private HOME), and the user's HOME is untouched."""
    from bgengine.opponents.gnubg.binary import run_gnubg_scripts

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    script = tmp_path / "home_of.py"
    script.write_text("import os\nopen(os.environ['OUT'], 'w').write(os.environ['HOME'])\n")
    outs = [tmp_path / f"out-{j}" for j in range(6)]
    run_gnubg_scripts(script, [{"OUT": str(o)} for o in outs])
    homes = [o.read_text() for o in outs]
    assert len(set(homes)) == 6 and str(home) not in homes
    assert list(home.iterdir()) == []
