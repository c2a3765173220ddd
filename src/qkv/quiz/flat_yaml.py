"""The usual answers file, composed without PyYAML's scanner: flat lines of `question-id: value`.

PyYAML's scanner is pure Python and reads a 2 KiB answers file character by character, in about
2 ms: more than the rest of grading a quiz. The files students hand in are nearly always flat:
comments, blank lines and `id: value` lines at the left margin, each value a plain word (`b`,
`0.48`, `true`) or a flow list of words (`[a, c]`, `[[1, 2], [3, 4]]`), or nothing. `compose`
builds the YAML node of exactly that form and gives None for anything else (quotes, indentation,
anchors, tabs, a line it does not know), which PyYAML then reads in full, errors and all.

More in docs/internals/grading.md.
"""

from __future__ import annotations

import re

import yaml
from yaml.error import Mark
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

# A plain word as YAML scans it in both block and flow context: no indicator, space or ':' in it,
# and no '-' alone (a block sequence entry).
_WORD = r"(?:[A-Za-z0-9_.+][A-Za-z0-9_.+-]*|-[A-Za-z0-9_.+][A-Za-z0-9_.+-]*)"
_LIST = rf"\[ *(?:{_WORD}(?: *, *{_WORD})*)? *\]"
_ITEM = rf"(?:{_WORD}|{_LIST})"
_VALUE = rf"(?:{_WORD}|\[ *(?:{_ITEM}(?: *, *{_ITEM})*)? *\])"
_KEY = r"[A-Za-z0-9_][A-Za-z0-9_-]*"
_KEY_LINE = re.compile(rf"({_KEY}):(?: +({_VALUE}))? *(?: #.*)?")
_QUIET_LINE = re.compile(r" *(?:#.*)?")  # blank, or a comment
_TOKEN = re.compile(rf"\[|\]|{_WORD}")
_BREAKS = re.compile(
    "[\r\x85\u2028\u2029]"
)  # line breaks other than \n: PyYAML counts lines by them too
MAX_KEY = 1000  # PyYAML finds no key longer than 1024 characters


def _mark(line: int) -> Mark:
    """A mark at `line`, with no name or buffer, as PyYAML makes one for a string it reads."""
    return Mark(None, 0, line, 0, None, None)  # type: ignore[arg-type]  # PyYAML's own None


class _Builder(yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """The constructor and resolver of yaml.SafeLoader, without its reader, scanner and parser."""

    def __init__(self):
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)

    def scalar(self, word: str, line: int) -> ScalarNode:
        mark = _mark(line)
        return ScalarNode(self.resolve(ScalarNode, word, (True, False)), word, mark, mark)

    def sequence(self, tokens: list[str], line: int) -> SequenceNode:
        """The flow list whose '[' was just taken from `tokens` (consumed up to its ']')."""
        mark = _mark(line)
        items = []
        while (token := tokens.pop()) != "]":
            items.append(self.sequence(tokens, line) if token == "[" else self.scalar(token, line))
        return SequenceNode(self.DEFAULT_SEQUENCE_TAG, items, mark, mark, flow_style=True)


def compose(text: str) -> tuple[MappingNode | None, _Builder] | None:
    """(the document's node, None for a file of only comments and blank lines; the builder that
    constructs it), or None when the text is not of the flat form."""
    text = text.replace("\r\n", "\n")
    if _BREAKS.search(text) or yaml.reader.Reader.NON_PRINTABLE.search(text):
        return None
    builder, pairs = _Builder(), []
    for line, content in enumerate(text.split("\n")):
        m = _KEY_LINE.fullmatch(content)
        if m is None:
            if _QUIET_LINE.fullmatch(content):
                continue
            return None
        key, value = m.group(1), m.group(2) or ""
        if len(key) > MAX_KEY:
            return None
        if value.startswith("["):
            tokens = _TOKEN.findall(value)[::-1]  # popped from the end: first token last
            node: ScalarNode | SequenceNode = builder.sequence(tokens[:-1], line)
        else:
            node = builder.scalar(value, line)
        pairs.append((builder.scalar(key, line), node))
    if not pairs:
        return None, builder
    mark = _mark(pairs[0][0].start_mark.line)
    return MappingNode(builder.DEFAULT_MAPPING_TAG, pairs, mark, mark, flow_style=False), builder
