"""bgengine: a backgammon engine that learns from the rules alone, by self-play."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    from bgengine import board as _board_mod, dice as _dice_mod, movegen as _movegen_mod
except ImportError as exc:  # pragma: no cover - only on a broken install
    raise ImportError(
        "bgengine's compiled core is missing or stale. From a source checkout, "
        "rebuild it with: pip install --no-build-isolation -e '.[test]'"
    ) from exc

try:
    __version__ = _version("bgengine")
except PackageNotFoundError:  # pragma: no cover
    __version__ = "0+unknown"

__all__ = ["__version__"]
