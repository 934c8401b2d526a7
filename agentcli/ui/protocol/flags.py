"""The flags SDK hosts pass (the Agent SDK's subprocess transport), and notes for those agentcli only accepts.

Every flag a host may send must parse: an unknown flag would end the run before the first message. Where
agentcli has no matching capability the flag is accepted and a note says so under ``--verbose`` or ``--debug``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def add_host_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("programs driving agentcli (stream-json input, the Agent SDK)")
    add = group.add_argument
    add(
        "--input-format",
        choices=["text", "stream-json"],
        default="text",
        help="with -p: the prompt as text (default), or NDJSON user messages and control requests on stdin "
        "(needs --output-format stream-json); many turns in one process",
    )
    add(
        "--replay-user-messages",
        action="store_true",
        help="with stream-json input: echo each user message back on stdout once it is taken",
    )
    add(
        "--permission-prompt-tool",
        metavar="NAME",
        help="stdio: ask the driving program (control request can_use_tool) about calls the rules leave open",
    )
    add(
        "--json-schema",
        metavar="SCHEMA",
        help="JSON Schema the final answer must match; the result carries it as structured_output",
    )
    add("--system-prompt-file", metavar="FILE", help="replace the default system prompt with this file's text")
    add(
        "--tools",
        metavar="LIST",
        help='the built-in tools to offer: "default" for all, "" for none, or names like "Read,Grep"',
    )
    add(
        "--max-thinking-tokens",
        type=whole_number(0),
        metavar="N",
        help="extended thinking with a budget of N tokens (0 turns it off); also $MAX_THINKING_TOKENS",
    )
    add(
        "--thinking",
        choices=["enabled", "adaptive", "disabled"],
        help="extended thinking: enabled (with --max-thinking-tokens or a default budget), adaptive, or disabled",
    )
    add(
        "--include-hook-events",
        action="store_true",
        help="with stream-json: print hook_started and hook_response messages for every hook run",
    )
    add("--debug", nargs="?", const="all", metavar="FILTER", help="show notes and diagnostics on stderr")
    add("--debug-to-stderr", action="store_true", help=argparse.SUPPRESS)
    # Accepted so that hosts can start agentcli; see :func:`accepted_only_notes` for what each one does here.
    add("--add-dir", action="append", default=[], metavar="DIR", help="accepted; extra folders are not supported yet")
    add("--betas", action="append", default=[], metavar="LIST", help="accepted; beta headers are not sent yet")
    add("--effort", choices=EFFORT_LEVELS, help="accepted; effort is not sent yet")
    add("--thinking-display", metavar="MODE", help=argparse.SUPPRESS)
    add("--setting-sources", metavar="LIST", help="accepted; every settings layer is read")
    add("--resume-session-at", metavar="MESSAGE_ID", help="accepted; the whole session is resumed")
    add("--resume-drops-turn", metavar="MESSAGE_ID", help=argparse.SUPPRESS)
    add("--task-budget", type=whole_number(0), metavar="TOKENS", help=argparse.SUPPRESS)
    add("--session-mirror", action="store_true", help=argparse.SUPPRESS)


def accepted_only_notes(args: argparse.Namespace) -> list[str]:
    """One line per flag given that agentcli accepts without acting on it (shown with --verbose or --debug)."""
    unsupported = {
        "add_dir": "--add-dir: extra working folders are not supported yet; tools stay in the project folder",
        "betas": "--betas: beta headers are not sent",
        "effort": "--effort: reasoning effort is not sent to the model",
        "thinking_display": "--thinking-display is ignored",
        "setting_sources": "--setting-sources: every settings layer is read",
        "resume_session_at": "--resume-session-at: the whole session is resumed",
        "resume_drops_turn": "--resume-drops-turn is ignored",
        "task_budget": "--task-budget: no task budget is kept",
        "session_mirror": "--session-mirror: transcripts are written to disk only",
    }
    notes = [note for key, note in unsupported.items() if getattr(args, key, None) not in (None, False, [])]
    if getattr(args, "include_hook_events", False) and getattr(args, "input_format", "text") != "stream-json":
        notes.append("--include-hook-events: hook events are printed with --input-format stream-json only")
    tool = getattr(args, "permission_prompt_tool", None)
    if tool not in (None, "stdio"):
        notes.append(f"--permission-prompt-tool {tool}: only stdio is supported; calls needing approval are denied")
    if getattr(args, "permission_mode", None) == "auto":
        notes.append("--permission-mode auto: there is no approval classifier; calls are decided as in default mode")
    return notes
