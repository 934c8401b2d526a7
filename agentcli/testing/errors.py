"""Error bodies in the real API's shape, so client error handling is exercised against what production sends."""

from __future__ import annotations

from typing import Any

_TYPE_BY_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

_MESSAGE_BY_TYPE = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "billing_error": "Billing error",
    "permission_error": "Your API key does not have permission to use the specified resource.",
    "not_found_error": "Not found",
    "timeout_error": "Request timed out",
    "request_too_large": "Request exceeds the maximum allowed number of bytes.",
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
    "api_error": "Internal server error",
    "overloaded_error": "Overloaded",
}

_STATUS_BY_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "timeout_error": 504,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def error_type_for_status(status: int) -> str:
    """The `error.type` the real API pairs with an HTTP status."""
    if status in _TYPE_BY_STATUS:
        return _TYPE_BY_STATUS[status]
    return "api_error" if status >= 500 else "invalid_request_error"


def status_for_error_type(error_type: str) -> int:
    """The HTTP status an `error.type` would carry if it were not sent inside a stream."""
    return _STATUS_BY_TYPE.get(error_type, 500)


def default_error_message(error_type: str) -> str:
    """A plausible message for an error type when the scenario gives none."""
    return _MESSAGE_BY_TYPE.get(error_type, "Internal server error")


def error_body(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    """`{"type": "error", "error": {...}, "request_id": ...}` exactly as the real API returns it."""
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": request_id}


def should_retry_header(status: int) -> str:
    """The real API's ``x-should-retry`` for an error status: worth retrying or not."""
    return "true" if status in (408, 409, 429) or status >= 500 else "false"
