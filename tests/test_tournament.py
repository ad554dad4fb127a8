"""Tournaments: round robin (antisymmetric ppg matrix, determinism, thread
independence, files), the knock-out (corrupt files, byes, the 50-point rule,
the cap), self against older self, Ctrl-C, and the command line."""

from __future__ import annotations

import argparse
import csv
import io
import json
import signal

import numpy as np
import pytest

import bgengine.matches.tournament as T
from bgengine.core.agents import play_match
from bgengine.matches.distributed import LocalBackend
from bgengine.core.network import Network
from bgengine.cli import main as cli_main
from bgengine.cli.tournament import add_tournament_parser, tournament_main
from bgengine.matches.tournament import derive_seed, knockout, load_entrants, older_self, round_robin


def _net(seed: int, games: int | None = None) -> Network:
    meta = {"training": {"games": games}} if games is not None else None
    return Network((10,), 1, "tesauro198", seed=seed, metadata=meta)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Five small networks (ck_0..ck_4, 'trained' 0..4000 games) and three bad files."""
    d = tmp_path_factory.mktemp("ckpts")
    for k in range(5):
        _net(100 + k, games=1000 * k).save(d / f"ck_{k}.npz")
    (d / "garbage.npz").write_bytes(b"this is not a network")
    good = (d / "ck_0.npz").read_bytes()
    (d / "truncated.npz").write_bytes(good[: len(good) // 2])
    np.savez(d / "not_a_net.npz", x=np.zeros(3))
    return d


BAD = {"garbage.npz", "truncated.npz", "not_a_net.npz"}


def _quiet(msg):
    pass


def _players(folder, *specs):
    return load_entrants([*(str(folder / f"ck_{k}.npz") for k in range(3)), *specs], _quiet)


# ---------------------------------------------------------------- round robin

def test_matrix_is_exactly_antisymmetric(folder):
    rr = round_robin(_players(folder, "random", "pubeval"), games=40, seed=5, threads=1)
    n = rr.n
    assert rr.complete and n == 5
    for i in range(n):
        assert np.isnan(rr.ppg[i, i]) and rr.games[i, i] == 0
        for j in range(n):
            if i != j:
                assert rr.ppg[i, j] == -rr.ppg[j, i]
                assert rr.ci95[i, j] == rr.ci95[j, i] and rr.games[i, j] == 40
                a, b = rr.results[(i, j)], rr.results[(j, i)]
                assert a.win + b.win == pytest.approx(1.0)
                assert a.win_gammon == b.lose_gammon and a.lose_backgammon == b.win_backgammon
    # pubeval beats random heavily, and the ranking puts it above random
    names = rr.names
    assert rr.ppg[names.index("pubeval"), names.index("random")] > 1.5
    rank = [names[i] for i in rr.ranking()]
    assert rank.index("pubeval") < rank.index("random")
    avg, ci = rr.averages()
    assert np.all(np.isfinite(avg)) and np.all(ci > 0)


def test_mirrored_pairs_negate_for_deterministic_players():
    # the reason the matrix can be read from both sides: a pair replayed with the
    # players swapped is the same two games, so every point is negated
    from bgengine.core.agents import Player

    a, b = Player("net", _net(1)), Player("pubeval")
    p_ab, _ = play_match(a, b, 20, seed=9)
    p_ba, _ = play_match(b, a, 20, seed=9)
    assert np.array_equal(p_ab, -p_ba[:, ::-1])


def test_round_robin_deterministic_and_thread_independent(folder):
    players = _players(folder, "simple3")
    r1 = round_robin(players, games=60, seed=11, threads=1)
    r2 = round_robin(players, games=60, seed=11, threads=2, batch_pairs=7)
    r3 = round_robin(players, games=60, seed=11, threads=1)
    assert r1.as_dict() == r2.as_dict() == r3.as_dict()
    other = round_robin(players, games=60, seed=12, threads=2)
    assert not np.array_equal(np.nan_to_num(other.ppg), np.nan_to_num(r1.ppg))
    # seeds are per pairing, from the names: a pairing does not change when
    # another player joins or leaves
    sub = round_robin([players[0], players[2]], games=60, seed=11, threads=1)
    assert sub.ppg[0, 1] == r1.ppg[0, 2]
    assert sub.seeds[(0, 1)] == derive_seed(11, "roundrobin", players[0].name, players[2].name)
    assert len({r1.seeds[k] for k in r1.seeds}) == len(r1.seeds)


def test_round_robin_files(folder, tmp_path):
    rr = round_robin(_players(folder, "random"), games=20, seed=1, threads=1)
    files = rr.save(tmp_path / "out")
    names = {f.name for f in files}
    assert names == {"roundrobin.json", "roundrobin_matrix.csv", "roundrobin_pairs.csv",
                     "roundrobin.txt", "roundrobin.png"}
    d = json.loads((tmp_path / "out" / "roundrobin.json").read_text())
    assert d["complete"] and d["seed"] == 1 and len(d["ppg"]) == 4
    assert d["ppg"][0][0] is None and d["ppg"][0][1] == -d["ppg"][1][0]
    assert sorted(d["ranking"]) == sorted(rr.names)
    rows = list(csv.reader(io.StringIO((tmp_path / "out" / "roundrobin_matrix.csv").read_text())))
    assert rows[0] == ["player", *rr.names, "mean_ppg", "mean_ci95", "rank"]
    assert len(rows) == 5 and rows[1][1] == "" and float(rows[1][2]) == pytest.approx(rr.ppg[0, 1])
    pairs = list(csv.DictReader(io.StringIO((tmp_path / "out" / "roundrobin_pairs.csv").read_text())))
    assert len(pairs) == 4 * 3 and all(p["games"] == "20" for p in pairs)
    assert (tmp_path / "out" / "roundrobin.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = rr.table()
    assert "Ranking" in text and "±" in text and "PARTIAL" not in text


def test_bad_players(folder):
    with pytest.raises(ValueError, match="garbage.npz"):
        load_entrants([str(folder / "garbage.npz"), "pubeval"], _quiet)   # named: an error
    with pytest.raises(ValueError, match="given twice"):
        load_entrants(["pubeval", "pubeval"], _quiet)
    with pytest.raises(ValueError, match="unknown player"):
        load_entrants(["pubeval", "gnubq"], _quiet)
    with pytest.raises(ValueError, match="at least 2 players"):
        round_robin(load_entrants(["pubeval"], _quiet), games=10)
    with pytest.raises(ValueError, match="games"):
        round_robin(load_entrants(["pubeval", "random"], _quiet), games=1)


# ---------------------------------------------------------------- knock-out

def test_knockout_skips_corrupt_files_and_names_them(folder):
    warnings, skipped = [], []
    entrants = load_entrants([str(folder)], warnings.append, skipped)
    assert [e.name for e in entrants] == [f"ck_{k}" for k in range(5)]
    assert {s["file"].rsplit("/", 1)[-1] for s in skipped} == BAD
    for bad in BAD:
        assert any(bad in w and w.startswith("warning: skipping") for w in warnings)
    ko = knockout(entrants, max_games=400, seed=3, threads=1, skipped=skipped)
    assert ko.complete and ko.winner in {e.name for e in entrants}
    d = ko.as_dict()
    assert {s["file"].rsplit("/", 1)[-1] for s in d["skipped"]} == BAD
    assert "skipped" in ko.text() and "truncated.npz" in ko.text()
    # 5 players: 4 matches in all, every player but the winner loses exactly once
    matches = [m for r in ko.rounds for m in r["matches"]]
    assert len(matches) == 4
    losers = [m.loser for m in matches]
    assert sorted(losers + [ko.winner]) == sorted(e.name for e in entrants)
    # determinism and thread independence
    again = knockout(entrants, max_games=400, seed=3, threads=2, skipped=skipped)
    assert again.as_dict() == d


@pytest.mark.parametrize("n", [2, 3, 5, 7])
def test_knockout_byes(n):
    from bgengine.matches.tournament import Entrant
    from bgengine.core.agents import Player

    entrants = [Entrant(f"n{k}", Player("net", _net(k)), f"n{k}") for k in range(n)]
    ko = knockout(entrants, max_games=200, seed=1, threads=1)
    pool = n
    for r in ko.rounds:
        assert len(r["pool"]) == pool
        assert (r["bye"] is not None) == (pool % 2 == 1)
        assert len(r["matches"]) == pool // 2
        if r["bye"] is not None:
            assert r["bye"] == r["pool"][-1]
            assert all(r["bye"] not in (m.a, m.b) for m in r["matches"])
        pool = pool // 2 + pool % 2            # the pool halves (rounding up: the bye)
    assert pool == 1 and ko.winner is not None
    assert sum(len(r["matches"]) for r in ko.rounds) == n - 1
    if n % 2:
        assert "bye" in ko.text()


def test_knockout_fifty_point_rule():
    entrants = load_entrants(["pubeval", "random"], _quiet)
    ko = knockout(entrants, max_games=10000, margin=50, batch_pairs=5, seed=2, threads=1)
    (m,) = ko.rounds[0]["matches"]
    assert ko.winner == "pubeval" and m.reason == "margin"
    lead = m.trajectory if m.a == "pubeval" else [-x for x in m.trajectory]
    assert lead[-1] >= 50 and all(abs(x) < 50 for x in m.trajectory[:-1])
    assert m.games == 10 * len(m.trajectory) < 10000
    assert m.points == m.trajectory[-1]
    # the check happens only after each batch: one batch of 50 pairs overshoots
    big = knockout(entrants, max_games=10000, margin=50, batch_pairs=50, seed=2, threads=1)
    (mb,) = big.rounds[0]["matches"]
    assert mb.games == 100 and abs(mb.points) > 50


def test_knockout_cap_and_tie():
    from bgengine.core.agents import Player
    from bgengine.matches.tournament import Entrant

    entrants = [Entrant("x", Player("net", _net(1)), "x"), Entrant("y", Player("net", _net(2)), "y")]
    ko = knockout(entrants, max_games=60, margin=10**6, batch_pairs=7, seed=4, threads=1)
    (m,) = ko.rounds[0]["matches"]
    assert m.games == 60 and m.reason == "cap"      # 7+7+7+7+2 pairs: the cap is exact
    assert m.winner == (m.a if m.points > 0 else m.b) and m.points != 0
    # two copies of one network: every pair cancels exactly, so the cap decides by lot
    same = [Entrant("p", Player("net", _net(5)), "p"), Entrant("q", Player("net", _net(5)), "q")]
    ko2 = knockout(same, max_games=100, seed=4, threads=1)
    (m2,) = ko2.rounds[0]["matches"]
    assert m2.points == 0 and m2.reason == "cap-tie (lot)" and m2.winner in ("p", "q")


# ---------------------------------------------------------------- older self

def test_older_self_folder(folder):
    warnings = []
    res = older_self(folder, games=20, every=2, seed=1, threads=1, warn=warnings.append)
    assert res.latest["name"] == "ck_4" and res.latest["games_trained"] == 4000
    assert [r["opponent"] for r in res.rows] == ["ck_2", "ck_0"]
    assert [r["age"] for r in res.rows] == [2000, 4000] and res.rows[0]["age_unit"] == "games"
    assert {s["file"].rsplit("/", 1)[-1] for s in res.skipped} == BAD
    assert len(warnings) == 3
    every = older_self(folder, games=20, every=1, seed=1, threads=2, warn=_quiet)
    assert [r["opponent"] for r in every.rows] == ["ck_3", "ck_2", "ck_1", "ck_0"]
    # same pairing, same seed: same result whatever the selection and threads
    assert every.rows[1] == res.rows[0]


def test_older_self_run_directory(tmp_path):
    from bgengine.training.trainer import TrainConfig, train

    config = TrainConfig(hidden=[6], outputs=1, games=600, seed=3, checkpoint_every=200,
                         eval_every=600, eval_games=20, threads=1, schedule="steps",
                         plateau_every=200, plateau_gap=400, plateau_games=10, plateau_window=2)
    train(config, tmp_path / "run", progress=False)
    res = older_self(tmp_path / "run", games=10, seed=0, threads=1, warn=_quiet)
    assert res.latest["name"] == "network" and res.latest["games_trained"] == 600
    opponents = [r["opponent"] for r in res.rows]
    # the snapshot at 600 is the latest itself: dropped as a duplicate
    assert "snapshot_400" in opponents and "snapshot_200" in opponents
    assert "snapshot_600" not in opponents
    assert all(r["age"] > 0 for r in res.rows)


def test_older_self_orders_by_name_without_training_metadata(tmp_path):
    for k in (1, 2, 10):                        # natural order: 1 < 2 < 10
        _net(k).save(tmp_path / f"epoch{k}.npz")
    _net(1).save(tmp_path / "epoch0.npz")       # same weights as epoch1: dropped, epoch1 kept
    res = older_self(tmp_path, games=10, seed=0, threads=1, warn=_quiet)
    assert res.latest["name"] == "epoch10"
    assert [(r["opponent"], r["age"], r["age_unit"]) for r in res.rows] == \
        [("epoch2", 1, "checkpoints"), ("epoch1", 2, "checkpoints")]
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="at least 2 networks"):
        older_self(tmp_path / "empty", games=10)
    with pytest.raises(ValueError, match="not a directory"):
        older_self(tmp_path / "missing", games=10)


def test_seed_derivation_is_pinned():
    # changing this derivation changes every published tournament result
    assert derive_seed(0, "roundrobin", "a", "b") == 398247734166140027
    assert derive_seed(0, "roundrobin", "b", "a") != derive_seed(0, "roundrobin", "a", "b")
    assert 0 <= derive_seed(2**70, "x") < 2**63


# ---------------------------------------------------------------- Ctrl-C

def _interrupt_on_call(monkeypatch, k: int):
    """Make the k-th batch of games raise SIGINT, as a Ctrl-C during it would."""
    calls = [0]
    real = LocalBackend.play_pairs

    def patched(self, *args, **kw):
        out = real(self, *args, **kw)
        calls[0] += 1
        if calls[0] == k:
            signal.raise_signal(signal.SIGINT)
        return out

    monkeypatch.setattr(LocalBackend, "play_pairs", patched)
    return calls


def _cli(argv):
    parser = argparse.ArgumentParser(prog="bgengine")
    sub = parser.add_subparsers(dest="command")
    add_tournament_parser(sub)
    args = parser.parse_args(["tournament", *argv])
    assert args.func is tournament_main                      # what bgengine.cli.main calls
    return tournament_main(args)


def test_ctrl_c_saves_partial_round_robin(tmp_path, monkeypatch, capsys):
    before = signal.getsignal(signal.SIGINT)     # SIG_IGN when started in the background
    calls = _interrupt_on_call(monkeypatch, 3)
    out = tmp_path / "rr"
    rc = _cli(["roundrobin", "pubeval", "random", "simple1", "simple3", "--games", "40",
               "--threads", "1", "--out", str(out)])
    assert rc == 130 and calls[0] == 3           # stopped after the batch under way
    printed = capsys.readouterr()
    assert "PARTIAL" in printed.out and "interrupted" in printed.err
    d = json.loads((out / "roundrobin.json").read_text())
    assert d["complete"] is False
    played = [(i, j) for i in range(4) for j in range(i + 1, 4) if d["games"][i][j]]
    assert len(played) == 3 and len(d["pairs"]) == 6
    assert (out / "roundrobin.png").exists() and (out / "roundrobin_matrix.csv").exists()
    assert signal.getsignal(signal.SIGINT) is before        # the caller's handler restored


def test_ctrl_c_saves_partial_knockout(tmp_path, monkeypatch, capsys, folder):
    _interrupt_on_call(monkeypatch, 2)
    out = tmp_path / "ko"
    rc = _cli(["knockout", str(folder), "--games", "1000", "--margin", "1000", "--batch", "5",
               "--threads", "1", "--out", str(out)])
    assert rc == 130
    d = json.loads((out / "knockout.json").read_text())
    assert d["complete"] is False and d["winner"] is None
    m = d["rounds"][0]["matches"][0]
    assert m["winner"] is None and m["games"] == 20          # two batches of 5 pairs
    assert "No winner yet" in (out / "knockout.txt").read_text()


def test_ctrl_c_saves_partial_older(tmp_path, monkeypatch, folder):
    _interrupt_on_call(monkeypatch, 1)
    out = tmp_path / "old"
    rc = _cli(["older", str(folder), "--games", "20", "--threads", "1", "--out", str(out),
               "--quiet"])
    assert rc == 130
    d = json.loads((out / "older.json").read_text())
    assert d["complete"] is False and [r["opponent"] for r in d["rows"]] == ["ck_3"]
    assert "PARTIAL" in (out / "older.txt").read_text()


# ---------------------------------------------------------------- command line

def test_cli_roundrobin_knockout_older(tmp_path, folder, capsys):
    rc = _cli(["roundrobin", "pubeval", "random", str(folder / "ck_1.npz"), "--games", "20",
               "--seed", "3", "--threads", "2", "--out", str(tmp_path / "a"), "--quiet"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Ranking" in out and "ck_1" in out and "wrote" in out
    assert {p.name for p in (tmp_path / "a").iterdir()} >= {"roundrobin.json", "roundrobin.png"}

    rc = _cli(["knockout", str(folder), "--games", "200", "--out", str(tmp_path / "b")])
    assert rc == 0
    cap = capsys.readouterr()
    assert "Winner:" in cap.out and "truncated.npz" in cap.err
    d = json.loads((tmp_path / "b" / "knockout.json").read_text())
    assert d["complete"] and d["winner"].startswith("ck_")

    rc = _cli(["older", str(folder), "--games", "10", "--every", "3", "--out", str(tmp_path / "c")])
    assert rc == 0
    assert [r["opponent"] for r in json.loads((tmp_path / "c" / "older.json").read_text())["rows"]] \
        == ["ck_1"]
    assert (tmp_path / "c" / "older.png").exists() and (tmp_path / "c" / "older.csv").exists()


def test_cli_help_and_errors(capsys, tmp_path):
    for argv in (["--help"], ["roundrobin", "--help"], ["knockout", "--help"], ["older", "--help"]):
        with pytest.raises(SystemExit) as e:
            _cli(argv)
        assert e.value.code == 0
    text = capsys.readouterr().out
    for phrase in ("win or leave", "50", "--threads", "all cores", "--seed", "Ctrl-C", "--every",
                   "heatmap"):
        assert phrase in text
    assert _cli([]) == 2                                       # no kind: help, status 2
    assert cli_main(["tournament", "roundrobin", "pubeval", "nosuchplayer",
                     "--out", str(tmp_path)]) == 2
    assert "unknown player" in capsys.readouterr().err
