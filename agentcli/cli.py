"""Command line: parse arguments, pick a face. Imports nothing heavy at module level (start-up is a feature)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agentcli import __version__
from agentcli.config.child_env import SCRUB_SETTING
from agentcli.config.modes import MODE_HELP, PERMISSION_MODES
from agentcli.ui.protocol.flags import accepted_only_notes, add_host_flags, whole_number

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
_positive_int = whole_number(1)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentcli",
        description="A terminal coding agent. Give it a task; it reads, edits and runs code to get it done.",
        epilog=(
            "environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (credentials), ANTHROPIC_BASE_URL (any "
            "Anthropic-compatible endpoint), ANTHROPIC_MODEL (default model), AGENTCLI_STREAM_IDLE_TIMEOUT_MS, "
            f"{SCRUB_SETTING}=1 (commands and hooks run without agentcli's credentials).\n"
            "exit status: 0 success, 1 the run ended in error, 2 bad usage.\n"
            'examples:\n  agentcli -p "explain what src/main.py does"\n'
            '  git diff | agentcli -p "review this change" --output-format json\n'
            "  agentcli --demo -p hello        (no API key needed)\n"
            "subcommands:\n  agentcli sessions                 list this directory's sessions\n"
            "  agentcli hooks run EVENT [--input JSON]   run the configured hooks for one event and show each result"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "prompt",
        nargs="?",
        help="the first prompt of the interactive session (with -p: the prompt to run headless; "
        "read from stdin when omitted)",
    )
    parser.add_argument(
        "-p", "--print", dest="print_mode", action="store_true", help="headless: run the prompt, print the answer, exit"
    )
    parser.add_argument(
        "--output-format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="with -p: the final text (default), one JSON result, or one JSON message per line",
    )
    parser.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="with stream-json: also print raw stream events and tool progress as they happen",
    )
    parser.add_argument("--verbose", action="store_true", help="with text output: show tool calls on stderr")
    parser.add_argument("--model", help="model id (default: $ANTHROPIC_MODEL, else claude-sonnet-5-5)")
    parser.add_argument(
        "--fallback-model",
        metavar="M[,M2]",
        help="models to switch to when the main one stays overloaded (after 3 overloaded answers)",
    )
    parser.add_argument("--max-turns", type=_positive_int, metavar="N", help="stop after N model requests")
    parser.add_argument(
        "--max-budget-usd", type=_positive_float, metavar="X", help="stop once the session has cost X dollars"
    )
    parser.add_argument("--system-prompt", metavar="S", help="replace the default system prompt")
    parser.add_argument("--append-system-prompt", metavar="S", help="add S after the system prompt")
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="resume the most recent session of this directory",
    )
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        metavar="ID",
        help=(
            "resume a session by ID, a Claude Code session ID or a transcript path (without one: list this "
            "directory's sessions)"
        ),
    )
    parser.add_argument(
        "--fork-session",
        action="store_true",
        help="with --resume/--continue: go on in a new session and leave the old one as it was",
    )
    parser.add_argument("--session-id", metavar="UUID", help="the ID to give the new session")
    parser.add_argument(
        "--settings",
        metavar="FILE_OR_JSON",
        help="extra settings (a file, or inline JSON) on top of the user, project and local files",
    )
    parser.add_argument("--permission-mode", choices=PERMISSION_MODES, help=MODE_HELP)
    parser.add_argument(
        "--dangerously-skip-permissions",
        action="store_true",
        help="the same as --permission-mode bypassPermissions (deny rules still apply)",
    )
    parser.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed_tools",
        action="append",
        default=[],
        metavar="RULES",
        help='tool calls to allow without asking, e.g. "Read,Bash(git *)"',
    )
    parser.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_tools",
        action="append",
        default=[],
        metavar="RULES",
        help='tool calls to refuse, e.g. "Bash(rm *),Edit(./secrets/**)"; a bare name removes the tool',
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="run this folder's project hooks (.agentcli/settings.json) without asking",
    )
    parser.add_argument(
        "--mcp-config",
        action="append",
        default=[],
        metavar="FILE_OR_JSON",
        help='MCP servers to start: a file or inline JSON {"mcpServers": {...}} (repeatable)',
    )
    parser.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the MCP servers of --mcp-config, none from settings or .mcp.json",
    )
    parser.add_argument(
        "--plugin-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="load a Claude Code plugin folder: its hooks, commands, agents, skills and MCP servers (repeatable)",
    )
    parser.add_argument(
        "--demo", action="store_true", help="talk to a built-in scripted model instead of the API (no key needed)"
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="an inline prompt in the terminal's own scrollback instead of the full-screen interface",
    )
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="colour theme of the full-screen interface (dark, light, high-contrast, or your own)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    add_host_flags(parser)
    return parser


def _read_prompt(args: argparse.Namespace) -> str | None:
    if args.prompt:
        return str(args.prompt)
    if not sys.stdin.isatty():
        text = sys.stdin.read()
        return text if text.strip() else None
    return None


def main(argv: list[str] | None = None) -> int:  # noqa: C901
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["sessions"]:
        return _sessions_command(argv[1:])
    if argv[:1] == ["hooks"]:
        from agentcli.ui.hooks_command import hooks_command

        return hooks_command(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    from agentcli.api.sdk import start_background_import

    start_background_import()  # for what still needs the SDK; it waits until the first response is over
    if args.include_partial_messages and args.output_format != "stream-json":
        parser.error("--include-partial-messages needs --output-format stream-json")
    _check_session_flags(parser, args)
    _check_permission_flags(parser, args)
    _check_mcp_flags(parser, args)
    streaming_input = _check_host_flags(parser, args)
    if args.resume == "" and (args.print_mode or args.prompt or not sys.stdin.isatty()):
        return _resume_without_id()

    if not args.print_mode:
        if streaming_input or not sys.stdin.isatty():
            args.print_mode = True  # piped input, no terminal to talk to: run headless
        elif args.plain:
            from agentcli.ui.repl.app import run_repl

            return run_repl(args)
        else:
            from agentcli.ui.tui.launch import run_tui

            return run_tui(args)

    prompt = None if streaming_input else _read_prompt(args)
    if prompt is None and not streaming_input:
        parser.error("no prompt: pass it as an argument or pipe it on stdin")

    from agentcli.bootstrap import MissingCredentials, SessionOptions, build_engine, credentials_from_env

    options = SessionOptions(
        cwd=Path.cwd(),
        model=args.model,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        include_partial_messages=args.include_partial_messages,
        fallback_models=tuple(m.strip() for m in (args.fallback_model or "").split(",") if m.strip()),
        settings_flag=args.settings,
        trust_project=args.trust_project,
        permission_mode=args.permission_mode or "default",
        allowed_tools=list(args.allowed_tools),
        disallowed_tools=list(args.disallowed_tools),
        tools=args.tools,
        json_schema=args.json_schema,
        thinking_mode=args.thinking,
        max_thinking_tokens=args.max_thinking_tokens,
        mcp_config=list(args.mcp_config),
        strict_mcp_config=args.strict_mcp_config,
        plugin_dirs=list(args.plugin_dir),
    )
    if args.verbose or args.debug is not None:
        for note in accepted_only_notes(args):
            print(f"agentcli: note: {note}", file=sys.stderr)
    from agentcli.config.settings import load_settings

    options.settings = load_settings(options.cwd, args.settings)
    if options.settings.errors:
        for error in options.settings.errors:
            print(f"agentcli: settings: {error}", file=sys.stderr)
        print("agentcli: fix the settings above (or move the file aside) and run again", file=sys.stderr)
        return EXIT_USAGE
    demo = None
    if args.demo:
        from agentcli.demo import start_demo_server

        demo = start_demo_server()
        options.base_url = demo.base_url
        options.api_key = "demo-key"
    try:
        credentials = credentials_from_env(options)
    except MissingCredentials as exc:
        print(f"agentcli: {exc}", file=sys.stderr)
        return EXIT_USAGE

    from agentcli.session import SessionError, open_session

    try:
        options.session = open_session(
            options.cwd,
            resume=args.resume,
            continue_last=args.continue_session,
            fork=args.fork_session,
            session_id=args.session_id,
            env=options.settings.merged.env,
        )
    except SessionError as exc:
        print(exc, file=sys.stderr)
        return exc.exit_code
    for warning in options.session.warnings:
        print(f"agentcli: warning: {warning}", file=sys.stderr)

    if streaming_input:
        from agentcli.ui.protocol.session import run_protocol

        code = run_protocol(
            options,
            credentials,
            replay=args.replay_user_messages,
            verbose=args.verbose,
            host_permissions=args.permission_prompt_tool == "stdio",
            hook_events=args.include_hook_events,
        )
    else:
        from agentcli.ui.headless import run_headless

        assert prompt is not None
        engine = build_engine(options, credentials)
        for notice in options.notices:
            print(f"agentcli: {notice}", file=sys.stderr)
        code = run_headless(engine, prompt, output_format=args.output_format, verbose=args.verbose)
    if options.session is not None:
        options.session.close()
    for error in options.session.store.errors:
        print(f"agentcli: warning: {error}", file=sys.stderr)
    if demo is not None:
        demo.stop()
    sys.stdout.flush()
    sys.stderr.flush()
    # Interpreter teardown with the SDK loaded costs ~0.3 s; everything is flushed and closed by now.
    os._exit(code)


def _check_mcp_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A broken ``--mcp-config`` is a usage error, reported before anything starts."""
    if not args.mcp_config:
        return
    from agentcli.mcp.config import McpConfigError, read_config

    for value in args.mcp_config:
        try:
            read_config(value, dict(os.environ))
        except McpConfigError as exc:
            parser.error(str(exc))


