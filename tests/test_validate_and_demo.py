"""`qkv validate` and `qkv demo` on the course in this repository, as an instructor runs them."""

import csv
import shutil

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


def test_validate_proves_trivial_answers_and_the_copied_release_earn_nothing(capsys, course):
    code = main(["validate", "--course", str(course.root), "--assignment", "attention"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    trivial = [line for line in lines if line.startswith("ok    trivial ")]
    assert len(trivial) == 5 * 5 and all(line.endswith(" 0/20") for line in trivial)
    assert "ok    trivial softmax negated: softmax 0/20" in lines
    assert "ok    copied release: 0 / 100" in lines


def test_a_failing_validation_names_its_checks_their_messages_and_grader_errors(
    tmp_path, capsys, course
):
    """A suite check that earns without calling anything, and one that breaks: validate says which."""
    for name in ("course.yaml", "solutions", "exercises"):
        copy = shutil.copytree if (course.root / name).is_dir() else shutil.copy
        copy(course.root / name, tmp_path / name)
    suite = tmp_path / "solutions" / "attention" / "suites" / "test_score.py"
    suite.write_text(
        suite.read_text()
        + "\n\ndef test_earns_for_nothing(expect):\n    pass\n"
        + "\n\ndef test_breaks(expect):\n    raise RuntimeError('a bug in the suite')\n"
    )
    code = main(["validate", "--course", str(tmp_path), "--assignment", "attention"])
    out = capsys.readouterr().out
    assert code == 1
    reference = out.split("FAIL  reference:", 1)[1].split("\nok", 1)[0]
    assert "failed score: breaks" in reference
    assert "grader error:" in reference and "RuntimeError: a bug in the suite" in reference
    zeros = out.split("FAIL  trivial score zeros:", 1)[1].split("\nok", 1)[0]
    assert "earned score: earns for nothing" in zeros
