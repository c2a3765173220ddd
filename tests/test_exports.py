"""`qkv export`: Canvas's gradebook import, Moodle, nbgrader's columns and a course table, from a graded
class with a roster and a late policy."""

import csv
import io

import pytest

import week_class
from qkv.cli import main
from qkv.grade.batch import grade
from qkv.integrations import lms

TITLE = "Query, Key, Value: attention on 'two plus three' (attention)"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    course_file = week_class.write_course(root / "course")
    subs = week_class.write_class(root / "subs")
    grade(
        week_class.load_course(course_file),
        subs,
        assignment="attention",
        out=root / "graded",
        jobs=2,
        progress=False,
        pages=False,
    )
    return course_file, root / "graded", root


def export(graded, fmt, *extra):
    course_file, out, root = graded
    target = root / f"{fmt}.csv"
    assert (
        main(
            [
                "export",
                fmt,
                "--graded",
                str(out),
                "--out",
                str(target),
                "--course",
                str(course_file),
                *extra,
            ]
        )
        == 0
    )
    return list(csv.reader(io.StringIO(target.read_text())))


def test_canvas_has_its_header_a_points_possible_row_and_every_roster_student(graded):
    rows = export(graded, "canvas")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", TITLE]
    assert rows[1] == ["Points Possible", "", "", "", "", "120"]
    assert rows[2:] == [
        ["Alice Archer", "101", "S001", "aarcher", "A1", "100"],
        ["Bob Baker", "102", "S002", "bbaker", "A1", "80"],
        ["Carol Cole", "103", "S003", "ccole", "A2", "0"],
        ["Dave Dunn", "104", "S004", "ddunn", "A2", "0"],  # missing
        ["Erin Eaves", "105", "S005", "eeaves", "A2", "100"],
        ["Frank Fox", "106", "S006", "ffox", "A1", "50"],
    ]  # zed, not on the roster, is not sent to Canvas


def test_moodle_rows_carry_email_and_id_number(graded):
    rows = export(graded, "moodle")
    assert rows[0] == ["Full name", "Email address", "ID number", TITLE]
    assert rows[2] == ["Bob Baker", "bob@uni.example", "S002", "80"]
    assert len(rows) == 7


def test_nbgrader_columns_carry_the_late_penalty(graded):
    rows = export(graded, "nbgrader")
    assert rows[0] == [
        "assignment",
        "duedate",
        "timestamp",
        "student_id",
        "last_name",
        "first_name",
        "email",
        "raw_score",
        "late_submission_penalty",
        "score",
        "max_score",
    ]
    by = {r[3]: r for r in rows[1:]}
    assert by["bob"] == [
        "attention",
        "2026-12-15T23:59:00Z",
        "2026-12-16T11:00:00Z",
        "bob",
        "Baker",
        "Bob",
        "bob@uni.example",
        "100",
        "20",
        "80",
        "120",
    ]
    assert by["erin"][1] == "2026-12-17T23:59:00Z"  # her extension
    assert by["dave"][7:] == ["0", "0", "0", "120"]


def test_the_course_table_has_a_column_per_assignment_and_the_unexpected_at_the_end(graded):
    rows = export(graded, "course")
    assert rows[0] == ["student", "name", "email", "section", "attention", "total"]
    assert [r[0] for r in rows[1:]] == ["alice", "bob", "carol", "dave", "erin", "frank", "zed"]
    assert rows[2][4:] == ["80", "80"]


def test_the_same_folder_twice_is_refused(graded, capsys):
    course_file, out, root = graded
    assert (
        main(
            [
                "export",
                "course",
                "--graded",
                str(out),
                "--graded",
                str(out),
                "--out",
                str(root / "x.csv"),
                "--course",
                str(course_file),
            ]
        )
        == 2
    )
    assert "two --graded folders of assignment 'attention'" in capsys.readouterr().err


def test_canvas_without_a_roster_is_one_line(tmp_path, capsys, graded):
    _, out, _ = graded
    course_file = week_class.write_course(tmp_path, roster=None)
    assert (
        main(
            [
                "export",
                "canvas",
                "--graded",
                str(out),
                "--out",
                str(tmp_path / "c.csv"),
                "--course",
                str(course_file),
            ]
        )
        == 2
    )
    assert "set `roster:` in course.yaml" in capsys.readouterr().err


def test_a_folder_that_was_not_graded_is_one_line(tmp_path, capsys, graded):
    course_file, _, _ = graded
    assert (
        main(
            [
                "export",
                "canvas",
                "--graded",
                str(tmp_path),
                "--out",
                str(tmp_path / "c.csv"),
                "--course",
                str(course_file),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "no gradebook.csv" in err and err.count("\n") == 1


def test_exports_are_byte_identical_for_the_same_grades(graded):
    course_file, out, root = graded
    course = week_class.load_course(course_file)
    for fmt in lms.FORMATS:
        first = lms.export(course, fmt, graded=[out], out=root / "a.csv").read_bytes()
        assert lms.export(course, fmt, graded=[out], out=root / "b.csv").read_bytes() == first
