"""A fit to rollout labels stopped part way goes on at the next network (fit checkpoints)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bgengine.labelling.fit as fit_module
from bgengine.cli import main
from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network
from bgengine.labelling.classes import classify_positions
from bgengine.labelling.fit import FitConfig, fit_evaluator
from bgengine.labelling.store import Labels, boards_to_keys
from bgengine.training.startpositions import play_positions


def _two_networks(seed: int) -> Evaluator:
    return Evaluator(Network((8,), 5, encoder="tesauro198", seed=seed),
                     Network((8,), 5, encoder="tesauro198", seed=seed + 1))


@pytest.fixture(scope="module")
def labelled():
    """Positions of contact and race, labelled by a teacher's outputs (noise-free)."""
    teacher = _two_networks(1)
    boards = play_positions(teacher.contact, 60, seed=2, epsilon=0.5)
    keys = boards_to_keys(boards)
    keep = np.unique(keys, axis=0, return_index=True)[1]
    boards, keys = boards[keep], keys[keep]
    outputs = np.clip(teacher.evaluate(boards), 0, 1).astype(np.float32)
    labels = Labels(keys, classify_positions(boards), outputs,
                    np.zeros((len(keys), 5), np.float32), np.zeros(len(keys), np.float32))
    return boards, labels


def test_a_stopped_fit_goes_on_at_the_next_network(labelled, tmp_path, monkeypatch):
    boards, labels = labelled
    start, config, parts = _two_networks(5), FitConfig(epochs=3, lr=3e-3, seed=1), tmp_path / "p"
    whole, reports = fit_evaluator(start, labels, config)
    first, second = (r.name for r in reports)          # race, then contact

    real, calls = fit_module.fit_network, []

    def stopped_at_the_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt            # as a kill between the two networks
        return real(*args, **kwargs)

    monkeypatch.setattr(fit_module, "fit_network", stopped_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        fit_evaluator(start, labels, config, checkpoint=parts)
    assert sorted(p.name for p in parts.iterdir()) == [f"{first}.json", f"{first}.npz"]

    calls.clear()
    monkeypatch.setattr(fit_module, "fit_network", lambda *a, **k: (calls.append(1),
                                                                     real(*a, **k))[1])
    lines = []
    again, again_reports = fit_evaluator(start, labels, config, progress=lines.append,
                                               checkpoint=parts)
    assert len(calls) == 1 and any(f"{first}: fitted before" in line for line in lines)
    assert again_reports == reports
    assert np.allclose(again.evaluate(boards[:40]), whole.evaluate(boards[:40]), atol=1e-6)

    for other in ((start, FitConfig(epochs=2, lr=3e-3, seed=1)), (_two_networks(7), config)):
        with pytest.raises(ValueError, match="other labels, settings or a start"):
            fit_evaluator(other[0], labels, other[1], checkpoint=parts)


def test_the_cli_fit_removes_its_default_checkpoint(labelled, tmp_path):
    boards, labels = labelled
    out = tmp_path / "fit.npz"
    parts = tmp_path / "fit.npz.parts"
    parts.mkdir()
    (parts / "race.json").write_text(json.dumps({"fingerprint": "another fit",
                                                    "report": {}}))
    start = tmp_path / "start.npz"
    _two_networks(5).save(start)
    store = tmp_path / "store"
    _write_store(store, boards, labels)
    args = ["data", "fit", str(out), "--store", str(store), "--player", str(start),
            "--epochs", "1", "--quiet", "--threads", "1"]
    assert main(args) != 0                     # a checkpoint of another fit is refused
    (parts / "race.json").unlink()
    assert main(args) == 0 and out.is_file() and not parts.exists()


def _write_store(folder, boards, labels) -> None:
    """A label store holding ``labels`` as one shard of a pool of their positions."""
    from bgengine.labelling.store import LabelSettings, LabelStore, load_pool, save_pool

    pool_path = folder.parent / "pool.npz"
    save_pool(pool_path, labels.keys, labels.classes, np.zeros(len(labels), np.uint8), {})
    store = LabelStore(folder, LabelSettings(trials=36, shard_size=len(labels)), "0" * 64)
    store.add_shard(load_pool(pool_path), 0, labels)


def test_a_resumed_fit_values_only_the_positions_of_the_networks_left(labelled, tmp_path,
                                                                     monkeypatch):
    """The kept plays of a network fitted before are not searched again."""
    _, labels = labelled
    start, parts = _two_networks(5), tmp_path / "p"
    config = FitConfig(epochs=1, lr=3e-3, seed=1, keep=1.0, keep_plays=2, keep_plies=1)
    search, fit, searched, fits = fit_module.search_outputs, fit_module.fit_network, [], []

    def counted(evaluator, positions, plies, **kwargs):
        searched.append(len(positions))
        return search(evaluator, positions, plies, **kwargs)

    def stopped_at_the_second(*args, **kwargs):
        fits.append(1)
        if len(fits) == 2:
            raise KeyboardInterrupt
        return fit(*args, **kwargs)

    monkeypatch.setattr(fit_module, "search_outputs", counted)
    monkeypatch.setattr(fit_module, "fit_network", stopped_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        fit_evaluator(start, labels, config, checkpoint=parts)
    first = list(searched)              # each network's plays searched as it is fitted
    monkeypatch.setattr(fit_module, "fit_network", fit)
    fit_evaluator(start, labels, config, checkpoint=parts)
    assert len(first) == 2 and all(first)
    assert searched[2:] == first[1:]    # resumed: the second network's alone
