"""What the symlink-safe file tools cost: replacing a file by path (how agentcli writes its own files) against
replacing it through its folder walked from ``/`` without following symlinks (how Write, Edit and /rewind write), and
whole Write and Edit calls, on a file some folders deep in a temporary project.

Runs alternate between the variants so that a busy machine slows them alike; figures are medians. Each write syncs
the file and its folder to disk, so the disk's sync time dominates and varies; the walk itself (one ``openat`` and
one ``close`` per folder on the way) is timed on its own as well.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import isolate_home, median, record, table

from agentcli.files.anchored import AnchoredFile
from agentcli.files.atomic import atomic_write
from agentcli.files.nofollow import open_folder
from agentcli.tools.base import ToolCall, ToolEnv, parse_input
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool

TEXT = "".join(f"line {n}\n" for n in range(200))


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _anchored_write(path: Path, data: bytes) -> None:
    with AnchoredFile(path) as file:
        file.replace(data)


def _tool(env: ToolEnv, tool: object, tool_input: dict[str, object]) -> None:
    parsed = parse_input(tool, tool_input)  # type: ignore[arg-type]
    assert not isinstance(parsed, str), parsed
    output = asyncio.run(tool.call(parsed, ToolCall(env, "toolu_bench")))  # type: ignore[attr-defined]
    assert not output.is_error, output.content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    isolate_home()
    project = Path(tempfile.mkdtemp(prefix="agentcli-bench-files-")).resolve()
    target = project / "src" / "pkg" / "module" / "code.py"
    target.parent.mkdir(parents=True)
    target.write_text(TEXT)
    env = ToolEnv(project_dir=project)
    _tool(env, ReadTool(), {"file_path": str(target)})
    by_path, anchored, writes, edits = [], [], [], []
    data = TEXT.encode()
    for n in range(args.runs):
        by_path.append(_timed(lambda: atomic_write(target, data)))
        anchored.append(_timed(lambda: _anchored_write(target, data)))
        writes.append(_timed(lambda: _tool(env, WriteTool(), {"file_path": str(target), "content": TEXT})))
        edit = {"file_path": str(target), "old_string": f"line {n % 200}\n", "new_string": f"line {n % 200}\n#\n"}
        edits.append(_timed(lambda edit=edit: _tool(env, EditTool(), edit)))
        _tool(env, WriteTool(), {"file_path": str(target), "content": TEXT})
    depth = len(target.parent.parts) - 1
    walks = [_timed(lambda: os.close(open_folder(target.parent))) for _ in range(args.runs * 10)]
    opens = [
        _timed(lambda: os.close(os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY))) for _ in range(args.runs * 10)
    ]
    walk_us = (median(walks) - median(opens)) * 1e6
    baseline = median(by_path)
    print(f"{args.runs} runs each, a {len(data)}-byte file {depth} folders below /")
    print(
        table(
            [
                ("replace by path", baseline, "agentcli's own files: the folder opened by path"),
                ("replace, folder walked", median(anchored), f"no symlink followed: {depth} extra openat"),
                ("Write call", median(writes), "staleness check, read, encode, replace"),
                ("Edit call", median(edits), "read, replace the string, write"),
            ],
            baseline,
        )
    )
    print(
        f"the walk alone: {median(walks) * 1e6:.0f} µs, against {median(opens) * 1e6:.0f} µs to open the folder by path"
    )
    record("folder walk, extra per write", walk_us, "µs", note=f"{depth} folders deep")


if __name__ == "__main__":
    main()
