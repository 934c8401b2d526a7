"""Errors the model client raises, independent of the SDK's exception classes.

The loop and the retry layer classify failures through these, so nothing above ``api/`` imports the SDK.
"""

from __future__ import annotations


class ApiError(Exception):
    """A failed model request. ``status`` is the HTTP status (None for transport failures)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        error_type: str | None = None,
        request_id: str | None = None,
        headers: dict[str, str] | None = None,
        partial: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.error_type = error_type
        self.request_id = request_id
        self.headers = headers or {}
        self.partial = partial
        """True when some of the response had already streamed before the failure."""

    @property
    def is_prompt_too_long(self) -> bool:
        return self.status == 400 and "prompt is too long" in self.message.lower()


class ApiConnectionError(ApiError):
    """The connection failed, dropped mid-stream, or timed out."""


class StreamEndedEarly(ApiConnectionError):
    """The stream closed before ``message_stop``."""


class AuthError(ApiError):
    """401/403: the credential was refused."""
