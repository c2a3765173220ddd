"""Item analysis in items.csv and report.html: a question whose key is wrong is flagged."""

import csv

from course_content import ASSIGNMENT, COURSE
from qkv.reports import outputs
from qkv.results import records as results
from qkv.results.records import StudentResult
from qkv.results.records import TestResult as Result

STUDENTS = 40
QUESTIONS = {  # name -> which students (by ability, 0 weakest) the key marks right
    "quiz: q1 the weights of plus": lambda a: a >= 10,
    "quiz: q2 why subtract the maximum": lambda a: a >= 20,
    "quiz: q3 the seed's scores": lambda a: a < 12,  # miskeyed: the strongest are marked wrong
    "quiz: q4 what attend returns": lambda a: True,
    "quiz: q5 a causal model's plus": lambda a: a >= 37,
}


def _test(name: str, part: str, right: bool, mistake=None) -> Result:
    return Result(
        name=name,
        part=part,
        score=4.0 if right else 0.0,
        max_score=4.0,
        outcome="passed" if right else "failed",
        output="" if right else "wrong",
        mistake=None if right else mistake,
    )


def _student(ability: int) -> StudentResult:
    tests = [
        _test(f"{p.id}: random shapes", p.id, ability >= 5 * i, "softmax_axis0")
        for i, p in enumerate(ASSIGNMENT.parts)
    ]
    tests += [_test(name, "quiz", right(ability)) for name, right in QUESTIONS.items()]
    columns = (*(p.id for p in ASSIGNMENT.parts), "quiz")
    return StudentResult(f"s{ability:02d}", tuple(tests), columns)


def _graded(tmp_path):
    students = [_student(a) for a in range(STUDENTS)]
    for r in students:
        results.write(r, tmp_path)
    outputs.write(COURSE, ASSIGNMENT, tmp_path, [r.student for r in students])
    with open(tmp_path / "items.csv", newline="", encoding="utf-8") as f:
        return {row["item"]: row for row in csv.DictReader(f)}


def test_a_question_with_a_wrong_key_is_flagged_check_the_key(tmp_path):
    rows = _graded(tmp_path)
    miskeyed = rows["quiz: q3 the seed's scores"]
    assert miskeyed["flag"] == "check the key"
    assert float(miskeyed["point_biserial"]) < 0 and float(miskeyed["upper_lower"]) < 0
    for name in ("quiz: q1 the weights of plus", "quiz: q2 why subtract the maximum"):
        assert rows[name]["flag"] == "", name
        assert float(rows[name]["point_biserial"]) > 0.2


def test_items_everyone_or_nearly_no_one_gets_are_flagged_so(tmp_path):
    rows = _graded(tmp_path)
    assert rows["quiz: q4 what attend returns"]["flag"] == "nearly everyone"
    assert rows["quiz: q4 what attend returns"]["difficulty"] == "1.000"
    assert rows["quiz: q5 a causal model's plus"]["flag"] == "too hard or miskeyed"
    assert float(rows["quiz: q5 a causal model's plus"]["difficulty"]) == 3 / STUDENTS


def test_checks_and_misconceptions_are_analysed_too(tmp_path):
    rows = _graded(tmp_path)
    assert rows["score: random shapes"]["kind"] == "check"
    assert float(rows["score: random shapes"]["difficulty"]) == 35 / STUDENTS
    # every student but the strongest 20 was named softmax_axis0 in some part
    assert rows["softmax_axis0"]["kind"] == "misconception"
    assert float(rows["softmax_axis0"]["difficulty"]) == 20 / STUDENTS


def test_the_report_shows_the_flagged_question(tmp_path):
    _graded(tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    analysis = page.split("<h2>Item analysis</h2>", 1)[1].split("<h2>", 1)[0]
    row = next(r for r in analysis.split("<tr>") if "q3 the seed" in r)
    assert "check the key" in row
