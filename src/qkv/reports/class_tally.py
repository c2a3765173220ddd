"""The class's numbers, gathered in one pass over its students: what report.html and the terminal
summary show.

A Tally reads one Brief at a time, in student order, and keeps only what the report shows: sums and
the scores nearest each maximum, 8 bytes per student for the median, the students each listing
names (misconceptions, problems, late work), and the students table's rows on disk. So the memory
of the pass does not grow with the class, but for those listings.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from dataclasses import dataclass

from qkv.course import deadlines
from qkv.reports.pages import default_points
from qkv.results import on_disk
from qkv.results.outcomes import Outcome, label
from qkv.results.records import StudentResult

# Outcomes the instructor should hear about: the submission, not the student's maths, went wrong
# (or the grader did).
PROBLEM_OUTCOMES = tuple(o.value for o in Outcome if o.is_problem)
FULL = 1e-9  # a score this close to the maximum is full marks (sums of float weights)


@dataclass(frozen=True)
class ColumnStats:
    column: str
    max: float
    mean: float
    full_marks: float  # fraction of all students with every point of the column


@dataclass(frozen=True)
class Brief:
    """What the class report needs of one student's result: a few hundred bytes (the full results
    are read one at a time)."""

    student: str
    columns: tuple[str, ...]
    status: str
    total: float
    scores: dict  # column -> points
    maxes: dict  # column -> most points, for the columns the results hold
    mistakes: tuple[str, ...]  # catalogue ids named in the feedback
    troubles: tuple[tuple[str, str], ...]  # (outcome, part) of checks that did not run to the end
    submitted_at: str = ""
    credit: float = 100.0  # what the late policy grants, percent
    final: float = 0.0
    adjustments: tuple[
        tuple[str, float, str], ...
    ] = ()  # (part, change, comment) made by the grader

    @classmethod
    def of(cls, r: StudentResult, assignment=None) -> Brief:
        parts = {t.part for t in r.tests}
        troubles = dict.fromkeys(
            (t.outcome, t.part)
            for t in r.tests
            if t.outcome in PROBLEM_OUTCOMES or t.outcome == Outcome.NOT_SUBMITTED
        )
        submitted = r.extra.get("submitted_at") or ""
        credit = (
            deadlines.credit(assignment, r.student, submitted or None)
            if assignment
            else deadlines.FULL_CREDIT
        )
        return cls(
            r.student,
            r.columns,
            r.status,
            r.total,
            {c: r.part_score(c) for c in r.columns},
            {c: r.part_max(c) for c in parts},
            tuple(sorted({t.mistake for t in r.tests if t.mistake})),
            tuple(troubles),
            submitted,
            credit,
            deadlines.final(r.total, credit),
            tuple((t.part, t.score, t.output) for t in r.tests if t.outcome == Outcome.ADJUSTED),
        )

    def part_score(self, column: str) -> float:
        return self.scores.get(column, 0.0)

    def part_max(self, column: str) -> float:
        return self.maxes.get(column, 0.0)

    def has_part(self, column: str) -> bool:
        return column in self.maxes


class _Column:
    """One gradebook column's numbers. Which scores are full marks depends on the column's maximum,
    known only once every brief is in; but it is never below the highest maximum seen so far (the
    floor), so only scores within FULL of the floor are kept, counted by value (a few values)."""

    def __init__(self, floor: float = float("-inf")):
        self.sum = 0.0
        self.scored = 0  # briefs with a score in this column (the others have 0)
        self.floor = floor
        self.near: dict[float, int] = {}  # score -> students, for scores at least floor - FULL
        self.most = float("-inf")  # the most points, of the briefs whose results hold the part
        self.held = 0  # such briefs

    def at_least(self, floor: float) -> None:
        if floor > self.floor:
            self.floor = floor
            self.near = {s: k for s, k in self.near.items() if s >= floor - FULL}

    def add(self, score: float) -> None:
        self.sum += score
        self.scored += 1
        if score >= self.floor - FULL:
            self.near[score] = self.near.get(score, 0) + 1


@dataclass(frozen=True)
class Row:
    """A student's line in the report's table of students."""

    student: str
    scores: dict
    total: float
    credit: float
    final: float
    status: str


class Tally:
    """The class's numbers, from each Brief in turn (`add`); read them once every brief is in."""

    def __init__(self, assignment, *, rows_in=None):
        """With `rows_in` (a folder), each student's Row is kept on disk there for the students
        table: close the tally when done with it."""
        self.assignment = assignment
        self.n = 0
        self._columns: dict[str, _Column] = {}  # in the order the briefs name them
        self.totals = array("d")  # for the median, the histogram and full marks
        self._who: dict[str, list[str]] = defaultdict(list)  # mistake id -> students, in order
        self.problems: list[tuple[str, str]] = []  # (student, what went wrong)
        self.not_submitted: list[tuple[str, str]] = []  # (student, parts nothing was handed in for)
        self.late: list[
            tuple[str, str, float, float, float]
        ] = []  # (student, handed in, total, credit, final)
        self.adjustments: list[tuple[str, str, float, str]] = []  # (student, part, change, comment)
        self._rows = on_disk.Spool(rows_in) if rows_in is not None else None

    @classmethod
    def of(cls, assignment, briefs) -> Tally:
        tally = cls(assignment)
        for brief in briefs:
            tally.add(brief)
        return tally

    def add(self, r: Brief, student: str | None = None) -> None:
        """Add a student's brief; `student`, their id as the caller holds it (kept, not the brief's copy)."""
        student = r.student if student is None else student
        self.n += 1
        for c in r.columns:
            if (
                c not in self._columns
            ):  # the briefs before this one lack it: its maximum is course.yaml's
                self._columns[c] = _Column(
                    default_points(self.assignment, c) if self.n > 1 else float("-inf")
                )
        for c, column in self._columns.items():
            if r.has_part(c):
                column.most = max(column.most, r.part_max(c))
                column.held += 1
                column.at_least(r.part_max(c))
            else:
                column.at_least(default_points(self.assignment, c))
            if c in r.scores:
                column.add(r.scores[c])
        self.totals.append(r.total)
        for mistake in r.mistakes:
            self._who[mistake].append(student)
        self._trouble(r, student)
        if r.credit < deadlines.FULL_CREDIT:
            self.late.append((student, r.submitted_at, r.total, r.credit, r.final))
        self.adjustments += [
            (student, part, change, comment) for part, change, comment in r.adjustments
        ]
        if self._rows is not None:
            self._rows.append(
                Row(
                    student,
                    {c: r.part_score(c) for c in r.columns},
                    r.total,
                    r.credit,
                    r.final,
                    r.status,
                )
            )

    def _trouble(self, r: Brief, student: str) -> None:
        if r.status != "graded":  # its checks all say the same thing
            self.problems.append((student, r.status))
        else:
            by_outcome: dict[str, list[str]] = {}
            for outcome, part in r.troubles:
                if outcome != Outcome.NOT_SUBMITTED:  # listed apart: see not_submitted
                    by_outcome.setdefault(outcome, []).append(part)
            if by_outcome:
                self.problems.append(
                    (
                        student,
                        "; ".join(f"{label(o)} ({', '.join(p)})" for o, p in by_outcome.items()),
                    )
                )
        if any(o == Outcome.NOT_SUBMITTED for o, _ in r.troubles):
            self.not_submitted.append(
                (student, ", ".join(p for o, p in r.troubles if o == Outcome.NOT_SUBMITTED))
            )

    def column_stats(self) -> list[ColumnStats]:
        """Per column, then a last "total" row: the maximum, the mean score and the full-marks share."""
        n = self.n or 1
        stats = []
        for c, column in self._columns.items():
            most = max(
                column.most,
                default_points(self.assignment, c) if column.held < self.n else float("-inf"),
            )
            full = sum(k for score, k in column.near.items() if score >= most - FULL)
            full += (
                self.n - column.scored if most - FULL <= 0.0 else 0
            )  # those without a score have 0
            stats.append(ColumnStats(c, most, column.sum / n, full / n if most > 0 else 0.0))
        most = sum(s.max for s in stats)
        full = sum(t >= most - FULL for t in self.totals) if most > 0 else 0
        stats.append(ColumnStats("total", most, sum(self.totals) / n, full / n))
        return stats

    def misconceptions(self) -> list[tuple[str, list[str]]]:
        """(catalogue id, students whose feedback named it), most common first."""
        return sorted(
            ((m, sorted(set(who))) for m, who in self._who.items()),
            key=lambda item: (-len(item[1]), item[0]),
        )

    def rows(self):
        """Each student's Row, in the order they were added (once every brief is in)."""
        return iter(self._rows)

    def close(self) -> None:
        if self._rows is not None:
            self._rows.close()

    def __enter__(self) -> Tally:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
