"""Names a package re-exports from its modules, imported on first use (PEP 562), so that
importing a package costs nothing until one of its names is used and no package
``__init__`` takes part in an import circle."""

from __future__ import annotations

from importlib import import_module
from typing import Any, Callable

__all__ = ["lazy_exports"]


def lazy_exports(package: dict[str, Any], exports: dict[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package whose globals are ``package``:
    ``exports`` maps each public name to the module that defines it."""
    name = package["__name__"]

    def __getattr__(attr: str) -> Any:
        if attr not in exports:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        value = getattr(import_module(exports[attr]), attr)
        package[attr] = value            # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(package) | set(exports))

    return __getattr__, __dir__
