"""bgengine/__init__.py: the package's public face, loaded lazily, and python -m bgengine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import bgengine

PUBLIC = ["Position", "Move", "Network", "load_default_network", "Searcher", "rollout", "Player",
          "make_player", "run_match", "Engine", "TrainConfig", "train"]


def _child(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_import_loads_none_of_the_public_modules():
    """``import bgengine`` loads the compiled board, dice and move generator and two small
    helpers (the lazy names, the moved modules' old names) only: the public names come on
    first use, so the import stays fast."""
    loaded = json.loads(_child("import json, sys, bgengine; "
                               "print(json.dumps(sorted(m for m in sys.modules "
                               "if m.startswith('bgengine'))))"))
    assert loaded == ["bgengine", "bgengine._lazy", "bgengine._moved", "bgengine.core",
                      "bgengine.core.board", "bgengine.core.dice", "bgengine.core.movegen"]


def test_first_use_loads_only_what_it_needs():
    loaded = json.loads(_child("import json, sys, bgengine; bgengine.Position; "
                               "print(json.dumps(sorted(sys.modules)))"))
    assert "bgengine.position" in loaded
    for heavy in ("bgengine.training.trainer", "bgengine.matches.run", "bgengine.protocols.serve", "bgengine.core.search",
                  "bgengine.matches.tournament"):
        assert heavy not in loaded


def test_every_public_name_is_the_defining_modules_object():
    from bgengine import position
    from bgengine.core import agents, network, search
    from bgengine.matches import players, run as match
    from bgengine.training import trainer as training

    expected = {"Position": position.Position, "Move": position.Move,
                "Network": network.Network, "load_default_network": players.load_default_network,
                "Searcher": search.Searcher, "rollout": search.rollout, "Player": agents.Player,
                "make_player": players.make_player, "run_match": match.run_match,
                "TrainConfig": training.TrainConfig, "train": training.train}
    for name, obj in expected.items():
        assert getattr(bgengine, name) is obj, name
    assert bgengine.Engine.__name__ == "Engine"
    assert bgengine.Engine.__module__ in ("bgengine.decisions.engine", "bgengine.protocols.serve")
    assert sorted(bgengine.__all__) == sorted(["__version__", *PUBLIC])
    assert set(PUBLIC) <= set(dir(bgengine))
    from bgengine import Position, train          # from-imports go through the same path
    assert Position is position.Position and train is training.train
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        bgengine.Nothing


def test_python_dash_m_bgengine_is_the_command_line():
    out = _child("import runpy, sys; sys.argv = ['bgengine', 'show']; "
                 "runpy.run_module('bgengine', run_name='__main__')")
    assert "Position ID: 4HPwATDgc/ABMA" in out
    proc = subprocess.run([sys.executable, "-m", "bgengine", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("bgengine ")
    from bgengine.core.network import kernel
    assert f"(network kernel {kernel()};" in proc.stdout


def test_every_module_of_the_source_tree_is_installed():
    """The installed package (a wheel's, or ``pip install .``'s) holds every Python module of
    ``python/bgengine`` (a packaging exclude once dropped the ``training`` subpackage)."""
    source = Path(__file__).resolve().parent.parent / "python" / "bgengine"
    if not source.is_dir():
        pytest.skip("needs the source tree")
    installed = Path(bgengine.__file__).resolve().parent
    want = {p.relative_to(source) for p in source.rglob("*.py")}
    have = {p.relative_to(installed) for p in installed.rglob("*.py")}
    assert not want - have, sorted(map(str, want - have))[:10]
