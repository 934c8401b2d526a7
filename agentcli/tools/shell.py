"""Understanding a shell command well enough to judge it: split into simple commands, find what runs.

Permission rules match each simple command on its own, so ``Bash(git *)`` never approves ``git status; rm -rf ~``.
The parser is deliberately conservative: control flow, function definitions and anything it cannot follow mark
the command ``complex`` (never approved automatically), while every command it can see, including those inside
``$(…)``, backticks, subshells and process substitutions, is still listed so deny rules apply to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_META = set(" \t\n;&|<>()")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_KEYWORDS_STRIPPED = {"!", "time", "then", "else", "do", "if", "elif", "while", "until", "{"}
_KEYWORDS_CLOSING = {"fi", "done", "esac", "}"}
_KEYWORDS_COMPLEX = {
    "if",
    "elif",
    "then",
    "else",
    "for",
    "while",
    "until",
    "do",
    "case",
    "select",
    "function",
    "coproc",
}


@dataclass
class Word:
    raw: str
    """The source text, quotes and all."""
    value: str
    """Quotes removed and escapes resolved; expansions stay as written."""
    expands: bool = False
    """Contains a parameter, command or arithmetic expansion that the shell fills in at run time."""
    globby: bool = False
    """Contains an unquoted glob character."""
    braces: bool = False
    """Contains an unquoted ``{`` (brace expansion may turn it into several words)."""


@dataclass
class Redirect:
    op: str
    target: Word | None
    fd: str = ""


@dataclass
class SimpleCommand:
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    @property
    def assignments(self) -> list[Word]:
        out = []
        for word in self.words:
            if not ASSIGNMENT.match(word.raw):
                break
            out.append(word)
        return out

    @property
    def argv(self) -> list[Word]:
        return self.words[len(self.assignments) :]

    @property
    def text(self) -> str:
        """The command as written, with whitespace between words normalised (what rules match against)."""
        parts = [word.raw for word in self.words]
        parts += [f"{r.fd}{r.op}{r.target.raw if r.target else ''}" for r in self.redirects]
        return " ".join(parts)

    @property
    def plain(self) -> str:
        """The command with quotes removed: ``'rm' -rf x`` reads ``rm -rf x``."""
        return " ".join(word.value for word in self.words)

    def writes_files(self) -> list[Word | None]:
        """Targets of output redirections (None for a target the parser could not read); /dev/null excluded."""
        out: list[Word | None] = []
        for redirect in self.redirects:
            if redirect.op in (">&", "<&", "<", "<<", "<<-", "<<<"):
                if (
                    redirect.op == ">&"
                    and redirect.target is not None
                    and not redirect.target.value.isdigit()
                    and redirect.target.value != "-"
                ):
                    out.append(redirect.target)
                continue
            if redirect.target is not None and redirect.target.value == "/dev/null" and not redirect.target.expands:
                continue
            out.append(redirect.target)
        return out


@dataclass
class ParsedCommand:
    commands: list[SimpleCommand]
    complex: bool = False
    error: str | None = None

    @property
    def analysable(self) -> bool:
        return self.error is None and not self.complex


class ShellSyntaxError(Exception):
    pass


class _Parser:
    def __init__(self, text: str, depth: int = 0) -> None:
        self.text = text
        self.pos = 0
        self.depth = depth
        self.commands: list[SimpleCommand] = []
        self.nested: list[SimpleCommand] = []
        self.complex = False
        self.parens = 0
        self.heredocs: list[tuple[str, bool, bool]] = []

    # -- top level ------------------------------------------------------------------------------------------

    def parse(self) -> None:  # noqa: C901
        if self.depth > 20:
            raise ShellSyntaxError("nested too deeply")
        current = SimpleCommand()
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t":
                self.pos += 1
            elif char == "\\" and text.startswith("\\\n", self.pos):
                self.pos += 2
            elif char == "#" and (self.pos == 0 or text[self.pos - 1] in _META):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end == -1 else end
            elif char == "\n":
                current = self._end(current)
                self.pos += 1
                self._read_heredoc_bodies()
            elif char in ";&|":
                if text.startswith("&>", self.pos):
                    self._redirect(current, "")
                    continue
                current = self._end(current)
                self.pos += 2 if text[self.pos : self.pos + 2] in ("&&", "||", "|&", ";;") else 1
            elif char == "(":
                if text.startswith("()", self.pos) or current.words:
                    self.complex = True  # a function definition, or syntax we do not follow
                self.parens += 1
                current = self._end(current)
                self.pos += 1
            elif char == ")":
                self.parens -= 1
                if self.parens < 0:
                    raise ShellSyntaxError("unbalanced ')'")
                current = self._end(current)
                self.pos += 1
            elif char in "<>":
                self._redirect(current, "")
            else:
                word = self._word()
                if word.raw.isdigit() and self.pos < len(text) and text[self.pos] in "<>":
                    self._redirect(current, word.raw)
                else:
                    current.words.append(word)
        self._end(current)
        if self.parens:
            raise ShellSyntaxError("unbalanced '('")
        if self.heredocs:
            raise ShellSyntaxError("here-document without a body")

    def _end(self, command: SimpleCommand) -> SimpleCommand:
        while command.words and not command.assignments and command.words[0].raw in _KEYWORDS_STRIPPED:
            if command.words[0].raw in _KEYWORDS_COMPLEX:
                self.complex = True
            command.words.pop(0)
        if command.words and command.words[0].raw in _KEYWORDS_COMPLEX | {"in", "esac"}:
            self.complex = True
            command.words.pop(0)
        if len(command.words) == 1 and command.words[0].raw in _KEYWORDS_CLOSING:
            command.words.clear()
        if command.words and command.words[-1].raw == "}" and len(command.words) > 1:
            command.words.pop()
        if command.words or command.redirects:
            self.commands.append(command)
        return SimpleCommand()

    # -- redirections and here-documents --------------------------------------------------------------------

    def _redirect(self, command: SimpleCommand, fd: str) -> None:
        text = self.text
        for op in ("&>>", "<<<", "<<-", "&>", ">>", ">|", "<>", ">&", "<&", "<<", "<(", ">(", "<", ">"):
            if text.startswith(op, self.pos):
                break
        if op in ("<(", ">("):
            command.words.append(self._word())
            return
        self.pos += len(op)
        while self.pos < len(text) and text[self.pos] in " \t":
            self.pos += 1
        if self.pos >= len(text) or text[self.pos] in _META:
            raise ShellSyntaxError(f"missing target after {op}")
        target = self._word()
        if op in ("<<", "<<-"):
            quoted = target.raw != target.value or "\\" in target.raw
            self.heredocs.append((target.value, quoted, op == "<<-"))
        command.redirects.append(Redirect(op, target, fd))

    def _read_heredoc_bodies(self) -> None:
        while self.heredocs:
            delimiter, quoted, strip_tabs = self.heredocs.pop(0)
            lines_seen = False
            while self.pos < len(self.text):
                end = self.text.find("\n", self.pos)
                line = self.text[self.pos : len(self.text) if end == -1 else end]
                self.pos = len(self.text) if end == -1 else end + 1
                check = line.lstrip("\t") if strip_tabs else line
                if check == delimiter:
                    lines_seen = True
                    break
                if not quoted and ("$(" in line or "`" in line):
                    self.complex = True  # command substitution inside the document
            if not lines_seen:
                raise ShellSyntaxError(f"here-document not terminated by {delimiter!r}")

    # -- words --------------------------------------------------------------------------------------------------

    def _word(self) -> Word:  # noqa: C901
        text = self.text
        start = self.pos
        value: list[str] = []
        expands = globby = braces = False
        while self.pos < len(text):
            char = text[self.pos]
            if char in _META and not (char in "<>" and text.startswith("(", self.pos + 1)):
                break
            if char == "'":
                end = text.find("'", self.pos + 1)
                if end == -1:
                    raise ShellSyntaxError("unterminated single quote")
                value.append(text[self.pos + 1 : end])
                self.pos = end + 1
            elif char == '"':
                self.pos += 1
                expands |= self._double_quoted(value)
            elif char == "\\":
                if self.pos + 1 < len(text):
                    if text[self.pos + 1] != "\n":
                        value.append(text[self.pos + 1])
                    self.pos += 2
                else:
                    self.pos += 1
            elif char == "$":
                if text.startswith("$'", self.pos):
                    end = self._ansi_c_end(self.pos + 2)
                    value.append(text[self.pos : end])
                    self.pos = end
                    expands = True
                else:
                    value.append(self._dollar())
                    expands = True
            elif char == "`":
                value.append(self._backtick())
                expands = True
            elif char in "<>":  # process substitution
                self.pos += 1
                value.append(char + "(" + self._balanced_substitution() + ")")
                expands = True
            else:
                if char in "*?[":
                    globby = True
                braces |= char == "{"
                value.append(char)
                self.pos += 1
        return Word(text[start : self.pos], "".join(value), expands, globby, braces)

    def _double_quoted(self, value: list[str]) -> bool:
        text = self.text
        expands = False
        while self.pos < len(text):
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return expands
            if char == "\\" and self.pos + 1 < len(text):
                following = text[self.pos + 1]
                if following in '$`"\\':
                    value.append(following)
                elif following != "\n":
                    value.append("\\" + following)
                self.pos += 2
            elif (
                char == "$"
                and self.pos + 1 < len(text)
                and (text[self.pos + 1].isalnum() or text[self.pos + 1] in "_{(@*#?$!-")
            ):
                value.append(self._dollar())
                expands = True
            elif char == "`":
                value.append(self._backtick())
                expands = True
            else:
                value.append(char)
                self.pos += 1
        raise ShellSyntaxError("unterminated double quote")

    def _ansi_c_end(self, pos: int) -> int:
        while pos < len(self.text):
            if self.text[pos] == "\\":
                pos += 2
                continue
            if self.text[pos] == "'":
                return pos + 1
            pos += 1
        raise ShellSyntaxError("unterminated $'...' quote")

    def _dollar(self) -> str:
        text = self.text
        start = self.pos
        if text.startswith("$((", self.pos):
            self.pos += 1
            inner = self._balanced_substitution()
            if "$(" in inner or "`" in inner:
                self.complex = True
            return text[start : self.pos]
        if text.startswith("$(", self.pos):
            self.pos += 1
            self._balanced_substitution(parse=True)
            return text[start : self.pos]
        if text.startswith("${", self.pos):
            end = self._matching(self.pos + 1, "{", "}")
            inner = text[self.pos + 2 : end]
            if "$(" in inner or "`" in inner:
                self.complex = True
            self.pos = end + 1
            return text[start : self.pos]
        self.pos += 1
        if self.pos < len(text) and (text[self.pos] in "@*#?$!-0123456789"):
            self.pos += 1
        else:
            while self.pos < len(text) and (text[self.pos].isalnum() or text[self.pos] == "_"):
                self.pos += 1
        return text[start : self.pos]

    def _backtick(self) -> str:
        text = self.text
        start = self.pos
        pos = self.pos + 1
        inner: list[str] = []
        while pos < len(text) and text[pos] != "`":
            if text[pos] == "\\" and pos + 1 < len(text):
                inner.append(text[pos + 1] if text[pos + 1] in "`$\\" else text[pos : pos + 2])
                pos += 2
                continue
            inner.append(text[pos])
            pos += 1
        if pos >= len(text):
            raise ShellSyntaxError("unterminated backtick")
        self.pos = pos + 1
        self._nested("".join(inner))
        return text[start : self.pos]

    def _balanced_substitution(self, parse: bool = True) -> str:
        """At ``(``: consume up to the matching ``)``; the inside is parsed as commands of its own."""
        end = self._matching(self.pos, "(", ")")
        inner = self.text[self.pos + 1 : end]
        self.pos = end + 1
        if parse:
            self._nested(inner)
        return inner

    def _matching(self, pos: int, opening: str, closing: str) -> int:
        """Index of the bracket closing the one at ``pos``, skipping quoted text."""
        depth = 0
        text = self.text
        while pos < len(text):
            char = text[pos]
            if char == "\\":
                pos += 2
                continue
            if char == "'" and opening == "(":
                end = text.find("'", pos + 1)
                if end == -1:
                    raise ShellSyntaxError("unterminated single quote")
                pos = end + 1
                continue
            if char == '"':
                pos += 1
                while pos < len(text) and text[pos] != '"':
                    pos += 2 if text[pos] == "\\" else 1
                pos += 1
                continue
            if char == opening:
                depth += 1
            elif char == closing:
                depth -= 1
                if depth == 0:
                    return pos
            pos += 1
        raise ShellSyntaxError(f"unbalanced '{opening}'")

    def _nested(self, inner: str) -> None:
        parser = _Parser(inner, self.depth + 1)
        parser.parse()
        self.complex |= parser.complex
        self.nested.extend(parser.commands)
        self.nested.extend(parser.nested)


def parse_command(text: str) -> ParsedCommand:
    """Every simple command in ``text`` (top level first, then those inside substitutions)."""
    parser = _Parser(text)
    try:
        parser.parse()
    except ShellSyntaxError as exc:
        return ParsedCommand(parser.commands + parser.nested, complex=True, error=str(exc))
    return ParsedCommand(parser.commands + parser.nested, complex=parser.complex)
