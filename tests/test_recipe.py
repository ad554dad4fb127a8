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
kind = "widen"
contact = [10]

[[phase]]
kind = "fit"
stores = ["labels"]
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
    assert out["phases"] == ["01-sample", "labels", "03-widen", "04-fit", "05-cube-fit"]
    pool = load_pool(run / "phases" / "01-sample" / "pool.npz")
    assert len(LabelStore(run / "labels" / "train")) == len(pool) > 0
    final = Evaluator.load(run / "evaluator.npz")
    assert final.contact.hidden == (10,)                         # widened, then fitted
    assert final.metadata["fitted_to_rollouts"]["positions"] == len(pool)
    assert CubeEfficiency.METADATA_KEY in final.metadata
    # again, from the run's own copy of the recipe: every phase done already
    assert main(["train", str(run)]) == 0
    assert capsys.readouterr().out.count("done already") == 5
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
            ('[other]\n[[phase]]\nkind = "widen"\n', "unknown tables")]:
        bad.write_text(text)
        with pytest.raises(ValueError, match=message):
            load_recipe(bad)
    bad.write_text('[train]\ngames = 10\n')
    assert load_recipe(bad) is None                 # a plain training config
    bad.write_text('[[phase]]\nkind = "label"\nstore = "s"\n')
    with pytest.raises(ValueError, match="no pool"):
        run_recipe(tmp_path / "run", load_recipe(bad), start="net")
    assert set(PHASE_KINDS) == {"sample", "label", "widen", "fit", "cube-fit"}


def test_the_guides_recipe_is_a_recipe(tmp_path):
    from pathlib import Path
    text = Path("docs/guide/training.md").read_text()
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "r.toml").write_text(example)
    recipe = load_recipe(tmp_path / "r.toml")
    assert [p.kind for p in recipe.phases] == ["sample", "label", "fit"]
    assert recipe.phases[2].settings["keep_form"] == "differences"
