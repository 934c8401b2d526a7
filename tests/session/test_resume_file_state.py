"""What the model has read survives ``--continue`` and compaction, through the real CLI: the first Edit of a resumed
session goes ahead on a file read before, and gives the stale-file error if the file changed on disk since."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agentcli.config.paths import sessions_dir
from agentcli.tools.filestate import CHANGED, NOT_READ
from tests.context.sessions import answer_turn, own, summary_turn

APP = "def add(a, b):\n    return a + b\n"
EDITS = ("-p", "--permission-mode", "acceptEdits", "--output-format", "json")


def _tool(tool_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return own({"content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]})


def _edit(path: Path, tool_id: str = "toolu_edit") -> dict[str, Any]:
    return _tool(tool_id, "Edit", {"file_path": str(path), "old_string": "a + b", "new_string": "a - b"})


def _run(run_cli, server, *args: str) -> dict[str, Any]:
    proc = run_cli(*EDITS, *args, server=server)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return json.loads(proc.stdout)


def _result_of(server, tool_id: str) -> dict[str, Any]:
    """The tool_result the CLI sent for ``tool_id`` (in the request after the call)."""
    for request in server.requests:
        for message in request.body["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if block.get("type") == "tool_result" and block["tool_use_id"] == tool_id:
                    return block
    raise AssertionError(f"no result for {tool_id}")


def _text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def _read_then(project: Path, *later: dict[str, Any]) -> dict[str, Any]:
    """Session 1 reads src/app.py and answers at length (long enough for a compaction to shrink)."""
    app = project / "src" / "app.py"
    answer = answer_turn("Read it. " + "The function adds its two arguments and returns the sum. " * 100)
    turns = [_tool("toolu_read", "Read", {"file_path": str(app)}), answer, *later]
    return {"turns": turns}


def test_the_first_edit_after_continue_uses_what_the_first_session_read(run_cli, fake_api, project: Path):
    app = project / "src" / "app.py"
    server = fake_api(_read_then(project, _edit(app), answer_turn("Edited.")))
    _run(run_cli, server, "read src/app.py")
    assert _run(run_cli, server, "--continue", "now make it subtract")["result"] == "Edited."
    result = _result_of(server, "toolu_edit")
    assert not result.get("is_error"), _text(result)
    assert app.read_text() == "def add(a, b):\n    return a - b\n"


def test_a_file_changed_between_the_sessions_gives_the_stale_error(run_cli, fake_api, project: Path):
    app = project / "src" / "app.py"
    server = fake_api(_read_then(project, _edit(app), answer_turn("It changed.")))
    _run(run_cli, server, "read src/app.py")
    changed = "def add(a, b):\n    return a + b  # the user's own change\n"
    app.write_text(changed)
    info = app.stat()
    os.utime(app, ns=(info.st_atime_ns, info.st_mtime_ns + 2_000_000_000))  # later than the read, however coarse
    _run(run_cli, server, "--continue", "now make it subtract")
    result = _result_of(server, "toolu_edit")
    assert result.get("is_error") and _text(result) == f"<tool_use_error>{CHANGED}</tool_use_error>"
    assert app.read_text() == changed, "nothing was edited behind the model's back"


def test_reads_before_a_compaction_count_after_continue(run_cli, fake_api, project: Path):
    """Session 2 compacts (the boundary lists the files read so far); session 3's first call is an Edit of the
    file session 1 read, and of one never read (refused as before)."""
    app, readme = project / "src" / "app.py", project / "README.md"
    never_read = _tool("toolu_never", "Edit", {"file_path": str(readme), "old_string": "Demo", "new_string": "X"})
    later = [summary_turn("SUMMARY: the user works on src/app.py."), _edit(app), never_read, answer_turn("Done.")]
    server = fake_api(_read_then(project, *later))
    _run(run_cli, server, "read src/app.py")
    assert _run(run_cli, server, "--continue", "/compact")["result"].startswith("Compacted the conversation")
    [transcript] = sessions_dir(project).glob("*.jsonl")
    lines = transcript.read_text(encoding="utf-8").splitlines()
    boundary = next(json.loads(line) for line in lines if '"compact_boundary"' in line)
    assert [item["path"] for item in boundary["readFiles"]] == [str(app)]
    _run(run_cli, server, "--continue", "make it subtract, and rename the demo")
    assert not _result_of(server, "toolu_edit").get("is_error")
    assert app.read_text() == "def add(a, b):\n    return a - b\n"
    refused = _result_of(server, "toolu_never")
    assert refused.get("is_error") and _text(refused) == f"<tool_use_error>{NOT_READ}</tool_use_error>"
