"""A permission question left open when the driving program went away, kept with the session and asked once more
when the session resumes.

While a ``can_use_tool`` request waits, the question sits in a private file beside the transcript. An answer, or an
interrupt, removes it. If stdin closes first, the call is answered as interrupted, the turn stops, and the file
stays: the next start with ``--resume`` asks the same question (once), runs the call if it is allowed now, and
tells the model what became of it with the next prompt.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from agentcli.config.inputs import InputFileError, load_json
from agentcli.files.atomic import atomic_write_text
from agentcli.tools.base import ToolCall, ToolFailure, parse_input
from agentcli.tools.permissions import PermissionRequest

SUFFIX = ".pending-permission.json"


def question_path(session: Any) -> Path | None:
    """Where the open question of ``session`` (an opened session, or None) is kept."""
    store_path = getattr(getattr(session, "store", None), "path", None)
    return Path(store_path).with_suffix(SUFFIX) if store_path else None


def save_question(path: Path | None, request: PermissionRequest) -> None:
    if path is None:
        return
    record = {
        "tool_name": request.tool_name,
        "tool_input": request.tool_input,
        "tool_use_id": request.tool_use_id,
        "reason": request.reason,
    }
    with contextlib.suppress(OSError):
        atomic_write_text(path, json.dumps(record, ensure_ascii=False), private=True)


def drop_question(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def take_question(path: Path | None) -> dict[str, Any] | None:
    """The question left open, removed from disk so that it is asked only once (None when there is none)."""
    if path is None or not path.exists():
        return None
    try:
        record = load_json(path)
    except InputFileError:  # damaged: dropped below, never a crash
        record = None
    drop_question(path)
    if not isinstance(record, dict) or not isinstance(record.get("tool_input"), dict):
        return None
    return record


async def answer_orphan(engine: Any, record: dict[str, Any]) -> tuple[str, str]:
    """Decide the orphaned call as any call is decided (hooks, rules, then the driving program) and run it if
    allowed; returns the decision (``allow`` or ``deny``) and a note for the model."""
    name, tool_use_id = str(record.get("tool_name")), str(record.get("tool_use_id"))
    config = engine.config
    tool = config.registry.get(name)
    what = f"The {name} call {tool_use_id}, which was waiting for approval when the previous run stopped,"
    if tool is None:
        return "deny", f"{what} was not run: the tool is not available in this session."
    call = ToolCall(config.tool_env, tool_use_id)
    decision = await config.can_use_tool(tool, record["tool_input"], call)
    if decision.behavior != "allow":
        return "deny", f"{what} was denied now: {decision.message}"
    call.checked_path = decision.checked_path  # the tool changes the file the check judged, not a later link
    parsed = parse_input(tool, decision.updated_input or record["tool_input"])
    if isinstance(parsed, str):
        return "deny", f"{what} was not run: {parsed}"
    try:
        output = await tool.call(parsed, call)
    except ToolFailure as exc:
        return "allow", f"{what} was approved now and ran, but failed: {exc}"
    content = output.content if isinstance(output.content, str) else json.dumps(output.content, ensure_ascii=False)
    outcome = "failed" if output.is_error else "succeeded"
    return "allow", f"{what} was approved now and has run ({outcome}). Its result:\n{content}"
