"""`qkv validate`: prove the hidden suites on known submissions.

The reference must score 100 %, the stubs 0 %, and every catalogued mistake, spliced into the
reference, must lose points in its own part and be named in its feedback; it may cost nothing in
the other parts, except in the part that grades the whole chain (the content's CHAIN), which calls
the others.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.content import loader
from autograder.course.config import Assignment, Course
from autograder.grading import batch as grade_mod
from autograder.grading import results
from autograder.grading import synthetic


@dataclass(frozen=True)
class Verdict:
    name: str
    ok: bool
    detail: str

    def __str__(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.name}: {self.detail}"


def _code_score(r: results.StudentResult, parts) -> tuple[float, float]:
    return sum(r.part_score(p) for p in parts), sum(r.part_max(p) for p in parts)


def validate(course: Course, assignment: Assignment, *, jobs: int | None = None, progress: bool = False) -> list[Verdict]:
    content = loader.load(course, assignment)
    parts = [p.id for p in assignment.parts]
    function_part = {p.function: p.id for p in assignment.parts}
    catalogue = [m for m in content.catalogue if m.part in function_part]
    kinds = ["honest_reference", "stub"] + [f"mistake_{m.id}" for m in catalogue]
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="qkv-validate-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        synthetic.write_class(content, subs, kinds=kinds)
        grade_mod.grade(course, subs, assignment=assignment.id, out=out, jobs=jobs, progress=progress, pages=False,
                        weak_sandbox=True)  # the kit's own mutants, not student code
        read = lambda kind: results.read(results.path_for(out, kind))  # noqa: E731

        got, full = _code_score(read("honest_reference"), parts)
        verdicts.append(Verdict("reference", got == full, f"{got:g} / {full:g}"))
        got, full = _code_score(read("stub"), parts)
        verdicts.append(Verdict("stubs", got == 0, f"{got:g} / {full:g}"))
        for m in catalogue:
            r = read(f"mistake_{m.id}")
            part = function_part[m.part]
            lost = r.part_score(part) < r.part_max(part)
            callers = {function_part[f] for f in content.chain if f in function_part
                       and m.part in content.catalogue.callees(f, [m.part])}
            others_full = all(r.part_score(p) == r.part_max(p) for p in parts if p != part and p not in callers)
            named = any(t.mistake == m.id and m.message in t.output for t in r.tests if t.part == part)
            ok = lost and named and others_full
            detail = (f"{part} {r.part_score(part):g}/{r.part_max(part):g}, "
                      f"{'named' if named else 'NOT named'} in feedback"
                      + ("" if others_full else ", and parts other than the chain lost points too"))
            verdicts.append(Verdict(f"mistake {m.id}", ok, detail))
    return verdicts
