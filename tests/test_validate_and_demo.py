"""`qkv validate` and `qkv demo` on the course in this repository, as an instructor runs them."""

import csv

import pytest

from course_content import COURSE
from qkv.cli import main


@pytest.mark.parametrize("assignment", [a.id for a in COURSE.assignments])
def test_validate_holds_for_every_assignment_of_the_course(capsys, course, assignment):
    code = main(["validate", "--course", str(course.root), "--assignment", assignment])
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert code == 0, out
    assert lines[0].startswith("ok    reference:") and lines[1].startswith("ok    stubs: 0 /")
    held = lines[-1]
    assert held.endswith("validations hold.") and held.split()[0] == held.split()[2]
    assert len([line for line in lines if line.startswith("ok    mistake ")]) >= (
        35 if assignment == "attention" else 1
    )


def test_demo_grades_a_synthetic_class_of_every_assignment(tmp_path, capsys, course):
    out = tmp_path / "demo"
    assert main(["demo", "--course", str(course.root), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    for a in course.assignments:
        graded = out / a.id / "graded"
        rows = {r["student"]: r for r in csv.DictReader((graded / "gradebook.csv").open())}
        assert (
            float(rows["honest_reference"]["total"])
            == sum(p.points for p in a.parts) + a.quiz_points
        )
        assert float(rows["stub"]["total"]) == 0
        assert (graded / "report.html").is_file() and (graded / "feedback" / "stub.html").is_file()
        assert (
            f"wrote a synthetic class of {len(rows)} submissions to {out / a.id / 'submissions'}/"
            in printed
        )
