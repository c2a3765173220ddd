"""`qkv validate`: prove the hidden suites on known submissions.

The reference must score 100 %, the stubs 0 %, and every catalogued mistake, spliced into the
reference, must lose points in its own part and be named in its feedback; it may cost nothing in
the other parts, except in the part that grades the whole chain (the content's CHAIN), which calls
the others. Each is handed in by STUDENTS students, who draw cases of their own: a suite that catches a
mistake only on some draws (a check that needs a row not to sum to exactly 1.0, say) fails here.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from qkv.content import loader
from qkv.course.config import Assignment, Course
from qkv.grade import batch as grade_mod
from qkv.results import records as results
from qkv.validate import synthetic

STUDENTS = 5  # students handing in each kind


@dataclass(frozen=True)
class Verdict:
    name: str
    ok: bool
    detail: str

    def __str__(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.name}: {self.detail}"


def _code_score(r: results.StudentResult, parts) -> tuple[float, float]:
    return sum(r.part_score(p) for p in parts), sum(r.part_max(p) for p in parts)


def validate(
    course: Course, assignment: Assignment, *, jobs: int | None = None, progress: bool = False
) -> list[Verdict]:
    content = loader.load(course, assignment)
    parts = [p.id for p in assignment.parts]
    function_part = {p.function: p.id for p in assignment.parts}
    catalogue = [m for m in content.catalogue if m.part in function_part]
    kinds = ["honest_reference", "stub"] + [f"mistake_{m.id}" for m in catalogue]
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="qkv-validate-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        students = synthetic.write_class(content, subs, STUDENTS * len(kinds), kinds=kinds)
        grade_mod.grade(
            course,
            subs,
            assignment=assignment.id,
            out=out,
            jobs=jobs,
            progress=progress,
            pages=False,
            weak_sandbox=True,
        )  # the kit's own mutants, not student code
        handed_in = defaultdict(list)  # kind -> its students' results
        for student in students:
            handed_in[student.split("_", 1)[1]].append(results.read(results.path_for(out, student)))

        # the reference scores everything, the stubs nothing: told by the student furthest from it
        for name, kind, wanted, worst in (
            ("reference", "honest_reference", lambda full: full, min),
            ("stubs", "stub", lambda full: 0, max),
        ):
            scores = [_code_score(r, parts) for r in handed_in[kind]]
            missed = sum(got != wanted(full) for got, full in scores)
            got, full = worst(scores)
            verdicts.append(Verdict(name, not missed, f"{got:g} / {full:g}" + _of(missed)))
        for m in catalogue:
            part = function_part[m.part]
            callers = {
                function_part[f]
                for f in content.chain
                if f in function_part and m.part in content.catalogue.callees(f, [m.part])
            }
            judged = [_mistake(r, m, part, parts, callers) for r in handed_in[f"mistake_{m.id}"]]
            failing = [detail for ok, detail in judged if not ok]
            verdicts.append(
                Verdict(
                    f"mistake {m.id}",
                    not failing,
                    (failing or [judged[0][1]])[0] + _of(len(failing)),
                )
            )
    return verdicts


def _of(failing: int) -> str:
    return f" (for {failing} of the {STUDENTS} students who handed it in)" if failing else ""


def _mistake(r: results.StudentResult, m, part: str, parts, callers) -> tuple[bool, str]:
    """Whether one student's result shows the mistake as it should, and how it went."""
    lost = r.part_score(part) < r.part_max(part)
    others_full = all(
        r.part_score(p) == r.part_max(p) for p in parts if p != part and p not in callers
    )
    named = any(t.mistake == m.id and m.message in t.output for t in r.tests if t.part == part)
    return lost and named and others_full, (
        f"{part} {r.part_score(part):g}/{r.part_max(part):g}, {'named' if named else 'NOT named'} in feedback"
        + ("" if others_full else ", and parts other than the chain lost points too")
    )
