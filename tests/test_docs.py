"""The documentation cannot go stale: its examples run, its commands parse, its links resolve.

- Every ```python block of README.md and docs/**/*.md runs (in a scratch folder where
  ``tests/`` and ``configs/`` of the source tree are visible), unless the line before it is
  ``<!-- no-run -->`` (kept for blocks that need something a test machine lacks).
- Every ``bgengine ...`` command of a ```sh or ```console block of README.md and
  docs/guide/*.md parses with bgengine's own argument parser, so no documented command uses
  an option or a sub-command that does not exist.
- A ```console block preceded by ``<!-- checked -->`` shows real output: each ``$ bgengine
  ...`` line is run and what it prints must equal the lines shown below it (a line ``...``
  stands for any number of lines).
- README.md stays a user's guide: at most 250 lines, its first runnable command and both
  set-up commands within its first 30 lines, no development history ("session N"); no page
  of docs/ speaks of sessions either; every relative link and image resolves.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

pytestmark = pytest.mark.skipif(not (README.exists() and DOCS.is_dir()),
                                reason="needs the source tree's README and docs")

DOC_FILES = [README, *sorted(DOCS.rglob("*.md"))] if DOCS.is_dir() else []
GUIDE_FILES = [README, *sorted((DOCS / "guide").glob("*.md"))] if DOCS.is_dir() else []
SHELL_LANGS = {"sh", "shell", "bash", "console"}
SETUP_COMMANDS = ("pip install . && bgengine match net pubeval --games 20000",
                  "pip install '.[test,distributed]' && pytest")
SESSION = re.compile(r"\bsessions?[\s-]*\d", re.IGNORECASE)


@dataclass
class Block:
    path: Path
    line: int            # 1-based line of the opening fence
    lang: str
    text: str
    marker: str          # the HTML comment on the line before the fence, if any

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _blocks(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        prev = next((ln.strip() for ln in reversed(lines[:start]) if ln.strip()), "")
        marker = prev if prev.startswith("<!--") else ""
        out.append(Block(path, start + 1, lang, "\n".join(lines[start + 1:j]) + "\n", marker))
        i = j + 1
    return out


ALL_BLOCKS = [b for p in DOC_FILES for b in _blocks(p)]
PYTHON_BLOCKS = [b for b in ALL_BLOCKS if b.lang == "python"]
CHECKED_BLOCKS = [b for b in ALL_BLOCKS if b.marker == "<!-- checked -->"]


def _commands(block: Block) -> list[list[str]]:
    """The ``bgengine`` command lines of a shell block, as argument lists."""
    text = re.sub(r"\\\n", " ", block.text)              # continuation lines
    out = []
    for line in text.splitlines():
        line = line.strip()
        if block.lang == "console":
            if not line.startswith("$ "):
                continue                                   # shown output
            line = line[2:]
        words = shlex.split(line, comments=True)
        segment: list[str] = []
        redirect = False
        for word in [*words, "&&"]:
            if redirect:                                   # the file of a redirection
                redirect = False
            elif re.fullmatch(r"\d?(>>?|<)", word):
                redirect = True
            elif word in ("&&", "||", "|", ";"):
                if segment and segment[0] == "bgengine":
                    out.append(segment[1:])
                segment = []
            else:
                segment.append(word)
    return out


DOC_COMMANDS = [(f"{b.name}: bgengine {shlex.join(argv)}", argv)
                for p in GUIDE_FILES for b in _blocks(p) if b.lang in SHELL_LANGS
                for argv in _commands(b)]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A scratch folder that sees the source tree's ``tests/`` and ``configs/``."""
    for name in ("tests", "configs"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return tmp_path


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[b.name for b in PYTHON_BLOCKS])
def test_python_blocks_run(block, scratch):
    if block.marker == "<!-- no-run -->":
        pytest.skip("marked no-run")
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(block.text, block.name, "exec"), {"__name__": "__doc_example__"})


def test_there_are_examples_to_check():
    assert len(PYTHON_BLOCKS) >= 10 and len(DOC_COMMANDS) >= 40 and CHECKED_BLOCKS
    assert sum(b.marker == "<!-- no-run -->" for b in PYTHON_BLOCKS) <= 2


@pytest.mark.parametrize("argv", [a for _, a in DOC_COMMANDS], ids=[n for n, _ in DOC_COMMANDS])
def test_documented_commands_parse(argv):
    from bgengine.cli import build_parser

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            build_parser().parse_args(argv)
    except SystemExit as e:
        pytest.fail(f"bgengine {shlex.join(argv)}: exit {e.code}: {err.getvalue().strip()}")


def _matches(expected: list[str], got: list[str]) -> bool:
    if not expected:
        return not got
    if expected[0] == "...":
        return any(_matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0].rstrip() == expected[0].rstrip() and _matches(expected[1:],
                                                                               got[1:])


@pytest.mark.parametrize("block", CHECKED_BLOCKS, ids=[b.name for b in CHECKED_BLOCKS])
def test_shown_output_is_what_the_command_prints(block, scratch):
    from bgengine.cli import main

    assert block.lang == "console"
    runs: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            runs.append((line[2:], []))
        else:
            assert runs, f"{block.name}: output before any command"
            runs[-1][1].append(line)
    assert runs
    for command, expected in runs:
        words = shlex.split(command, comments=True)
        assert words[0] == "bgengine", command
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main(words[1:])
        assert status in (0, None), f"{command}: exit status {status}"
        got = out.getvalue().splitlines()
        assert _matches(expected, got), (
            f"{block.name}: {command} printed:\n" + "\n".join(got))


def test_readme_is_a_users_guide():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines"
    assert not SESSION.search(README.read_text())
    first = next(b for b in _blocks(README) if b.lang in SHELL_LANGS | {"python"})
    assert first.line + 1 <= 30, f"the first runnable command is on line {first.line + 1}"
    head = lines[:30]
    for command in SETUP_COMMANDS:
        assert command in head, f"{command!r} is not within the README's first 30 lines"


@pytest.mark.parametrize("path", sorted(DOCS.rglob("*")) if DOCS.is_dir() else [],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_speak_of_what_is_true_now(path):
    if not path.is_file() or path.suffix in (".png", ".jpg", ".svg", ".gz"):
        return
    match = SESSION.search(path.read_text())
    assert match is None, f"{path.relative_to(ROOT)}: {match.group(0)!r}"


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)    # not inside code
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = (path.parent / target.split("#", 1)[0]).resolve()
        assert file.exists(), f"{path.relative_to(ROOT)}: link to missing {target}"


REPO_PATH = re.compile(r"`((?:tests|tools|bench|configs|src|python|training|docs)/[\w./-]+)`")


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_source_files_exist(path):
    """Every file of the repository a page names in backticks exists (globs and placeholders
    such as ``training/NAME/`` aside), so the docs follow files that move."""
    missing = []
    for name in REPO_PATH.findall(path.read_text()):
        name = name.rstrip(".")
        placeholder = "*" in name or any(re.fullmatch(r"[A-Z][A-Z_0-9]+", Path(part).stem)
                                         and Path(part).stem != "README"
                                         for part in name.split("/"))
        if not placeholder and not (ROOT / name).exists():
            missing.append(name)
    assert not missing, f"{path.relative_to(ROOT)} names missing files: {missing}"
