"""Recipes: the phases after self-play run in order and resumable (bgengine.training.recipe,
``bgengine train RUN --config RECIPE.toml``)."""

from __future__ import annotations

import json

import pytest

from bgengine.cli import main
from bgengine.core.evaluator import Evaluator
from bgengine.core.network import Network
from bgengine.decisions.efficiency import CubeEfficiency
from bgengine.labelling.store import LabelStore, load_pool
from bgengine.training.recipe import PHASE_KINDS, load_recipe, run_recipe

RECIPE = """
[recipe]
start = "net:{net}"

[[phase]]
kind = "sample"
games = 4
seed = 3

[[phase]]
kind = "label"
name = "labels"
store = "labels/train"
trials = 4
shard_size = 10

[[phase]]
kind = "sample"
name = "more"
games = 4
seed = 4

[[phase]]
kind = "label"
name = "races"
store = "labels/races"
pool = ["01-sample", "more"]
classes = ["race"]
trials = 4

[[phase]]
kind = "widen"
contact = [10]

[[phase]]
kind = "fit"
stores = ["labels", "races"]
epochs = 1
held_out = 0.3
teach_around = 1
teach_plies = 0

[[phase]]
kind = "cube-fit"
set = "training/cubes/bench-cubes-r1.npz"
"""


@pytest.fixture()
def start(tmp_path):
    path = tmp_path / "start.npz"
    Network(hidden=(8,), n_outputs=5, encoder="tesauro198", seed=3).save(path)
    return path


def test_a_recipe_runs_its_phases_and_resumes(tmp_path, start, capsys):
    recipe_file = tmp_path / "recipe.toml"
    recipe_file.write_text(RECIPE.format(net=start))
    run = tmp_path / "run"
    assert main(["train", str(run), "--config", str(recipe_file), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["phases"] == ["01-sample", "labels", "more", "races", "05-widen", "06-fit",
                             "07-cube-fit"]
    pool = load_pool(run / "phases" / "01-sample" / "pool.npz")
    assert len(LabelStore(run / "labels" / "train")) == len(pool) > 0
    both = [pool, load_pool(run / "phases" / "more" / "pool.npz")]
    races = load_pool(run / "phases" / "races" / "pool.npz")
    expected = {bytes(k) for p in both for k, c in zip(p.keys, p.classes) if c == 4}
    assert {bytes(k) for k in races.keys} == expected and len(races) == len(expected) > 0
    assert len(LabelStore(run / "labels" / "races")) == len(races)
    final = Evaluator.load(run / "evaluator.npz")
    assert final.contact.hidden == (10,)                         # widened, then fitted
    labelled = {bytes(k) for k in pool.keys} | expected          # a position met twice: once
    assert final.metadata["fitted_to_rollouts"]["positions"] == len(labelled)
    assert CubeEfficiency.METADATA_KEY in final.metadata
    # again, from the run's own copy of the recipe: every phase done already
    assert main(["train", str(run)]) == 0
    assert capsys.readouterr().out.count("done already") == 7
    # other settings for a phase done: an error naming it
    recipe_file.write_text(RECIPE.format(net=start).replace("games = 4", "games = 6"))
    assert main(["train", str(run), "--config", str(recipe_file)]) == 2
    assert "01-sample was done with other settings" in capsys.readouterr().err


def test_recipe_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    for text, message in [
            ('[[phase]]\nkind = "bake"\n', "kind must be one of"),
            ('[[phase]]\nkind = "sample"\n', "games is required"),
            ('[[phase]]\nkind = "sample"\ngames = 2\nspeed = 3\n', "unknown settings"),
            ('[[phase]]\nkind = "widen"\nname = "a"\n[[phase]]\nkind = "widen"\nname = "a"\n',
             "names must differ"),
            ('[recipe]\nstart = 3\n[[phase]]\nkind = "widen"\n', "network spec"),
            ('[other]\n[[phase]]\nkind = "widen"\n', "unknown tables"),
            ('[[phase]]\nkind = "distill"\ngames = 2\nexperts = "stage:250"\n'
             'fit_seeds = [0, 1]\n', "one fit")]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=message):
            load_recipe(bad)
    bad.write_text('[train]\ngames = 10\n')
    assert load_recipe(bad) is None                 # a plain training config
    bad.write_text('[[phase]]\nkind = "label"\nstore = "s"\n')
    with pytest.raises(ValueError, match="no pool"):
        run_recipe(tmp_path / "run", load_recipe(bad), start="net")
    assert set(PHASE_KINDS) == {"sample", "label", "widen", "fit", "cube-fit", "race-fit", "distill",
                                "calibrate"}
    bad.write_text('[[phase]]\nkind = "distill"\ngames = 2\nplies = 0\nreuse = ["x"]\n')
    with pytest.raises(ValueError, match="reuse names 'x', not a distill phase"):
        run_recipe(tmp_path / "run2", load_recipe(bad), start="net")


DISTILL = """
[recipe]
start = "net:{net}"

[[phase]]
kind = "distill"
name = "round1"
games = 3
chunk_games = 2
seed = 5
plies = 1
fit_seeds = [0, 1]
epochs = 1

[[phase]]
kind = "distill"
name = "round2"
games = 2
seed = 9
plies = 2
sample = 1
mean_lower = true
reuse = ["round1"]
epochs = 1
experts = "stage:250"

[[phase]]
kind = "calibrate"
games = 6
chunk_games = 4
outputs = [0]
"""


def test_distillation_and_calibration_phases(tmp_path, start, capsys):
    """Two rounds of distillation (the second reusing the first's data, two fits blended,
    the contact network split into experts), then calibration, each in chunks."""
    recipe_file = tmp_path / "recipe.toml"
    recipe_file.write_text(DISTILL.format(net=start))
    run = tmp_path / "run"
    assert main(["train", str(run), "--config", str(recipe_file), "--json"]) == 0
    phases = run / "phases"
    assert sorted(p.name for p in (phases / "round1").glob("data-*")) == [
        "data-000.npz", "data-001.npz"]
    r1 = Evaluator.load(phases / "round1" / "evaluator.npz")
    assert r1.contact.metadata["blended"]["share"] == 0.5
    assert len(r1.contact.metadata["blended"]["fits"]) == 2
    r2 = Evaluator.load(phases / "round2" / "evaluator.npz")
    assert r2.stage_cuts == (250,) and len(r2.experts) == 1
    assert r2.contact.metadata["distilled"]["files"][:2] == [
        str(phases / "round1" / f"data-00{k}.npz") for k in (0, 1)]
    final = Evaluator.load(run / "evaluator.npz")
    assert len(final.metadata["output_calibration"]["files"]) == 2
    assert final.contact.params.tolist() != r2.contact.params.tolist()
    # a calibration cut short resumes at its first missing chunk
    json.loads(capsys.readouterr().out)
    (phases / "03-calibrate" / "done.json").unlink()
    (phases / "03-calibrate" / "outcomes-001.npz").unlink()
    assert main(["train", str(run)]) == 0
    out = capsys.readouterr().out
    assert "03-calibrate: chunk 2 of 2" in out and "chunk 1 of 2" not in out
    assert out.count("done already") == 2


def test_the_guides_recipe_is_a_recipe(tmp_path):
    from pathlib import Path
    text = Path("docs/guide/training.md").read_text()
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "r.toml").write_text(example)
    recipe = load_recipe(tmp_path / "r.toml")
    assert [p.kind for p in recipe.phases] == ["sample", "label", "fit"]
    assert recipe.phases[2].settings["keep_form"] == "differences"


