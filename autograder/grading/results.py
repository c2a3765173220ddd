"""Grading results as dataclasses with one stable JSON form: Gradescope's results.json.

A TestResult is one check (or one quiz question); a StudentResult is everything one student got.
`to_json()` writes results/<student>.json; `from_json()` reads it back (the gradebook, the HTML
feedback and the class report are all built from these files, so a resumed run needs nothing else).
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import layout
from autograder.grading.outcomes import Outcome

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

    def to_json(self) -> dict:
        if not (math.isfinite(self.score) and math.isfinite(self.max_score)):  # strict JSON: a failed check instead
            return TestResult(self.name, self.part, 0.0, self.max_score if math.isfinite(self.max_score) else 0.0,
                              "failed", "the check's result was not a finite number", None, self.visibility).to_json()
        return {"name": self.name, "score": self.score, "max_score": self.max_score,
                "status": "passed" if self.outcome == Outcome.PASSED else "failed",
                "output": self.output, "visibility": self.visibility, "tags": [self.part, self.outcome],
                "extra_data": {"part": self.part, "outcome": self.outcome, "mistake": self.mistake}}

    @classmethod
    def from_json(cls, d: dict) -> "TestResult":
        extra = d.get("extra_data", {})
        return cls(d["name"], extra["part"], float(d["score"]), float(d["max_score"]), extra["outcome"],
                   d.get("output", ""), extra.get("mistake"), d.get("visibility", "after_published"))


@dataclass(frozen=True)
class StudentResult:
    student: str
    tests: tuple[TestResult, ...]
    columns: tuple[str, ...]  # gradebook columns in order: the parts, then "quiz" when there is one
    status: str = "graded"  # "graded", or one line on why nothing could be graded
    output: str = ""  # the submission's own stdout/stderr, capped
    recorded: dict = field(default_factory=dict)  # plain values the suites recorded for the feedback page
    extra: dict = field(default_factory=dict)

    # Sums are rounded to 6 decimals: a part of 20 points shared by 7 checks must add up to 20.
    def part_score(self, part: str) -> float:
        return round(sum(t.score for t in self.tests if t.part == part), 6)

    def part_max(self, part: str) -> float:
        return round(sum(t.max_score for t in self.tests if t.part == part), 6)

    def has_part(self, part: str) -> bool:
        return any(t.part == part for t in self.tests)

    @property
    def total(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    @property
    def max_total(self) -> float:
        return round(sum(t.max_score for t in self.tests), 6)

    def to_json(self) -> dict:
        summary = "; ".join(f"{c} {_num(self.part_score(c))}/{_num(self.part_max(c))}" for c in self.columns)
        return {
            "score": self.total,
            "output": f"{self.status}. {summary}" if self.status != "graded" else summary,
            "visibility": self.tests[0].visibility if self.tests else "after_published",
            "stdout_visibility": "hidden",
            "tests": [t.to_json() for t in self.tests],
            "extra_data": {"student": self.student, "status": self.status, "columns": list(self.columns),
                           "parts": {c: self.part_score(c) for c in self.columns},
                           "submission_output": self.output, "recorded": {k: _finite_or_none(v) for k, v in self.recorded.items()},
                           **self.extra},
        }

    @classmethod
    def from_json(cls, d: dict) -> "StudentResult":
        extra = dict(d["extra_data"])
        known = ("student", "status", "columns", "parts", "submission_output", "recorded")
        return cls(extra["student"], tuple(TestResult.from_json(t) for t in d["tests"]), tuple(extra["columns"]),
                   extra["status"], extra.get("submission_output", ""), dict(extra.get("recorded") or {}),
                   {k: v for k, v in extra.items() if k not in known})


def _finite_or_none(value):
    """A tree of numbers with every number finite, or None: strict JSON has no NaN or Infinity."""
    def finite(v) -> bool:
        if isinstance(v, (list, tuple)):
            return all(finite(x) for x in v)
        return not isinstance(v, float) or math.isfinite(v)
    return value if finite(value) else None


def strict_json(value) -> str:
    """One-line strict JSON (sorted keys); a NaN or an infinity left anywhere becomes null."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(_nulls(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def _nulls(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nulls(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulls(v) for v in value]
    return value


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write via a temporary file and rename: a killed grader never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    os.replace(tmp, path)  # atomic: readers and reruns see the old file or the whole new one


RESULTS_DIR = layout.RESULTS_DIR


def path_for(out: Path, student: str, handin: str = "") -> Path:
    """Where a student's results.json lives under a grading output folder (with `handin`: the result of
    one of several hand-ins, handins/<student>/<handin>.json; results/<student>.json is the one that counts)."""
    if handin:
        return Path(out) / layout.HANDINS_DIR / student / f"{handin}.json"
    return Path(out) / RESULTS_DIR / f"{student}.json"


def write(result: StudentResult, out: Path, *, handin: str | None = None) -> str:
    """Write the result where it belongs: its own hand-in's file (the default), or with handin='' the
    student's results/<student>.json. Returns the text written (`decode` reads it back)."""
    path = path_for(out, result.student, result.extra.get("handin") or "" if handin is None else handin)
    # One line, sorted keys: json's fast encoder only runs without indent, and this is written per student.
    text = strict_json(result.to_json()) + "\n"
    atomic_write(path, text)
    return text


def decode(text: str) -> StudentResult:
    """A result from the text of its file."""
    return StudentResult.from_json(json.loads(text))


def read(path: Path) -> StudentResult:
    return decode(Path(path).read_text(encoding="utf-8"))
