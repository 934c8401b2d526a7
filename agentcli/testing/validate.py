"""Request validation as strict as the real Messages API, so bugs that production would reject with a 400
fail the test suite too instead of passing against a lenient fake.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MAX_CACHE_CONTROL_BLOCKS = 4
MIN_THINKING_BUDGET = 1024

_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")

_COMMON_KEYS = frozenset(
    {
        "model", "messages", "system", "tools", "tool_choice", "thinking", "output_config", "output_format",
        "cache_control", "speed", "mcp_servers", "context_management", "container", "user_profile_id",
        "workspace_id", "diagnostics",
    }
)  # fmt: skip
CREATE_KEYS = _COMMON_KEYS | {
    "max_tokens", "stream", "temperature", "top_p", "top_k", "stop_sequences", "metadata", "service_tier",
    "inference_geo",
}  # fmt: skip
COUNT_TOKENS_KEYS = _COMMON_KEYS

_USER_BLOCKS = frozenset({"text", "image", "document", "search_result", "tool_result", "container_upload"})
_ASSISTANT_BLOCKS = frozenset(
    {
        "text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "web_search_tool_result",
        "web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result", "tool_search_tool_result", "mcp_tool_use", "mcp_tool_result",
        "container_upload", "compaction",
    }
)  # fmt: skip
_TOOL_RESULT_CONTENT = frozenset({"text", "image", "document", "search_result", "tool_reference", "browser_state"})
_BLOCK_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text", "cache_control", "citations"}),
    "image": frozenset({"type", "source", "cache_control", "transformations"}),
    "document": frozenset({"type", "source", "cache_control", "citations", "context", "title"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control", "caller", "toolset_name"}),
}
_CUSTOM_TOOL_KEYS = frozenset(
    {
        "type", "name", "description", "input_schema", "cache_control", "strict", "input_examples",
        "eager_input_streaming", "defer_loading", "allowed_callers",
    }
)  # fmt: skip
_THINKING_TYPES = frozenset({"enabled", "disabled", "adaptive", "between_tools"})
_TOOL_CHOICE_TYPES = frozenset({"auto", "any", "tool", "none"})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _extra_keys(path: str, obj: Mapping[str, Any], allowed: frozenset[str], out: list[str]) -> None:
    for key in obj:
        if key not in allowed:
            out.append(f"{path}{key}: Extra inputs are not permitted")


def validate_request(body: object, *, count_tokens: bool = False) -> list[str]:
    """Every reason the real API would refuse `body`, as readable strings; empty means it would be accepted.

    `count_tokens` checks a /v1/messages/count_tokens body, which takes no `max_tokens` or sampling options.
    """
    if not isinstance(body, dict):
        return ["body: the request body must be a JSON object"]
    out: list[str] = []
    _check_top_level(body, count_tokens, out)
    _check_system(body.get("system"), out)
    tool_names = _check_tools(body.get("tools"), out)
    _check_tool_choice(body, tool_names, out)
    messages = body.get("messages")
    if isinstance(messages, list):
        _check_messages(messages, out)
        _check_tool_pairing(messages, out)
    _check_thinking(body, out)
    _check_cache_control(body, out)
    return out


def _check_top_level(body: Mapping[str, Any], count_tokens: bool, out: list[str]) -> None:
    _extra_keys("", body, COUNT_TOKENS_KEYS if count_tokens else CREATE_KEYS, out)
    model = body.get("model")
    if "model" not in body:
        out.append("model: Field required")
    elif not isinstance(model, str) or not model:
        out.append("model: Input should be a non-empty string")
    if not count_tokens:
        max_tokens = body.get("max_tokens")
        if "max_tokens" not in body:
            out.append("max_tokens: Field required")
        elif not _is_int(max_tokens) or max_tokens < 1:
            out.append("max_tokens: Input should be an integer greater than or equal to 1")
    messages = body.get("messages")
    if "messages" not in body:
        out.append("messages: Field required")
    elif not isinstance(messages, list):
        out.append("messages: Input should be a valid list")
    elif not messages:
        out.append("messages: at least one message is required")
    _check_sampling(body, out)


def _check_sampling(body: Mapping[str, Any], out: list[str]) -> None:
    if "stream" in body and not isinstance(body["stream"], bool):
        out.append("stream: Input should be a valid boolean")
    for key in ("temperature", "top_p"):
        if key in body and not (_is_number(body[key]) and 0 <= body[key] <= 1):
            out.append(f"{key}: Input should be a number between 0 and 1")
    if "top_k" in body and not (_is_int(body["top_k"]) and body["top_k"] >= 0):
        out.append("top_k: Input should be a non-negative integer")
    if "stop_sequences" in body:
        stops = body["stop_sequences"]
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            out.append("stop_sequences: Input should be a list of strings")
        elif any(not s.strip() for s in stops):
            out.append("stop_sequences: each stop sequence must contain non-whitespace")
    if "metadata" in body:
        metadata = body["metadata"]
        if not isinstance(metadata, dict):
            out.append("metadata: Input should be an object")
        else:
            _extra_keys("metadata.", metadata, frozenset({"user_id"}), out)
            if metadata.get("user_id") is not None and not isinstance(metadata["user_id"], str):
                out.append("metadata.user_id: Input should be a valid string")
    if "service_tier" in body and body["service_tier"] not in ("auto", "standard_only"):
        out.append("service_tier: Input should be 'auto' or 'standard_only'")


_MESSAGE_BLOCK = re.compile(r"^messages\.\d+\.content\.\d+$")


def _check_text_block(path: str, block: Mapping[str, Any], out: list[str]) -> None:
    text = block.get("text")
    if not isinstance(text, str):
        out.append(f"{path}.text: Field required (a string)")
    elif not text:
        out.append(f"{path}.text: text content blocks must be non-empty")
    elif not text.strip() and _MESSAGE_BLOCK.match(path):
        out.append(f"{path}.text: text content blocks must contain non-whitespace text")


def _check_system(system: object, out: list[str]) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        out.append("system: Input should be a string or a list of text blocks")
        return
    for i, block in enumerate(system):
        path = f"system.{i}"
        if not isinstance(block, dict) or block.get("type") != "text":
            out.append(f"{path}: system blocks must be objects with type 'text'")
            continue
        _extra_keys(f"{path}.", block, _BLOCK_KEYS["text"], out)
        _check_text_block(path, block, out)


def _check_tools(tools: object, out: list[str]) -> set[str]:
    names: set[str] = set()
    if tools is None:
        return names
    if not isinstance(tools, list):
        out.append("tools: Input should be a valid list")
        return names
    for i, tool in enumerate(tools):
        path = f"tools.{i}"
        if not isinstance(tool, dict):
            out.append(f"{path}: Input should be an object")
            continue
        name = tool.get("name")
        if isinstance(name, str):
            if name in names:
                out.append(f"tools: Tool names must be unique. Duplicate name: {name!r}")
            names.add(name)
        if tool.get("type") not in (None, "custom"):
            continue  # a server tool (web search, code execution, ...): the API defines its schema
        _extra_keys(f"{path}.", tool, _CUSTOM_TOOL_KEYS, out)
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            out.append(f"{path}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
        if "description" in tool and not isinstance(tool["description"], str):
            out.append(f"{path}.description: Input should be a valid string")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict):
            out.append(f"{path}.input_schema: Field required (a JSON schema object)")
        elif schema.get("type") != "object":
            out.append(f"{path}.input_schema.type: Input should be 'object'")
    return names


def _check_tool_choice(body: Mapping[str, Any], tool_names: set[str], out: list[str]) -> None:
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not isinstance(choice, dict) or choice.get("type") not in _TOOL_CHOICE_TYPES:
        out.append("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
        return
    if "disable_parallel_tool_use" in choice and not isinstance(choice["disable_parallel_tool_use"], bool):
        out.append("tool_choice.disable_parallel_tool_use: Input should be a valid boolean")
    if choice["type"] in ("any", "tool") and not tool_names:
        out.append(f"tool_choice: tool_choice of type {choice['type']!r} requires `tools` to be provided")
    if choice["type"] == "tool" and choice.get("name") not in tool_names:
        out.append(f"tool_choice.name: tool {choice.get('name')!r} is not among the provided tools")


def _check_messages(messages: list[Any], out: list[str]) -> None:
    seen_tool_use_ids: set[str] = set()
    last = len(messages) - 1
    for i, message in enumerate(messages):
        path = f"messages.{i}"
        if not isinstance(message, dict):
            out.append(f"{path}: Input should be an object with `role` and `content`")
            continue
        _extra_keys(f"{path}.", message, frozenset({"role", "content"}), out)
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            out.append(f"{path}.role: Input should be 'user' or 'assistant'")
            continue
        if i == 0 and role != "user":
            out.append('messages: first message must use the "user" role')
        prefill = role == "assistant" and i == last
        content = message.get("content")
        if "content" not in message:
            out.append(f"{path}.content: Field required")
        elif isinstance(content, str):
            if not content and not prefill:
                out.append(f"{path}.content: text content must be non-empty")
        elif isinstance(content, list):
            if not content and not prefill:
                out.append(f"{path}.content: content must be a non-empty list")
            for j, block in enumerate(content):
                _check_block(f"{path}.content.{j}", block, role, seen_tool_use_ids, out)
        else:
            out.append(f"{path}.content: Input should be a string or a list of content blocks")
        if prefill and _ends_with_whitespace(content):
            out.append("messages: final assistant content cannot end with trailing whitespace")


def _ends_with_whitespace(content: object) -> bool:
    if isinstance(content, str):
        return bool(content) and content != content.rstrip()
    if isinstance(content, list) and content and isinstance(content[-1], dict) and content[-1].get("type") == "text":
        text = content[-1].get("text")
        return isinstance(text, str) and bool(text) and text != text.rstrip()
    return False


def _check_block(path: str, block: object, role: str, tool_use_ids: set[str], out: list[str]) -> None:  # noqa: C901
    if not isinstance(block, dict):
        out.append(f"{path}: Input should be a content block object")
        return
    btype = block.get("type")
    allowed = _USER_BLOCKS if role == "user" else _ASSISTANT_BLOCKS if role == "assistant" else {"text"}
    if btype not in allowed:
        out.append(f"{path}.type: blocks of type {btype!r} are not allowed in {role} messages")
        return
    if btype in _BLOCK_KEYS:
        _extra_keys(f"{path}.", block, _BLOCK_KEYS[btype], out)
    if btype == "text":
        _check_text_block(path, block, out)
    elif btype in ("image", "document") and not isinstance(block.get("source"), dict):
        out.append(f"{path}.source: Field required")
    elif btype == "thinking":
        if not isinstance(block.get("thinking"), str):
            out.append(f"{path}.thinking: Field required (a string)")
        signature = block.get("signature")
        if not isinstance(signature, str) or not signature:
            out.append(f"{path}.signature: thinking blocks must carry the non-empty signature the API returned")
    elif btype == "redacted_thinking":
        if not isinstance(block.get("data"), str) or not block["data"]:
            out.append(f"{path}.data: Field required (the opaque string the API returned)")
    elif btype == "tool_use":
        _check_tool_use(path, block, tool_use_ids, out)
    elif btype == "tool_result":
        _check_tool_result(path, block, out)


def _check_tool_use(path: str, block: Mapping[str, Any], tool_use_ids: set[str], out: list[str]) -> None:
    tool_id = block.get("id")
    if not isinstance(tool_id, str) or not _ID.match(tool_id):
        out.append(f"{path}.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
    elif tool_id in tool_use_ids:
        out.append(f"{path}.id: `tool_use` ids must be unique; {tool_id} appears more than once")
    else:
        tool_use_ids.add(tool_id)
    name = block.get("name")
    if not isinstance(name, str) or not _TOOL_NAME.match(name):
        out.append(f"{path}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
    if not isinstance(block.get("input"), dict):
        out.append(f"{path}.input: Input should be a valid dictionary")


def _check_tool_result(path: str, block: Mapping[str, Any], out: list[str]) -> None:
    tool_use_id = block.get("tool_use_id")
    if not isinstance(tool_use_id, str) or not _ID.match(tool_use_id):
        out.append(f"{path}.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'")
    if "is_error" in block and not isinstance(block["is_error"], bool):
        out.append(f"{path}.is_error: Input should be a valid boolean")
    content = block.get("content")
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        out.append(f"{path}.content: Input should be a string or a list of text/image blocks")
        return
    for k, inner in enumerate(content):
        inner_path = f"{path}.content.{k}"
        if not isinstance(inner, dict) or inner.get("type") not in _TOOL_RESULT_CONTENT:
            out.append(f"{inner_path}.type: tool_result content blocks must be text or image (or document)")
            continue
        if inner["type"] in _BLOCK_KEYS:
            _extra_keys(f"{inner_path}.", inner, _BLOCK_KEYS[inner["type"]], out)
        if inner["type"] == "text":
            _check_text_block(inner_path, inner, out)
        elif inner["type"] in ("image", "document") and not isinstance(inner.get("source"), dict):
            out.append(f"{inner_path}.source: Field required")


def _blocks(message: object) -> list[Mapping[str, Any]]:
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return []
    return [b for b in message["content"] if isinstance(b, dict)]


def _tool_use_ids(message: object) -> list[str]:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    return [b["id"] for b in _blocks(message) if b.get("type") == "tool_use" and isinstance(b.get("id"), str)]


def _check_tool_pairing(messages: list[Any], out: list[str]) -> None:
    for i, message in enumerate(messages):
        following = messages[i + 1] if i + 1 < len(messages) else None
        ids = _tool_use_ids(message)
        if ids:
            answered = {
                b.get("tool_use_id")
                for b in _blocks(following)
                if isinstance(following, dict) and following.get("role") == "user" and b.get("type") == "tool_result"
            }
            missing = [tool_id for tool_id in ids if tool_id not in answered]
            if missing:
                out.append(
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                    "in the next message."
                )
        if isinstance(message, dict) and message.get("role") == "user":
            _check_tool_results(i, message, set(_tool_use_ids(messages[i - 1]) if i else []), out)


def _check_tool_results(i: int, message: Mapping[str, Any], expected: set[str], out: list[str]) -> None:
    answered: set[str] = set()
    other_content_seen = False
    for j, block in enumerate(_blocks(message)):
        if block.get("type") != "tool_result":
            other_content_seen = True
            continue
        tool_use_id = block.get("tool_use_id")
        path = f"messages.{i}.content.{j}"
        if other_content_seen:
            out.append(f"{path}: `tool_result` blocks must come first in the user message, before any other content")
        if tool_use_id not in expected:
            out.append(
                f"{path}: unexpected `tool_use_id` found in `tool_result` blocks: {tool_use_id}. Each `tool_result` "
                "block must have a corresponding `tool_use` block in the previous message."
            )
        elif tool_use_id in answered:
            out.append(f"{path}: duplicate `tool_result` for tool_use_id {tool_use_id}")
        answered.add(str(tool_use_id))


def _check_thinking(body: Mapping[str, Any], out: list[str]) -> None:
    thinking = body.get("thinking")
    if thinking is None:
        return
    if not isinstance(thinking, dict) or thinking.get("type") not in _THINKING_TYPES:
        out.append("thinking.type: Input should be 'enabled', 'disabled', 'adaptive' or 'between_tools'")
        return
    if thinking["type"] != "enabled":
        return
    budget = thinking.get("budget_tokens")
    max_tokens = body.get("max_tokens")
    if not _is_int(budget) or budget < MIN_THINKING_BUDGET:
        out.append(f"thinking.budget_tokens: Input should be an integer greater than or equal to {MIN_THINKING_BUDGET}")
    elif _is_int(max_tokens) and budget >= max_tokens:
        out.append("max_tokens: must be greater than thinking.budget_tokens")
    _check_thinking_first(body.get("messages"), out)


def _has_tool_result(message: object) -> bool:
    return any(b.get("type") == "tool_result" for b in _blocks(message))


def _check_thinking_first(messages: object, out: list[str]) -> None:
    """With thinking on, the assistant turn that opened the current tool loop must start with its thinking."""
    if not isinstance(messages, list) or not messages or not _has_tool_result(messages[-1]):
        return
    opener = None
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, dict) and message.get("role") == "user" and not _has_tool_result(message):
            break
        if isinstance(message, dict) and message.get("role") == "assistant":
            opener = i
    if opener is None:
        return
    blocks = _blocks(messages[opener])
    if blocks and blocks[0].get("type") not in ("thinking", "redacted_thinking"):
        out.append(
            f"messages.{opener}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{blocks[0].get('type')}`. When `thinking` is enabled, a final `assistant` message must start "
            "with a thinking block (preceding the lastmost set of `tool_use` and `tool_result` blocks)."
        )


def _cache_control_sites(body: Mapping[str, Any]) -> list[tuple[str, Any]]:
    sites: list[tuple[str, Any]] = []

    def visit(path: str, block: object) -> None:
        if isinstance(block, dict) and block.get("cache_control") is not None:
            sites.append((f"{path}.cache_control", block["cache_control"]))

    for i, block in enumerate(body.get("system") if isinstance(body.get("system"), list) else []):
        visit(f"system.{i}", block)
    for i, tool in enumerate(body.get("tools") if isinstance(body.get("tools"), list) else []):
        visit(f"tools.{i}", tool)
    for i, message in enumerate(body.get("messages") if isinstance(body.get("messages"), list) else []):
        for j, block in enumerate(_blocks(message)):
            visit(f"messages.{i}.content.{j}", block)
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                for k, inner in enumerate(block["content"]):
                    visit(f"messages.{i}.content.{j}.content.{k}", inner)
    return sites


def _check_cache_control(body: Mapping[str, Any], out: list[str]) -> None:
    sites = _cache_control_sites(body)
    for path, value in sites:
        if not isinstance(value, dict) or value.get("type") != "ephemeral":
            out.append(f"{path}.type: Input should be 'ephemeral'")
        elif "ttl" in value and value["ttl"] not in ("5m", "1h"):
            out.append(f"{path}.ttl: Input should be '5m' or '1h'")
    if len(sites) > MAX_CACHE_CONTROL_BLOCKS:
        out.append(
            f"A maximum of {MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided. Found {len(sites)}."
        )
