"""Markdown source → terminal lines, one top-level block at a time.

Streaming speed depends on doing as little as possible per update. Textual's ``Markdown`` widget mounts a widget
per block, so every append re-arranges every block already shown, and a growing code fence is re-highlighted in
full on each append; measured, that tops out near 1,500 deltas/s and drops to ~80 inside a long fence. Here a
message is split into top-level blocks: finished blocks are rendered once into cached lines, only the last (open)
block is parsed and rendered again, an open fence renders just its new lines, and highlighting happens once, when
the fence closes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from textual.content import Content, Span
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual

from agentcli.ui.tui.markdown_split import open_fence, parser, warm_parser

if TYPE_CHECKING:
    from markdown_it.token import Token
    from textual.widget import Widget

_BULLETS = ("• ", "◦ ", "▪ ")


@dataclass
class InlineBuilder:
    """Collects text and style spans for one run of inline Markdown."""

    parts: list[str] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    position: int = 0

    def add(self, text: str, style: str | Style | None = None) -> None:
        if not text:
            return
        self.parts.append(text)
        end = self.position + len(text)
        if style:
            self.spans.append(Span(self.position, end, style))
        self.position = end

    def content(self) -> Content:
        return Content("".join(self.parts), self.spans)


_INLINE_STYLES = {"strong": "bold", "em": "italic", "s": "strike"}


def inline_content(children: Sequence[Token] | None) -> Content:
    """One paragraph's inline tokens as styled text."""
    out = InlineBuilder()
    opened: list[tuple[str, int, Any]] = []
    for tok in children or ():
        kind = tok.type
        if kind == "text":
            out.add(tok.content)
        elif kind == "code_inline":
            out.add(tok.content, ".md--code-inline")
        elif kind == "softbreak" or kind == "hardbreak":
            out.add("\n")
        elif kind == "image":
            out.add(f"[image: {tok.content or tok.attrs.get('src', '')}]", ".md--link")
        elif kind in ("html_inline", "html_block"):
            out.add(tok.content)
        elif kind.endswith("_open"):
            opened.append((kind[:-5], out.position, tok.attrs.get("href")))
        elif kind.endswith("_close") and opened:
            name, start, href = opened.pop()
            if name == "link":
                out.spans.append(Span(start, out.position, ".md--link"))
                if href:
                    out.spans.append(Span(start, out.position, Style(link=str(href))))
            elif name in _INLINE_STYLES:
                out.spans.append(Span(start, out.position, _INLINE_STYLES[name]))
    return out.content()


def _block_end(tokens: Sequence[Token], index: int) -> int:
    """The index just past the block that starts at ``index``."""
    tok = tokens[index]
    if tok.nesting != 1:
        return index + 1
    depth = 0
    for position in range(index, len(tokens)):
        depth += tokens[position].nesting
        if depth == 0:
            return position + 1
    return len(tokens)


