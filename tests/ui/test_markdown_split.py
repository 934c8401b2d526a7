"""Splitting Markdown into top-level blocks: the line scan's cuts are always ones a full parse agrees with."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.ui.tui.markdown_split import parser, split_blocks, sure_cuts

PIECES = [
    "# Heading\n",
    "A paragraph line\nand its second line.\n",
    "Title\n===\n",
    "- a\n- b\n",
    "1. one\n2. two\n",
    "- loose\n\n- list\n",
    "- item\n\n  continued inside the item\n",
    "+ plus\n",
    "2024. a year that reads as a list item\n",
    "*emphasis* opening a paragraph\n",
    "1. Step\n   ```sh\n   run\n\nfirst column inside a list item's fence\n   ```\n",
    "```py\nx = 1\n\ny = 2\n```\n",
    "```\n\n# not a heading\n\n```\n",
    "~~~\n```\n\nstill code\n~~~\n",
    "````md\n```\n\nquoted fence\n```\n````\n",
    "``` not`a fence\n",
    "```\nclosed by an indented fence\n\ntext\n   ```\n",
    "```\nnever closed\n\nmore code\n",
    "<!--\n\nhidden\n\n-->\n",
    "<div>\n\ntext\n</div>\n",
    "<script>\n\nx\n\n</script>\n",
    "<b>inline</b> HTML opening a paragraph\n",
    "text\n</div>\n```\nan HTML block's line, not a fence\n",
    "> quote\n\n> more quote\n",
    "> lazy\ncontinuation\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "---\n",
    "***\n",
    "- - -\n",
    "    indented code\n\n    more code\n",
    "\tcode after a tab\n",
    " \n",
    "plain\n",
]
SEPARATORS = ["", "\n", "\n\n", "\n \n", "\n\n\n", "\t\n"]


def block_starts(text: str) -> set[int]:
    """Offsets where a full CommonMark parse begins a top-level block."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    tokens = parser().parse(text)
    return {offsets[tok.map[0]] for tok in tokens if tok.level == 0 and tok.map is not None and tok.nesting >= 0}


documents = st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SEPARATORS)), min_size=1, max_size=14).map(
    lambda parts: "".join(piece + separator for piece, separator in parts)
)


@settings(max_examples=400)
@given(documents, st.data())
def test_every_cut_is_a_block_start_now_and_after_more_text_arrives(document, data):
    full = block_starts(document)
    assert set(sure_cuts(document)) <= full
    prefix = document[: data.draw(st.integers(min_value=0, max_value=len(document)))]
    assert set(sure_cuts(prefix)) <= full


@settings(max_examples=200)
@given(documents)
def test_split_keeps_every_character_and_cuts_only_where_a_full_parse_does(document):
    done, tail = split_blocks(document)
    assert "".join(done) + tail == document
    boundaries = set()
    position = 0
    for piece in done:
        assert piece.strip(), "no piece is only blank lines"
        position += len(piece)
        boundaries.add(position)
    assert boundaries <= block_starts(document)


def test_a_long_answer_is_cut_by_the_scan_and_only_its_end_is_parsed():
    section = "## Part\n\nProse with `code`.\n\n- a point\n- another\n\n```python\nx = 1\n\ny = 2\n```\n\n"
    text = section * 50 + "The last paragraph, still open"
    cuts = sure_cuts(text)
    # before the prose, the fence and the next heading; never before a list item; not before an unfinished line
    assert len(cuts) == 50 * 3 - 1
    assert text[cuts[-1] :] == "```python\nx = 1\n\ny = 2\n```\n\nThe last paragraph, still open"
    done, tail = split_blocks(text)
    assert tail == "The last paragraph, still open" and len(done) == 50 * 3


def test_what_the_scan_cannot_be_sure_of_stops_it():
    assert sure_cuts("Intro\n\n<!--\n\nhidden\n\n-->\n\nafter\n") == [7]
    assert sure_cuts("a\n</div>\n```\nx\n\ny\n") == []
    assert sure_cuts("1. Step\n   ```\n   x\n\ny\n   ```\n\nz\n") == []
    assert sure_cuts("a\n\n1") == []  # the line may still become a list item
