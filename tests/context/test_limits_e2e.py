"""Honest limits through the real CLI: a request the API refuses as too long is compacted with a summary request
built to fit what the refusal named, and a prompt too long to fit at all is refused before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.config.paths import sessions_dir
from agentcli.context.compact_messages import SUMMARY_HEADER, is_summary_request
from agentcli.context.fit import TRIM_NOTE
from agentcli.testing.estimate import estimate_input_tokens
from tests.context.sessions import FILES, answer_turn, read_turn, setup_project, summary_turn

SERVER_WINDOW = 16_000


def test_a_refused_request_is_compacted_with_a_smaller_summary_request(run_cli, fake_api, project: Path):
    """The settings say 200k, the API takes 16k: the refusal's numbers size the summary request, which leaves
    out or trims the oldest rounds' large results, is smaller than the refused request, and is answered."""
    setup_project(project, window=200_000)
    turns = [read_turn(project, n) for n in range(1, FILES + 1)] + [answer_turn("All counted.")]
    server = fake_api({"context_window": SERVER_WINDOW, "turns": [*turns, summary_turn("SUMMARY: files read.")]})

    proc = run_cli(
        "-p", "Count the lines of every data file.", "--output-format", "stream-json", "--verbose", server=server
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[-1]["subtype"] == "success" and out[-1]["result"] == "All counted."

    requests = list(server.requests)
    [refused] = [n for n, r in enumerate(requests) if r.status == 400]
    summary = requests[refused + 1]
    assert is_summary_request(summary.body) and summary.status == 200
    refused_size, summary_size = estimate_input_tokens(requests[refused].body), estimate_input_tokens(summary.body)
    assert summary_size < refused_size and summary_size < SERVER_WINDOW, (summary_size, refused_size)
    assert TRIM_NOTE.split("{}")[1].strip() in json.dumps(summary.body, ensure_ascii=False), "results trimmed"
    warnings = [m["message"] for m in out if m.get("subtype") == "warning"]
    assert any("trimmed" in w and "summary request" in w for w in warnings), warnings
    [boundary] = [m for m in out if m.get("subtype") == "compact_boundary"]
    assert boundary["compact_metadata"]["trigger"] == "auto"
    # What followed fits: the history starts from the summary, and nothing else was refused.
    after = requests[refused + 2 :]
    assert after and all(r.status == 200 for r in after)
    assert all(SUMMARY_HEADER in json.dumps(r.body["messages"][0]) for r in after if not is_summary_request(r.body))


def test_a_prompt_too_long_for_the_window_is_refused_before_anything_is_sent(run_cli, fake_api, project: Path):
    big = "Please look at this log.\n" + "".join(f"{n:07d} GET /index.html 200 0.002s ok\n" for n in range(32_000))
    assert len(big) > 1_200_000
    server = fake_api({"turns": [answer_turn("Hello again.")]})

    proc = run_cli("-p", "--output-format", "json", stdin=big, server=server)
    assert proc.returncode == 1, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["is_error"] is True and result["subtype"] == "error_during_execution"
    error = result["errors"][-1]
    assert "too long to send" in error and f"{len(big):,} characters" in error and "200,000-token window" in error
    assert "Nothing was sent" in error and "read in parts" in error
    assert server.requests == [], "no request carried the prompt, not even a summary request"

    text = run_cli("-p", stdin=big, server=server)
    assert text.returncode == 1 and "too long to send" in text.stderr and not text.stdout
    assert server.requests == []

    # The session goes on: the refused prompt is not in it.
    again = run_cli("-p", "--continue", "Hello?", "--output-format", "json", server=server)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["result"] == "Hello again."
    [request] = server.requests
    assert "GET /index.html" not in json.dumps(request.body)
    for path in sessions_dir(project).glob("*.jsonl"):
        assert "GET /index.html" not in path.read_text(encoding="utf-8")