class BlockRenderer:
    """Renders Markdown blocks into strips for one widget (whose component classes hold the colours)."""

    def __init__(self, widget: Widget, highlight: Callable[[str, str | None], Content] | None = None) -> None:
        self.widget = widget
        self._highlight = highlight or _highlight
        self.highlight_limit: int | None = None
        """Fences of more lines than this are left plain and listed in ``left_plain`` (to highlight elsewhere)."""
        self.left_plain: list[tuple[str, str | None]] = []
        self.highlighted: dict[tuple[str, str | None], Content] = {}
        """Highlighting done elsewhere, by (code, language): used instead of highlighting again."""

    # -- entry points -------------------------------------------------------------------------------------------

    def render(self, source: str, width: int, *, final: bool) -> list[Strip]:
        """Lines for one top-level block's source (``final``: the block won't grow, so highlight code)."""
        width = max(width, 8)
        fence = open_fence(source)
        if fence is not None:
            code = source.lstrip("\n").partition("\n")[2]
            return self.code_lines(code, fence[1], width, highlight=final)
        tokens = parser().parse(source)
        return self.blocks(tokens, 0, len(tokens), width, tight=False, final=final)

    def code_lines(self, code: str, language: str | None, width: int, *, highlight: bool) -> list[Strip]:
        """A fenced code block: highlighted once it is closed, plain while it still grows.

        Rendered in one pass over the whole block (no wrapping machinery per line): long lines are folded.
        """
        code = code.removesuffix("\n").expandtabs(4)
        lang = (language or "").split()[0] if language else ""
        content = self._highlighted(code, lang or None) if highlight else Content(code)
        widget = self.widget
        base = widget.visual_style + widget.get_visual_style("md--fence")
        fill = base.rich_style
        lines: list[list[Segment]] = [[]]
        for text, style in content.render(base, "", widget._get_style):
            rich = style.rich_style
            for index, part in enumerate(text.split("\n")):
                if index:
                    lines.append([])
                if part:
                    lines[-1].append(Segment(part, rich))
        inner = max(width - 2, 1)
        indent = Segment("  ", fill)
        out: list[Strip] = []
        for segments in lines:
            strip = Strip(segments)
            length = strip.cell_length
            pieces = [strip] if length <= inner else [strip.crop(i, i + inner) for i in range(0, length, inner)]
            out.extend(Strip([indent, *piece]).extend_cell_length(width, fill) for piece in pieces)
        return out

    def _highlighted(self, code: str, language: str | None) -> Content:
        key = (code, language)
        ready = self.highlighted.pop(key, None)
        if ready is not None:
            return ready
        if self.highlight_limit is not None and code.count("\n") >= self.highlight_limit:
            self.left_plain.append(key)
            return Content(code)
        return self._highlight(code, language)

    def plain_code_line(self, line: str, width: int) -> list[Strip]:
        """One line of a fence that is still streaming (no highlighting until it closes)."""
        return self.code_lines(line, None, width, highlight=False)

    def strips(self, content: Content, width: int, *, wrap: bool = True) -> list[Strip]:
        widget = self.widget
        if not wrap:
            lines = content.fold(max(width, 1))
            return [s for line in lines for s in Visual.to_strips(widget, line, max(width, 1), 1, widget.visual_style)]
        return Visual.to_strips(widget, content, max(width, 1), None, widget.visual_style)

    # -- blocks ---------------------------------------------------------------------------------------------------

    def blocks(
        self, tokens: Sequence[Token], start: int, end: int, width: int, *, tight: bool, final: bool
    ) -> list[Strip]:
        out: list[Strip] = []
        index = start
        while index < end:
            stop = _block_end(tokens, index)
            rendered = self.block(tokens, index, stop, width, final=final)
            if rendered:
                if out and not tight:
                    out.append(Strip.blank(0))
                out.extend(rendered)
            index = stop
        return out

    def block(self, tokens: Sequence[Token], start: int, end: int, width: int, *, final: bool) -> list[Strip]:
        tok = tokens[start]
        kind = tok.type
        if kind == "paragraph_open":
            return self.strips(inline_content(tokens[start + 1].children), width)
        if kind == "heading_open":
            level = min(int(tok.tag[1:]), 3)
            text = inline_content(tokens[start + 1].children)
            return self.strips(text.stylize(f".md--h{level}"), width)
        if kind in ("fence", "code_block"):
            return self.code_lines(tok.content, tok.info or None, width, highlight=final)
        if kind in ("bullet_list_open", "ordered_list_open"):
            return self.list_block(tokens, start, end, width, final=final)
        if kind == "blockquote_open":
            inner = self.blocks(tokens, start + 1, end - 1, width - 2, tight=False, final=final)
            bar = Segment("▌ ", self.widget.get_visual_style("md--quote").rich_style)
            return [Strip([bar, *strip]) for strip in inner]
        if kind == "hr":
            return self.strips(Content("─" * width).stylize(".md--hr"), width)
        if kind == "table_open":
            return self.table(tokens, start, end, width)
        if kind == "html_block":
            return self.strips(Content(tok.content.rstrip("\n")), width)
        if kind == "inline":
            return self.strips(inline_content(tok.children), width)
        return []

    def list_block(self, tokens: Sequence[Token], start: int, end: int, width: int, *, final: bool) -> list[Strip]:
        opener = tokens[start]
        ordered = opener.type == "ordered_list_open"
        depth = sum(1 for t in tokens[:start] if t.type in ("bullet_list_open", "ordered_list_open")) - sum(
            1 for t in tokens[:start] if t.type in ("bullet_list_close", "ordered_list_close")
        )
        number = int(opener.attrs.get("start", 1) or 1) if ordered else 0
        items: list[tuple[int, int]] = []
        index = start + 1
        while index < end - 1:
            stop = _block_end(tokens, index)
            if tokens[index].type == "list_item_open":
                items.append((index, stop))
            index = stop
        tight = any(t.type == "paragraph_open" and t.hidden for t in tokens[start:end])
        marks = [f"{number + n}. " for n in range(len(items))] if ordered else [_BULLETS[depth % 3]] * len(items)
        indent = max((len(mark) for mark in marks), default=2)
        bullet_style = self.widget.get_visual_style("md--bullet").rich_style
        out: list[Strip] = []
        for (item_start, item_end), mark in zip(items, marks, strict=True):
            inner = self.blocks(tokens, item_start + 1, item_end - 1, width - indent, tight=tight, final=final)
            if not inner:
                inner = [Strip.blank(0)]
            if out and not tight:
                out.append(Strip.blank(0))
            for row, strip in enumerate(inner):
                lead = Segment(mark.rjust(indent) if row == 0 else " " * indent, bullet_style if row == 0 else None)
                out.append(Strip([lead, *strip]))
        return out

    def table(self, tokens: Sequence[Token], start: int, end: int, width: int) -> list[Strip]:
        rows: list[tuple[bool, list[Content]]] = []
        header = False
        for tok_index in range(start, end):
            tok = tokens[tok_index]
            if tok.type == "thead_open":
                header = True
            elif tok.type == "tbody_open":
                header = False
            elif tok.type == "tr_open":
                rows.append((header, []))
            elif tok.type == "inline" and rows:
                rows[-1][1].append(inline_content(tok.children))
        if not rows:
            return []
        columns = max(len(cells) for _, cells in rows)
        widths = [max((cells[c].cell_length for _, cells in rows if c < len(cells)), default=0) for c in range(columns)]
        if sum(widths) + 3 * (columns - 1) > width:
            return [s for _, cells in rows for s in self.strips(Content(" │ ").join(cells), width)]
        out: list[Strip] = []
        border = ".md--table-border"
        for is_header, cells in rows:
            padded = [
                (cells[c] if c < len(cells) else Content("")).pad_right(
                    widths[c] - (cells[c].cell_length if c < len(cells) else 0)
                )
                for c in range(columns)
            ]
            line = (
                Content(" │ ")
                .stylize(border)
                .join(cell.stylize(".md--table-header") if is_header else cell for cell in padded)
            )
            out.extend(self.strips(line, width))
            if is_header:
                rule = Content("─┼─").join(Content("─" * w) for w in widths).stylize(border)
                out.extend(self.strips(rule, width))
        return out


