"""Control requests from the driving program, mapped onto the engine: each returns the ``response`` body of a
successful ``control_response`` or raises with the error text."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agentcli.bootstrap import session_model
from agentcli.config.modes import PERMISSION_MODES
from agentcli.ui.protocol import commands
from agentcli.ui.protocol.host import host_hooks

if TYPE_CHECKING:
    from agentcli.ui.protocol.session import ProtocolFace


class UnsupportedRequest(Exception):
    pass


async def handle_control(face: ProtocolFace, subtype: str, request: dict[str, Any]) -> dict[str, Any] | None:
    if subtype == "initialize":
        return initialize(face, request)
    if subtype == "interrupt":
        face.interrupt()
        return None
    if subtype == "set_permission_mode":
        mode = request.get("mode")
        if mode not in PERMISSION_MODES:
            raise ValueError(f"unknown permission mode {mode!r}; expected one of {', '.join(PERMISSION_MODES)}")
        face.options.permission_mode = mode
        face.engine().set_permission_mode(mode)
        return None
    if subtype == "set_model":
        model = request.get("model")
        face.options.model = model if isinstance(model, str) and model and model != "default" else None
        engine = face.engine()
        engine.set_model(session_model(face.options, face.options.settings))
        return None
    if subtype == "get_context_usage":
        return context_usage(face)
    if subtype == "rewind_files":
        from agentcli.ui.rewind import rewind_files_request

        return rewind_files_request(face.engine(), request.get("user_message_id"), bool(request.get("dry_run")))
    if subtype == "mcp_status":
        from agentcli.mcp.report import status_details

        return {"mcpServers": status_details(face.engine().config.extensions.get("mcp"))}
    if subtype in ("mcp_reconnect", "mcp_toggle"):
        return await _mcp_switch(face, subtype, request)
    raise UnsupportedRequest(f"agentcli does not support the control request {subtype!r}")


async def _mcp_switch(face: ProtocolFace, subtype: str, request: dict[str, Any]) -> None:
    """``mcp_reconnect`` (a failed or dropped server) and ``mcp_toggle`` (``enabled`` false disconnects it and takes
    its tools away; true connects it again)."""
    manager = face.engine().config.extensions.get("mcp")
    name = request.get("serverName")
    if manager is None or not isinstance(name, str) or manager.get(name) is None:
        raise ValueError(f"no MCP server named {name!r}")
    if subtype == "mcp_toggle" and not request.get("enabled"):
        await manager.disable(name)
    else:
        await manager.reconnect(name)


def initialize(face: ProtocolFace, request: dict[str, Any]) -> dict[str, Any]:
    hooks, notes = host_hooks(request.get("hooks"), face.channel)
    applied = not face.engine_started
    if applied:
        face.options.host_hooks = hooks
    elif hooks:
        notes.append("hooks sent after the first turn started were not registered")
    if request.get("agents"):
        if applied:
            face.options.agents = dict(request["agents"])
        else:
            notes.append("agent definitions sent after the first turn started were not registered")
    if face.verbose:
        for note in notes:
            face.note(note)
    return {
        "commands": commands.descriptions(face),
        "agents": [],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": _models(face),
        "account": {},
        "pid": os.getpid(),
        "hooks_applied": applied,
    }


def _models(face: ProtocolFace) -> list[dict[str, str]]:
    current = session_model(face.options, face.options.settings) if face.options.settings else None
    models = [{"value": "default", "displayName": "Default", "description": current or "the configured model"}]
    return models


def context_usage(face: ProtocolFace) -> dict[str, Any]:
    """How full the context window is, by part: exact up to the last response, estimated after it."""
    from agentcli.context.usage import context_usage as usage_of

    usage = usage_of(face.engine())
    categories = [
        {"name": "System prompt", "tokens": usage.system, "color": "promptBorder"},
        {"name": "System tools", "tokens": usage.tools, "color": "inactive"},
        {"name": "Memory files", "tokens": usage.memory, "color": "claude"},
        {"name": "Messages", "tokens": usage.messages, "color": "purple"},
        {"name": "Free space", "tokens": usage.free, "color": "promptBorder"},
    ]
    return {
        "categories": [c for c in categories if c["tokens"] or c["name"] != "Memory files"],
        "totalTokens": usage.total,
        "maxTokens": usage.window,
        "rawMaxTokens": usage.window,
        "percentage": round(usage.percent, 2),
        "model": usage.model,
        "isAutoCompactEnabled": usage.auto_compact_enabled,
        "autoCompactThreshold": usage.auto_compact,
        "memoryFiles": [],
        "mcpTools": [],
        "agents": [],
    }
