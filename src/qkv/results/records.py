"""Grading results as dataclasses with one stable JSON form: Gradescope's results.json.

A TestResult is one check (or one quiz question); a StudentResult is everything one student got.
`to_json()` writes results/<student>.json; `from_json()` reads it back (the gradebook, the HTML
feedback and the class report are all built from these files, so a resumed run needs nothing else).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, Any

from qkv.course import layout
from qkv.results.outcomes import Outcome


@dataclass(frozen=True)
class TestResult:
    name: str  # "<part>: <what the check checks>"
    part: str  # part id from course.yaml, or "quiz"
    score: float
    max_score: float
    outcome: str  # an Outcome's value (grading/outcomes.py)
    output: str = ""  # the teaching message; empty when passed
    mistake: str | None = None  # catalogue id when the output matched a known mistake
    visibility: str = "after_published"

    def to_json(self) -> dict[str, Any]:
        if not (
            math.isfinite(self.score) and math.isfinite(self.max_score)
        ):  # strict JSON: a failed check instead
            return TestResult(
                self.name,
                self.part,
                0.0,
                self.max_score if math.isfinite(self.max_score) else 0.0,
                "failed",
                "the check's result was not a finite number",
                None,
                self.visibility,
            ).to_json()
        return {
            "name": self.name,
            "score": self.score,
            "max_score": self.max_score,
            "status": "passed" if self.outcome == Outcome.PASSED else "failed",
            "output": self.output,
            "visibility": self.visibility,
            "tags": [self.part, self.outcome],
            "extra_data": {"part": self.part, "outcome": self.outcome, "mistake": self.mistake},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TestResult:
        extra = d.get("extra_data", {})
        return cls(
            d["name"],
            extra["part"],
            float(d["score"]),
            float(d["max_score"]),
            extra["outcome"],
            d.get("output", ""),
            extra.get("mistake"),
            d.get("visibility", "after_published"),
        )


@dataclass(frozen=True)
class StudentResult:
    student: str
    tests: tuple[TestResult, ...]
    columns: tuple[str, ...]  # gradebook columns in order: the parts, then "quiz" when there is one
    status: str = "graded"  # "graded", or one line on why nothing could be graded
    output: str = ""  # the submission's own stdout/stderr, capped
    # Plain values the suites recorded for the feedback page.
    recorded: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    # Sums are rounded to 6 decimals: a part of 20 points shared by 7 checks must add up to 20.
    @cached_property
    def _sums(self) -> dict[str, tuple[float, float]]:
        """Each part's points and most points, summed once: pages, rows and briefs ask for them often."""
        by_part: dict[str, list[TestResult]] = {}
        for t in self.tests:
            by_part.setdefault(t.part, []).append(t)
        return {
            part: (round(sum(t.score for t in tests), 6), round(sum(t.max_score for t in tests), 6))
            for part, tests in by_part.items()
        }

    def part_score(self, part: str) -> float:
        return self._sums.get(part, (0, 0))[0]

    def part_max(self, part: str) -> float:
        return self._sums.get(part, (0, 0))[1]

    def has_part(self, part: str) -> bool:
        return part in self._sums

    @property
    def total(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    @property
    def max_total(self) -> float:
        return round(sum(t.max_score for t in self.tests), 6)

    def to_json(self) -> dict[str, Any]:
        return self._json([t.to_json() for t in self.tests])

    def _json(self, tests: list[dict[str, Any]]) -> dict[str, Any]:
        parts = {c: self.part_score(c) for c in self.columns}
        summary = "; ".join(f"{c} {_num(parts[c])}/{_num(self.part_max(c))}" for c in self.columns)
        return {
            "score": self.total,
            "output": f"{self.status}. {summary}" if self.status != "graded" else summary,
            "visibility": self.tests[0].visibility if self.tests else "after_published",
            "stdout_visibility": "hidden",
            "tests": tests,
            "extra_data": {
                "student": self.student,
                "status": self.status,
                "columns": list(self.columns),
                "parts": parts,
                "submission_output": self.output,
                "recorded": {k: _finite_or_none(v) for k, v in self.recorded.items()},
                **self.extra,
            },
        }

    @classmethod
    def from_json(
        cls, d: dict[str, Any], tests: tuple[TestResult, ...] | None = None
    ) -> StudentResult:
        """The result `d` holds; `tests`, when given, are its checks already read from d["tests"]."""
        extra = dict(d["extra_data"])
        known = ("student", "status", "columns", "parts", "submission_output", "recorded")
        if tests is None:
            tests = tuple(TestResult.from_json(t) for t in d["tests"])
        return cls(
            extra["student"],
            tests,
            tuple(extra["columns"]),
            extra["status"],
            extra.get("submission_output", ""),
            dict(extra.get("recorded") or {}),
            {k: v for k, v in extra.items() if k not in known},
        )


def _finite_or_none(value: Any) -> Any:
    """A tree of numbers with every number finite, or None: strict JSON has no NaN or Infinity."""

    def finite(v: Any) -> bool:
        if isinstance(v, (list, tuple)):
            return all(finite(x) for x in v)
        return not isinstance(v, float) or math.isfinite(v)

    return value if finite(value) else None


def strict_json(value: object) -> str:
    """One-line strict JSON (sorted keys); a NaN or an infinity left anywhere becomes null."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(_nulls(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def _nulls(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nulls(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulls(v) for v in value]
    return value


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC  # as open(path, "wb")


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write via a temporary file and rename: a killed grader never leaves half a file.

    Written with os calls (a grading process writes two files per student), and the folder is made
    only when it is missing, not checked before every file."""
    folder, name = os.path.split(os.fspath(path))
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, _CREATE, 0o666)
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(tmp, _CREATE, 0o666)
    try:
        view = memoryview(data.encode("utf-8") if isinstance(data, str) else data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, path)  # atomic: readers and reruns see the old file or the whole new one


