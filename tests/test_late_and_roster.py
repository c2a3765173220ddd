"""A class with a roster and a late policy: credit by hand-in time, extensions, missing and unexpected
students, dates checked in course.yaml, and a changed deadline that needs no regrade."""

import csv
import dataclasses
from datetime import UTC, datetime

import pytest

import week_class
from qkv.cli import main
from qkv.course import config, deadlines, roster
from qkv.errors import QkvError
from qkv.grade.batch import grade
from qkv.reports import class_report


@pytest.fixture(scope="module")
def week(tmp_path_factory):
    root = tmp_path_factory.mktemp("week")
    course = week_class.load(root / "course")
    subs = week_class.write_class(root / "subs")
    summary = grade(
        course, subs, assignment="attention", out=root / "graded", jobs=2, progress=False
    )
    return course, subs, root / "graded", summary


def rows(path):
    return {r["student"]: r for r in csv.DictReader(path.open())}


def test_credit_follows_the_hand_in_time_the_windows_and_the_extension(week):
    _, _, out, _ = week
    got = {
        s: (r["submitted_at"], r["credit"], r["total"], r["final"], r["status"])
        for s, r in rows(out / "gradebook.csv").items()
    }
    assert got == {
        "alice": ("2026-12-15T20:00:00Z", "100", "100", "100", "graded"),
        "bob": ("2026-12-16T11:00:00Z", "80", "100", "80", "graded"),  # +01:00 written in UTC
        "carol": ("2026-12-20T09:00:00Z", "0", "100", "0", "graded"),
        "dave": ("", "0", "0", "0", "missing"),
        "erin": ("2026-12-17T08:00:00Z", "100", "100", "100", "graded"),
        "frank": ("2026-12-17T09:30:00Z", "50", "100", "50", "graded"),  # nbgrader's format
        "zed": ("2026-12-14T10:00:00Z", "100", "100", "100", "graded (not on roster)"),
    }
    assert (out / "gradebook.csv").read_text().splitlines()[0] == (
        "student,project,score,softmax,aggregate,attend,quiz,total,submitted_at,credit,final,status"
    )


def test_the_missing_row_has_every_column_zero(week):
    _, _, out, _ = week
    dave = rows(out / "gradebook.csv")["dave"]
    assert [
        dave[c] for c in ("project", "score", "softmax", "aggregate", "attend", "quiz", "total")
    ] == ["0"] * 7


def test_missing_and_unexpected_students_are_in_the_summary_the_report_and_the_pages(week):
    _, _, out, summary = week
    assert (summary.missing, summary.unexpected) == (["dave"], ["zed"])
    report = (out / "report.html").read_text()
    assert "No submission (1):</strong> dave" in report and "Not on the roster (1)" in report
    assert "Late work" in report and "carol" in report.split("Late work")[1]
    page = (out / "feedback" / "bob.html").read_text()
    assert "after your deadline" in page and "80 % of the points" in page
    assert "after your deadline" not in (out / "feedback" / "erin.html").read_text()


