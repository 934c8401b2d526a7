"""Resuming a long session, and what one short exchange costs on disk.

1. A 10,000-message transcript (about 50 MB: tool calls whose results are a few KB of text each) is resumed with
   ``agentcli -p --resume ID "next"``. Measured, interleaved, median of N whole processes: process start → the
   fake server receiving the first request. Against it, in the same run:
     - the floor: reading the same file and ``json.loads``-ing every line (this process, warm cache), plus
     - the same command on a fresh session (start-up and SDK import, which any run pays).
   Target: resume ≤ 1.5x (fresh + floor); the loader on its own is also shown against the floor.
2. Bytes per trivial exchange: ``-p hi`` then ``-p --continue hi`` repeatedly; the transcript's growth per
   exchange (median). Target ≤ 5 KB.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from _common import PYTHON, child_env, median, record

from agentcli.testing import FakeAnthropicServer

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "theta",
    "lambda",
    "sigma",
    "omega",
    "read",
    "write",
    "parse",
    "build",
    "test",
    "fix",
    "value",
    "index",
    "module",
    "return",
    "import",
    "class",
    "def",
    "self",
    "data",
    "file",
    "path",
    "line",
    "error",
    "result",
    "config",
    "session",
]


def _text(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    length = 0
    line = 1
    while length < size:
        row = f"{line}\t" + " ".join(rng.choice(WORDS) for _ in range(12))
        parts.append(row)
        length += len(row) + 1
        line += 1
    return "\n".join(parts)


def write_transcript(path: Path, cwd: Path, messages: int, result_bytes: int, seed: int = 7) -> str:
    """A realistic transcript written by the store itself: one prompt, then tool call / result pairs."""
    from agentcli.session.store import TranscriptStore

    rng = random.Random(seed)
    session_id = path.stem
    store = TranscriptStore(path, session_id, cwd)

    def envelope(payload: dict) -> dict:
        payload.setdefault("session_id", session_id)
        payload.setdefault("uuid", str(uuid.uuid4()))
        return payload

    store.record(
        envelope(
            {
                "type": "user",
                "message": {"role": "user", "content": "Go through the codebase."},
                "parent_tool_use_id": None,
            }
        )
    )
    written = 1
    turn = 0
    while written < messages - 1:
        turn += 1
        tool_id = f"toolu_{turn:06d}{uuid.uuid4().hex[:12]}"
        file_path = f"{cwd}/src/module_{turn}.py"
        store.record(
            envelope(
                {
                    "type": "assistant",
                    "parent_tool_use_id": None,
                    "message": {
                        "id": f"msg_{uuid.uuid4().hex[:24]}",
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-sonnet-5-5",
                        "content": [
                            {"type": "text", "text": f"Next I will read module {turn}."},
                            {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": file_path}},
                        ],
                        "stop_reason": "tool_use",
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": 1000 + turn,
                            "output_tokens": 40,
                            "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": 900,
                        },
                    },
                }
            )
        )
        content = _text(rng, result_bytes)
        store.record(
            envelope(
                {
                    "type": "user",
                    "parent_tool_use_id": None,
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content}],
                    },
                    "tool_use_result": {
                        "type": "text",
                        "file": {
                            "filePath": file_path,
                            "numLines": content.count("\n") + 1,
                            "startLine": 1,
                            "totalLines": content.count("\n") + 1,
                        },
                    },
                }
            )
        )
        written += 2
    store.record(
        envelope(
            {
                "type": "assistant",
                "parent_tool_use_id": None,
                "message": {
                    "id": "msg_last",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-5-5",
                    "content": [{"type": "text", "text": "I have read every module."}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            }
        )
    )
    store.flush(durable=True)
    store.close()
    return session_id


def parse_floor(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as handle:
        parsed = [json.loads(line) for line in handle]
    elapsed = time.perf_counter() - start
    assert parsed
    return elapsed


def loader_time(path: Path) -> float:
    from agentcli.session.load import load_transcript

    start = time.perf_counter()
    transcript = load_transcript(path)
    elapsed = time.perf_counter() - start
    assert transcript.messages and not transcript.warnings, transcript.warnings
    return elapsed


def first_request(server: FakeAnthropicServer, args: list[str], env: dict[str, str], cwd: Path) -> float:
    seen = len(server.requests)
    start = time.monotonic()
    subprocess.run([PYTHON, "-m", "agentcli", *args], check=True, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    return server.requests[seen].time - start


def bench_resume(runs: int, messages: int, result_bytes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cwd = root / "project"
        cwd.mkdir()
        fresh_cwd = root / "fresh"
        fresh_cwd.mkdir()
        env = child_env(XDG_DATA_HOME=str(root / "data"), XDG_CONFIG_HOME=str(root / "config"), HOME=str(root))
        os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
        from agentcli.config.paths import sessions_dir

        session_id = str(uuid.uuid4())
        path = sessions_dir(cwd) / f"{session_id}.jsonl"
        write_transcript(path, cwd, messages, result_bytes)
        size = path.stat().st_size
        server = FakeAnthropicServer(
            {"turns": [{"content": [{"type": "text", "text": "ok"}]}], "on_exhausted": "repeat_last"}
        ).start()
        env.update(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=server.base_url)
        floor: list[float] = []
        loader: list[float] = []
        fresh: list[float] = []
        resumed: list[float] = []
        for _ in range(runs):
            floor.append(parse_floor(path))
            loader.append(loader_time(path))
            fresh.append(first_request(server, ["-p", "hi"], env, fresh_cwd))
            resumed.append(first_request(server, ["-p", "--resume", session_id, "hi"], env, cwd))
        server.stop()
        assert not [r for r in server.requests if r.violations], "the fake server rejected a request"
        sent = len(server.requests[-1].body["messages"])
        f, lo, fr, re_ = median(floor), median(loader), median(fresh), median(resumed)
        print(
            f"transcript: {messages} messages, {size / 1e6:.1f} MB; resumed request carries {sent} messages; "
            f"runs: {runs} (interleaved)"
        )
        print(f"  floor: read + json.loads every line      {f * 1000:8.1f} ms")
        print(f"  load_transcript (in process)            {lo * 1000:8.1f} ms   {lo / f:5.2f}x the floor")
        print(f"  fresh -p: start → first request         {fr * 1000:8.1f} ms")
        print(
            f"  --resume: start → first request         {re_ * 1000:8.1f} ms   "
            f"{re_ / (fr + f):5.2f}x (fresh + floor)   target ≤ 1.50x"
        )
        print(
            f"  resume cost over a fresh run            {(re_ - fr) * 1000:8.1f} ms   {(re_ - fr) / f:5.2f}x the floor"
        )
        record(
            f"--resume of {messages:,} messages ({size / 1e6:.0f} MB): start → first request",
            re_ * 1000,
            "ms",
            ratio=re_ / (fr + f),
            note="vs a fresh run plus reading and parsing the file; target ≤ 1.50x",
        )


def bench_bytes(exchanges: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cwd = root / "project"
        cwd.mkdir()
        env = child_env(XDG_DATA_HOME=str(root / "data"), XDG_CONFIG_HOME=str(root / "config"), HOME=str(root))
        server = FakeAnthropicServer(
            {
                "turns": [{"content": [{"type": "text", "text": "Hello! How can I help?"}]}],
                "on_exhausted": "repeat_last",
            }
        ).start()
        env.update(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=server.base_url)
        sizes: list[int] = []
        for n in range(exchanges):
            args = ["-p", "hi"] if n == 0 else ["-p", "--continue", "hi"]
            subprocess.run([PYTHON, "-m", "agentcli", *args], check=True, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
            files = list((root / "data" / "agentcli" / "projects").glob("*/*.jsonl"))
            assert len(files) == 1, files
            sizes.append(files[0].stat().st_size)
        server.stop()
        growth = [b - a for a, b in itertools.pairwise(sizes)]
        print(
            f"transcript bytes: first exchange {sizes[0]} B; each later exchange median {median(growth):.0f} B "
            f"(min {min(growth)}, max {max(growth)}) over {len(growth)}   target ≤ 5,000 B"
        )
        record("transcript bytes per short exchange", median(growth), "B", note="target ≤ 5,000 B")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--result-bytes", type=int, default=9_000, help="size of each tool result's text")
    parser.add_argument("--exchanges", type=int, default=6, help="trivial exchanges for the bytes figure")
    args = parser.parse_args()
    bench_resume(args.runs, args.messages, args.result_bytes)
    bench_bytes(args.exchanges)


if __name__ == "__main__":
    main()
