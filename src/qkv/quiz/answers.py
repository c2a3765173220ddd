"""Reading a student's answers.yaml: untrusted, so capped, safely parsed, and never a traceback.

Every problem becomes one line naming the file (by its name only: these lines go into feedback,
and the grader's folders are nobody's business) and, where it can, the line number.
"""

from __future__ import annotations

import codecs
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from qkv.errors import did_you_mean
from qkv.quiz import flat_yaml
from qkv.quiz.kinds import BadAnswer, examples, is_blank, parse, what


class NotSubmitted(BadAnswer):
    """There is no answers file at all: nothing was handed in, which is not a broken file."""


ANSWERS_FILE = "answers.yaml"
MAX_ANSWERS_BYTES = 64 * 1024  # a full answers file is about 2 KiB
# One answer's first line, as a hand may write it when the file as a whole is not YAML: `id: value`,
# `id:value` or `id = value`.
_ENTRY = re.compile(r"^([^\s#\-\[\]{}:=][^:=]*?)\s*[:=][ \t]*(.*)$")
_INDENT = re.compile(r"^[ \t]+")


@dataclass(frozen=True)
class Answers:
    """Answers text read from somewhere other than a file of its own (a notebook's answers cell).

    `text` is None when there is none to read, and `problem` then says why, in one line.
    """

    name: str  # how feedback names the source, e.g. "attention.ipynb (quiz answers cell)"
    text: str | None
    problem: str | None = None
    missing: bool = False  # nothing was handed in (rather than something unreadable)


@dataclass
class Sheet:
    """What could be read from one answers file."""

    name: str
    total: int  # questions in the quiz
    values: dict = field(
        default_factory=dict
    )  # question id -> canonical answer, None when unanswered
    problems: dict = field(default_factory=dict)  # question id -> why its answer cannot be scored
    notes: dict = field(
        default_factory=dict
    )  # question id -> lines about it (typos, answered twice)
    fatal: str | None = None  # why nothing in the file can be used
    missing: bool = False  # no answers were handed in at all

    def note(self, qid: str, line: str) -> None:
        self.notes.setdefault(qid, []).append(line)

    def lines(self) -> list[str]:
        """Every problem, one line each; empty when the file is well-formed."""
        if self.fatal:
            return [self.fatal]
        return [*self.problems.values(), *(line for lines in self.notes.values() for line in lines)]

    @property
    def answered(self) -> int:
        return sum(v is not None for v in self.values.values())


def _read_text(path: Path | Answers | None, name: str) -> str:
    """The file's text; raises BadAnswer with the one line to show when it cannot be used."""
    if isinstance(path, Answers):
        if path.text is None:
            raise (NotSubmitted if path.missing else BadAnswer)(
                path.problem or f"{name}: no quiz answers could be read"
            )
        if len(path.text.encode("utf-8")) > MAX_ANSWERS_BYTES:
            raise BadAnswer(
                f"{name}: larger than {MAX_ANSWERS_BYTES // 1024} KiB; the answers are a few lines"
            )
        return path.text
    if path is None:
        raise NotSubmitted(f"{name}: not submitted, so no quiz answers could be graded")
    path = Path(path)
    if path.is_symlink():  # could point at another student's answers or at the grader's files
        raise BadAnswer(f"{name}: is a symbolic link; submit the file itself")
    if not path.exists():
        raise NotSubmitted(f"{name}: not submitted (not found), so no quiz answers could be graded")
    if not path.is_file():  # a folder, or a pipe that would block the reader forever
        raise BadAnswer(f"{name}: not a regular file")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_ANSWERS_BYTES + 1)  # never more, however large the file is
    except OSError as e:
        raise BadAnswer(f"{name}: cannot be read ({e.strerror})") from None
    if len(raw) > MAX_ANSWERS_BYTES:
        raise BadAnswer(
            f"{name}: larger than {MAX_ANSWERS_BYTES // 1024} KiB; an answers file is a few lines"
        )
    return decoded(raw, name)


