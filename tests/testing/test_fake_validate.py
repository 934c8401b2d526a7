"""Each validation rule, accepted when followed and rejected when broken."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from agentcli.testing.validate import validate_request

Body = dict[str, Any]


def base() -> Body:
    return {"model": "claude-x", "max_tokens": 2048, "messages": [{"role": "user", "content": "hi"}]}


def tool_loop() -> Body:
    body = base()
    body["tools"] = [{"name": "Read", "description": "read a file", "input_schema": {"type": "object"}}]
    body["messages"] += [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "text"}]},
    ]
    return body


def with_(body: Body, **changes: Any) -> Body:
    return {**copy.deepcopy(body), **changes}


def msgs(*messages: Any) -> list[Any]:
    return [{"role": "user", "content": "hi"}, *messages] if messages else []


def user(*blocks: Any) -> Body:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: Any) -> Body:
    return {"role": "assistant", "content": list(blocks)}


def text(value: str, **extra: Any) -> Body:
    return {"type": "text", "text": value, **extra}


def tool_use(tool_id: str = "toolu_1", name: str = "Read", **extra: Any) -> Body:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {}, **extra}


def result(tool_id: str = "toolu_1", **extra: Any) -> Body:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok", **extra}


CC = {"cache_control": {"type": "ephemeral"}}

VALID: dict[str, Callable[[], Body]] = {
    "minimal": base,
    "tool loop": tool_loop,
    "count of four cache_control blocks": lambda: with_(
        tool_loop(),
        system=[text("sys", **CC)],
        tools=[{"name": "Read", "input_schema": {"type": "object"}, **CC}],
        messages=[user(text("a", **CC), text("b", **CC)), assistant(text("c"))],
    ),
    "known top-level keys": lambda: with_(
        base(),
        stream=True,
        temperature=0.5,
        top_p=1,
        top_k=5,
        stop_sequences=["END"],
        metadata={"user_id": "u"},
        service_tier="auto",
        tool_choice={"type": "auto"},
        context_management={},
        output_config={},
    ),
    "system string and blocks": lambda: with_(base(), system=[text("be brief", **CC)]),
    "empty system string": lambda: with_(base(), system=""),
    "assistant prefill string": lambda: with_(base(), messages=msgs({"role": "assistant", "content": "Sure,"})),
    "empty assistant prefill": lambda: with_(base(), messages=msgs({"role": "assistant", "content": ""})),
    "thinking blocks with signature": lambda: with_(
        base(),
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=msgs(
            assistant(
                {"type": "thinking", "thinking": "t", "signature": "s"},
                {"type": "redacted_thinking", "data": "d"},
                tool_use(),
            ),
            user(result()),
        ),
        tools=[{"name": "Read", "input_schema": {"type": "object"}}],
    ),
    "tool_result before text, list content, is_error": lambda: with_(
        tool_loop(),
        messages=msgs(
            assistant(text("let me look"), tool_use("toolu_a"), tool_use("toolu_b")),
            user(
                result("toolu_b", content=[text("x"), {"type": "image", "source": {"type": "url", "url": "u"}}]),
                result("toolu_a", is_error=True),
                text("and also"),
            ),
        ),
    ),
    "server tool": lambda: with_(base(), tools=[{"type": "web_search_20250305", "name": "web_search"}]),
    "tool_choice names a tool": lambda: with_(tool_loop(), tool_choice={"type": "tool", "name": "Read"}),
    "thinking adaptive": lambda: with_(base(), thinking={"type": "adaptive"}),
    "count_tokens body": lambda: {"model": "m", "messages": [{"role": "user", "content": "x"}]},
}


@pytest.mark.parametrize("name", list(VALID))
def test_valid_bodies_have_no_violations(name: str) -> None:
    body = VALID[name]()
    assert validate_request(body, count_tokens=name == "count_tokens body") == []


INVALID: dict[str, tuple[Callable[[], Any], str]] = {
    "not an object": (lambda: [1], "must be a JSON object"),
    "missing model": (lambda: {k: v for k, v in base().items() if k != "model"}, "model: Field required"),
    "empty model": (lambda: with_(base(), model=""), "model: Input should be a non-empty string"),
    "missing max_tokens": (lambda: {k: v for k, v in base().items() if k != "max_tokens"}, "max_tokens: Field"),
    "zero max_tokens": (lambda: with_(base(), max_tokens=0), "max_tokens: Input should be an integer"),
    "bool max_tokens": (lambda: with_(base(), max_tokens=True), "max_tokens: Input should be an integer"),
    "missing messages": (lambda: {"model": "m", "max_tokens": 5}, "messages: Field required"),
    "empty messages": (lambda: with_(base(), messages=[]), "at least one message"),
    "typo top-level key": (lambda: with_(base(), max_token=5), "max_token: Extra inputs are not permitted"),
    "betas in body": (lambda: with_(base(), betas=["x"]), "betas: Extra inputs"),
    "max_tokens on count_tokens": (lambda: base(), "COUNT:max_tokens: Extra inputs"),
    "stream not bool": (lambda: with_(base(), stream="yes"), "stream: Input should be a valid boolean"),
    "temperature out of range": (lambda: with_(base(), temperature=1.5), "temperature"),
    "whitespace stop sequence": (lambda: with_(base(), stop_sequences=[" "]), "non-whitespace"),
    "metadata extra key": (lambda: with_(base(), metadata={"session": "x"}), "metadata.session: Extra"),
    "system not text": (lambda: with_(base(), system=[{"type": "image"}]), "system.0: system blocks"),
    "system empty text": (lambda: with_(base(), system=[text("")]), "system.0.text: text content blocks"),
    "system wrong type": (lambda: with_(base(), system=5), "system: Input should be"),
    "bad role": (lambda: with_(base(), messages=[{"role": "bot", "content": "x"}]), "messages.0.role"),
    "first message assistant": (
        lambda: with_(base(), messages=[{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}]),
        'first message must use the "user" role',
    ),
    "extra message key": (
        lambda: with_(base(), messages=[{"role": "user", "content": "x", "name": "bob"}]),
        "messages.0.name: Extra",
    ),
    "empty user string": (lambda: with_(base(), messages=[{"role": "user", "content": ""}]), "non-empty"),
    "empty content list": (lambda: with_(base(), messages=[user()]), "messages.0.content: content must be"),
    "empty text block": (lambda: with_(base(), messages=[user(text(""))]), "messages.0.content.0.text: text content"),
    "prefill trailing whitespace": (
        lambda: with_(base(), messages=msgs({"role": "assistant", "content": "Sure, "})),
        "cannot end with trailing whitespace",
    ),
    "user sends thinking": (
        lambda: with_(base(), messages=[user({"type": "thinking", "thinking": "t", "signature": "s"})]),
        "not allowed in user messages",
    ),
    "assistant sends tool_result": (
        lambda: with_(base(), messages=msgs(assistant(result()))),
        "not allowed in assistant messages",
    ),
    "text block extra key": (
        lambda: with_(base(), messages=[user(text("x", parsed_output=None))]),
        "messages.0.content.0.parsed_output: Extra",
    ),
    "thinking without signature": (
        lambda: with_(base(), messages=msgs(assistant({"type": "thinking", "thinking": "t", "signature": ""}))),
        "signature",
    ),
    "redacted thinking without data": (
        lambda: with_(base(), messages=msgs(assistant({"type": "redacted_thinking"}))),
        "messages.1.content.0.data",
    ),
    "tool_use bad id": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use("toolu 1")), user(result("toolu 1")))),
        "messages.1.content.0.id: String should match",
    ),
    "tool_use bad name": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use(name="read file")), user(result()))),
        "messages.1.content.0.name",
    ),
    "tool_use input not dict": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use(input="x")), user(result()))),
        "input: Input should be a valid dictionary",
    ),
    "duplicate tool_use id": (
        lambda: with_(
            tool_loop(),
            messages=msgs(assistant(tool_use()), user(result()), assistant(tool_use()), user(result())),
        ),
        "ids must be unique",
    ),
    "tool_use without result": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(text("what?")))),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
    ),
    "tool_use as final message": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()))),
        "without `tool_result`",
    ),
    "one of two results missing": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use("a"), tool_use("b")), user(result("a")))),
        "immediately after: b.",
    ),
    "result for unknown id": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(result(), result("toolu_9")))),
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
    ),
    "result without preceding tool_use": (
        lambda: with_(base(), messages=[user(result())]),
        "unexpected `tool_use_id`",
    ),
    "result after text": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(text("here"), result()))),
        "must come first",
    ),
    "duplicate result": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(result(), result()))),
        "duplicate `tool_result`",
    ),
    "result content wrong type": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(result(content=5)))),
        "content: Input should be a string or a list",
    ),
    "result content block type": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(result(content=[{"type": "tool_use"}])))),
        "tool_result content blocks must be text or image",
    ),
    "result empty text block": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(result(content=[text("")])))),
        "content.0.content.0.text: text content blocks must be non-empty",
    ),
    "result is_error not bool": (
        lambda: with_(tool_loop(), messages=msgs(assistant(tool_use()), user(result(is_error="yes")))),
        "is_error: Input should be a valid boolean",
    ),
    "five cache_control blocks": (
        lambda: with_(
            base(),
            system=[text("s", **CC), text("t", **CC)],
            messages=[user(text("a", **CC), text("b", **CC), text("c", **CC))],
        ),
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
    "bad cache_control": (
        lambda: with_(base(), messages=[user(text("a", cache_control={"type": "forever"}))]),
        "cache_control.type",
    ),
    "tools not list": (lambda: with_(base(), tools={"name": "x"}), "tools: Input should be a valid list"),
    "tool bad name": (
        lambda: with_(base(), tools=[{"name": "my tool", "input_schema": {"type": "object"}}]),
        "tools.0.name: String should match",
    ),
    "duplicate tool names": (
        lambda: with_(base(), tools=[{"name": "A", "input_schema": {"type": "object"}}] * 2),
        "Tool names must be unique",
    ),
    "tool schema not object": (
        lambda: with_(base(), tools=[{"name": "A", "input_schema": {"type": "array"}}]),
        "tools.0.input_schema.type",
    ),
    "tool without schema": (lambda: with_(base(), tools=[{"name": "A"}]), "tools.0.input_schema: Field required"),
    "tool description not str": (
        lambda: with_(base(), tools=[{"name": "A", "description": 3, "input_schema": {"type": "object"}}]),
        "tools.0.description",
    ),
    "tool typo key": (
        lambda: with_(base(), tools=[{"name": "A", "input_schema": {"type": "object"}, "descripton": "x"}]),
        "tools.0.descripton: Extra",
    ),
    "tool_choice unknown tool": (
        lambda: with_(tool_loop(), tool_choice={"type": "tool", "name": "Write"}),
        "tool_choice.name",
    ),
    "tool_choice any without tools": (lambda: with_(base(), tool_choice={"type": "any"}), "requires `tools`"),
    "tool_choice bad type": (lambda: with_(base(), tool_choice={"type": "always"}), "tool_choice.type"),
    "thinking budget too small": (
        lambda: with_(base(), thinking={"type": "enabled", "budget_tokens": 1000}),
        "thinking.budget_tokens",
    ),
    "thinking budget not below max_tokens": (
        lambda: with_(base(), thinking={"type": "enabled", "budget_tokens": 2048}),
        "max_tokens: must be greater than thinking.budget_tokens",
    ),
    "thinking bad type": (lambda: with_(base(), thinking={"type": "on"}), "thinking.type"),
    "thinking dropped from tool loop": (
        lambda: with_(tool_loop(), thinking={"type": "enabled", "budget_tokens": 1024}),
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`",
    ),
}


@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_bodies_are_reported(name: str) -> None:
    make, expected = INVALID[name]
    count_tokens = expected.startswith("COUNT:")
    expected = expected.removeprefix("COUNT:")
    violations = validate_request(make(), count_tokens=count_tokens)
    assert any(expected in v for v in violations), violations


def test_thinking_rule_only_checks_the_assistant_turn_that_opened_the_loop() -> None:
    thinking = {"type": "thinking", "thinking": "t", "signature": "s"}
    body = with_(
        tool_loop(),
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=msgs(
            assistant(thinking, tool_use("a")),
            user(result("a")),
            assistant(tool_use("b")),
            user(result("b")),
        ),
    )
    assert validate_request(body) == []


def test_every_violation_is_listed() -> None:
    body = with_(base(), model="", max_tokens=0, temperature=3)
    assert len(validate_request(body)) == 3