@contextlib.contextmanager
def atomic_file(path: Path) -> Iterator[IO[str]]:
    """A text file written in pieces, as atomic_write writes one string: it replaces `path` only
    once the block ends without an error (else it is removed)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            yield f
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


RESULTS_DIR = layout.RESULTS_DIR


def path_for(out: Path, student: str, handin: str = "") -> Path:
    """Where a student's results.json lives under a grading output folder.

    Args:
        out: the output folder.
        student: the student's id.
        handin: one of several hand-ins (handins/<student>/<handin>.json), or "" for
            results/<student>.json, the one that counts.

    Returns:
        The file's path.
    """
    if handin:
        return Path(out) / layout.HANDINS_DIR / student / f"{handin}.json"
    return Path(out) / RESULTS_DIR / f"{student}.json"


# -- the text of a results file, from its checks' texts ---------------------------------------------

_CHECKS: dict[
    Any, Any
] = {}  # a check (and how its numbers are written) -> (its JSON text, the check read back from it)
CHECKS_KEPT = 256  # the checks most students share (passed ones, common mistakes, blank answers) come back soon


def _check(t: TestResult) -> tuple[str, TestResult]:
    """A check's JSON text as its result's file holds it, and the check as reading that text gives it."""
    # 1 and 1.0, or 0.0 and -0.0, are equal but written differently: the key tells them apart
    key = (
        t,
        type(t.score),
        type(t.max_score),
        math.copysign(1.0, t.score),
        math.copysign(1.0, t.max_score),
    )
    got = _CHECKS.get(key)
    if got is None:
        text = json.dumps(t.to_json(), sort_keys=True, separators=(",", ":"), allow_nan=False)
        got = (text, TestResult.from_json(json.loads(text)))
        if len(_CHECKS) >= CHECKS_KEPT:
            _CHECKS.clear()
        _CHECKS[key] = got
    return got


class Written:
    """The text of a result's file, and the result as reading that text back gives it."""

    def __init__(self, text: str, head: str | None = None, checks: tuple[TestResult, ...] = ()):
        self.text, self._head, self._checks = text, head, checks

    def read_back(self) -> StudentResult:
        """What `decode(self.text)` gives, without decoding the checks again."""
        if self._head is None:
            return decode(self.text)
        return StudentResult.from_json(json.loads(self._head), self._checks)


def encode(result: StudentResult) -> Written:
    """The result's file text: strict_json(result.to_json()) and a newline, byte for byte.

    Most of a result is its checks, and most checks are the same for many students, so each check's
    text is made once and set into the text of the rest (written with an empty list of checks)."""
    head = result._json([])
    try:
        text = json.dumps(head, sort_keys=True, separators=(",", ":"), allow_nan=False)
        checks = [_check(t) for t in result.tests]
    except (
        ValueError
    ):  # a NaN or an infinity (in the sums, the extras or a check): strict_json writes it as null
        return Written(strict_json(result.to_json()) + "\n")
    tail = f',"visibility":{json.dumps(head["visibility"])}}}'
    if not text.endswith('"tests":[]' + tail):  # the checks are not where this expects them
        return Written(strict_json(result.to_json()) + "\n")
    cut = len(text) - len(tail) - 1
    return Written(
        text[:cut] + ",".join(c[0] for c in checks) + text[cut:] + "\n",
        text,
        tuple(c[1] for c in checks),
    )


def write(result: StudentResult, out: Path, *, handin: str | None = None) -> Written:
    """Write the result where it belongs, atomically.

    Args:
        result: the student's result.
        out: the output folder.
        handin: None for its own hand-in's file (the default), "" for results/<student>.json.

    Returns:
        What was written (Written.read_back reads it back).
    """
    path = path_for(
        out, result.student, result.extra.get("handin") or "" if handin is None else handin
    )
    written = encode(result)
    atomic_write(path, written.text)
    return written


def decode(text: str) -> StudentResult:
    """A result from the text of its file."""
    return StudentResult.from_json(json.loads(text))


def read(path: Path) -> StudentResult:
    return decode(Path(path).read_text(encoding="utf-8"))