def decoded(raw: bytes, name: str) -> str:
    """The text of an answers file: UTF-8 (a byte-order mark from a Windows editor is fine), or UTF-16
    with its mark (what PowerShell's `>` writes), or else, when it is not UTF-8, Windows' own code page
    (an accent in a comment, saved by an old editor): the ids and answers are ASCII in every one."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise BadAnswer(
                f"{name}: not UTF-16 text, as its first bytes say; save it as UTF-8"
            ) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        try:
            return raw.decode("cp1252")
        except UnicodeDecodeError:
            raise BadAnswer(f"{name}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None


def read_ahead(source: Path | Answers | None) -> Answers | None:
    """The answers read now, with the same checks, to be graded later where this disk is not seen."""
    if source is None or isinstance(source, Answers):
        return source
    name = Path(source).name
    try:
        return Answers(name, _read_text(source, name))
    except BadAnswer as e:
        return Answers(name, None, str(e), missing=isinstance(e, NotSubmitted))


def _load_yaml(text: str, name: str) -> tuple[Any, dict[str, list[int]]]:
    """The parsed document and, per top-level key, the lines it appears on."""
    loader, flat = (
        None,
        flat_yaml.compose(text),
    )  # the usual flat file, without PyYAML's slow scanner
    try:
        node: yaml.Node | None
        if flat is not None:
            node, builder = flat
            data = builder.construct_document(node) if node is not None else None
        else:
            loader = yaml.SafeLoader(text)  # already reads the text: a control character fails here
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark else ""
        problem = getattr(e, "problem", None) or getattr(e, "reason", None) or str(e)
        raise BadAnswer(
            f"{name}: invalid YAML{at}: {' '.join(str(problem).split())[:80]}"
        ) from None
    except RecursionError:
        raise BadAnswer(f"{name}: invalid YAML: nested too deeply") from None
    except (
        ValueError
    ) as e:  # a scalar YAML accepts but Python cannot build, e.g. a 5000-digit number
        raise BadAnswer(f"{name}: invalid YAML: {' '.join(str(e).split())[:80]}") from None
    finally:
        if loader is not None:
            loader.dispose()
    lines: dict[str, list[int]] = {}
    if isinstance(node, yaml.MappingNode):
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode):
                lines.setdefault(key.value, []).append(key.start_mark.line + 1)
    return data, lines


def _one_by_one(
    text: str, name: str
) -> tuple[dict, dict[str, list[int]], dict[str, tuple[int, str]], list[int]]:
    """The answers of a file that is not YAML as a whole, each read on its own: (answers by id, the lines
    each id is on, per id the line and problem of an answer that is not YAML either, lines that are
    not `id: answer`). An answer is its `id: ...` line and the indented or `-` lines after it, leading
    tabs read as spaces; an `id:` line with nothing after it takes the plain line below as its answer
    (the answer typed on the next line)."""
    entries: list[tuple[int, str, list[str]]] = []
    stray: list[int] = []
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t-" and entries:  # goes on the answer above
            entries[-1][2].append(_INDENT.sub(lambda m: m[0].replace("\t", "  "), line))
            continue
        match = _ENTRY.match(line)
        if (
            match is None and entries and entries[-1][2] == ["answer: "]
        ):  # `id:`, then its answer on the next line
            entries[-1][2][0] += line.strip()
            continue
        if match is None:
            stray.append(number)
            continue
        entries.append((number, match[1], [f"answer: {match[2]}"]))
    data: dict[str, object] = {}
    lines: dict[str, list[int]] = {}
    broken: dict[str, tuple[int, str]] = {}
    for number, qid, body in entries:
        lines.setdefault(qid, []).append(number)
        try:
            value, _ = _load_yaml("\n".join(body) + "\n", name)
        except BadAnswer as e:
            broken[qid] = (number, re.sub(r" at line \d+", "", str(e).removeprefix(f"{name}: ")))
            data.pop(qid, None)
            continue
        data[qid] = value.get("answer") if isinstance(value, dict) else value
        broken.pop(qid, None)
    return data, lines, broken, stray


def answered(text: str) -> int | None:
    """How many ids of an answers text have an answer, without a quiz to check them against; None
    when the text is not a mapping of ids to answers."""
    try:
        data, _ = _load_yaml(text, ANSWERS_FILE)
    except BadAnswer:
        return None
    if data is None:
        return 0
    return sum(not is_blank(value) for value in data.values()) if isinstance(data, dict) else None


def _unwrapped(data, questions):
    """The answers as one mapping when they were written another way that says the same: a list of
    `- id: answer` items, or every answer under one heading (`answers:`) that is no question's id."""
    if (
        isinstance(data, list)
        and data
        and all(isinstance(item, dict) and len(item) == 1 for item in data)
    ):
        merged: dict = {}
        for item in data:
            merged.update(item)
        return merged
    if isinstance(data, dict) and len(data) == 1:
        ((key, inner),) = data.items()
        if (
            str(key) not in questions
            and isinstance(inner, dict)
            and any(str(k) in questions for k in inner)
        ):
            return inner
    return data