def _tiny(recipe: str) -> str:
    """The recipe with every count cut to a few games, trials and epochs."""
    import re

    s = re.sub(r"(?m)^epochs = \d+\n", "", recipe)
    s = re.sub(r"(?m)^games = \d+", "games = 2", s)
    s = s.replace("games = 2\nseed = 2027", "games = 64\nseed = 2027")          # self-play
    for key, value in [("checkpoint_every", 32), ("eval_every", 64), ("eval_games", 4),
                       ("snapshot_every", 64)]:
        s = re.sub(rf"(?m)^{key} = \d+", f"{key} = {value}", s)
    s = re.sub(r"(?m)^trials = \d+", "trials = 2", s)
    s = re.sub(r'(?m)^(kind = "(distill|fit)".*)$', r"\1\nepochs = 1", s)
    return s.replace('kind = "calibrate"\ngames = 2\n',
                     'kind = "calibrate"\ngames = 40\noutputs = [0]\n')


def test_the_shipped_recipe_runs_from_random_weights(tmp_path, capsys):
    """configs/default.toml, every phase of the shipped evaluator's making, end to end on a
    few games each: self-play, seven rounds of distillation, experts, calibration, sampling,
    labelling, widening and the fits; the result has the shipped evaluator's shape."""
    from pathlib import Path

    text = Path("configs/default.toml").read_text()
    assert Path("python/bgengine/data/default_config.toml").read_text() == text
    (tmp_path / "tiny.toml").write_text(_tiny(text))
    run = tmp_path / "run"
    assert main(["train", str(run), "--config", str(tmp_path / "tiny.toml"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["phases"]) == len(load_recipe("configs/default.toml").phases) == 28
    made = Evaluator.load(run / "evaluator.npz")
    shipped = Evaluator.load(Path("python/bgengine/data/default.npz"))
    assert {k: n.sizes for k, n in made.networks.items()} == {
        k: n.sizes for k, n in shipped.networks.items()}
    assert (made.stage_cuts, made.lead_cuts) == (shipped.stage_cuts, shipped.lead_cuts)
    assert made.race_gammons is not None and "output_calibration" in made.metadata
