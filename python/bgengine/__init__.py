"""bgengine: a backgammon engine that learns from the rules alone, by self-play.

The names a user reaches for first are here, loaded on first use so that
``import bgengine`` stays fast::

    import bgengine

    p = bgengine.Position.initial()
    net = bgengine.load_default_network()
    print(net.evaluate(p))

- ``Position``, ``Move``: a position and one legal play (:mod:`bgengine.position`)
- ``Network``: a neural-network evaluator (:mod:`bgengine.core.network`)
- ``load_default_network``: the shipped evaluator (:mod:`bgengine.matches.players`)
- ``Searcher``, ``rollout``: n-ply search and Monte-Carlo rollouts (:mod:`bgengine.core.search`)
- ``Player``: a compiled player (:mod:`bgengine.core.agents`); ``make_player``: any player by
  name (:mod:`bgengine.matches.players`)
- ``run_match``: cubeless money games with a 95% interval (:mod:`bgengine.matches.run`)
- ``Engine``: the decision maker behind ``bgengine serve`` and ``bgengine play`` (:mod:`bgengine.decisions.engine`)
- ``TrainConfig``, ``train``: training runs by self-play (:mod:`bgengine.training.trainer`)

Evaluation and search take a :class:`Position` wherever they take a board array.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from bgengine import _moved
from bgengine._lazy import lazy_exports

try:
    from bgengine.core import board as _board_mod, dice as _dice_mod, movegen as _movegen_mod  # noqa: F401
except ImportError as exc:  # pragma: no cover - only on a broken install
    raise ImportError(
        "bgengine's compiled core is missing or stale. From a source checkout, "
        "rebuild it with: pip install --no-build-isolation -e '.[test]'"
    ) from exc

try:
    __version__ = _version("bgengine")
except PackageNotFoundError:  # pragma: no cover
    __version__ = "0+unknown"

#: public name -> the module that defines it (imported on first use)
_LAZY = {
    "Position": "bgengine.position",
    "Move": "bgengine.position",
    "Network": "bgengine.core.network",
    "load_default_network": "bgengine.matches.players",
    "Searcher": "bgengine.core.search",
    "rollout": "bgengine.core.search",
    "Player": "bgengine.core.agents",
    "make_player": "bgengine.matches.players",
    "run_match": "bgengine.matches.run",
    "Engine": "bgengine.decisions.engine",
    "TrainConfig": "bgengine.training.trainer",
    "train": "bgengine.training.trainer",
}

__all__ = ["__version__", *_LAZY]

__getattr__, __dir__ = lazy_exports(globals(), _LAZY)

_moved.install()      # the old module names of the subpackages' modules, for one version
