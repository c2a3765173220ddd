"""`qkv validate`: prove the hidden suites on known submissions.

The reference must score 100 %, the stubs 0 %, and every catalogued mistake, spliced into the
reference, must lose points in its own part and be named in its feedback; it may cost nothing in
the other parts, except in the part that grades the whole chain (the content's CHAIN), which calls
the others. Answers that do no work (validate/fakes.py: trivial answers per function, the copied
release) must earn 0 in the parts they fake. Each is handed in by several students, who draw cases
of their own: a suite that catches a mistake only on some draws fails here. A failing validation
says which checks failed (or earned), with their messages, and any error of the grader.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from qkv.content import loader
from qkv.course import layout
from qkv.course.config import Assignment, Course
from qkv.grade import batch as grade_mod
from qkv.results import records as results
from qkv.shipped import cases as public_cases
from qkv.validate import fakes, synthetic

STUDENTS = 5  # students handing in each kind
FAKE_STUDENTS = 2  # students handing in each trivial answer (there are five per function)
COPIED = "copied_release"


@dataclass(frozen=True)
class Verdict:
    name: str
    ok: bool
    detail: str
    why: tuple[str, ...] = ()  # for a failing one: the checks that failed or earned, the errors

    def __str__(self) -> str:
        head = f"{'ok  ' if self.ok else 'FAIL'}  {self.name}: {self.detail}"
        return "\n".join([head, *(f"        {line}" for line in self.why)])


def _code_score(r: results.StudentResult, parts) -> tuple[float, float]:
    return sum(r.part_score(p) for p in parts), sum(r.part_max(p) for p in parts)


def validate(
    course: Course, assignment: Assignment, *, jobs: int | None = None, progress: bool = False
) -> list[Verdict]:
    """Prove the hidden suites on known submissions: the reference, the stubs, every mistake.

    Args:
        course: the course.
        assignment: the assignment.
        jobs: grading processes, or None for the default.
        progress: show a progress bar.

    Returns:
        One verdict per validation.
    """
    content = loader.load(course, assignment)
    parts = [p.id for p in assignment.parts]
    function_part = {p.function: p.id for p in assignment.parts}
    catalogue = [m for m in content.catalogue if m.part in function_part]
    kinds = ["honest_reference", "stub"] + [f"mistake_{m.id}" for m in catalogue]
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="qkv-validate-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        students = synthetic.write_class(content, subs, STUDENTS * len(kinds), kinds=kinds)
        faked = fakes.kinds(content.functions)
        students += _write_fakes(course, assignment, content, subs, faked)
        summary = grade_mod.grade(
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
            earned = kind == "stub"
            why = _why(handed_in[kind], parts, summary.errors, earned=earned) if missed else ()
            verdicts.append(Verdict(name, not missed, f"{got:g} / {full:g}" + _of(missed), why))
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
                    _why(handed_in[f"mistake_{m.id}"], parts, summary.errors) if failing else (),
                )
            )
        verdicts += _fake_verdicts(handed_in, faked, function_part, parts, summary.errors)
    return verdicts


def _write_fakes(course, assignment, content, subs: Path, faked: dict) -> list[str]:
    """The trivial answers (FAKE_STUDENTS students each) and the copied release (STUDENTS)."""
    source = content.reference_source
    cases = public_cases.build(  # what the release ships, released or not
        content,
        content.reference,
        rtol=course.tolerance.rtol,
        atol=course.tolerance.atol,
        module=layout.module_name(assignment),
    )
    sources = {kind: fakes.trivial(source, f, k) for kind, (f, k) in faked.items()}
    sources[COPIED] = fakes.copied_release(source, content.functions, cases)
    students = []
    for kind, text in sources.items():
        for i in range(STUDENTS if kind == COPIED else FAKE_STUDENTS):
            student = f"f{i:04d}_{kind}"
            (subs / student).mkdir(parents=True)
            (subs / student / layout.code_file(assignment)).write_text(text, encoding="utf-8")
            students.append(student)
    return students


def _fake_verdicts(handed_in, faked: dict, function_part: dict, parts, errors) -> list[Verdict]:
    """Each trivial answer earns 0 in its part; the copied release earns 0 in every part."""
    out = []
    for kind, (function, trivial) in faked.items():
        part = function_part[function]
        scores = [r.part_score(part) for r in handed_in[kind]]
        missed = sum(score > 0 for score in scores)
        top, full = max(scores), handed_in[kind][0].part_max(part)
        why = _why(handed_in[kind], [part], errors, earned=True) if missed else ()
        detail = f"{part} {top:g}/{full:g}" + _of(missed, len(scores))
        out.append(Verdict(f"trivial {function} {trivial}", not missed, detail, why))
    scores = [_code_score(r, parts) for r in handed_in[COPIED]]
    missed = sum(got > 0 for got, _ in scores)
    got, full = max(scores)
    why = _why(handed_in[COPIED], parts, errors, earned=True) if missed else ()
    out.append(Verdict("copied release", not missed, f"{got:g} / {full:g}" + _of(missed), why))
    return out


def _why(handed_in, parts, errors, *, earned: bool = False, most: int = 8) -> tuple[str, ...]:
    """The checks of `parts` that failed (or, with `earned`, that earned points) for the first
    student whose result shows it, with their messages, and the grader's errors for those students."""
    lines = []
    for r in handed_in:
        for t in r.tests:
            if t.part in parts and ((t.score > 0) if earned else (t.score < t.max_score)):
                said = f": {t.output}" if t.output else ""
                lines.append(f"{'earned' if earned else 'failed'} {t.name} ({r.student}){said}")
        if lines:
            break
    ids = {r.student for r in handed_in}
    lines += [f"grader error: {e}" for e in errors if any(f" for {s}:" in e for s in ids)]
    return tuple(lines[:most])


def _of(failing: int, students: int = STUDENTS) -> str:
    return f" (for {failing} of the {students} students who handed it in)" if failing else ""


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
