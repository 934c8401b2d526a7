"""Command line: parse arguments, pick a face. Imports nothing heavy at module level (start-up is a feature)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agentcli import __version__

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


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
            "Anthropic-compatible endpoint), ANTHROPIC_MODEL (default model), AGENTCLI_STREAM_IDLE_TIMEOUT_MS.\n"
            "exit status: 0 success, 1 the run ended in error, 2 bad usage.\n"
            'examples:\n  agentcli -p "explain what src/main.py does"\n'
            '  git diff | agentcli -p "review this change" --output-format json\n'
            "  agentcli --demo -p hello        (no API key needed)"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("prompt", nargs="?", help="the prompt (with -p; read from stdin when omitted)")
    parser.add_argument("-p", "--print", dest="print_mode", action="store_true",
                        help="headless: run the prompt, print the answer, exit")
    parser.add_argument("--output-format", choices=["text", "json", "stream-json"], default="text",
                        help="with -p: the final text (default), one JSON result, or one JSON message per line")
    parser.add_argument("--include-partial-messages", action="store_true",
                        help="with stream-json: also print raw stream events and tool progress as they happen")
    parser.add_argument("--verbose", action="store_true", help="with text output: show tool calls on stderr")
    parser.add_argument("--model", help="model id (default: $ANTHROPIC_MODEL, else claude-sonnet-5-5)")
    parser.add_argument("--max-turns", type=_positive_int, metavar="N", help="stop after N model requests")
    parser.add_argument("--max-budget-usd", type=_positive_float, metavar="X",
                        help="stop once the session has cost X dollars")
    parser.add_argument("--system-prompt", metavar="S", help="replace the default system prompt")
    parser.add_argument("--append-system-prompt", metavar="S", help="add S after the system prompt")
    parser.add_argument("--demo", action="store_true",
                        help="talk to a built-in scripted model instead of the API (no key needed)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _read_prompt(args: argparse.Namespace) -> str | None:
    if args.prompt:
        return str(args.prompt)
    if not sys.stdin.isatty():
        text = sys.stdin.read()
        return text if text.strip() else None
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.include_partial_messages and args.output_format != "stream-json":
        parser.error("--include-partial-messages needs --output-format stream-json")

    if not args.print_mode:
        if args.prompt or not sys.stdin.isatty():
            args.print_mode = True  # a prompt or piped input with no terminal to talk to: run headless
        else:
            print(
                "agentcli: the interactive interface is not in this build yet; run a task headless with\n"
                '  agentcli -p "your task"      (or try it without a key: agentcli --demo -p hello)',
                file=sys.stderr,
            )
            return EXIT_USAGE

    prompt = _read_prompt(args)
    if prompt is None:
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
    )
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

    from agentcli.ui.headless import run_headless

    engine = build_engine(options, credentials)
    code = run_headless(engine, prompt, output_format=args.output_format, verbose=args.verbose)
    if demo is not None:
        demo.stop()
    sys.stdout.flush()
    sys.stderr.flush()
    # Interpreter teardown with the SDK loaded costs ~0.3 s; everything is flushed and closed by now.
    os._exit(code)