_WARMED: set[str] = set()
COMMON_LANGUAGE = "python"
_MARKDOWN = "<markdown parsers>"
"""In ``_WARMED`` once the parsers are being built (whatever languages were warmed before)."""


def warm_highlighter(language: str) -> None:
    """Build a language's highlighter in a background thread, once per process: the first use of a lexer compiles
    its rules (≈ 0.1 s for Python), which would otherwise stall the screen when the first fence of it closes."""
    language = language.split()[0].lower() if language.strip() else ""
    if not language or language in _WARMED:
        return
    _WARMED.add(language)
    threading.Thread(target=_highlight, args=("x", language), name=f"warm-{language}", daemon=True).start()


def warm_markdown() -> None:
    """Build the Markdown parsers and the most common language's highlighter in a background thread, once: the
    first answer would otherwise pay for them (≈ 0.15 s) on the interface's loop."""
    if _MARKDOWN in _WARMED:
        return
    _WARMED.update((_MARKDOWN, COMMON_LANGUAGE))
    threading.Thread(target=_warm_markdown, name="warm-markdown", daemon=True).start()


def _warm_markdown() -> None:
    warm_parser()
    _highlight("x", COMMON_LANGUAGE)


def highlight_all(fences: list[tuple[str, str | None]]) -> dict[tuple[str, str | None], Content]:
    """Highlight code blocks (in a worker thread: pygments takes ≈ 0.2 ms a line, the screen must not wait)."""
    return {key: _highlight(*key) for key in fences}


def _highlight(code: str, language: str | None) -> Content:
    from textual.highlight import highlight

    try:
        return highlight(code, language=language or None)
    except Exception:  # an unknown lexer name or a lexer bug must never break the transcript
        return Content(code)
