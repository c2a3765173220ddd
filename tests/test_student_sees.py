"""What a student and an instructor read after a real grading run, read as they read it: the words
on the pages and in the results, for every assignment (the browser tests look at the same pages).
"""

from __future__ import annotations

import base64
import html
import io
import json
import re

import numpy as np
import pytest

from course_content import COURSE, ROOT
from graded_pages import graded
from qkv.content import loader
from qkv.course import layout
from qkv.grade import progress
from qkv.quiz.grading import load_quiz
from qkv.reports import class_report
from qkv.results import records
from qkv.sandbox import host

FRAME = 'stroke="#c0392b"'  # the red frame the heatmap draws round a cell that differs


@pytest.fixture(scope="module", params=["attention", "training", "masked"])
def run(request, tmp_path_factory):
    assignment = COURSE.assignment(request.param)
    tmp = tmp_path_factory.mktemp(request.param)
    return assignment, tmp, graded(COURSE, assignment, tmp)


def page(out, student) -> str:
    return (out / "feedback" / f"{student}.html").read_text(encoding="utf-8")


def svgs(text: str) -> list[str]:
    return [
        base64.b64decode(m).decode("utf-8")
        for m in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', text)
    ]


def words(text: str) -> str:
    """The page's text as a reader gets it: no tags, entities read, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def test_a_full_marks_page_frames_nothing_and_says_nothing_differs(run):
    assignment, _, out = run
    result = records.read(out / "results" / "full.json")
    assert result.total == sum(p.points for p in assignment.parts) + assignment.quiz_points
    text = page(out, "full")
    assert not any(FRAME in svg for svg in svgs(text))
    said = words(text)
    assert "differ from the reference" not in said and "wrong result" not in said
    if assignment.id == "attention":
        assert "Nothing differs" in said
    if assignment.id == "masked":
        heads = loader.load(COURSE, assignment).example.n_heads
        assert said.count("It matches the reference.") == heads


def test_a_wrong_softmax_page_frames_the_cells_that_differ_and_names_the_axis(run):
    assignment, _, out = run
    said = words(page(out, "axis"))
    assert "axis" in said
    if assignment.id == "masked":
        return _each_head_is_framed_where_it_differs(out, assignment, said)
    if assignment.id != "attention":
        return
    recorded = np.array(json.loads((out / "results" / "axis.json").read_text())["extra_data"]["recorded"]["attention"])  # fmt: skip
    content = loader.load(COURSE, assignment)
    differ = ~np.isclose(recorded, content.example.A, rtol=COURSE.tolerance.rtol, atol=COURSE.tolerance.atol)  # fmt: skip
    assert differ.any()
    yours = next(s for s in svgs(page(out, "axis")) if ">Yours<" in s)
    assert yours.count(FRAME) == int(differ.sum())
    assert f"{int(differ.sum())} of 9 cells" in said and "wrong axis" in said


def _each_head_is_framed_where_it_differs(out, assignment, said: str) -> None:
    recorded = json.loads((out / "results" / "axis.json").read_text())["extra_data"]["recorded"]
    worked = loader.load(COURSE, assignment).example
    shown = {s.split("</text>", 1)[0].rsplit(">", 1)[1]: s for s in svgs(page(out, "axis"))}
    tol = COURSE.tolerance
    for h in range(worked.n_heads):
        mine = np.array(recorded["heads"][h])
        differ = ~np.isclose(mine, worked.A[h], rtol=tol.rtol, atol=tol.atol)
        yours = next(s for title, s in shown.items() if title.startswith(f"Yours, head {h} "))
        assert differ.any() and yours.count(FRAME) == int(differ.sum()), h
        assert f"{int(differ.sum())} of {differ.size} cells" in said
    # the heads' captions say which way the weights sum to 1, one sentence per head
    assert said.split("Checks, part by part")[0].count("wrong axis") == worked.n_heads


def test_a_property_that_held_is_never_called_a_wrong_result(run):
    _, _, out = run
    for path in sorted((out / "results").glob("*.json")):
        for t in records.read(path).tests:
            if "but this check counts only with right values" in t.output:
                assert t.outcome == "not_counted", (path.name, t.name)
    for path in sorted((out / "feedback").glob("*.html")):
        for row in re.findall(r"<tr>.*?</tr>", path.read_text(encoding="utf-8")):
            if "as they should be" in row or "counts only with right values" in row:
                assert "wrong result" not in row, (path.name, words(row))


def test_a_syntax_error_is_said_at_most_a_few_times_on_its_page(run):
    _, _, out = run
    said = words(page(out, "syntax"))
    assert "SyntaxError" in said or "syntax error" in said.lower()
    line = re.search(r"line \d+", said)
    assert line and said.count(line[0]) <= 3


def test_quiz_rows_show_their_questions(run):
    assignment, _, out = run
    questions = load_quiz(COURSE, assignment).questions
    said = words(page(out, "full"))
    first = " ".join(re.sub(r"\{(\w+)\}", "…", questions[0].text).split())[:40]
    assert first in said
    assert not any(f": {q.id} " in said for q in questions)


def test_a_question_with_numbers_shows_the_students_own_not_their_names(run):
    assignment, _, out = run
    drawn = [q for q in load_quiz(COURSE, assignment).questions if re.search(r"\{\w+\}", q.text)]
    said = words(page(out, "full"))
    for q in drawn:
        names = re.findall(r"\{(\w+)\}", q.text)
        assert not any(f"= {name} " in said or f": {name}." in said for name in names), q.id
    assert said.count("Your question, with your numbers:") == len(drawn)


def test_an_answer_printed_by_numpy_is_read_as_its_numbers(run):
    _, _, out = run
    quiz = [
        t for t in records.read(out / "results" / "numpy_answers.json").tests if t.part == "quiz"
    ]
    assert quiz and all(t.outcome == "passed" for t in quiz), [t.output for t in quiz if t.score < t.max_score]  # fmt: skip


def test_nothing_a_student_sees_names_the_graders_folders(run):
    assignment, tmp, out = run
    secret = records.read(out / "results" / "secrets.json")
    assert "CMDLINE" in secret.output and "OS.ENVIRON" in secret.output  # it did print them
    big = records.read(out / "results" / "big.json")
    assert "larger than the" in big.status and layout.code_file(assignment) in big.status
    leaks = (str(tmp), host.SCRATCH_PREFIX, str(ROOT / "src"), "PYTHONPATH", "runtime_paths")
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".html":
            text += "".join(svgs(text))
        found = [leak for leak in leaks if leak in text]
        assert found == [], f"{path.relative_to(out)} names {found}"


def test_the_terminal_part_table_lines_up(run):
    assignment, _, out = run
    students = sorted(p.stem for p in (out / "results").glob("*.json"))
    text = class_report.terminal_summary(COURSE, assignment, out, students)
    rows = [line for line in text.splitlines() if re.match(r"^\S+\s+\d+\.\d\d / ", line)]
    assert len(rows) >= len(assignment.parts)
    assert len({line.index(" / ") for line in rows}) == 1, "\n".join(rows)


def test_progress_in_a_log_is_a_line_per_tenth_of_the_class_without_carriage_returns():
    log = io.StringIO()
    lines = progress.Lines(37, file=log)
    for _ in range(37):
        lines.update(1)
    said = log.getvalue()
    assert "\r" not in said and said.count("\n") == 10
    assert said.splitlines()[0] == "grading: 4 of 37 submissions"
    assert said.splitlines()[-1] == "grading: 37 of 37 submissions"
