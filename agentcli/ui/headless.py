"""The headless face (``-p``): text, one JSON result, or a JSON line per message."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator
from typing import Any, TextIO

from agentcli.engine import QueryEngine
from agentcli.loop.repair import sendable
from agentcli.ui.frame_writer import FrameWriter, paced, undelivered_note
from agentcli.ui.signals import exit_status, install

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
COMPACT_COMMAND = re.compile(r"^\s*/compact(?:\s+(?P<focus>.*?))?\s*$", re.DOTALL)
"""``-p "/compact [focus]"`` compacts the resumed session instead of sending the words to the model."""


def _silence(out: TextIO) -> None:
    """Point stdout at /dev/null so the flushes still to come cannot fail on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
    except (OSError, ValueError):
        pass


def _dumps(message: dict[str, Any]) -> str:
    """One JSON line; a lone surrogate in the model's text is kept as a ``\\ud800`` escape, never a crash."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":"))
    return text


def _plain(value: object) -> str:
    """Text for a terminal or a pipe: a lone surrogate becomes U+FFFD."""
    return str(sendable(str(value)))


async def _run(engine: QueryEngine, prompt: str, output_format: str, verbose: bool, out: TextIO, err: TextIO) -> int:
    ended_by: list[int] = []
    writer = FrameWriter(out)

    def on_signal(signum: int) -> None:
        ended_by.append(signum)
        if len(ended_by) == 1:
            if signum == signal.SIGINT:
                err.write("agentcli: interrupting (press ctrl+c again to quit at once)\n")
                err.flush()
            writer.release()
            engine.interrupt()
        else:
            with contextlib.suppress(OSError, ValueError):
                out.flush()
            os._exit(exit_status(signum))

    remove_handlers = install(on_signal)
    try:
        code = await _print_run(engine, prompt, output_format, verbose, writer, err)
        if dropped := await writer.finish():
            err.write(f"agentcli: {undelivered_note(dropped)}\n")
    except (BrokenPipeError, OSError) as exc:
        if not ended_by and not isinstance(exc, BrokenPipeError):
            raise
        # The reader went away (``| head``), or the terminal did (SIGHUP): stop quietly, as command-line tools do.
        _silence(out)
        code = EXIT_BROKEN_PIPE
    finally:
        remove_handlers()
        await engine.aclose()
    return exit_status(ended_by[0]) if ended_by else code


async def _print_run(
    engine: QueryEngine, prompt: str, output_format: str, verbose: bool, out: FrameWriter, err: TextIO
) -> int:
    result: dict[str, Any] | None = None
    write = out.write
    command = COMPACT_COMMAND.match(prompt)
    source = _compact_run(engine, command.group("focus")) if command else engine.submit_message(prompt)
    async with contextlib.aclosing(paced(source, out.room)) as messages:
        async for message in messages:
            kind = message["type"]
            if output_format == "stream-json":
                write(_dumps(message) + "\n")
            elif verbose and output_format == "text":
                _describe(message, err)
            elif output_format == "text" and kind == "system" and message.get("subtype") == "warning":
                err.write(f"agentcli: {message.get('message')}\n")  # hooks' warnings and failures reach the user
            if kind == "result":
                result = message
    if result is None:
        err.write("agentcli: the run ended without a result\n")
        return 1
    if output_format == "json":
        write(_dumps(result) + "\n")
    elif output_format == "text":
        if result["is_error"]:
            err.write(f"agentcli: {result.get('errors', [result.get('result')])[-1]}\n")
            if result.get("result") and result["subtype"] in ("error_max_turns", "error_max_budget_usd"):
                write(_plain(result["result"]) + "\n")
        else:
            write(_plain(result["result"]) + "\n")
    return 1 if result["is_error"] else 0


async def _compact_run(engine: QueryEngine, focus: str | None) -> AsyncIterator[dict[str, Any]]:
    """``/compact``: the engine's messages for it, then a ``result`` saying how much room it made."""
    started = time.monotonic()
    yield engine.init_message()
    messages = await engine.compact(focus or None)
    for message in messages:
        yield message
    boundary = next((m for m in messages if m.get("subtype") == "compact_boundary"), None)
    if boundary is not None:
        metadata = boundary["compact_metadata"]
        text = f"Compacted the conversation ({metadata['pre_tokens']:,} → {metadata['post_tokens']:,} tokens)."
        errors: list[str] = []
    else:
        text = next((str(m["message"]) for m in messages if m.get("subtype") == "warning"), "Compaction failed.")
        errors = [text]
    subtype = "success" if boundary is not None else "error_during_execution"
    result = engine.outbox.result(subtype, 0, started, 0.0, text, None, errors)
    engine.outbox.record(result)
    yield result


def _describe(message: dict[str, Any], err: TextIO) -> None:
    """One line per tool call and result on stderr, for ``--verbose`` text output."""
    if message["type"] == "assistant":
        for block in message["message"]["content"]:
            if block.get("type") in ("tool_use", "server_tool_use"):
                err.write(f"● {block['name']}({_dumps(block.get('input', {}))[:200]})\n")
            elif block.get("type") == "web_search_tool_result":
                found = block.get("content")
                count = len(found) if isinstance(found, list) else 0
                err.write(f"  ⎿ {count} search result{'s' if count != 1 else ''}\n")
    elif message["type"] == "system" and message.get("subtype") == "api_retry":
        seconds = message["retry_delay_ms"] / 1000
        err.write(
            f"  Retrying in {seconds:.1f} s · attempt {message['attempt']}/{message['max_retries']}"
            f" ({message.get('error_status') or message.get('error')})\n"
        )
    elif message["type"] == "system" and message.get("subtype") == "warning":
        err.write(f"  ! {message.get('message')}\n")
    elif message["type"] == "user":
        for block in message["message"].get("content", []):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                content = block.get("content")
                text = content if isinstance(content, str) else _dumps({"content": content})
                mark = "✗" if block.get("is_error") else "⎿"
                err.write(f"  {mark} {text.splitlines()[0][:200] if text else ''}\n")
    err.flush()


def run_headless(engine: QueryEngine, prompt: str, *, output_format: str = "text", verbose: bool = False) -> int:
    """Run one prompt; returns the exit status (0 success, 1 the run ended in error)."""
    try:
        return asyncio.run(_run(engine, prompt, output_format, verbose, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
