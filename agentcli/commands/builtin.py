"""The built-in slash commands, the same in every face."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentcli.commands.face import CommandFace
from agentcli.commands.registry import Command, CommandRegistry
from agentcli.commands.reports import context_report, cost_report, hooks_report, permissions_report, status_report

INIT_PROMPT = """Please look at this project and write an AGENTS.md file in its root folder for future sessions of a \
coding agent. Include: the commands to build, lint and run the tests (and a single test); the architecture in a few \
lines (the big picture that needs several files to understand); the conventions a newcomer would get wrong. Keep it \
short, and don't list things that are easy to discover. If AGENTS.md (or CLAUDE.md, .cursorrules, \
.github/copilot-instructions.md, a README) already exists, improve on it rather than starting over."""
INTERACTIVE = ("tui", "plain")


def _engine(face: CommandFace) -> Any:
    engine = face.engine
    if engine is None:
        face.notice("The session is still starting; try again in a moment.", "info")
    return engine


async def _help(face: CommandFace, argument: str) -> None:
    from agentcli.commands import session_registry

    registry = session_registry(face.engine)
    keys = face.keys_help()
    commands = "\n".join(registry.help_lines(face.face_name))
    face.notice("Keys and commands", "info", detail=f"{keys}\n\n{commands}" if keys else commands)


async def _clear(face: CommandFace, argument: str) -> None:
    await face.new_session()


