from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from agentcli.api.sse import SSEDecoder

EVENTS = [
    ("message_start", {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 1}}}),
    ("ping", {"type": "ping"}),
    (
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 'é 漢字 🎉 \\n "q"'}},
    ),
]


def _wire(crlf: bool = False) -> bytes:
    nl = "\r\n" if crlf else "\n"
    out = ""
    for name, data in EVENTS:
        out += f"event: {name}{nl}data: {json.dumps(data, ensure_ascii=False)}{nl}{nl}"
    return (": comment" + nl + out).encode()


def test_decodes_whole_stream():
    decoded = SSEDecoder().feed(_wire())
    assert [(name, json.loads(data)) for name, data in decoded] == EVENTS


def test_crlf_line_endings():
    decoded = SSEDecoder().feed(_wire(crlf=True))
    assert [json.loads(data) for _, data in decoded] == [data for _, data in EVENTS]


@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=60))
def test_any_chunking_gives_the_same_events(sizes):
    wire = _wire()
    decoder = SSEDecoder()
    out = []
    position = 0
    for size in sizes * 50:
        if position >= len(wire):
            break
        out.extend(decoder.feed(wire[position : position + size]))
        position += size
    out.extend(decoder.feed(wire[position:]))
    assert [json.loads(data) for _, data in out] == [data for _, data in EVENTS]


def test_multi_line_data_is_joined():
    decoded = SSEDecoder().feed(b'data: {"a":\ndata: 1}\n\n')
    assert json.loads(decoded[0][1]) == {"a": 1}
