"""The frames a driving program sends on stdin, checked at the edge, and the control frames agentcli sends back.

Shapes follow the Agent SDK's control protocol: ``user`` messages, ``control_request`` (either way) answered by a
``control_response`` with the same ``request_id``, and ``control_cancel_request`` for a request nobody needs
answered any more.
"""

from __future__ import annotations

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
    """A line on stdin that is not one of the frames above; the message says what is wrong with it."""


def parse_frame(line: str) -> InputFrame:
    try:
        return _ADAPTER.validate_json(line)
    except ValidationError as exc:
        kinds = "user, control_request, control_response, control_cancel_request, keep_alive"
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise BadFrame(f"not valid JSON ({first['msg']})") from None
        raise BadFrame(f"not a message agentcli reads (expected one of: {kinds}): {first['msg']}") from None


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
