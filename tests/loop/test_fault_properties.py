"""Random fault sequences: whatever fails and however often, the invariants hold."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.api.client import Credentials
from agentcli.bootstrap import SessionOptions, build_engine
from agentcli.testing import FakeAnthropicServer
from tests.messages import typed

FINAL = "All done."

FAULTS = st.one_of(
    st.just({"kind": "http", "status": 529, "message": "Overloaded"}),
    st.sampled_from([500, 502, 503, 408]).map(lambda code: {"kind": "http", "status": code, "message": "oops"}),
    st.just({"kind": "http", "status": 429, "message": "slow", "headers": {"retry-after-ms": "5"}}),
    st.integers(0, 9).map(lambda n: {"kind": "drop", "after_events": n}),
    st.integers(0, 9).map(lambda n: {"kind": "sse_error", "after_events": n, "error_type": "api_error"}),
    st.integers(0, 9).map(lambda n: {"kind": "sse_error", "after_events": n, "error_type": "overloaded_error"}),
)


def _overloaded(fault: dict) -> bool:
    return fault.get("status") == 529 or fault.get("error_type") == "overloaded_error"


def _expected_requests(faults: list[dict]) -> tuple[bool, int]:
    """(succeeds, requests made) under the policy: 3 overloaded in a row ends the turn, 10 retries at most."""
    run = 0
    for index, fault in enumerate(faults):
        run = run + 1 if _overloaded(fault) else 0
        if run >= 3:
            return False, index + 1
        if index + 1 > 10:
            return False, index + 1
    return True, len(faults) + 1


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(faults=st.lists(FAULTS, max_size=5))
def test_any_fault_sequence_keeps_the_invariants(faults: list[dict], project: Path) -> None:
    turns = [
        {
            "content": [
                {"type": "text", "text": "partial answer text", "chunks": 6},
                {
                    "type": "tool_use",
                    "id": f"toolu_{i}",
                    "name": "Read",
                    "input": {"file_path": str(project / "README.md")},
                    "chunks": 5,
                },
            ],
            "fault": fault,
        }
        for i, fault in enumerate(faults)
    ]
    turns.append({"content": [{"type": "text", "text": FINAL, "chunks": 2}]})
    server = FakeAnthropicServer({"turns": turns}).start()
    try:
        messages = asyncio.run(_run(server, project))
    finally:
        server.stop()
    server.assert_all_valid()
    succeeds, requests = _expected_requests(faults)
    result = messages[-1]
    assert len(server.requests) == requests
    assert result["is_error"] is (not succeeds)
    texts = [
        b["text"]
        for m in messages
        if m["type"] == "assistant" and not m.get("isApiErrorMessage")
        for b in m["message"]["content"]
        if b["type"] == "text"
    ]
    assert texts == ([FINAL] if succeeds else [])
    assert not any(m["type"] == "user" for m in messages)
    for request in server.requests:
        assert typed(request.body["messages"]) == [{"role": "user", "content": "go"}]


async def _run(server: FakeAnthropicServer, project: Path) -> list[dict]:
    engine = build_engine(SessionOptions(cwd=project), Credentials(api_key="k", base_url=server.base_url))
    try:
        return [m async for m in engine.submit_message("go")]
    finally:
        await engine.aclose()
