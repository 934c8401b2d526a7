"""A long session through the real CLI, compacted many times over — refused by the API and compacted to fit,
compacted automatically, by ``/compact`` with a focus, and after ``--continue`` — ends with one summary, a
bounded context, the user's messages word for word once each, and every request valid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.config.paths import sessions_dir
from agentcli.context.compact_messages import PROMPT_TAG, SUMMARY_HEADER, is_summary_request
from agentcli.testing.estimate import estimate_input_tokens
from tests.context.sessions import HOUSE_RULE, answer_turn, read_turn, setup_project, summary_turn

SERVER_WINDOW = 16_000
"""What the fake API takes; the settings say 40,000, so a request it refuses is what tells agentcli the truth."""
CONFIGURED_WINDOW = 40_000
PROMPTS = [
    "P1: read the data files one by one and count their lines.",
    "P2: No, that is wrong: count only the lines that start with 'x', and answer in French.",
    "P3: now read files 2 to 5 again and compare them with the first ones.",
    "P4: one last pass over files 6 to 8, please.",
    "P5: thank you; what did we find overall?",
]
FOCUS = "the line counts per file"
LONG_ANSWER = "Counted. PINEAPPLE " + "Every file holds one hundred and fifty numbered lines. " * 80


def _script(project: Path) -> dict[str, Any]:
    calls = iter(range(1_000))

    def reads(*files: int) -> list[dict[str, Any]]:
        return [read_turn(project, n, call=f"_{next(calls)}") for n in files]

    turns = [*reads(1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3), answer_turn(LONG_ANSWER)]  # P1: refused, then automatic
    turns += [*reads(4, 5), answer_turn(LONG_ANSWER)]  # P2, then /compact with a focus
    turns += [*reads(6, 7, 8, 1, 2, 3, 4, 5, 6, 7), answer_turn("Compared. PINEAPPLE")]  # P3, after --continue
    turns += [*reads(6, 7, 8), answer_turn("Done. PINEAPPLE")]  # P4
    turns.append(answer_turn("Il y a 42 lignes. PINEAPPLE"))  # P5
    summaries = [summary_turn(f"SUMMARY-{k:02d}: the user counts lines in the data files.") for k in range(1, 30)]
    return {"context_window": SERVER_WINDOW, "turns": turns + summaries}


def _run(run_cli, server, *args: str) -> dict[str, Any]:
    proc = run_cli("-p", *args, "--output-format", "json", server=server)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return json.loads(proc.stdout)


def _answered(server) -> list[dict[str, Any]]:
    """The conversation's own requests the fake API answered (summary requests and refusals left out)."""
    return [r.body for r in server.requests if r.status == 200 and not is_summary_request(r.body)]


def _carried(message: dict[str, Any]) -> list[str]:
    """The user's messages a continuation quotes, in order."""
    open_tag, close_tag = f"<{PROMPT_TAG}>\n", f"\n</{PROMPT_TAG}>"
    texts = [str(b.get("text", "")) for b in message["content"]]
    return [t[len(open_tag) : -len(close_tag)] for t in texts if t.startswith(open_tag) and t.endswith(close_tag)]


def _triggers(project: Path) -> list[str]:
    [path] = sessions_dir(project).glob("*.jsonl")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [line["compact_metadata"]["trigger"] for line in lines if line.get("subtype") == "compact_boundary"]


def test_many_compactions_compose_into_one_summary(run_cli, fake_api, project: Path):
    setup_project(project, window=CONFIGURED_WINDOW)
    server = fake_api(_script(project))

    assert _run(run_cli, server, PROMPTS[0])["result"].startswith("Counted. PINEAPPLE")
    _run(run_cli, server, "--continue", PROMPTS[1])
    compacted = _run(run_cli, server, "--continue", f"/compact {FOCUS}")
    assert compacted["result"].startswith("Compacted the conversation")
    _run(run_cli, server, "--continue", PROMPTS[2])
    _run(run_cli, server, "--continue", PROMPTS[3])
    assert _run(run_cli, server, "--continue", PROMPTS[4])["result"] == "Il y a 42 lignes. PINEAPPLE"

    requests = list(server.requests)
    assert all(r.status in (200, 400) and not r.violations for r in requests)
    summaries = [r for r in requests if is_summary_request(r.body)]
    assert all(r.status == 200 for r in summaries)
    triggers = _triggers(project)
    assert len(triggers) == len(summaries) >= 5 and triggers.count("manual") == 1, triggers
    assert any(FOCUS in json.dumps(r.body["messages"][-1]) for r in summaries), "the focus reached the model"
    # Refused twice (each run starts from the configured window): each time the summary request was smaller.
    refusals = [n for n, r in enumerate(requests) if r.status == 400]
    assert len(refusals) >= 2
    for n in refusals:
        assert is_summary_request(requests[n + 1].body)
        assert estimate_input_tokens(requests[n + 1].body) < estimate_input_tokens(requests[n].body)

    # From the first compaction on, every request starts from one summary: never two, never quoted.
    compacted_requests = [body for body in _answered(server) if SUMMARY_HEADER in json.dumps(body)]
    assert len(compacted_requests) > len(_answered(server)) // 2
    for body in compacted_requests:
        sent = json.dumps(body["messages"], ensure_ascii=False)
        assert sent.count(SUMMARY_HEADER) == 1 and sent.count("<summary>") == 1 and sent.count("SUMMARY-") == 1
        assert HOUSE_RULE in sent
        for quoted in _carried(body["messages"][0]):
            assert quoted in PROMPTS, quoted
    # Bounded: right after a compaction the context is about the same size, the first time and the last (a
    # compaction that puts a file read earlier back is larger by that file, within the compaction's target).
    after = [requests[n + 1].body for n, r in enumerate(requests[:-1]) if is_summary_request(r.body)]
    sizes = [estimate_input_tokens(body) for body in after]
    assert max(sizes) < SERVER_WINDOW // 2 and sizes[-1] <= sizes[0] * 1.2, sizes

    final = _answered(server)[-1]
    text = json.dumps(final["messages"], ensure_ascii=False)
    assert f"SUMMARY-{len(summaries):02d}" in text, "the latest summary"
    for prompt in PROMPTS:
        assert text.count(json.dumps(prompt, ensure_ascii=False)[1:-1]) == 1, prompt
    carried = _carried(final["messages"][0])
    assert len(carried) >= 3 and carried == PROMPTS[: len(carried)], "the earlier prompts, in order, then the rest"
    later = json.dumps(final["messages"][1:], ensure_ascii=False)
    assert all(json.dumps(prompt)[1:-1] in later for prompt in PROMPTS[len(carried) :])
