"""A rerun regrades exactly what changed (submission, hand-in time, course.yaml, content, the kit),
says why, and leaves everyone else's result as it was, byte for byte."""

import csv
import shutil
from pathlib import Path

import pytest

import week_class
from qkv.cli import main
from qkv.grade import reuse
from qkv.grade.batch import grade

STUDENTS = ["alice", "bob", "carol"]


@pytest.fixture
def graded(tmp_path):
    """A small class graded once; the test changes one thing and grades again."""
    course_file = week_class.write_course(tmp_path / "course")
    subs = tmp_path / "subs"
    for student in STUDENTS:
        week_class.hand_in(
            subs, student, week_class.reference_source(), week_class.HANDED_IN[student]
        )
    out = tmp_path / "out"
    first = again(course_file, subs, out)
    assert first.graded == len(STUDENTS) and set(first.regraded) == {"new"}
    return course_file, subs, out


def again(course_file, subs, out, **changes):
    if changes:
        week_class.write_course(course_file.parent, **changes)
    return grade(
        week_class.load_course(course_file),
        subs,
        assignment="attention",
        out=out,
        jobs=1,
        progress=False,
        pages=False,
    )


def snapshot(out):
    return {p.name: p.read_bytes() for p in sorted((out / "results").glob("*.json"))}


def test_nothing_changed_nothing_regraded(graded):
    course_file, subs, out = graded
    before = snapshot(out)
    summary = again(course_file, subs, out)
    assert (summary.graded, summary.reused, summary.regraded) == (0, 3, {})
    assert snapshot(out) == before


def test_one_changed_file_regrades_that_student_only(graded):
    course_file, subs, out = graded
    before = snapshot(out)
    (subs / "bob" / "attention.py").write_text(
        week_class.with_softmax_on_axis0(week_class.reference_source())
    )
    summary = again(course_file, subs, out)
    assert (summary.graded, summary.regraded) == (1, {"submission": ["bob"]})
    after = snapshot(out)
    assert (
        after["alice.json"] == before["alice.json"] and after["carol.json"] == before["carol.json"]
    )
    assert after["bob.json"] != before["bob.json"]
    bob = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}["bob"]
    assert bob["softmax"] != "20"


def test_new_quiz_answers_are_a_changed_submission(graded):
    course_file, subs, out = graded
    (subs / "carol" / "answers.yaml").write_text("answers: {}\n")
    assert again(course_file, subs, out).regraded == {"submission": ["carol"]}


def test_a_changed_hand_in_time_regrades_that_student(graded):
    course_file, subs, out = graded
    (subs / "alice" / "timestamp.txt").write_text("2026-12-16T10:00:00Z\n")
    summary = again(course_file, subs, out)
    assert summary.regraded == {"submitted_at": ["alice"]}
    alice = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}["alice"]
    assert (alice["credit"], alice["final"]) == ("80", "80")


def test_one_parts_points_regrade_everyone_because_the_course_changed(graded):
    course_file, subs, out = graded
    parts = week_class.course_data()["assignments"][0]["parts"]
    parts[4]["points"] = 30
    summary = again(course_file, subs, out, parts=parts)
    assert summary.regraded == {"course": STUDENTS}
    assert {
        r["attend"]
        for r in csv.DictReader((out / "gradebook.csv").open())
        if r["status"] == "graded"
    } == {"30"}


@pytest.mark.parametrize(
    "changes",
    [
        {"title": "A new title"},
        {"deadline": "2026-12-20T00:00:00Z", "late": [], "extensions": []},
        {"extensions": [{"student": "bob", "deadline": "2026-12-19T00:00:00Z"}]},
        {"name": "Another course name"},
    ],
)
def test_what_only_changes_the_gradebook_regrades_nobody(graded, changes):
    course_file, subs, out = graded
    summary = again(course_file, subs, out, **changes)
    assert (summary.graded, summary.regraded) == (0, {})


def test_the_extension_changes_final_without_a_regrade(graded):
    course_file, subs, out = graded
    summary = again(
        course_file, subs, out, extensions=[{"student": "bob", "deadline": "2026-12-19T00:00:00Z"}]
    )
    assert summary.graded == 0
    bob = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}["bob"]
    assert (bob["credit"], bob["final"]) == ("100", "100")


def test_a_changed_suite_regrades_everyone(graded):
    course_file, subs, out = graded
    suite = course_file.parent / "solutions" / "attention" / "suites" / "test_attend.py"
    suite.write_text(suite.read_text() + "\n# checked again\n")
    assert again(course_file, subs, out).regraded == {"content": STUDENTS}


def test_another_kit_version_regrades_everyone(graded, monkeypatch):
    course_file, subs, out = graded
    monkeypatch.setattr(reuse, "__version__", "99.0")
    assert again(course_file, subs, out).regraded == {"kit": STUDENTS}


def test_the_kits_code_counts_as_its_version(tmp_path):
    """A development copy's code changes between releases: the kit's hash covers its files."""
    kit = Path(reuse.__file__).resolve().parent.parent
    copy = tmp_path / "qkv"
    shutil.copytree(kit, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = reuse.code_hash(copy)
    assert before == reuse.code_hash(kit)
    (copy / "suites" / "calls.py").write_text(
        (copy / "suites" / "calls.py").read_text() + "\n# changed\n"
    )
    reuse.code_hash.cache_clear()
    assert reuse.code_hash(copy) != before


def test_force_regrades_everyone_and_says_so(graded):
    course_file, subs, out = graded
    summary = grade(
        week_class.load_course(course_file),
        subs,
        assignment="attention",
        out=out,
        jobs=1,
        progress=False,
        pages=False,
        force=True,
    )
    assert summary.regraded == {"force": STUDENTS}


def test_the_cli_says_how_many_were_regraded_and_why(graded, capsys):
    course_file, subs, out = graded
    (subs / "bob" / "attention.py").write_text(
        week_class.with_softmax_on_axis0(week_class.reference_source())
    )
    assert (
        main(["grade", str(subs), "--out", str(out), "--course", str(course_file), "--jobs", "1"])
        == 0
    )
    printed = capsys.readouterr().out
    assert "graded 1 submissions, reused 2 earlier results" in printed
    assert "  1 submission changed: bob" in printed
