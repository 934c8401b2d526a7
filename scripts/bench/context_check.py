"""What context management costs: the check before every request, and resuming a compacted session.

1. The pre-call check (token count, thresholds) and microcompact on a 2,000-message history (1,000 Read calls
   with results of a few KB), one turn at a time: each turn appends a call and its result, then runs the check as
   the loop does before a request. Two windows: one where only the check runs, one past the microcompact
   threshold, where old results are cleared whenever that saves enough. Median and mean per turn (the mean
   carries the turns that clear), against serialising the request's messages once (``json.dumps``, which
   sending it costs anyway). Target: ≤ 2 ms per turn.
2. ``agentcli -p --resume ID "hi"`` on a 10,000-message transcript that ends with a compaction (a boundary, the
   summary, a short tail), against ``agentcli -p "hi"`` on a fresh session, interleaved, median of N whole
   processes, process start → the fake server receiving the first request. Target ≤ 1.2x.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _common import PYTHON, child_env, median, record
from resume_load import first_request, write_transcript

from agentcli.api.client import ModelRequest
from agentcli.api.retry import RetryPolicy
from agentcli.context.compact import Compactor, ContextSettings
from agentcli.context.compact_messages import SUMMARY_HEADER
from agentcli.context.conversation import Conversation
from agentcli.context.microcompact import microcompact
from agentcli.testing import FakeAnthropicServer
from agentcli.tools.base import ToolEnv

RESULT_CHARS = 6_000


def _pair(n: int) -> list[dict[str, Any]]:
    tool_id = f"toolu_{n:06d}"
    line = f"{n}\tdef function_{n}(value):\n\treturn value * {n}  # keeps the numbers apart\n"
    return [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": f"Reading module {n}."},
                {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": f"/src/module_{n}.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": (line * (RESULT_CHARS // len(line)))}
            ],
        },
    ]


class _NoModel:
    """The check must not reach the model in these runs (auto-compact is out of reach)."""

    async def aclose(self) -> None:
        return None

    def stream(self, request: ModelRequest) -> Any:
        raise AssertionError("the benchmark's windows never reach auto-compact")


async def _turns(window: int, messages: int, measured: int) -> tuple[list[float], list[float], list[float], int]:
    compactor = Compactor(
        _NoModel(), RetryPolicy(), ToolEnv(Path.cwd()), ContextSettings(auto_compact=False, context_window=window)
    )
    history: list[dict[str, Any]] = [{"role": "user", "content": "Go through the codebase."}]
    n = 0
    while len(history) < messages - 2 * measured:
        history += _pair(n)
        n += 1
    conversation = Conversation(history)
    checks: list[float] = []
    dumps: list[float] = []
    passes: list[float] = []
    limits = compactor.limits("claude-sonnet-5-5", 32_000)
    cleared = 0
    for _ in range(measured):
        for message in _pair(n):
            conversation.append(message)
        n += 1
        request = ModelRequest("claude-sonnet-5-5", 32_000, conversation.messages, "system", [])
        start = time.perf_counter()
        async for event in compactor.before_request(conversation, request):
            cleared += getattr(event, "subtype", "") == "microcompact"
        checks.append(time.perf_counter() - start)
        start = time.perf_counter()
        microcompact(conversation.messages, limits.microcompact_min_saving)  # the walk past the threshold
        passes.append(time.perf_counter() - start)
        start = time.perf_counter()
        json.dumps(conversation.messages)
        dumps.append(time.perf_counter() - start)
    return checks, dumps, passes, cleared


def bench_check(messages: int, measured: int) -> None:
    for label, window in (("check only", 2_000_000), ("past the microcompact threshold", 200_000)):
        checks, dumps, passes, cleared = asyncio.run(_turns(window, messages, measured))
        check, dump, walk = median(checks), median(dumps), median(passes)
        mean = sum(checks) / len(checks)
        steady = sum(checks[1:]) / (len(checks) - 1)
        print(
            f"{label}: {messages:,} messages, window {window:,}, {measured} turns "
            f"(microcompact cleared results in {cleared} of them)\n"
            f"  check before the request   median {check * 1000:6.3f} ms   mean {mean * 1000:6.3f} ms   "
            f"max {max(checks) * 1000:6.2f} ms   target ≤ 2 ms\n"
            f"  mean after the first turn  {steady * 1000:6.3f} ms   (the first clears a history never cleared)\n"
            f"  one full microcompact pass median {walk * 1000:6.3f} ms   (the check runs one only when it could "
            "save enough)\n"
            f"  json.dumps of the messages median {dump * 1000:6.2f} ms   the check's mean = {mean / dump:5.3f}x of it"
        )
        record(
            f"pre-call check incl. microcompact, mean per turn, {messages:,} messages ({label})",
            mean * 1000,
            "ms",
            ratio=mean / dump,
            note="vs json.dumps of the same messages; target ≤ 2 ms",
        )


def _append_compaction(path: Path, session_id: str) -> None:
    """End the transcript with a compaction, as the engine records it: boundary, summary, the kept tail."""
    from agentcli.session.store import TranscriptStore

    store = TranscriptStore(path, session_id, path.parent)

    def line(payload: dict[str, Any]) -> None:
        store.record({**payload, "session_id": session_id, "uuid": str(uuid.uuid4())})

    line({"type": "system", "subtype": "compact_boundary", "compact_metadata": {"trigger": "auto", "pre_tokens": 9}})
    summary = f"{SUMMARY_HEADER}\n\n<summary>\nEvery module was read.\n</summary>"
    line(
        {
            "type": "user",
            "isCompactSummary": True,
            "parent_tool_use_id": None,
            "message": {"role": "user", "content": [{"type": "text", "text": summary}]},
        }
    )
    line(
        {
            "type": "assistant",
            "isCompactReplay": True,
            "parent_tool_use_id": None,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "I have read every module."}]},
        }
    )
    store.flush(durable=True)
    store.close()


def bench_resume(runs: int, messages: int, result_bytes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cwd, fresh_cwd = root / "project", root / "fresh"
        cwd.mkdir()
        fresh_cwd.mkdir()
        env = child_env(XDG_DATA_HOME=str(root / "data"), XDG_CONFIG_HOME=str(root / "config"), HOME=str(root))
        os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
        from agentcli.config.paths import sessions_dir

        session_id = str(uuid.uuid4())
        path = sessions_dir(cwd) / f"{session_id}.jsonl"
        write_transcript(path, cwd, messages, result_bytes)
        _append_compaction(path, session_id)
        size = path.stat().st_size
        server = FakeAnthropicServer(
            {"turns": [{"content": [{"type": "text", "text": "ok"}]}], "on_exhausted": "repeat_last"}
        ).start()
        env.update(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=server.base_url)
        fresh: list[float] = []
        resumed: list[float] = []
        subprocess.run([PYTHON, "-m", "agentcli", "--version"], env=env, stdout=subprocess.DEVNULL, check=True)
        for _ in range(runs):
            fresh.append(first_request(server, ["-p", "hi"], env, fresh_cwd))
            resumed.append(first_request(server, ["-p", "--resume", session_id, "hi"], env, cwd))
        server.stop()
        assert not [r for r in server.requests if r.violations], "the fake server rejected a request"
        sent = server.requests[-1].body["messages"]
        assert sent[0]["content"][0]["text"].startswith(SUMMARY_HEADER), "the resumed request starts from the summary"
        fr, re_ = median(fresh), median(resumed)
        print(
            f"compacted transcript: {messages:,} messages, {size / 1e6:.1f} MB; the resumed request carries "
            f"{len(sent)} messages; runs: {runs} (interleaved)"
        )
        print(f"  fresh -p: start → first request         {fr * 1000:8.1f} ms")
        print(
            f"  --resume: start → first request         {re_ * 1000:8.1f} ms   {re_ / fr:5.2f}x fresh   target ≤ 1.20x"
        )
        record(
            f"--resume of a compacted {messages:,}-message transcript ({size / 1e6:.0f} MB): start → first request",
            re_ * 1000,
            "ms",
            ratio=re_ / fr,
            note="vs a fresh run; target ≤ 1.20x",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--messages", type=int, default=2_000, help="history length for the pre-call check")
    parser.add_argument("--turns", type=int, default=200, help="turns measured for the pre-call check")
    parser.add_argument("--resume-messages", type=int, default=10_000)
    parser.add_argument("--result-bytes", type=int, default=9_000)
    args = parser.parse_args()
    bench_check(args.messages, args.turns)
    bench_resume(args.runs, args.resume_messages, args.result_bytes)


if __name__ == "__main__":
    main()
