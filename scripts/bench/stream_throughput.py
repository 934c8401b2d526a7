"""A 20,000-delta answer streamed at full speed through ``agentcli -p --output-format stream-json``, against a
raw SDK loop (``messages.create(stream=True)``, iterate the events) over the same stream.

Whole processes, interleaved, median of N. Target: agentcli ≤ 1.2x the raw loop.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time

from _common import PYTHON, child_env, median, table

from agentcli.testing import FakeAnthropicServer

RAW_LOOP = """
import anthropic, os
client = anthropic.Anthropic(max_retries=0)
stream = client.messages.create(model="claude-sonnet-5-5", max_tokens=64000, stream=True,
                                messages=[{"role": "user", "content": "go"}])
n = 0
for event in stream:
    n += 1
print(n)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--deltas", type=int, default=20_000)
    args = parser.parse_args()
    text = "".join(f"word{i % 97} " if i % 50 else "\n\n## heading\n" for i in range(args.deltas))
    turn = {"content": [{"type": "text", "text": text, "chunks": args.deltas}]}
    server = FakeAnthropicServer({"turns": [turn], "on_exhausted": "repeat_last"}).start()
    env = child_env(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=server.base_url)
    raw: list[float] = []
    ours: list[float] = []
    partial: list[float] = []
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            start = time.monotonic()
            subprocess.run([PYTHON, "-c", RAW_LOOP], check=True, env=env, stdout=subprocess.DEVNULL)
            raw.append(time.monotonic() - start)
            start = time.monotonic()
            subprocess.run(
                [PYTHON, "-m", "agentcli", "-p", "go", "--output-format", "stream-json"],
                check=True,
                env=env,
                cwd=cwd,
                stdout=subprocess.DEVNULL,
            )
            ours.append(time.monotonic() - start)
            start = time.monotonic()
            subprocess.run(
                [PYTHON, "-m", "agentcli", "-p", "go", "--output-format", "stream-json", "--include-partial-messages"],
                check=True,
                env=env,
                cwd=cwd,
                stdout=subprocess.DEVNULL,
            )
            partial.append(time.monotonic() - start)
    server.stop()
    base = median(raw)
    print(f"runs: {args.runs} (interleaved), {args.deltas} text deltas, {len(text)} characters")
    print(
        table(
            [
                ("raw SDK loop (whole process)", base, "baseline"),
                ("agentcli -p stream-json", median(ours), "target ≤ 1.20x"),
                ("agentcli -p stream-json + partial messages", median(partial), "prints every delta as a JSON line"),
            ],
            base,
        )
    )


if __name__ == "__main__":
    main()
