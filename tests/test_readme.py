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


@pytest.mark.skipif(not README.exists() or not (ROOT / "python").exists(),
                    reason="needs the source tree (README and the shipped network's path)")
def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "no python block in the README"
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)               # the example loads python/bgengine/data/default.npz
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(blocks[0], "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    text = out.getvalue()
    assert "ppg" in text and "4HPwATDgc/ABMA" in text


@pytest.mark.skipif(not README.exists(), reason="needs the source tree")
def test_readme_other_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)[1:]
    assert blocks, "only one python block in the README"
    for i, block in enumerate(blocks, 1):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, f"README.md python block {i + 1}", "exec"), {})
