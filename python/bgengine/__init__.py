"""bgengine: a backgammon engine that learns from the rules alone, by self-play.

The names a user reaches for first are here, loaded on first use so that
``import bgengine`` stays fast::

    import bgengine

    p = bgengine.Position.initial()
    net = bgengine.load_default_network()
    print(net.evaluate(p))

- ``Position``, ``Move``: a position and one legal play (:mod:`bgengine.position`)
- ``Network``: a neural-network evaluator (:mod:`bgengine.network`)
- ``load_default_network``: the shipped evaluator (:mod:`bgengine.players`)
- ``Searcher``, ``rollout``: n-ply search and Monte-Carlo rollouts (:mod:`bgengine.search`)
- ``Player``: a compiled player (:mod:`bgengine.agents`); ``make_player``: any player by
  name (:mod:`bgengine.players`)
- ``run_match``: cubeless money games with a 95% interval (:mod:`bgengine.match`)
- ``Engine``: the decision maker behind ``bgengine serve`` and ``bgengine play`` (:mod:`bgengine.engine`)
- ``TrainConfig``, ``train``: training runs by self-play (:mod:`bgengine.training`)

Evaluation and search take a :class:`Position` wherever they take a board array.
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version as _version

try:
    from bgengine import board as _board_mod, dice as _dice_mod, movegen as _movegen_mod  # noqa: F401
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
    "Network": "bgengine.network",
    "load_default_network": "bgengine.players",
    "Searcher": "bgengine.search",
    "rollout": "bgengine.search",
    "Player": "bgengine.agents",
    "make_player": "bgengine.players",
    "run_match": "bgengine.match",
    "Engine": "bgengine.engine",
    "TrainConfig": "bgengine.training",
    "train": "bgengine.training",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'bgengine' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    globals()[name] = value          # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
