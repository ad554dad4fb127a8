"""The modules that moved into the concept subpackages stay importable under their old
names for one version: the very same module, with a DeprecationWarning naming the new place."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from bgengine._moved import MOVED, new_name


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_gives_the_moved_module_with_a_warning(old):
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} has moved to {MOVED[old]}"):
        module = importlib.import_module(old)
    assert module is new and module.__name__ == MOVED[old]
    assert module.__spec__.name == MOVED[old]          # its own spec, not the old name's


def test_a_moved_packages_submodules_follow_it():
    assert new_name("bgengine.gnubg.pool") == "bgengine.opponents.gnubg.pool"
    assert new_name("bgengine.position") is None and new_name("bgengine.gnubgx") is None
    code = ("import warnings; warnings.simplefilter('ignore')\n"
            "import bgengine.gnubg.pool as old, bgengine.opponents.gnubg.pool as new\n"
            "from bgengine.tournament.elimination import knockout\n"
            "from bgengine.matches.tournament import knockout as k2\n"
            "print(old is new, knockout is k2)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]


def test_the_packages_re_export_their_old_modules_names_without_a_warning():
    code = ("import warnings; warnings.simplefilter('error')\n"
            "from bgengine.notation import parse_move\n"
            "from bgengine.matchfiles import read_match_file\n"
            "from bgengine.training import TrainConfig, train\n"
            "import bgengine.notation.moves as m, bgengine.training.trainer as t\n"
            "print(parse_move is m.parse_move, train is t.train)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