async def _compact(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is None:
        return
    face.notice("Summarising the conversation…", "info")
    messages = await engine.compact(argument or None)
    for message in messages:
        face.show_message(message)
    boundary = next((m for m in messages if m.get("subtype") == "compact_boundary"), None)
    if boundary is None:
        warning = next((m["message"] for m in messages if m.get("subtype") == "warning"), "Compaction failed.")
        face.notice(warning, "error")
        return
    metadata = boundary["compact_metadata"]
    face.notice(
        f"The conversation was summarised ({metadata['pre_tokens']:,} → {metadata['post_tokens']:,} tokens); "
        "the summary starts the context from here.",
        "success",
    )


async def _context(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is not None:
        title, detail = context_report(engine)
        face.notice(title, "info", detail=detail)


async def _cost(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is not None:
        face.notice(cost_report(engine), "info")


async def _model(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is None:
        return
    if not argument:
        face.notice(f"Model: {engine.config.model}. Switch with /model NAME.", "info")
        return
    setter = getattr(engine, "set_model", None)
    if setter is not None:
        setter(argument)
    else:
        engine.config.model = argument
    face.notice(f"Model set to {argument} for the rest of this session.", "success")


async def _resume(face: CommandFace, argument: str) -> None:
    await face.pick_session()


async def _status(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is not None:
        title, detail = status_report(engine, face.options, face.cwd)
        face.notice(title, "info", detail=detail)


async def _permissions(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is not None:
        title, detail = permissions_report(engine)
        face.notice(title, "info", detail=detail)


async def _mcp(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is not None:
        from agentcli.mcp.report import servers_report

        title, detail = servers_report(engine.config.extensions.get("mcp"))
        face.notice(title, "info", detail=detail)


async def _bashes(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is not None:
        from agentcli.tools.background import shells_report

        title, detail = shells_report(engine.config.extensions.get("shells"))
        face.notice(title, "info", detail=detail)


async def _hooks(face: CommandFace, argument: str) -> None:
    options = face.options
    settings = getattr(options, "settings", None)
    if settings is None:
        face.notice("The settings are still loading; try again in a moment.", "info")
        return
    title, detail = hooks_report(settings, face.cwd)
    face.notice(title, "info", detail=detail)


def memory_path(cwd: Path) -> Path:
    """The project's memory file: CLAUDE.md when the project only has that one, else AGENTS.md."""
    agents, claude = cwd / "AGENTS.md", cwd / "CLAUDE.md"
    return claude if claude.is_file() and not agents.is_file() else agents


MEMORY_TEMPLATE = """# {name}

Instructions agentcli follows in this project: build and test commands, conventions, things to avoid.
Pull in other files with a line such as @docs/conventions.md.
"""


async def _memory(face: CommandFace, argument: str) -> None:
    path = memory_path(face.cwd)
    if not path.exists():
        from agentcli.files.atomic import atomic_write_text

        try:
            atomic_write_text(path, MEMORY_TEMPLATE.format(name=path.name))
        except OSError as exc:
            face.notice(f"Could not create {path}: {exc.strerror or exc}", "error")
            return
    await face.edit_file(path)
    face.notice(f"Memory file: {path}. It is read when a session starts; /clear starts one that uses it.", "info")


async def _init(face: CommandFace, argument: str) -> None:
    await face.submit(INIT_PROMPT + (f"\n\n{argument}" if argument else ""))


def export_path(cwd: Path, argument: str, session_id: str) -> Path:
    """FILE (relative to the project), or a file named after the session in the project folder."""
    if argument:
        path = Path(os.path.expanduser(argument))
        return path if path.is_absolute() else cwd / path
    return cwd / f"agentcli-conversation-{str(session_id)[:8]}.md"


def _whole_conversation(engine: Any) -> list[dict[str, Any]] | None:
    """Everything said in a compacted session, before its compactions too (from the transcript); None when the
    history in memory is already all of it."""
    from agentcli.session.load import last_boundary, load_transcript

    recorder = engine.config.recorder
    path = getattr(recorder, "path", None)
    try:
        if path is None or last_boundary(Path(path)) is None:
            return None
        return load_transcript(Path(path), whole=True).messages
    except OSError:
        return None


async def _export(face: CommandFace, argument: str) -> None:
    engine = _engine(face)
    if engine is None:
        return
    messages = _whole_conversation(engine) or list(engine.messages)
    if not messages:
        face.notice("Nothing to export yet: the conversation is empty.", "info")
        return
    from agentcli.session.export import write_export

    path = export_path(face.cwd, argument, engine.session_id)
    try:
        write_export(path, messages)
    except OSError as exc:
        face.notice(f"Could not export the conversation to {path}: {exc.strerror or exc}", "error")
        return
    count = len(messages)
    face.notice(f"Exported the conversation ({count} message{'s' if count != 1 else ''}) to {path}", "success")


async def _theme(face: CommandFace, argument: str) -> None:
    if not argument:
        face.notice(f"Theme: {face.theme}. Available: {', '.join(face.theme_names())}", "info")
        return
    error = face.set_theme(argument)
    if error:
        face.notice(error, "error")
    else:
        face.notice(f"Theme set to {argument} (saved in your settings).", "success")


async def _rewind(face: CommandFace, argument: str) -> None:
    await face.rewind(argument)


async def _transcript(face: CommandFace, argument: str) -> None:
    face.open_transcript()


async def _exit(face: CommandFace, argument: str) -> None:
    await face.leave()


BUILTIN_COMMANDS = (
    Command("help", "Show keys and commands", _help),
    Command(
        "clear",
        "Start a new, empty session (this one stays resumable)",
        _clear,
        aliases=("new", "reset"),
        faces=(*INTERACTIVE, "stream-json"),
    ),
    Command("compact", "Summarise the conversation to free context", _compact, argument_hint="[focus]"),
    Command("context", "Show how full the model's context is", _context),
    Command("cost", "Show this session's cost and token use", _cost),
    Command("model", "Show or switch the model", _model, argument_hint="[NAME]"),
    Command("resume", "Switch to an earlier session of this folder", _resume, faces=INTERACTIVE),
    Command("status", "Show version, session, model, folder and settings files", _status),
    Command("permissions", "Show the permission mode and rules", _permissions, aliases=("allowed-tools",)),
    Command("hooks", "List the configured hooks and where they come from", _hooks),
    Command("mcp", "MCP servers: status, errors, tools, prompts and resources", _mcp),
    Command("bashes", "Background shells the agent started: status and command", _bashes),
    Command("memory", "Edit the project's memory file (AGENTS.md) in $EDITOR", _memory, faces=INTERACTIVE),
    Command("init", "Write an AGENTS.md with this project's commands and conventions", _init),
    Command("export", "Save the conversation as Markdown", _export, argument_hint="[FILE]"),
    Command("theme", "Switch the colour theme", _theme, argument_hint="[NAME]", faces=("tui",)),
    Command(
        "rewind",
        "Go back to an earlier prompt: conversation, files, or both",
        _rewind,
        aliases=("checkpoint",),
        faces=INTERACTIVE,
    ),
    Command("transcript", "Open the detailed transcript (ctrl+o)", _transcript, faces=("tui",)),
    Command("exit", "Leave agentcli (ctrl+d twice)", _exit, aliases=("quit",), faces=INTERACTIVE),
)


def builtin_registry() -> CommandRegistry:
    return CommandRegistry(BUILTIN_COMMANDS)
