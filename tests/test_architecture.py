"""The Python layer's architecture, checked from the source: the compiled core imports
nothing from the Python layer above it, imports form no circle,
the library leaves the command line (argparse, exit statuses) to ``bgengine.cli`` and
signals to ``bgengine.interrupts``, and no file grows past one concept.

Every import counts, at module level and inside function bodies: an import hidden in a
function to dodge a circle is still a circle.  Exceptions still pending are listed
below, each with the reason; the lists only shrink (an entry that no longer applies
fails the test, so it is removed when the work lands).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "bgengine"

pytestmark = pytest.mark.skipif(not PACKAGE.is_dir(), reason="needs the source tree")

#: Import edges (importer, imported) of circles still being taken apart.
PENDING_CIRCLE_EDGES: dict[tuple[str, str], str] = {}

#: Library modules that still parse arguments or install signal handlers themselves.
PENDING_ARGPARSE: dict[str, str] = {}
PENDING_EXITS: dict[str, str] = {}
#: Scripts that run as programs of their own, not as part of the library.
PROGRAMS = {"bgengine.data.gnubg_driver": "runs inside gnubg's embedded Python"}
PENDING_SIGNAL_HANDLERS: dict[str, str] = {}

#: Python files longer than MAX_LINES, with the reason.
MAX_LINES = 600
PENDING_LONG_FILES: dict[str, str] = {
}

#: Backgammon modules that still import the small games (they plug in through
#: bgengine.other_games instead), with the reason.
PENDING_SMALL_GAME_IMPORTS: dict[str, str] = {}

#: Where the library's own signal handlers and command line live.
ALLOWED_SIGNAL_MODULES = {"bgengine.interrupts"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()
SOURCE_CORE = PACKAGE.parent.parent / "src" / "bgcore"
#: compiled modules (the core): leaves of the Python layer's graph
COMPILED = {f"bgengine.core.{p.name.split('.')[0]}" for p in (PACKAGE / "core").iterdir()
            if p.suffix in (".so", ".pyd") or p.name.endswith(".pyi")} | {
            f"bgengine.core.{p.stem}" for p in (PACKAGE.parent.parent / "src" / "bgcore").glob("*.pyx")}


def _is_library(name: str) -> bool:
    return not (name == "bgengine.cli" or name.startswith("bgengine.cli.")
                or name == "bgengine.__main__")


def _trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(), str(path)) for name, path in MODULES.items()}


TREES = _trees()


def _imports(name: str, tree: ast.Module) -> set[str]:
    """The bgengine modules ``name`` imports anywhere in its source."""
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.add(sub if sub in MODULES or sub in COMPILED else base)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _imports(name, tree) for name, tree in TREES.items()}


def _find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (as a path that ends where it starts), or None."""
    state: dict[str, int] = {}          # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


#: A compiled module's Python-level imports of bgengine: ``from bgengine[.X] import ...`` or
#: ``import bgengine.X`` (cimports are C-level and always within the core).
_CORE_IMPORT = re.compile(r"^\s*(?:from\s+(bgengine(?:\.\w+)*)\s+import\s+([\w, ]+)"
                          r"|import\s+(bgengine(?:\.\w+)*))", re.MULTILINE)
#: The package's own version string, which the core writes into the files it saves.
CORE_ALLOWED_FROM_PACKAGE = {"__version__"}


def _core_imports(source: str) -> set[str]:
    """The bgengine modules (or ``bgengine.NAME`` for a name taken from the package itself)
    that a compiled module's source imports at the Python level, anywhere in it."""
    out = set()
    for m in _CORE_IMPORT.finditer(source):
        if m.group(3):
            out.add(m.group(3))
        elif m.group(1) == "bgengine":
            out.update(f"bgengine.{n.strip()}" for n in m.group(2).split(",") if n.strip())
        else:
            out.add(m.group(1))
    return out


def _uses_signals(tree: ast.Module) -> bool:
    """Imports the ``signal`` module (to install a handler, or anything else)."""
    return any(isinstance(n, ast.Import) and any(a.name == "signal" for a in n.names)
               or isinstance(n, ast.ImportFrom) and n.module == "signal"
               for n in ast.walk(tree))


