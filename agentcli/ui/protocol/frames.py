"""The frames a driving program sends on stdin, checked at the edge, and the control frames agentcli sends back.

Shapes follow the Agent SDK's control protocol: ``user`` messages, ``control_request`` (either way) answered by a
``control_response`` with the same ``request_id``, and ``control_cancel_request`` for a request nobody needs
answered any more.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

Message = dict[str, Any]


class _Frame(BaseModel):
    model_config = ConfigDict(extra="allow")


class UserContent(_Frame):
    role: Literal["user"]
    content: str | list[dict[str, Any]]


class UserFrame(_Frame):
    type: Literal["user"]
    message: UserContent
    session_id: str | None = None
    parent_tool_use_id: str | None = None
    uuid: str | None = None
    origin: dict[str, Any] | None = None


class ControlRequestFrame(_Frame):
    type: Literal["control_request"]
    request_id: str = Field(min_length=1)
    request: dict[str, Any]

    @property
    def subtype(self) -> str:
        return str(self.request.get("subtype", ""))


class ControlReply(_Frame):
    subtype: Literal["success", "error"]
    request_id: str
    response: dict[str, Any] | None = None
    error: str | None = None


class ControlResponseFrame(_Frame):
    type: Literal["control_response"]
    response: ControlReply


class ControlCancelFrame(_Frame):
    type: Literal["control_cancel_request"]
    request_id: str


class KeepAliveFrame(_Frame):
    type: Literal["keep_alive"]


InputFrame = UserFrame | ControlRequestFrame | ControlResponseFrame | ControlCancelFrame | KeepAliveFrame
_ADAPTER: TypeAdapter[InputFrame] = TypeAdapter(Annotated[InputFrame, Field(discriminator="type")])


class BadFrame(ValueError):
    """A line on stdin that is not one of the frames above; the message says what is wrong with it, and what could
    still be read says who waits for an answer: ``kind`` (its ``type``) and ``request_id``."""

    def __init__(self, message: str, kind: str | None = None, request_id: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.request_id = request_id


_KINDS = "user, control_request, control_response, control_cancel_request, keep_alive"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_TYPE_IN_TEXT = re.compile(r'"type"\s*:\s*"([a-z_]{1,40})"')
_REQUEST_ID_IN_TEXT = re.compile(r'"request_id"\s*:\s*"([^"\\]{1,200})"')


def parse_frame(line: str) -> tuple[InputFrame, bool]:
    """The frame on ``line``, and whether lone surrogates in it (``"\\ud800"``: valid JSON, but no text) had to be
    replaced with U+FFFD; raises :class:`BadFrame`."""
    try:
        return _ADAPTER.validate_json(line), False
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] != "json_invalid":
            raise _shape_error(first["msg"], _loaded(line)) from None
        problem = first["msg"]
    data = _loaded(line)
    if data is None:
        kind, request_id = _TYPE_IN_TEXT.search(line), _REQUEST_ID_IN_TEXT.search(line)
        raise BadFrame(
            f"not valid JSON ({problem})",
            kind.group(1) if kind else None,
            request_id.group(1) if request_id else None,
        )
    data = _well_formed(data)  # the strict parser refused it for its lone surrogates
    try:
        return _ADAPTER.validate_python(data), True
    except ValidationError as exc:
        raise _shape_error(exc.errors()[0]["msg"], data) from None


def _loaded(line: str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _shape_error(problem: str, data: Any) -> BadFrame:
    message = f"not a message agentcli reads (expected one of: {_KINDS}): {problem}"
    if not isinstance(data, dict):
        return BadFrame(message)
    kind = data.get("type")
    request_id = data.get("request_id")
    if kind == "control_response" and isinstance(data.get("response"), dict):
        request_id = data["response"].get("request_id")
    return BadFrame(
        message,
        kind if isinstance(kind, str) else None,
        request_id if isinstance(request_id, str) and request_id else None,
    )


def _well_formed(value: Any) -> Any:
    """``value`` with every lone surrogate replaced by U+FFFD (a paired one was joined by the JSON parser)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_well_formed(item) for item in value]
    if isinstance(value, dict):
        return {_well_formed(key): _well_formed(item) for key, item in value.items()}
    return value


def control_success(request_id: str, response: Message | None = None) -> Message:
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response or {}},
    }


def control_error(request_id: str, error: str) -> Message:
    return {"type": "control_response", "response": {"subtype": "error", "request_id": request_id, "error": error}}


def control_request(request_id: str, request: Message) -> Message:
    return {"type": "control_request", "request_id": request_id, "request": request}


def control_cancel(request_id: str) -> Message:
    return {"type": "control_cancel_request", "request_id": request_id}
