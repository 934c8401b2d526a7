"""The face-neutral reader: what it asks a face to show for each engine message."""

from __future__ import annotations

from typing import Any

from agentcli.ui.reader import MessageReader, TurnEnd


class Recorder(MessageReader):
    """A face that writes down what it was asked to show."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[tuple[str, ...]] = []

    def new_text(self, text: str, *, streaming: bool) -> Any:
        shown = self.shown

        class Text:
            def __init__(self) -> None:
                self.parts = [text]

            def append(self, fragment: str) -> None:
                self.parts.append(fragment)

            def finish(self) -> None:
                shown.append(("text", "".join(self.parts)))

        return Text()

    def new_thinking(self, text: str, *, redacted: bool, done: bool) -> Any:
        raise AssertionError("no thinking in these tests")

    def new_tool(self, name: str, tool_use_id: str) -> Any:
        raise AssertionError("no tools in these tests")

    def show_prompt(self, text: str) -> None:
        self.shown.append(("prompt", text))

    def show_notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        self.shown.append((kind, text, detail))

    def show_turn_end(self, end: TurnEnd) -> None:
        self.shown.append(("end", end.line()))


def _api_error(text: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "isApiErrorMessage": True,
        "message": {"id": "msg_error_1", "content": [{"type": "text", "text": f"API Error: {text}"}]},
    }


def _result(errors: list[str], cost: float = 0.01) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "num_turns": 1,
        "duration_ms": 1500,
        "total_cost_usd": cost,
        "usage": {"input_tokens": 100, "output_tokens": 20},
        "errors": errors,
    }


def test_an_api_error_is_shown_once_with_a_hint():
    reader = Recorder()
    reader.handle({"type": "user", "message": {"role": "user", "content": "hi"}})
    reader.handle(_api_error("connection failed: Connection error. ([Errno 111] Connection refused)"))
    reader.handle(_result(["connection failed: Connection error. ([Errno 111] Connection refused)"]))
    errors = [entry for entry in reader.shown if entry[0] == "error"]
    assert len(errors) == 1
    assert "Connection refused" in errors[0][1] and "ANTHROPIC_BASE_URL" in errors[0][2]


def test_the_same_error_in_a_later_turn_is_shown_again():
    reader = Recorder()
    for _ in range(2):
        reader.handle({"type": "user", "message": {"role": "user", "content": "again"}})
        reader.handle(_api_error("overloaded"))
    assert [entry[1] for entry in reader.shown if entry[0] == "error"] == ["overloaded", "overloaded"]


def test_the_end_of_turn_line_shows_this_turns_share():
    reader = Recorder()
    reader.set_session_cost(0.004, (40, 5))
    reader.handle(_result([], cost=0.01))
    assert reader.shown[-1] == ("end", "✻ 1.5 s · 1 request · ↑ 60 ↓ 15 tokens · $0.0060 (session $0.0100)")


def test_a_streamed_message_is_not_shown_twice_and_a_blocking_stop_hook_is_visible():
    reader = Recorder()
    events = [
        {"type": "message_start", "message": {"id": "msg_1"}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}},
    ]
    for event in events:
        reader.handle({"type": "stream_event", "event": event})
    reader.handle({"type": "assistant", "message": {"id": "msg_1", "content": [{"type": "text", "text": "Hello"}]}})
    reader.handle(
        {
            "type": "user",
            "isMeta": True,
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "Stop hook feedback:\n[./check.sh]: tests fail"}],
            },
        }
    )
    assert reader.shown[0] == ("text", "Hello")
    assert ("warning", "A Stop hook sent the agent back to work", "[./check.sh]: tests fail") in reader.shown
    assert len([entry for entry in reader.shown if entry[0] == "text"]) == 1


def test_a_compaction_shows_one_notice_and_not_the_summary_as_a_prompt():
    reader = Recorder()
    reader.handle(
        {"type": "system", "subtype": "compact_boundary", "compact_metadata": {"trigger": "auto", "pre_tokens": 9}}
    )
    summary = [{"type": "text", "text": "This session continues an earlier conversation…"}]
    reader.handle({"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": summary}})
    assert reader.shown == [("info", "── earlier messages were summarised to free context ──", "")]
