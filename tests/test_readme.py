"""The README's Python example runs as printed."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


@pytest.mark.skipif(not README.exists(), reason="needs the source tree's README")
def test_readme_python_example_runs_from_any_directory(tmp_path):
    """The Python quick start, run from an empty temporary directory: it starts from
    ``import bgengine`` and finds the shipped network through the package."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "no python block in the README"
    assert blocks[0].startswith("import bgengine\n")
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(blocks[0], "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    text = out.getvalue()
    assert "ppg" in text and "4HPwATDgc/ABMA" in text
    lines = text.splitlines()
    assert lines[-2] == "8/5 6/5" and lines[-3].endswith("dtype=float32))")  # the Move; (i, out)
    assert list(tmp_path.iterdir()) == []                            # it wrote nothing there


@pytest.mark.skipif(not README.exists(), reason="needs the source tree")
def test_readme_python_quick_start_is_short_and_every_block_runs():
    """The quick start stays about ten lines; any other python block of the README runs too
    (tests/test_docs.py runs those of docs/ as well)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    code = [ln for ln in blocks[0].splitlines() if ln.strip()]
    assert len(code) <= 15, f"the quick start has {len(code)} lines of code"
    for i, block in enumerate(blocks[1:], 1):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, f"README.md python block {i + 1}", "exec"), {})