def read_answers(path: Path | Answers | None, quiz) -> Sheet:
    """Read an answers file (or answers already read, e.g. from a notebook) against a quiz.

    Never raises for anything in the answers.
    """
    name = (
        path.name
        if isinstance(path, Answers)
        else Path(path).name
        if path is not None
        else ANSWERS_FILE
    )
    questions = {q.id: q for q in quiz.questions}
    sheet = Sheet(name, len(questions))
    try:
        text = _read_text(path, name)
    except BadAnswer as e:
        sheet.fatal, sheet.missing = str(e), isinstance(e, NotSubmitted)
        return sheet
    try:
        data, key_lines = _load_yaml(text, name)
        data = _unwrapped(data, questions)
        whole = (
            None
            if data is None or isinstance(data, dict)
            else f"{name}: expected question ids with answers (like "
            f"{examples(quiz.questions, 1)}), got {what(data)}"
        )
    except BadAnswer as e:
        whole = str(e)
    broken: dict = {}
    if (
        whole is not None
    ):  # one slip of the hand (a tab, a bracket left open) costs that answer only
        data, key_lines, broken, stray = _one_by_one(text, name)
        if not data:  # not one answer to go on with: the file is unusable as it stands
            sheet.fatal = whole
            return sheet
        first = next(iter(questions))
        sheet.note(first, f"{whole}; each answer was read on its own instead.")
        if stray:
            more = f" and {len(stray) - 3} more" if len(stray) > 3 else ""
            sheet.note(
                first,
                f"{name}: line{'s' if len(stray) > 1 else ''} {', '.join(map(str, stray[:3]))}{more}: "
                "not `id: answer`; skipped.",
            )
    if data is None:  # an empty file: nothing answered
        data = {}
    for qid, (number, problem) in broken.items():
        if qid in questions:
            sheet.problems[qid] = f"{name}: line {number}: {qid}: {problem}"
        else:
            data.setdefault(qid, None)  # named below as an unknown id
    for key, value in data.items():
        qid = str(key)
        at = key_lines.get(qid, [])
        where = f"{name}: line {at[-1]}" if at else name
        if qid not in questions:
            # the note goes with the question it most likely meant, or the first one
            close = difflib.get_close_matches(qid, list(questions), n=1) or [next(iter(questions))]
            sheet.note(
                close[0], f"{where}: unknown question id {what(qid)}{did_you_mean(qid, questions)}."
            )
            continue
        if len(at) > 1:
            sheet.note(
                qid,
                f"{name}: {qid} is answered on lines {', '.join(map(str, at))}; the last one counts.",
            )
        q = questions[qid]
        try:
            sheet.values[qid] = parse(q.kind, value, q.letters, q.shape)
        except BadAnswer as e:
            sheet.problems[qid] = f"{where}: {qid}: {e}"
    return sheet
