"""``WebFetch`` (Claude Code's name and fields): fetch a URL and answer a prompt about it with a small, fast model,
so a long page costs the conversation only the answer. Rules such as ``WebFetch(domain:docs.python.org)`` allow
or deny by host; the small model's usage is billed to the session."""

from __future__ import annotations

import os
from typing import Any

from pydantic import Field

from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.client import ModelClient, ModelRequest
from agentcli.api.errors import ApiError
from agentcli.events import NestedMessage
from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.web.fetch import MAX_MARKDOWN_CHARS, FetchError, FetchLimits, Redirect, fetch, host_of

DEFAULT_SMALL_MODEL = "claude-haiku-5-5"
ANSWER_MAX_TOKENS = 4_096


class WebFetchInput(ToolInput):
    url: str = Field(description="The URL to fetch content from")
    prompt: str = Field(description="What to find out from the page")


def small_model() -> str:
    """``ANTHROPIC_SMALL_FAST_MODEL`` (Claude Code's variable), else Haiku."""
    return os.environ.get("ANTHROPIC_SMALL_FAST_MODEL") or DEFAULT_SMALL_MODEL


class WebFetchTool(Tool):
    name = "WebFetch"
    description = (
        "Fetches a URL, converts the page to Markdown and answers the prompt from it with a small, fast model; "
        "you get that answer, not the whole page.\n"
        "- The URL must be complete; http is upgraded to https.\n"
        "- When the page redirects to another host you are told the new URL: fetch that one.\n"
        "- Read-only; pages are not cached between calls. For GitHub and other sites with a command-line client, "
        "prefer it through Bash."
    )
    input_model = WebFetchInput

    def __init__(self) -> None:
        self.client: ModelClient | None = None
        """The session's model client (set by the bootstrap); without it the page itself is returned."""
        self.limits = FetchLimits()

    def is_read_only(self, tool_input: Any) -> bool:
        return False  # it reaches the network: permission rules decide, by host

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        return True

    def domain(self, tool_input: Any) -> str:
        return host_of(tool_input.url)

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        try:
            page = await fetch(tool_input.url, self.limits)
        except FetchError as exc:
            raise ToolFailure(str(exc)) from None
        if isinstance(page, Redirect):
            text = (
                f"REDIRECT DETECTED: {page.url} redirects to another host ({page.status}).\n"
                f"Redirect URL: {page.location}\nTo read it, call WebFetch again with url set to the redirect "
                "URL and the same prompt."
            )
            return ToolOutput(text, structured={"url": page.url, "redirect": page.location, "code": page.status})
        call.report(f"Fetched {page.bytes:,} bytes from {page.url}" + (" (cut short)" if page.truncated else ""))
        structured = {"url": page.url, "code": page.status, "bytes": page.bytes, "truncated": page.truncated}
        text = page.markdown
        if page.truncated:
            text += (
                f"\n\n[Cut short: WebFetch reads at most {self.limits.max_bytes:,} bytes of a page and "
                f"{MAX_MARKDOWN_CHARS:,} characters of its text]"
            )
        if self.client is None:
            return ToolOutput(text, structured=structured)
        answer = await self._answer(text, tool_input.prompt, call)
        return ToolOutput(answer, structured={**structured, "result": answer})

    async def _answer(self, markdown: str, prompt: str, call: ToolCall) -> str:
        assert self.client is not None
        model = small_model()
        request = ModelRequest(
            model=model,
            max_tokens=ANSWER_MAX_TOKENS,
            messages=[
                {
                    "role": "user",
                    "content": (
                        f"Web page content:\n---\n{markdown}\n---\n\n{prompt}\n\n"
                        "Answer from the content above only, concisely. Quote sparingly and never more than a few "
                        "lines "
                        "verbatim; if the page does not say, say so."
                    ),
                }
            ],
            cache=False,  # asked once: a cache write would cost more and never be read
        )
        accumulator = MessageAccumulator()
        try:
            async for event in self.client.stream(request):
                accumulator.feed(event)
        except ApiError as exc:
            raise ToolFailure(f"The page was fetched but could not be read by {model}: {exc.message}") from None
        message = accumulator.message()
        call.nest(NestedMessage(None, (message.get("model") or model, message.get("usage") or {})))
        return "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text").strip()
