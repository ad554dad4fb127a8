"""The compiled modules' type stubs (src/bgcore/*.pyi): one per module, installed beside it,
naming exactly the module's public names; mypy's stubtest, where mypy is installed, checks the
signatures and types against the modules too."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import bgengine

SRC = Path(__file__).resolve().parent.parent / "src" / "bgcore"
COMPILED = sorted(p.stem for p in SRC.glob("*.pyx"))

#: What Cython adds to every module and class, that no user reaches for.
CYTHON_INTERNALS = ("__test__", "__pyx_capi__", "__reduce_cython__", "__setstate_cython__")

pytestmark = pytest.mark.skipif(not COMPILED, reason="needs the source tree (src/bgcore)")


def stub_path(module: ModuleType) -> Path:
    """The stub installed beside a compiled module (a wheel's, or an editable build's)."""
    return Path(module.__file__).with_name(module.__name__.rsplit(".", 1)[1] + ".pyi")


def runtime_names(module: ModuleType) -> dict[str, set[str] | None]:
    """The module's public names: its own classes (with their public members) and functions,
    and its constants; names it imported from elsewhere are not its own."""
    out: dict[str, set[str] | None] = {}
    for name, obj in vars(module).items():
        if name.startswith("_") or inspect.ismodule(obj):
            continue
        if isinstance(obj, type) or callable(obj):
            if getattr(obj, "__module__", None) != module.__name__:
                continue
        if isinstance(obj, type):
            out[name] = {k for k in vars(obj) if not k.startswith("_")}
        else:
            out[name] = None
    return out


def stub_names(path: Path) -> dict[str, set[str] | None]:
    """The names a stub declares at its top level (classes with their members)."""
    def declared(body: list[ast.stmt]) -> list[tuple[str, ast.stmt]]:
        found = []
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.append((node.name, node))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found.append((node.target.id, node))
            elif isinstance(node, ast.Assign):
                found += [(t.id, node) for t in node.targets if isinstance(t, ast.Name)]
        return found

    out: dict[str, set[str] | None] = {}
    for name, node in declared(ast.parse(path.read_text()).body):
        if name == "__all__":
            continue
        if isinstance(node, ast.ClassDef):
            out[name] = {n for n, _ in declared(node.body) if not n.startswith("_")}
        else:
            out[name] = None
    return out


@pytest.mark.parametrize("name", COMPILED)
def test_each_compiled_module_has_a_stub_with_its_public_names(name):
    module = importlib.import_module(f"bgengine.core.{name}")
    assert (SRC / f"{name}.pyi").is_file(), f"src/bgcore/{name}.pyi is missing"
    installed = stub_path(module)
    assert installed.is_file(), f"{installed} is not installed beside the module"
    assert installed.read_text() == (SRC / f"{name}.pyi").read_text()
    want, got = runtime_names(module), stub_names(installed)
    assert sorted(set(want) - set(got)) == [], "public names the stub lacks"
    assert sorted(set(got) - set(want)) == [], "names the stub has and the module has not"
    for cls, members in want.items():
        if members is not None:
            assert got[cls] is not None, f"{cls} is a class"
            assert sorted(members ^ got[cls]) == [], f"{cls}'s members differ"


def test_the_package_is_marked_typed():
    assert (Path(bgengine.__file__).parent / "py.typed").is_file()


@pytest.mark.slow
def test_stubtest_agrees_with_the_modules(tmp_path):
    """mypy's stubtest: every stub's signatures and types against the imported modules."""
    pytest.importorskip("mypy.stubtest")
    installed = (Path(bgengine.__file__).parent / "core" / "network.pyi").is_file()
    if not installed:      # an editable build: the sources and the stubs, as a wheel has them
        package = tmp_path / "bgengine"
        shutil.copytree(Path(bgengine.__file__).parent, package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "data", "static"))
        for name in COMPILED:
            shutil.copy(stub_path(importlib.import_module(f"bgengine.core.{name}")),
                        package / "core")
    allow = tmp_path / "allowlist.txt"
    # connect4.Board's __init__ takes no argument, which Cython shows as (*args, **kwargs)
    allow.write_text("".join(f".*\\.{n}\n" for n in CYTHON_INTERNALS)
                     + "bgengine\\.core\\.connect4\\.Board\\.__init__\n")
    env = dict(os.environ) if installed else {**os.environ, "MYPYPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "mypy.stubtest", "--allowlist", str(allow),
                           "--ignore-disjoint-bases", "--mypy-config-file", os.devnull,
                           *[f"bgengine.core.{n}" for n in COMPILED]],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