def _check_permission_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    from agentcli.tools.rules import InvalidRule, parse_rule_args

    if args.dangerously_skip_permissions:
        if args.permission_mode not in (None, "bypassPermissions"):
            parser.error("--dangerously-skip-permissions conflicts with --permission-mode " + args.permission_mode)
        args.permission_mode = "bypassPermissions"
    for flag, values, behavior in (
        ("--allowedTools", args.allowed_tools, "allow"),
        ("--disallowedTools", args.disallowed_tools, "deny"),
    ):
        try:
            parse_rule_args(values, behavior)
        except InvalidRule as exc:
            parser.error(f"{flag}: {exc}")


def _check_host_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> bool:
    """Check and read what the flags of driving programs name; True when input comes as stream-json."""
    streaming = args.input_format == "stream-json"
    if streaming and args.output_format != "stream-json":
        parser.error("--input-format stream-json needs --output-format stream-json")
    if streaming and args.prompt:
        parser.error("with --input-format stream-json the prompts come on stdin, not as an argument")
    if args.replay_user_messages and not streaming:
        parser.error("--replay-user-messages needs --input-format stream-json")
    if args.system_prompt_file is not None:
        if args.system_prompt is not None:
            parser.error("use either --system-prompt or --system-prompt-file, not both")
        try:
            args.system_prompt = Path(args.system_prompt_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            parser.error(f"--system-prompt-file: cannot read {args.system_prompt_file}: {exc}")
    if args.tools is not None:
        names = [name.strip() for name in args.tools.split(",") if name.strip()]
        args.tools = None if names == ["default"] else names
    if args.json_schema is not None:
        from agentcli.tools.structured_output import InvalidSchema, load_schema

        try:
            args.json_schema = load_schema(args.json_schema)
        except InvalidSchema as exc:
            parser.error(f"--json-schema: {exc}")
    return streaming


def _check_session_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    resuming = args.resume is not None or args.continue_session
    if args.resume is not None and args.continue_session:
        parser.error("use either --continue or --resume, not both")
    if args.fork_session and not resuming:
        parser.error("--fork-session needs --resume or --continue")
    if args.session_id is not None:
        import uuid

        try:
            uuid.UUID(args.session_id)
        except ValueError:
            parser.error(f"--session-id must be a UUID, got {args.session_id!r}")
        if resuming and not args.fork_session:
            parser.error("--session-id can be combined with --resume or --continue only with --fork-session")


def _resume_without_id() -> int:
    """No picker in a headless run: show the sessions to choose from and how to pass one."""
    from agentcli.session.listing import format_sessions, list_sessions

    sessions = list_sessions(Path.cwd(), limit=20)
    if not sessions:
        print("No conversation found to resume in this directory", file=sys.stderr)
        return EXIT_ERROR
    print(
        "agentcli: --resume needs a session ID here (there is no interactive picker in this mode).\n"
        "Sessions of this directory, most recent first:",
        file=sys.stderr,
    )
    for line in format_sessions(sessions, numbered=True):
        print(line, file=sys.stderr)
    print('Pass one of these IDs: agentcli -p --resume ID "your next prompt"', file=sys.stderr)
    return EXIT_USAGE


def _sessions_command(argv: list[str]) -> int:
    """``agentcli sessions``: this directory's sessions, most recent first."""
    parser = argparse.ArgumentParser(prog="agentcli sessions", description="List this directory's sessions.")
    parser.add_argument("--json", action="store_true", help="one JSON object per session, one per line")
    parser.add_argument("--limit", type=_positive_int, metavar="N", help="show at most N sessions")
    args = parser.parse_args(argv)
    from agentcli.session.listing import format_sessions, list_sessions

    sessions = list_sessions(Path.cwd(), limit=args.limit)
    if args.json:
        import json

        for info in sessions:
            print(json.dumps(info.as_dict(), ensure_ascii=False))
    elif sessions:
        for line in format_sessions(sessions, header=True):
            print(line)
    else:
        print("No sessions in this directory yet.", file=sys.stderr)
    return EXIT_OK
