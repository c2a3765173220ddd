"""Several hand-ins per student under a course policy, and manual adjustments applied after grading."""

import csv
import json

import pytest

import week_class
from qkv.errors import QkvError
from qkv.grade.batch import grade
from qkv.results import overrides

ON_TIME, LATE = "2026-12-15T12:00:00Z", "2026-12-16T12:00:00Z"


def gradebook(out):
    return {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}


@pytest.fixture
def handins(tmp_path):
    """alice: an on-time hand-in with softmax on the wrong axis, then a late, correct one (credit 80)."""
    subs = tmp_path / "subs"
    source = week_class.reference_source()
    week_class.hand_in(
        subs, "alice", week_class.with_softmax_on_axis0(source), ON_TIME, handin="attempt-1"
    )
    week_class.hand_in(subs, "alice", source, LATE, handin="attempt-2")
    week_class.hand_in(subs, "bob", source, ON_TIME)
    return subs


def run(tmp_path, subs, **changes):
    course = week_class.load(tmp_path / "course", **changes)
    return grade(course, subs, assignment="attention", out=tmp_path / "out", jobs=1, progress=False)


def test_last_grades_and_counts_only_the_latest_hand_in(tmp_path, handins):
    summary = run(tmp_path, handins)
    assert summary.graded == 2 and summary.students == ["alice", "bob"]
    alice = gradebook(tmp_path / "out")["alice"]
    assert (alice["submitted_at"], alice["total"], alice["credit"], alice["final"]) == (
        LATE,
        "100",
        "80",
        "80",
    )
    assert not (tmp_path / "out" / "handins" / "alice" / "attempt-1.json").exists()
    kept = json.loads((tmp_path / "out" / "results" / "alice.json").read_text())["extra_data"]
    assert kept["handin"] == "attempt-2" and [h["handin"] for h in kept["handins"]] == ["attempt-2"]


def test_best_counts_the_hand_in_with_most_points_after_late_credit(tmp_path, handins):
    summary = run(tmp_path, handins, resubmissions="best")
    assert summary.graded == 3
    alice = gradebook(tmp_path / "out")["alice"]
    kept = json.loads((tmp_path / "out" / "results" / "alice.json").read_text())["extra_data"]
    listed = {h["handin"]: h["final"] for h in kept["handins"]}
    # the wrong axis costs most of softmax and attend: less than the late hand-in's 80 on time
    assert listed["attempt-2"] == 80 and 60 < listed["attempt-1"] < 80
    assert (alice["submitted_at"], alice["final"]) == (LATE, "80")


def test_best_switches_to_the_on_time_hand_in_when_late_credit_falls(tmp_path, handins):
    run(tmp_path, handins, resubmissions="best")
    summary = run(
        tmp_path,
        handins,
        resubmissions="best",
        late=[{"until": "2026-12-18T00:00:00Z", "credit": 60}],
    )
    assert summary.graded == 0  # a late window is not a reason to grade again
    alice = gradebook(tmp_path / "out")["alice"]
    on_time = json.loads((tmp_path / "out" / "handins" / "alice" / "attempt-1.json").read_text())[
        "score"
    ]
    assert on_time > 60 and (alice["submitted_at"], alice["final"]) == (
        ON_TIME,
        f"{on_time:.2f}".rstrip("0").rstrip("."),
    )


def test_a_new_hand_in_is_graded_alone(tmp_path, handins):
    run(tmp_path, handins)
    week_class.hand_in(
        handins, "alice", week_class.reference_source(), "2026-12-15T18:00:00Z", handin="attempt-3"
    )
    summary = run(tmp_path, handins)
    # attempt-3 is earlier than attempt-2: the latest is still attempt-2, already graded
    assert (summary.graded, summary.reused) == (0, 2)
    week_class.hand_in(
        handins, "alice", week_class.reference_source(), "2026-12-17T00:00:00Z", handin="attempt-4"
    )
    summary = run(tmp_path, handins)
    assert summary.regraded == {"new": ["alice/attempt-4"]}
    assert gradebook(tmp_path / "out")["alice"]["credit"] == "50"


OVERRIDES = """student,part,points,comment
alice,attend,-5,"Copied attend from a classmate, see email of 12 Dec"
bob,quiz,15,Answered the quiz by email
bob,softmax,+40,Bonus beyond the part's points is capped
"""


@pytest.fixture
def adjusted(tmp_path):
    subs = tmp_path / "subs"
    for student in ("alice", "bob"):
        week_class.hand_in(subs, student, week_class.reference_source(), ON_TIME)
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "overrides.csv").write_text(OVERRIDES)
    summary = run(tmp_path, subs, overrides="overrides.csv")
    return tmp_path / "out", subs, summary


def test_overrides_change_the_gradebook_after_grading(adjusted):
    out, _, _ = adjusted
    book = gradebook(out)
    assert (book["alice"]["attend"], book["alice"]["total"], book["alice"]["final"]) == (
        "15",
        "95",
        "95",
    )
    assert (book["bob"]["quiz"], book["bob"]["softmax"], book["bob"]["total"]) == (
        "15",
        "20",
        "115",
    )
    assert (
        json.loads((out / "results" / "alice.json").read_text())["score"] == 100
    )  # results keep what checks gave


def test_overrides_are_on_the_students_page_with_the_comment_and_in_the_report(adjusted):
    out, _, _ = adjusted
    page = (out / "feedback" / "alice.html").read_text()
    assert (
        "Adjusted by your grader" in page
        and "Copied attend from a classmate, see email of 12 Dec" in page
    )
    report = (out / "report.html").read_text()
    assert "Manual adjustments" in report and "Answered the quiz by email" in report


def test_overrides_survive_a_forced_regrade(tmp_path, adjusted):
    out, subs, _ = adjusted
    course = week_class.load_course(tmp_path / "course" / "course.yaml")
    summary = grade(
        course, subs, assignment="attention", out=out, jobs=1, progress=False, force=True
    )
    assert summary.graded == 2 and gradebook(out)["alice"]["total"] == "95"


def test_editing_overrides_regrades_nobody(tmp_path, adjusted):
    out, subs, _ = adjusted
    (tmp_path / "course" / "overrides.csv").write_text(
        "student,part,points,comment\nalice,attend,+0,ok after all\n"
    )
    summary = run(tmp_path, subs, overrides="overrides.csv")
    assert summary.graded == 0 and gradebook(out)["alice"]["total"] == "100"


@pytest.mark.parametrize(
    "text, message",
    [
        ("student,part,points\nalice,attend,1\n", "the header must be student,part,points,comment"),
        ("student,part,points,comment\nalice,atend,1,x\n", "line 2: unknown part 'atend'"),
        (
            "student,part,points,comment\nalice,attend,lots,x\n",
            "line 2: points: expected a number such as 15, +2 or -3",
        ),
        (
            "student,part,points,comment\nalice,attend,25,x\n",
            "line 2: points: 25 is outside 0..20 for part 'attend'",
        ),
        (
            "student,part,points,comment\nal ice,attend,2,x\n",
            "line 2: 'al ice' is not a usable student id",
        ),
        ("student,part,points,comment\nalice,attend,nan,x\n", "line 2: points: expected a number"),
    ],
)
def test_a_bad_overrides_file_is_one_line(text, message, assignment):
    with pytest.raises(QkvError) as err:
        overrides.parse(text, name="overrides.csv", assignment=assignment)
    assert message in str(err.value) and "\n" not in str(err.value)