def _calls_sys_exit(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr == "exit" and isinstance(n.func.value, ast.Name)
               and n.func.value.id == "sys" for n in ast.walk(tree))


def _imports_argparse(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.Import) and any(a.name == "argparse" for a in n.names)
               or isinstance(n, ast.ImportFrom) and n.module == "argparse"
               for n in ast.walk(tree))


# ---------------------------------------------------------------- the checks themselves

def test_the_checks_see_what_they_look_for():
    """The walkers find a circle, argparse and a handler where there is one."""
    assert _find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_circle({"a": {"b"}, "b": {"c"}, "d": {"a", "c"}}) is None
    code = ast.parse("def f():\n    import argparse, signal\n    signal.signal(signal.SIGINT, g)\n")
    assert _imports_argparse(code) and _uses_signals(code) and not _calls_sys_exit(code)
    assert _calls_sys_exit(ast.parse("if x:\n    sys.exit(main())"))
    assert not _imports_argparse(ast.parse("import argparsex"))
    assert _uses_signals(ast.parse("from signal import SIGINT"))
    assert not _uses_signals(ast.parse("import signals"))
    # imports inside functions count, and so do from-imports of a module
    assert "bgengine.training.trainer" in GRAPH["bgengine.cli.train"]
    assert "bgengine.matches.tournament.entrants" in GRAPH["bgengine.matches.tournament.roundrobin"]
    assert _core_imports("import numpy as np\nfrom bgengine.core.board cimport board_t\n"
                         "def f():\n    from bgengine.core.fileio import atomic_write\n"
                         "    from bgengine import __version__, players\n"
                         "import bgengine.matches.run\n") == {
        "bgengine.core.fileio", "bgengine.__version__", "bgengine.players", "bgengine.matches.run"}


# ---------------------------------------------------------------- the compiled core

def test_the_core_imports_nothing_from_the_python_layer():
    """src/bgcore sits below python/bgengine: its modules import only each other."""
    core = SOURCE_CORE.glob("*.pyx")
    allowed = COMPILED | {f"bgengine.{n}" for n in CORE_ALLOWED_FROM_PACKAGE}
    found = {p.name: sorted(_core_imports(p.read_text()) - allowed) for p in core}
    assert not {f: m for f, m in found.items() if m}, found


# ---------------------------------------------------------------- the architecture

def test_no_import_circle_in_the_python_layer():
    graph = {m: {n for n in deps if (m, n) not in PENDING_CIRCLE_EDGES}
             for m, deps in GRAPH.items()}
    circle = _find_circle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle)
    stale = [e for e in PENDING_CIRCLE_EDGES if e[1] not in GRAPH.get(e[0], ())]
    assert not stale, f"no longer imported, drop from PENDING_CIRCLE_EDGES: {stale}"
    for importer, imported in PENDING_CIRCLE_EDGES:     # each still closes a circle
        assert importer in _reachable(GRAPH, imported), \
            f"{importer} -> {imported} closes no circle: drop it from PENDING_CIRCLE_EDGES"


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_library_parses_no_arguments():
    found = {m for m, t in TREES.items() if _is_library(m) and _imports_argparse(t)}
    assert found <= set(PENDING_ARGPARSE), f"argparse outside bgengine.cli: {found - set(PENDING_ARGPARSE)}"
    assert set(PENDING_ARGPARSE) <= found, f"drop from PENDING_ARGPARSE: {set(PENDING_ARGPARSE) - found}"


def test_the_library_does_not_exit_the_process():
    found = {m for m, t in TREES.items()
             if _is_library(m) and m not in PROGRAMS and _calls_sys_exit(t)}
    assert found <= set(PENDING_EXITS), f"sys.exit outside bgengine.cli: {found - set(PENDING_EXITS)}"
    assert set(PENDING_EXITS) <= found, f"drop from PENDING_EXITS: {set(PENDING_EXITS) - found}"


