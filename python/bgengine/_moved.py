"""The modules that moved into the concept subpackages, importable under their old names
for one more version with a :class:`DeprecationWarning`.

``import bgengine.ids`` gives the very module ``bgengine.notation.ids`` (one module object,
so a patch or an ``isinstance`` through either name sees the same thing); a moved package's
submodules follow it (``bgengine.gnubg.pool`` is ``bgengine.opponents.gnubg.pool``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

__all__ = ["MOVED", "install", "new_name"]

#: old module -> where it is now (a package's submodules move with it)
MOVED = {
    "bgengine.ids": "bgengine.notation.ids",
    "bgengine.state_ids": "bgengine.notation.state_text",
    "bgengine.fibs": "bgengine.notation.fibs",
    "bgengine.matchrecord": "bgengine.matchfiles.record",
    "bgengine.matchreading": "bgengine.matchfiles.reading",
    "bgengine.matfile": "bgengine.matchfiles.mat",
    "bgengine.sgf": "bgengine.matchfiles.sgf",
    "bgengine.session_file": "bgengine.matchfiles.session_file",
    "bgengine.engine": "bgengine.decisions.engine",
    "bgengine.hints": "bgengine.decisions.hints",
    "bgengine.hint_text": "bgengine.decisions.hints",
    "bgengine.cube": "bgengine.decisions.cube",
    "bgengine.rollouts": "bgengine.decisions.rollouts",
    "bgengine.luck": "bgengine.decisions.luck",
    "bgengine.analysis": "bgengine.decisions.analysis",
    "bgengine.game": "bgengine.matches.game",
    "bgengine.match": "bgengine.matches.run",
    "bgengine.results": "bgengine.matches.results",
    "bgengine.players": "bgengine.matches.players",
    "bgengine.demo": "bgengine.matches.demo",
    "bgengine.distributed": "bgengine.matches.distributed",
    "bgengine.tournament": "bgengine.matches.tournament",
    "bgengine.gnubg": "bgengine.opponents.gnubg",
    "bgengine.ubgi_client": "bgengine.opponents.ubgi",
    "bgengine.external": "bgengine.opponents.external",
    "bgengine.protocol": "bgengine.protocols.gnubg_socket",
    "bgengine.serve": "bgengine.protocols.serve",
    "bgengine.ubgi": "bgengine.protocols.ubgi",
    "bgengine.web": "bgengine.protocols.web",
    "bgengine.train_config": "bgengine.training.config",
    "bgengine.runs": "bgengine.training.run_dir",
    "bgengine.threaded_td": "bgengine.training.threaded_td",
    "bgengine.optimizer": "bgengine.training.optimizer",
    "bgengine.learners": "bgengine.training.learners",
    "bgengine.startpositions": "bgengine.training.startpositions",
    "bgengine.growth": "bgengine.training.growth",
    "bgengine.outcomes": "bgengine.training.outcomes",
    "bgengine.sweep": "bgengine.training.sweep",
    "bgengine.plot": "bgengine.training.plot",
    "bgengine.distillation": "bgengine.training.distillation",
    **{f"bgengine.{name}": f"bgengine.core.{name}" for name in (
        "fileio", "board", "dice", "movegen", "encoders", "network", "evaluator", "agents", "td",
        "search", "bearoff", "racegammon", "tictactoe", "smalllearners", "connect4",
        "connect4_solver", "connect4_players")},
}


def new_name(old: str) -> str | None:
    """Where the module ``old`` is now, or None if it did not move."""
    if old in MOVED:
        return MOVED[old]
    head, _, tail = old.rpartition(".")
    while head:
        if head in MOVED:
            return MOVED[head] + old[len(head):]
        head, _, _ = head.rpartition(".")
    return None


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers an old name with the module under its new one."""

    def find_spec(self, fullname, path=None, target=None):
        new = new_name(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        new = new_name(spec.name)
        warnings.warn(f"{spec.name} has moved to {new}; import it from there "
                      f"(the old name goes in the next version)", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__   # the import system sets __spec__ to this spec
        return module

    def exec_module(self, module: ModuleType) -> None:
        spec = module.__spec__
        assert spec is not None
        module.__spec__ = spec.loader_state      # the module's own spec again


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): before the path finder, which
    would otherwise load a moved package's submodule a second time under its old name."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
