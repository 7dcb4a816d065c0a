"""README.md's Python example runs as written, and prints what the README
shows."""

import contextlib
import io
import os
import re

from conftest import ROOT


def readme_block(language: str, after: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(after):]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs_and_prints_its_output():
    code = readme_block("python", "## Python")
    shown = readme_block("", "Its output:")
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert out.getvalue() == shown
