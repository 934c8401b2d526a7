"""The API attempt loop: retry, back off, fall back — kept apart from the query loop's own iterations.

``decide`` is pure (error + attempt counts → what to do); ``stream_with_retry`` is the thin async shell that
sleeps, re-sends and tells the loop when partial output must be thrown away.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from agentcli.api.client import ModelClient, ModelRequest
from agentcli.api.errors import ApiConnectionError, ApiError, AuthError

DEFAULT_MAX_RETRIES = 10
MAX_529_ATTEMPTS = 3
BASE_DELAY_S = 0.5
MAX_DELAY_S = 32.0
MAX_RETRY_AFTER_S = 60.0
JITTER = 0.25


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = DEFAULT_MAX_RETRIES
    max_529_attempts: int = MAX_529_ATTEMPTS
    base_delay_s: float = BASE_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    max_retry_after_s: float = MAX_RETRY_AFTER_S
    fallback_models: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, fallback_models: tuple[str, ...] = (), max_retries: int | None = None) -> RetryPolicy:
        """Knobs: ``AGENTCLI_MAX_RETRIES``; ``AGENTCLI_RETRY_BASE_DELAY_MS`` / ``_MAX_DELAY_MS`` (for tests)."""

        def env_int(name: str) -> int | None:
            raw = os.environ.get(name)
            try:
                return int(raw) if raw not in (None, "") else None
            except ValueError:
                return None

        retries = env_int("AGENTCLI_MAX_RETRIES")
        base = env_int("AGENTCLI_RETRY_BASE_DELAY_MS")
        cap = env_int("AGENTCLI_RETRY_MAX_DELAY_MS")
        return cls(
            max_retries=max(
                0, retries if retries is not None else (max_retries if max_retries is not None else DEFAULT_MAX_RETRIES)
            ),
            base_delay_s=base / 1000 if base is not None else BASE_DELAY_S,
            max_delay_s=cap / 1000 if cap is not None else MAX_DELAY_S,
            fallback_models=fallback_models,
        )


def error_category(error: ApiError) -> str:
    """The ``error`` field of ``api_retry`` events (Claude Code's vocabulary)."""
    status = error.status
    if status == 529 or error.error_type == "overloaded_error":
        return "overloaded"
    if status == 429:
        return "rate_limit"
    if isinstance(error, AuthError) or status in (401, 403):
        return "authentication_failed"
    if isinstance(error, ApiConnectionError):
        return "connection_error"
    if status is not None and (status >= 500 or status in (408, 409)):
        return "server_error"  # 408 request timeout and 409 lock timeout are the server's own trouble
    if status is not None and 400 <= status < 500:
        return "invalid_request"
    return "unknown"


RETRYABLE_CATEGORIES = frozenset({"overloaded", "rate_limit", "server_error", "connection_error", "unknown"})


def retry_after_s(headers: dict[str, str], now: float | None = None) -> float | None:
    """The wait the API asked for: ``retry-after-ms``, else ``retry-after`` in seconds or as an HTTP date."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_s(retry_number: int, policy: RetryPolicy, rng: random.Random) -> float:
    """0.5 s doubling per retry to a 32 s cap, with ±25 % jitter (retry_number counts from 1)."""
    delay = min(policy.base_delay_s * 2.0 ** (retry_number - 1), policy.max_delay_s)
    return delay * (1 + rng.uniform(-JITTER, JITTER))


@dataclass(frozen=True)
class Decision:
    action: str  # "retry" | "fallback" | "fail"
    delay_s: float = 0.0


def should_retry(error: ApiError) -> bool:
    """The API's own ``x-should-retry`` header wins; otherwise the status decides, as in the SDK."""
    verdict = error.headers.get("x-should-retry")
    if verdict == "true":
        return True
    if verdict == "false":
        return False
    return error_category(error) in RETRYABLE_CATEGORIES


def decide(
    error: ApiError, retries: int, overloaded: int, policy: RetryPolicy, has_fallback: bool, rng: random.Random
) -> Decision:
    """What to do after ``error``: ``retries`` already made, ``overloaded`` 529s seen in a row (this one counted).

    A fallback model is a different request, not a retry: an overloaded model the API says not to retry, or one
    that stayed overloaded ``max_529_attempts`` times, hands over to the fallback when there is one.
    """
    overloaded_now = error_category(error) == "overloaded"
    if not should_retry(error):
        return Decision("fallback") if overloaded_now and has_fallback else Decision("fail")
    if overloaded_now and overloaded >= policy.max_529_attempts:
        return Decision("fallback" if has_fallback else "fail")
    if retries >= policy.max_retries:
        return Decision("fail")
    hinted = retry_after_s(error.headers)
    if hinted:
        return Decision("retry", min(hinted, policy.max_retry_after_s))
    return Decision("retry", backoff_s(retries + 1, policy, rng))


@dataclass(frozen=True, slots=True)
class Retrying:
    """Told to the loop before a retry; ``discard`` means output of the failed attempt was already passed on."""

    attempt: int
    max_retries: int
    delay_s: float
    error: ApiError
    discard: bool


@dataclass(frozen=True, slots=True)
class SwitchedModel:
    """The loop must use ``model`` for the rest of the turn (fallback after repeated overload)."""

    from_model: str
    model: str
    discard: bool


def strip_thinking(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of the history without thinking blocks (another model cannot verify their signatures)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if (
            message.get("role") == "assistant"
            and isinstance(content, list)
            and any(block.get("type") in ("thinking", "redacted_thinking") for block in content)
        ):
            kept = [block for block in content if block.get("type") not in ("thinking", "redacted_thinking")]
            if not kept:
                continue
            message = {**message, "content": kept}
        out.append(message)
    return out


@dataclass
class AttemptLoop:
    """One model call with retries. Holds the model for the rest of the turn once a fallback happened."""

    client: ModelClient
    policy: RetryPolicy
    sleep: Callable[[float], Any] = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)
    fallbacks_used: int = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[dict[str, Any] | Retrying | SwitchedModel]:
        retries = 0
        overloaded = 0
        while True:
            emitted = False
            try:
                async for event in self.client.stream(request):
                    emitted = True
                    yield event
                return
            except ApiError as error:
                if error_category(error) == "overloaded":
                    overloaded += 1
                else:
                    overloaded = 0
                remaining = self.policy.fallback_models[self.fallbacks_used :]
                decision = decide(error, retries, overloaded, self.policy, bool(remaining), self.rng)
                if decision.action == "fail":
                    raise
                if decision.action == "fallback":
                    self.fallbacks_used += 1
                    switched = SwitchedModel(request.model, remaining[0], emitted)
                    request = replace(
                        request, model=remaining[0], messages=strip_thinking(request.messages), thinking=None
                    )
                    overloaded = 0
                    yield switched
                    continue
                retries += 1
                yield Retrying(retries, self.policy.max_retries, decision.delay_s, error, emitted)
                await self.sleep(decision.delay_s)