def test_no_backgammon_module_imports_the_small_games():
    """The small games plug into the commands (entry point ``bgengine.games``); no
    backgammon module knows them."""
    found = {m for m, deps in GRAPH.items() if not m.startswith("bgengine.games")
             and any(d == "bgengine.games" or d.startswith("bgengine.games.") for d in deps)}
    assert found <= set(PENDING_SMALL_GAME_IMPORTS), found - set(PENDING_SMALL_GAME_IMPORTS)


def test_only_the_interrupts_module_touches_signals():
    found = {m for m, t in TREES.items()
             if _is_library(m) and m not in ALLOWED_SIGNAL_MODULES and _uses_signals(t)}
    pending = set(PENDING_SIGNAL_HANDLERS)
    assert found <= pending, f"signals used outside bgengine.interrupts: {found - pending}"
    assert pending <= found, f"drop from PENDING_SIGNAL_HANDLERS: {pending - found}"
    assert _uses_signals(TREES["bgengine.interrupts"])


def test_no_python_file_over_600_lines():
    sizes = {str(p.relative_to(PACKAGE)): len(p.read_text().splitlines())
             for p in PACKAGE.rglob("*.py")}
    long = {f for f, n in sizes.items() if n > MAX_LINES}
    assert long <= set(PENDING_LONG_FILES), {f: sizes[f] for f in long - set(PENDING_LONG_FILES)}
    assert set(PENDING_LONG_FILES) <= long, f"drop from PENDING_LONG_FILES: {set(PENDING_LONG_FILES) - long}"


REPOSITORY = PACKAGE.parents[1]
#: How a module could reach a script: by name on an extended sys.path, or by file.
SCRIPT_LOADERS = ("spec_from_file_location", "run_path", "SourceFileLoader")


def _reaches_scripts(text: str) -> list[str]:
    """The lines of ``text`` that import from ``lab/`` (or the old ``tools/``) or load a
    Python file by path."""
    return [line.strip() for line in text.splitlines()
            if re.search(r"""["'/](lab|tools)["'/]|\b(lab|tools)\s*/""", line)
            and re.search(r"sys\.path|import|" + "|".join(SCRIPT_LOADERS), line)
            or any(loader in line for loader in SCRIPT_LOADERS)]


def test_neither_the_package_nor_the_tests_import_scripts():
    """Research scripts live in lab/: the package and the tests never import them, by name
    or by path (a test that needs a script's logic needs it moved into the package)."""
    this = Path(__file__).resolve()
    offenders = {}
    for root in (PACKAGE, REPOSITORY / "tests"):
        for path in root.rglob("*.py"):
            if path.resolve() == this:
                continue
            found = _reaches_scripts(path.read_text())
            if found:
                offenders[str(path.relative_to(REPOSITORY))] = found
    assert not offenders, offenders
    assert not (REPOSITORY / "tools").exists(), "scripts belong in lab/"
    assert not (REPOSITORY / "lab" / "__init__.py").exists(), "lab/ is no package"


def test_the_script_check_sees_what_it_looks_for():
    assert _reaches_scripts('spec = importlib.util.spec_from_file_location(name, TOOLS / "x.py")')
    assert _reaches_scripts('sys.path.insert(0, str(ROOT / "lab"))')
    assert _reaches_scripts('runpy.run_path("lab/strength_curve.py")')
    assert not _reaches_scripts('from bgengine.labelling import store')
    assert not _reaches_scripts('"""The lab/ scripts are listed in lab/README.md."""')


def test_every_public_name_has_a_docstring():
    """Every module has a docstring, and so has every class and function it lists in
    ``__all__`` and defines itself."""
    import importlib
    import inspect
    import pkgutil

    import bgengine

    missing = []
    for info in pkgutil.walk_packages(bgengine.__path__, "bgengine."):
        name = info.name
        if any(part.startswith("_") for part in name.split(".")[1:]) or \
                name.startswith("bgengine.data") or name in PROGRAMS:
            continue
        module = importlib.import_module(name)
        if not (module.__doc__ or "").strip():
            missing.append(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr, None)
            if (inspect.isclass(obj) or inspect.isroutine(obj)) and \
                    getattr(obj, "__module__", None) == name and not (obj.__doc__ or "").strip():
                missing.append(f"{name}.{attr}")
    assert not missing, missing
