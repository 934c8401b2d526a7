from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentcli.api.sse import SSEDecoder, iter_sse_json

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


def _text(index: int, text: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}


def _frames(*payloads: dict[str, Any]) -> bytes:
    return b"".join(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n".encode() for p in payloads)


def _decode(reads: list[bytes], *, merge_text: bool) -> list[dict[str, Any]]:
    async def source():
        for read in reads:
            yield read

    async def run() -> list[dict[str, Any]]:
        return [payload async for payload in iter_sse_json(source(), merge_text=merge_text)]

    return asyncio.run(run())


def test_text_deltas_read_together_are_merged_per_block_and_everything_else_keeps_its_place():
    stop = {"type": "content_block_stop", "index": 0}
    ping = {"type": "ping"}
    one_read = _frames(_text(0, "Hel"), _text(0, "lo"), ping, _text(0, "!"), stop, _text(1, "a"), _text(2, "b"))
    assert _decode([one_read], merge_text=True) == [
        _text(0, "Hello"),
        ping,
        _text(0, "!"),
        stop,
        _text(1, "a"),
        _text(2, "b"),
    ]
    assert len(_decode([one_read], merge_text=False)) == 7


def test_deltas_from_different_reads_stay_apart_so_text_shows_as_it_arrives():
    reads = [_frames(_text(0, "a"), _text(0, "b")), _frames(_text(0, "c"))]
    assert _decode(reads, merge_text=True) == [_text(0, "ab"), _text(0, "c")]


def _compact_frames(*payloads: dict[str, Any], ensure_ascii: bool = False) -> bytes:
    """Events as the Messages API writes them: compact JSON, the event name line first."""
    return b"".join(
        f"event: {p['type']}\ndata: {json.dumps(p, separators=(',', ':'), ensure_ascii=ensure_ascii)}\n\n".encode()
        for p in payloads
    )


def test_text_deltas_in_the_apis_compact_form_are_decoded_in_runs_with_the_same_result():
    """The fast path (one pattern match per delta, one JSON decode per run) gives what per-event parsing gives."""
    stop = {"type": "content_block_stop", "index": 0}
    texts = ['say "hi"', "\\", "tab\there", "é 漢字 🎉", "\n\n```py\n", "\\u0041 not an escape"]
    payloads = [_text(0, t) for t in texts] + [stop, _text(1, "x"), _text(1, "y")]
    for ensure_ascii in (False, True):
        wire = _compact_frames(*payloads, ensure_ascii=ensure_ascii)
        runs = SSEDecoder(text_runs=True).feed(wire)
        assert sum(1 for item in runs if not isinstance(item, tuple)) == 2  # two runs, the stop event between
        assert _decode([wire], merge_text=True) == [_text(0, "".join(texts)), stop, _text(1, "xy")]


def test_text_that_is_not_in_the_compact_form_falls_back_to_parsing_each_event():
    extra = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a", "x": "b"}}
    wire = _compact_frames(_text(0, "1"), extra, _text(0, "2")) + b'data: {"type": "content_block_delta", "index": 0, '
    wire += b'"delta": {"type": "text_delta", "text": "3"}}\n\n'
    merged = _decode([wire], merge_text=True)
    assert [p["delta"]["text"] for p in merged] == ["1a23"]


@given(
    st.lists(st.tuples(st.integers(min_value=0, max_value=2), st.text(max_size=12)), min_size=1, max_size=30),
    st.lists(st.integers(min_value=1, max_value=90), min_size=1, max_size=20),
    st.booleans(),
)
def test_runs_and_per_event_parsing_agree_for_any_text_and_any_chunking(deltas, sizes, ensure_ascii):
    payloads: list[dict[str, Any]] = []
    for index, text in deltas:
        payloads.append(_text(index, text))
        if text.startswith("a"):
            payloads.append({"type": "ping"})
    wire = _compact_frames(*payloads, ensure_ascii=ensure_ascii)
    reads = []
    position = 0
    for size in sizes * 40:
        reads.append(wire[position : position + size])
        position += size
    reads.append(wire[position:])

    def expanded(text_runs: bool) -> list[tuple[str, int, str]]:
        decoder = SSEDecoder(text_runs=text_runs)
        out: list[tuple[str, int, str]] = []
        for read in reads:
            for item in decoder.feed(read):
                payload = json.loads(item[1]) if isinstance(item, tuple) else item.payload()
                if payload["type"] == "ping":
                    out.append(("ping", -1, ""))
                elif out and out[-1][0] == "text" and out[-1][1] == payload["index"]:
                    out[-1] = ("text", payload["index"], out[-1][2] + payload["delta"]["text"])
                else:
                    out.append(("text", payload["index"], payload["delta"]["text"]))
        return out

    assert expanded(True) == expanded(False)
    assert "".join(t for kind, _, t in expanded(True) if kind == "text") == "".join(t for _, t in deltas)
