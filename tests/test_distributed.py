"""Backends: the local one, and Ray (a local instance) giving the same results for the same seeds."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgengine.core.agents import Player, play_match
from bgengine.matches.distributed import LocalBackend, make_backend
from bgengine.matches.run import run_match
from bgengine.core.network import Network
from bgengine.matches.tournament import Entrant, knockout, round_robin

NET = Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=11)


def entrants() -> list[Entrant]:
    return [Entrant("pubeval", Player("pubeval"), "pubeval"),
            Entrant("tiny", Player("net", NET, name="tiny"), "tiny"),
            Entrant("simple3", Player("simple3"), "simple3")]


def test_local_backend_is_play_match():
    a, b = Player("pubeval"), Player("simple3")
    p, m = LocalBackend(threads=2).play_pairs(a, b, 9, seed=5, first_pair=3)
    q, n = play_match(a, b, 9, seed=5, n_threads=1, first_pair=3)
    assert np.array_equal(p, q) and np.array_equal(m, n)
    assert LocalBackend(1).map(abs, [-1, 2, -3]) == [1, 2, 3]
    with pytest.raises(ValueError, match="unknown backend"):
        make_backend("spark")
    with pytest.raises(ValueError, match="threads"):
        LocalBackend(0)


def _square(x: int) -> int:
    return x * x


@pytest.fixture(scope="module")
def ray_backend():
    pytest.importorskip("ray")
    from bgengine.matches.distributed import RayBackend

    backend = RayBackend(num_cpus=2, chunk_pairs=7)
    yield backend
    backend.close()


def test_ray_match_equals_local(ray_backend):
    a, b = Player("net", NET, name="tiny"), Player("pubeval")
    local = run_match(a, b, 100, seed=3, threads=2)
    remote = run_match(a, b, 100, seed=3, backend=ray_backend)
    assert remote == local


def test_ray_tournaments_equal_local(ray_backend):
    rr_local = round_robin(entrants(), 40, seed=8, threads=1)
    rr_ray = round_robin(entrants(), 40, seed=8, backend=ray_backend)
    assert np.array_equal(rr_local.ppg, rr_ray.ppg, equal_nan=True) and np.array_equal(rr_local.games, rr_ray.games)
    ko_local = knockout(entrants(), max_games=60, margin=6, seed=2, threads=1, batch_pairs=10)
    ko_ray = knockout(entrants(), max_games=60, margin=6, seed=2, backend=ray_backend, batch_pairs=10)
    assert ko_local.as_dict() == ko_ray.as_dict()


def test_ray_map(ray_backend):
    assert ray_backend.map(_square, [1, 2, 3, 4]) == [1, 4, 9, 16]


def test_ray_worker_death_is_rerun_and_counted_once(ray_backend, tmp_path):
    from bgengine.matches.distributed import RayBackend

    marker = tmp_path / "died"
    dying = RayBackend(chunk_pairs=5, _fail_once=str(marker))    # joins the running instance
    a, b = Player("simple3"), Player("pubeval")
    p, m = dying.play_pairs(a, b, 23, seed=4)
    assert marker.exists()                       # one worker really died mid-task
    q, n = play_match(a, b, 23, seed=4)
    assert np.array_equal(p, q) and np.array_equal(m, n)


def test_ray_sweep_equals_local(ray_backend, tmp_path):
    from bgengine.training.sweep import SweepSpec, run_sweep

    spec = SweepSpec(base={"games": 40, "outputs": 1, "checkpoint_every": 20, "eval_every": 40,
                           "eval_games": 10, "threads": 1},
                     grid={"hidden": [[4], [6]]}, seeds=[1, 2], eval_games=20)
    local = run_sweep(spec, tmp_path / "local", parallel=2)
    remote = run_sweep(spec, tmp_path / "ray", backend=ray_backend)
    assert local["points"] == remote["points"]


def test_cli_tournament_and_match_on_ray(ray_backend, tmp_path, capsys):
    from bgengine.cli import main

    assert main(["tournament", "roundrobin", "pubeval", "simple3", "random", "--games", "20",
                 "--backend", "ray", "--out", str(tmp_path / "t"), "--quiet"]) == 0
    assert (tmp_path / "t" / "roundrobin.json").exists()
    assert main(["match", "pubeval", "simple3", "--games", "40", "--backend", "ray", "--json"]) == 0
    out = capsys.readouterr().out
    ray_doc = json.loads(out[out.index("{"):])
    assert main(["match", "pubeval", "simple3", "--games", "40", "--json"]) == 0
    local_doc = json.loads(capsys.readouterr().out)
    assert ray_doc == local_doc