def test_the_cli_names_missing_and_unexpected_students(tmp_path, capsys):
    course = week_class.write_course(tmp_path / "course")
    subs = tmp_path / "subs"
    week_class.hand_in(subs, "zed", week_class.reference_source(), None)
    assert (
        main(
            [
                "grade",
                str(subs),
                "--out",
                str(tmp_path / "out"),
                "--course",
                str(course),
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "No submission from 6 on the roster: alice, bob, carol, dave, erin and 1 more" in printed
    assert "Graded 1 not on the roster: zed" in printed


def test_the_terminal_summary_names_late_students_and_their_credit(week):

    course, _, out, summary = week
    text = class_report.terminal_summary(
        course, course.assignments[0], out, summary.students, summary.tally
    )
    assert "Handed in late (3): bob 80 %, carol 0 %, frank 50 %" in text


def test_a_later_deadline_recomputes_final_without_grading_anyone_again(week, tmp_path):
    course, subs, out, _ = week
    later = dataclasses.replace(
        course,
        assignments=(
            dataclasses.replace(
                course.assignments[0], deadline="2026-12-21T00:00:00+00:00", late=(), extensions=()
            ),
        ),
    )
    again = grade(later, subs, assignment="attention", out=out, jobs=1, progress=False)
    assert (again.graded, again.reused) == (0, 6)
    assert {r["credit"] for s, r in rows(out / "gradebook.csv").items() if s != "dave"} == {"100"}
    grade(
        course, subs, assignment="attention", out=out, jobs=1, progress=False
    )  # back as the module had it
    assert rows(out / "gradebook.csv")["bob"]["final"] == "80"


def test_an_extension_moves_the_late_windows_with_it():
    assignment = config.parse_course(week_class.course_data()).assignments[0]
    # erin's deadline is two days later: her first late window ends two days after everyone's.
    assert deadlines.credit(assignment, "erin", "2026-12-18T12:00:00Z") == 80
    assert deadlines.credit(assignment, "erin", "2026-12-19T12:00:00Z") == 50
    assert deadlines.credit(assignment, "bob", "2026-12-19T12:00:00Z") == 0


@pytest.mark.parametrize(
    "when, credit",
    [
        ("2026-12-15T23:59:00+00:00", 100),  # exactly at the deadline: on time
        ("2026-12-15T23:59:01+00:00", 80),
        ("2026-12-16T23:59:00+00:00", 80),  # the end of a window belongs to it
        ("2026-12-17T00:00:00+00:00", 50),
        ("2026-12-18T23:59:00+00:00", 50),
        ("2026-12-18T23:59:01+00:00", 0),  # after the last window
        ("2026-12-16T00:30:00+01:00", 100),  # 23:30 UTC
        (None, 100),  # no hand-in time: full credit
    ],
)
def test_credit_at_the_edges_of_the_windows(when, credit):
    assignment = config.parse_course(week_class.course_data()).assignments[0]
    assert deadlines.credit(assignment, "alice", when) == credit
    assert deadlines.final(100, credit) == credit


def test_no_deadline_means_full_credit_whenever():
    assignment = config.parse_course(
        week_class.course_data(deadline=None, late=[], extensions=[])
    ).assignments[0]
    assert deadlines.credit(assignment, "alice", "2030-01-01T00:00:00Z") == 100


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"deadline": "15 Dec 2026"},
            "assignments[0].deadline: not an ISO 8601 date: '15 Dec 2026'",
        ),
        (
            {"deadline": "2026-12-15T23:59:00"},
            "assignments[0].deadline: '2026-12-15T23:59:00' has no time zone",
        ),
        (
            {
                "late": [
                    {"until": "2026-12-16T23:59:00Z", "credit": 80},
                    {"until": "2026-12-17T23:59:00Z", "credit": 90},
                ]
            },
            "assignments[0].late[1].credit: must fall below 80",
        ),
        (
            {"late": [{"until": "2026-12-16T23:59:00Z", "credit": 100}]},
            "assignments[0].late[0].credit: must fall below 100",
        ),
        (
            {"late": [{"until": "2026-12-14T23:59:00Z", "credit": 80}]},
            "assignments[0].late[0].until: 2026-12-14T23:59:00Z is not after the deadline",
        ),
        (
            {
                "late": [
                    {"until": "2026-12-17T23:59:00Z", "credit": 80},
                    {"until": "2026-12-16T23:59:00Z", "credit": 50},
                ]
            },
            "assignments[0].late[1].until: 2026-12-16T23:59:00Z is not after late[0].until",
        ),
        (
            {"late": [{"until": "next week", "credit": 80}]},
            "assignments[0].late[0].until: not an ISO 8601 date",
        ),
        ({"late": [{"until": "2026-12-16T23:59:00Z"}]}, "assignments[0].late[0].credit: missing"),
        ({"deadline": None}, "assignments[0].late: set, but the assignment has no deadline"),
        (
            {"extensions": [{"student": "erin", "deadline": "2026-12-01T00:00:00Z"}]},
            "assignments[0].extensions[0].deadline: 2026-12-01T00:00:00Z is not after the deadline",
        ),
        (
            {"extensions": [{"student": "erin", "deadline": "soon"}]},
            "assignments[0].extensions[0].deadline: not an ISO",
        ),
        (
            {"extensions": [{"student": "er in", "deadline": "2026-12-20T00:00:00Z"}]},
            "assignments[0].extensions[0].student: 'er in' is not a usable student id",
        ),
        (
            {"extensions": [{"student": "erin", "deadline": "2026-12-20T00:00:00Z"}] * 2},
            "assignments[0].extensions[1].student: 'erin' has an extension already",
        ),
        ({"resubmissions": "first"}, "resubmissions: expected one of last, best, got 'first'"),
    ],
)
def test_every_date_and_policy_in_course_yaml_is_checked_with_one_line(changes, message):
    with pytest.raises(QkvError) as err:
        config.parse_course(week_class.course_data(**changes))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_an_unparseable_deadline_stops_any_command_with_exit_2(tmp_path, capsys):
    course = week_class.write_course(tmp_path, deadline="15 Dec 2026")
    assert main(["fixture", "--course", str(course)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deadline: not an ISO 8601 date: '15 Dec 2026'" in err


@pytest.mark.parametrize(
    "text, message",
    [
        ("id,name,email\nalice,A,a@x\n", "no 'section' column"),
        (
            "id,name,email,section,sis\nalice,A,a@x,1,2\n",
            "unknown column 'sis' (did you mean 'sis_id'?)",
        ),
        (
            "id,name,email,section\nalice,A,a@x,1\nalice,B,b@x,1\n",
            "line 3: student 'alice' is on the roster twice",
        ),
        ("id,name,email,section\nal ice,A,a@x,1\n", "line 2: 'al ice' is not a usable student id"),
        ("id,name,email,section\nalice,A,a@x\n", "line 2: expected 4 fields"),
    ],
)
def test_a_bad_roster_is_one_line_naming_the_line(text, message):
    with pytest.raises(QkvError) as err:
        roster.parse(text, name="roster.csv")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_roster_that_is_not_there_stops_grading_before_anything_runs(tmp_path, capsys):
    course = week_class.write_course(tmp_path / "course")
    (tmp_path / "course" / "roster.csv").unlink()
    subs = week_class.write_class(tmp_path / "subs")
    assert main(["grade", str(subs), "--out", str(tmp_path / "out"), "--course", str(course)]) == 2
    assert "roster.csv: roster not found" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-12-15T23:59:00+00:00", datetime(2026, 12, 15, 23, 59, tzinfo=UTC)),
        ("2026-12-15 23:59:00.000000 UTC", datetime(2026, 12, 15, 23, 59, tzinfo=UTC)),
        ("2026-12-16T00:59:00+01:00\n", datetime(2026, 12, 15, 23, 59, tzinfo=UTC)),
        (
            "2026-12-15T23:59:00",
            datetime(2026, 12, 15, 23, 59, tzinfo=UTC),
        ),  # nbgrader writes UTC
        ("last Tuesday", None),
    ],
)
def test_hand_in_times_are_read_in_iso_and_nbgrader_forms(text, expected):
    assert deadlines.parse_handin(text) == expected


def test_an_unreadable_timestamp_is_named_and_graded_as_on_time(tmp_path):
    course = week_class.load(tmp_path / "course")
    subs = tmp_path / "subs"
    week_class.hand_in(subs, "alice", week_class.reference_source(), "the day after tomorrow")
    summary = grade(
        course,
        subs,
        assignment="attention",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
        pages=False,
    )
    assert any(
        "timestamp.txt: not a date ('the day after tomorrow'); graded as on time" in line
        for line in summary.skipped
    )
    alice = rows(tmp_path / "out" / "gradebook.csv")["alice"]
    assert (alice["submitted_at"], alice["credit"]) == ("", "100")
