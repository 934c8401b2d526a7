"""``agentcli hooks run EVENT [--input JSON]`` and ``agentcli hooks list``: debug hooks without a model."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from agentcli.config.settings import load_settings
from agentcli.config.trust import is_trusted
from agentcli.hooks.config import EVENTS, configured_hooks
from agentcli.hooks.runner import HookRunner

MATCH_FIELD = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "SessionStart": "source",
    "SessionEnd": "reason",
    "PreCompact": "trigger",
    "Notification": "message",
}


def hooks_command(argv: list[str]) -> int:  # noqa: C901
    parser = argparse.ArgumentParser(prog="agentcli hooks", description="Inspect and try the configured hooks.")
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run the hooks configured for EVENT once and show what each returned")
    run.add_argument("event", choices=EVENTS, metavar="EVENT", help=f"one of: {', '.join(EVENTS)}")
    run.add_argument("--input", default="{}", metavar="JSON", help="the event's fields, as the hook reads them")
    run.add_argument("--settings", metavar="FILE_OR_JSON", help="extra settings, as for agentcli itself")
    listing = sub.add_parser("list", help="list the configured hooks by event, with the file each comes from")
    listing.add_argument("--settings", metavar="FILE_OR_JSON")
    args = parser.parse_args(argv)

    cwd = Path.cwd()
    settings = load_settings(cwd, args.settings, trusted=True)  # an explicit debugging command runs project hooks too
    for error in settings.errors:
        print(f"settings: {error}", file=sys.stderr)
    hooks = configured_hooks(settings.layers)
    if not is_trusted(cwd) and any(layer.project_scope for layer in settings.layers):
        print("note: this folder is not trusted; agentcli itself skips its project hooks", file=sys.stderr)
    if args.action == "list":
        for event in dict.fromkeys(hook.event for hook in hooks):
            print(event)
            for hook in (h for h in hooks if h.event == event):
                print(f"  [{hook.matcher or '*'}] {hook.label}  (timeout {hook.timeout_s:g} s, {hook.source})")
                if hook.note:
                    print(f"    note: {hook.note}")
        if not hooks:
            print("No hooks configured.")
        return 0
    try:
        fields = json.loads(args.input)
    except ValueError as exc:
        parser.error(f"--input is not valid JSON: {exc}")
    if not isinstance(fields, dict):
        parser.error("--input must be a JSON object")
    runner = HookRunner(hooks, project_dir=cwd, session_id="hooks-run", env=settings.merged.env)
    for hook in hooks:
        if hook.event == args.event and hook.note:
            print(f"note: {hook.label}: {hook.note}", file=sys.stderr)
    match_value = fields.get(MATCH_FIELD.get(args.event, ""))
    outcome = asyncio.run(runner.run(args.event, fields, match_value=match_value))
    if not outcome.results:
        print(f"No hooks matched {args.event}.")
        return 0
    for result in outcome.results:
        print(f"● {result.hook.label}  ({result.hook.source})")
        status = "timed out" if result.timed_out else f"exit {result.exit_code}"
        print(f"  {status} in {result.duration_s * 1000:.0f} ms")
        if result.stdout.strip():
            print("  stdout: " + result.stdout.strip().replace("\n", "\n          "))
        if result.stderr.strip():
            print("  stderr: " + result.stderr.strip().replace("\n", "\n          "))
        if result.output is not None:
            print("  parsed: " + json.dumps(result.output, ensure_ascii=False))
        if result.blocking_message is not None:
            print(f"  BLOCKS: {result.blocking_message}")
        if result.error:
            print(f"  ERROR: {result.error}")
    if outcome.prevent_continuation:
        print(f"continue: false — {outcome.stop_reason}")
    return 1 if outcome.errors else 0
