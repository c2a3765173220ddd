"""The quiz: YAML master, per-student variants, untrusted answers.yaml, release and CLI."""

import codecs
import copy
import dataclasses
import json
import math
import re

import numpy as np
import pytest
import yaml

from course_content import CONTENT, fixture
from qkv.cli import main
from qkv.errors import QkvError
from qkv.quiz import grading as quiz
from qkv.quiz import render as quiz_render
from qkv.release import steps as release

STUDENTS = ["alice", "bob", "chen", "s-1024"]
VARYING = ["dot-product", "plus-weight-two", "softmax-matrix", "aggregate-output"]


@pytest.fixture(scope="module")
def master(course, assignment):
    return quiz.load_quiz(course, assignment)


@pytest.fixture(scope="module")
def raw_master(course, assignment):
    return yaml.safe_load(course.path(assignment.quiz).read_text())


def posed(master, course, assignment, ref, student="alice"):
    return {p.question.id: p for p in quiz.variant(master, course, assignment, student, ref)}


def question_id(r) -> str:
    """A quiz row is named "quiz 3, seed-scores: <the question>"."""
    return r.name.split(": ", 1)[0].split(", ", 1)[1]


def grade(course, assignment, ref, tmp_path, text, student="alice", name="answers.yaml"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return {question_id(r): r for r in quiz.grade_answers(course, assignment, student, path, ref)}


def key_answers(master, course, assignment, ref, student="alice") -> dict:
    text = quiz_render.answer_key(
        master, quiz.variant(master, course, assignment, student, ref), student
    )
    return yaml.safe_load(text)


def bracketed(text: str) -> list:
    """Every top-level [...] group in a question's text, read as YAML: the numbers the student sees."""
    groups, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                groups.append(yaml.safe_load(text[start : i + 1]))
    return groups


def naive_softmax(row):
    e = [math.exp(s) for s in row]
    return [x / sum(e) for x in e]


# ---------------------------------------------------------------------------------------------
# The master and its variants.


def test_the_course_gives_the_quiz_20_points_over_at_least_12_questions(course, assignment, master):
    assert assignment.quiz == "solutions/attention/quiz.yaml" and assignment.quiz_points == 20
    assert len(master.questions) >= 12
    assert {q.kind for q in master.questions} == {
        "single",
        "multiple",
        "truefalse",
        "numeric",
        "vector",
        "matrix",
    }


@pytest.mark.parametrize("student", STUDENTS)
def test_the_answer_key_scores_full_marks(tmp_path, course, assignment, ref, master, student):
    text = quiz_render.answer_key(
        master, quiz.variant(master, course, assignment, student, ref), student
    )
    results = grade(course, assignment, ref, tmp_path, text, student).values()
    assert all(r.outcome == "passed" for r in results), [
        r.output for r in results if r.outcome != "passed"
    ]
    assert sum(r.score for r in results) == pytest.approx(20)


def test_the_blank_template_scores_zero(tmp_path, course, assignment, ref, master):
    results = grade(course, assignment, ref, tmp_path, quiz_render.template(master)).values()
    assert len(results) == len(master.questions)
    assert sum(r.score for r in results) == 0
    assert all(r.outcome == "failed" and r.output.startswith("Not answered.") for r in results)


def test_results_are_quiz_parts_sharing_the_quiz_points(tmp_path, course, assignment, ref, master):
    results = list(grade(course, assignment, ref, tmp_path, "").values())
    assert {r.part for r in results} == {"quiz"}
    assert {r.visibility for r in results} == {course.feedback.visibility}
    assert sum(r.max_score for r in results) == pytest.approx(20)
    by_id = {question_id(r): r.max_score for r in results}
    unit = assignment.quiz_points / sum(
        q.points for q in master.questions
    )  # the points of weight 1
    assert by_id["seed-scores"] == pytest.approx(2 * unit) and by_id["query-role"] == pytest.approx(
        unit
    )


@pytest.mark.parametrize("qid", VARYING)
def test_two_students_get_different_numbers_and_a_rerun_the_same(
    course, assignment, ref, master, qid
):
    alice, bob = (posed(master, course, assignment, ref, s)[qid] for s in ("alice", "bob"))
    assert alice.text != bob.text and alice.answer != bob.answer
    again = posed(master, course, assignment, ref, "alice")[qid]
    assert (again.text, again.answer) == (alice.text, alice.answer)


def test_choices_are_shuffled_per_student_and_stable_on_a_rerun(course, assignment, ref, master):
    def orders(student):
        return [
            tuple(c.text for c in p.choices)
            for p in posed(master, course, assignment, ref, student).values()
        ]

    assert orders("alice") != orders("bob")
    assert orders("alice") == orders("alice")
    singles = [
        p
        for p in posed(master, course, assignment, ref, "alice").values()
        if p.question.kind == "single"
    ]
    assert len({p.answer for p in singles}) > 1, "the right letter should not always be the same"


@pytest.mark.parametrize("student", STUDENTS)
def test_drawn_numbers_in_the_text_give_the_answers_of_the_key(
    course, assignment, ref, master, student
):
    """The answer is computed from exactly the numbers the student reads (checked by naive loops)."""
    p = posed(master, course, assignment, ref, student)
    key = key_answers(master, course, assignment, ref, student)
    q, k = bracketed(p["dot-product"].text)
    assert key["dot-product"] == pytest.approx(sum(a * b for a, b in zip(q, k)))
    (scores,) = bracketed(p["plus-weight-two"].text)
    assert key["plus-weight-two"] == pytest.approx(naive_softmax(scores)[0])
    (S,) = bracketed(p["softmax-matrix"].text)
    assert np.shape(S) == (2, 3)
    np.testing.assert_allclose(key["softmax-matrix"], [naive_softmax(row) for row in S])
    weights, values = bracketed(p["aggregate-output"].text)
    assert key["aggregate-output"] == pytest.approx(sum(w * v for w, v in zip(weights, values)))


def test_the_seed_scores_give_048_008_044_not_the_seed_table(
    tmp_path, course, assignment, ref, master
):
    p = posed(master, course, assignment, ref)["seed-scores"]
    assert "2.1, 0.3, 2.0" in p.text
    np.testing.assert_allclose(p.answer, ref.softmax(np.array([2.1, 0.3, 2.0])))
    np.testing.assert_allclose(p.answer, [0.48, 0.08, 0.44], atol=0.005)
    results = grade(course, assignment, ref, tmp_path, "seed-scores: [0.48, 0.08, 0.44]\n")
    assert results["seed-scores"].outcome == "passed"
    results = grade(course, assignment, ref, tmp_path, "seed-scores: [0.45, 0.10, 0.45]\n")
    assert results["seed-scores"].score == 0
    assert "illustrative weights" in results["seed-scores"].output


def test_reading_the_example_uses_the_fixture(tmp_path, course, assignment, ref, master):
    A = fixture.build(ref).A
    plus = fixture.TOKENS.index("plus")
    assert posed(master, course, assignment, ref)["plus-row"].answer == pytest.approx(
        tuple(A[plus])
    )
    results = grade(course, assignment, ref, tmp_path, "plus-row: [0.45, 0.10, 0.45]\n")
    assert results["plus-row"].outcome == "passed"  # the rounded table is within the tolerance
    results = grade(course, assignment, ref, tmp_path, "plus-row: [0.10, 0.10, 0.10]\n")
    assert "That is the column" in results["plus-row"].output


def test_the_table_and_numbers_written_in_the_quiz_match_the_fixture(ref, master):
    fx = fixture.build(ref)
    rows = [
        line.split()
        for line in master.intro.splitlines()
        if len(line.split()) == 4
        and line.split()[0] in fixture.TOKENS
        and line.split()[1][0].isdigit()
    ]
    assert len(rows) == 3
    table = np.array([[float(x) for x in row[1:]] for row in rows])
    np.testing.assert_array_equal(table, np.round(fx.A, 2))
    two_row = next(q for q in master.questions if q.id == "two-row")
    assert f"about {fx.S[0, 0]:.2f}" in " ".join(c.feedback or "" for c in two_row.choices)


# ---------------------------------------------------------------------------------------------
# Feedback and scoring rules.


def test_correct_answers_are_revealed_only_when_course_yaml_says_so(
    tmp_path, course, assignment, ref, master
):
    p = posed(master, course, assignment, ref)["query-role"]
    right = next(c for c in p.choices if c.correct)
    wrong_letter = "abcd"[next(i for i, c in enumerate(p.choices) if not c.correct)]
    answers = f"query-role: {wrong_letter}\n"
    hidden = grade(course, assignment, ref, tmp_path, answers)
    assert (
        right.text not in hidden["query-role"].output
        and "Right answer" not in hidden["query-role"].output
    )
    assert all("Right answer" not in r.output for r in hidden.values())
    revealing = dataclasses.replace(
        course, feedback=dataclasses.replace(course.feedback, reveal_quiz_answers=True)
    )
    shown = grade(revealing, assignment, ref, tmp_path, answers)
    right_letter = "abcd"[p.choices.index(right)]
    assert f"Right answer: {right_letter}) {right.text}" in shown["query-role"].output
    assert "Right answer" in shown["dot-product"].output  # unanswered: revealed too
    key = quiz_render.answer_key(
        master, quiz.variant(master, course, assignment, "alice", ref), "alice"
    )
    assert all(
        "Right answer" not in r.output
        for r in grade(revealing, assignment, ref, tmp_path, key).values()
    )


# key-and-value has 5 choices, 3 right (k = 3): +1/3 per right pick, -1/3 per wrong pick, floor 0.
@pytest.mark.parametrize(
    "right, wrong, expected",
    [
        (3, 0, 1.0),
        (2, 0, 2 / 3),
        (1, 0, 1 / 3),
        (3, 1, 2 / 3),
        (2, 1, 1 / 3),
        (3, 2, 1 / 3),
        (1, 1, 0.0),
        (1, 2, 0.0),
        (0, 2, 0.0),
    ],
)
def test_multiple_choice_partial_credit_follows_the_stated_rule(
    tmp_path, course, assignment, ref, master, right, wrong, expected
):
    p = posed(master, course, assignment, ref)["key-and-value"]
    letters = "abcde"
    rights = [letters[i] for i, c in enumerate(p.choices) if c.correct]
    wrongs = [letters[i] for i, c in enumerate(p.choices) if not c.correct]
    unit = assignment.quiz_points / sum(
        q.points for q in master.questions
    )  # key-and-value has weight 1
    assert (len(rights), len(wrongs)) == (3, 2) and p.max_score == pytest.approx(unit)
    picked = rights[:right] + wrongs[:wrong]
    result = grade(course, assignment, ref, tmp_path, f"key-and-value: [{', '.join(picked)}]\n")[
        "key-and-value"
    ]
    assert result.score == pytest.approx(expected * unit)
    assert result.outcome == ("passed" if expected == 1 else "failed")
    assert "+1/k" in p.question.text + quiz_render.render_text(master, [p], "alice")


def test_a_wrong_choice_explains_itself(tmp_path, course, assignment, ref, master):
    p = posed(master, course, assignment, ref)["training-adjusts"]
    softmax_letter = "abcdef"[[c.text for c in p.choices].index("The softmax formula")]
    result = grade(course, assignment, ref, tmp_path, f"training-adjusts: [{softmax_letter}]\n")[
        "training-adjusts"
    ]
    assert result.score == 0 and "no parameters to learn" in result.output


# ---------------------------------------------------------------------------------------------
# Untrusted answers files: one clear line, never an exception.

DEEP = "dot-product: " + "[" * 5000 + "]" * 5000 + "\n"


def test_one_answer_that_is_not_yaml_costs_that_answer_only(
    tmp_path, course, assignment, ref, master
):
    """A tab, a bracket left open or `id:value` makes the file invalid YAML; the answers are then read one
    by one, and only the one that still does not read loses its points, with the line and why."""
    key = key_answers(master, course, assignment, ref)
    lines = [f"{qid}: {json.dumps(value)}\n" for qid, value in key.items()]
    broken = next(i for i, (qid, v) in enumerate(key.items()) if isinstance(v, list))
    lines[broken] = lines[broken].rstrip()[:-1] + "\n"  # its closing bracket dropped
    lines[0] = lines[0].replace(": ", ":", 1)  # no space after the colon
    multi = next(i for i, (qid, v) in enumerate(key.items()) if isinstance(v, list) and i != broken)
    qid, value = list(key.items())[multi]
    lines[multi] = f"{qid}:\n" + "".join(
        f"\t- {json.dumps(v)}\n" for v in value
    )  # a tab before each item
    results = grade(course, assignment, ref, tmp_path, "".join(lines) + "a stray line\n")
    lost = results[list(key)[broken]]
    assert (
        lost.score == 0 and f"line {broken + 1}: {list(key)[broken]}: invalid YAML" in lost.output
    )
    assert all(r.score == r.max_score for q, r in results.items() if q != list(key)[broken])
    first = results[next(iter(key))].output
    assert (
        "answers.yaml: invalid YAML" in first
        and "each answer was read on its own" in first
        and "skipped" in first
    )
    assert len(quiz.check_answers_file(tmp_path / "answers.yaml", master)) == 3


def test_an_answer_typed_on_the_line_below_its_id_is_its_answer(
    tmp_path, course, assignment, ref, master
):
    key = key_answers(master, course, assignment, ref)
    text = "".join(f"{qid}:\n{json.dumps(value)}\n" for qid, value in key.items())
    results = grade(course, assignment, ref, tmp_path, text)
    assert all(r.score == r.max_score for r in results.values()), [
        r.output for r in results.values() if r.score < r.max_score
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        ("dot-product: [1, 2\n", "answers.yaml: invalid YAML at line 2"),
        ("dot-product: [1, 2\nquery-role: [a\n", "answers.yaml: invalid YAML at line 2"),
        ("- a\n- b\n", "answers.yaml: expected question ids with answers"),
        (b"dot-product: 3\x81\n", "answers.yaml: not UTF-8 text (byte 14)"),
        (b"# " + b"x" * (10 * 1024 * 1024) + b"\n", "answers.yaml: larger than 64 KiB"),
        ("dot-product: !!python/object/apply:os.system [echo hi]\n", "answers.yaml: invalid YAML"),
        (DEEP, "answers.yaml: invalid YAML"),
        ("dot-product: " + "9" * 5000 + "\n", "answers.yaml: invalid YAML"),
        ("dot-product: 3\x00\n", "answers.yaml: invalid YAML: special characters are not allowed"),
    ],
)
def test_an_unusable_file_scores_zero_with_its_reason_in_every_question(
    tmp_path, course, assignment, ref, master, content, message
):
    results = grade(course, assignment, ref, tmp_path, content).values()
    assert sum(r.score for r in results) == 0
    for r in results:
        assert r.outcome == "ungradable" and r.output.startswith(message) and "\n" not in r.output
    assert quiz.check_answers_file(tmp_path / "answers.yaml", master) == [
        next(iter(results)).output
    ]


@pytest.mark.parametrize(
    "path, message, outcome",
    [
        (None, "answers.yaml: not submitted", "not_submitted"),
        ("missing.yaml", "missing.yaml: not submitted (not found)", "not_submitted"),
        ("folder.yaml", "folder.yaml: not a regular file", "ungradable"),
    ],
)
def test_a_missing_file_is_one_line_in_every_question(
    tmp_path, course, assignment, ref, path, message, outcome
):
    """No file at all is 'not submitted'; a file that cannot be read is 'ungradable'."""
    (tmp_path / "folder.yaml").mkdir()
    results = quiz.grade_answers(
        course, assignment, "alice", tmp_path / path if path else None, ref
    )
    assert all(
        r.outcome == outcome and r.output.startswith(message) and "\n" not in r.output
        for r in results
    )
    assert (
        str(tmp_path) not in results[0].output
    )  # feedback names the file, not the grader's folders


def test_a_symbolic_link_is_refused(tmp_path, course, assignment, ref, master):
    key = quiz_render.answer_key(
        master, quiz.variant(master, course, assignment, "bob", ref), "bob"
    )
    (tmp_path / "bob.yaml").write_text(key)
    (tmp_path / "answers.yaml").symlink_to(tmp_path / "bob.yaml")
    results = quiz.grade_answers(course, assignment, "alice", tmp_path / "answers.yaml", ref)
    assert all(r.score == 0 and "symbolic link" in r.output for r in results)


@pytest.mark.parametrize(
    "qid, value, message",
    [
        ("dot-product", "seven", "dot-product: expected a number like 0.25, got 'seven'"),
        ("dot-product", "[1, 2]", "dot-product: expected a number like 0.25, got a list of 2"),
        ("any-length", "'maybe'", "any-length: expected true or false, got 'maybe'"),
        ("query-role", "z", "query-role: expected one letter of a, b, c, d, got 'z'"),
        ("query-role", "[a]", "query-role: expected one letter of a, b, c, d, got a list of 1"),
        ("key-and-value", "[a, a]", "key-and-value: the same letter is listed twice"),
        ("plus-row", "[0.45, 0.1]", "plus-row: expected a list of 3 numbers, got a list of 2"),
        (
            "softmax-matrix",
            "[[1, 2, 3], [1, two, 3]]",
            "softmax-matrix: row 2: expected a number like 0.25, got 'two'",
        ),
        ("seed-scores", ".nan", "seed-scores: expected a list of 3 numbers"),
    ],
)
def test_a_wrong_type_costs_that_question_only(
    tmp_path, course, assignment, ref, master, qid, value, message
):
    key = key_answers(master, course, assignment, ref)
    text = "".join(
        f"{k}: {value if k == qid else json.dumps(v)}\n" for k, v in key.items()
    )  # JSON is YAML
    results = grade(course, assignment, ref, tmp_path, text)
    lost = results[qid]
    assert lost.score == 0 and lost.outcome == "failed"
    assert message in lost.output and "\n" not in lost.output
    assert re.search(r"answers\.yaml: line \d+: ", lost.output)
    assert sum(r.score for r in results.values()) == pytest.approx(20 - lost.max_score)
    assert any(
        message in line for line in quiz.check_answers_file(tmp_path / "answers.yaml", master)
    )


def test_letters_and_numbers_are_read_as_a_hand_writes_them(
    tmp_path, course, assignment, ref, master
):
    """(b), b), B. and the choice's line copied from the quiz are the letter b; 1/4 and 25% are 0.25: every
    question still scores in full."""
    key = key_answers(master, course, assignment, ref)
    forms = [
        lambda v: f"({v})",
        lambda v: f"{v})",
        lambda v: f"{v.upper()}.",
        lambda v: f"{v}) The text of that choice",
    ]
    lines = []
    for i, (qid, value) in enumerate(key.items()):
        if isinstance(value, str):
            value = forms[i % 4](value)
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = [forms[(i + j) % 4](v) for j, v in enumerate(value)]
        elif isinstance(value, float) and not isinstance(value, bool):
            value = f"{value * 100!r}%" if i % 2 else f"{value * 4!r}/4"
        lines.append(f"{qid}: {json.dumps(value)}\n")
    results = grade(course, assignment, ref, tmp_path, "".join(lines))
    assert all(r.score == r.max_score for r in results.values()), [
        r.output for r in results.values() if r.score < r.max_score
    ]


def test_lists_written_in_one_line_and_quoted_booleans_are_read_as_meant(
    tmp_path, course, assignment, ref, master
):
    """[b, c] may be written b, c and d or "b c"; a list of numbers "0.5, 0.25"; a matrix "0.5 0.5; 0.1 0.9";
    true as "true", T or Yes."""
    key = key_answers(master, course, assignment, ref)
    lines, written = [], {list: 0, bool: 0}
    for i, (qid, value) in enumerate(key.items()):
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = (" and ".join if i % 2 else " ".join)(value)
            written[list] += 1
        elif isinstance(value, list) and value and all(isinstance(v, float) for v in value):
            value = ", ".join(repr(v) for v in value)
            written[list] += 1
        elif isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            value = "; ".join(
                " ".join(repr(x) for x in row) for row in value
            )  # a matrix, row after row
            written[list] += 1
        elif isinstance(value, bool):
            value = ("T" if i % 2 else "true") if value else ("No." if i % 2 else "false")
            written[bool] += 1
        lines.append(f"{qid}: {json.dumps(value)}\n")
    assert written[list] >= 2 and written[bool] >= 1  # the key has such questions to write so
    results = grade(course, assignment, ref, tmp_path, "".join(lines))
    assert all(r.score == r.max_score for r in results.values()), [
        r.output for r in results.values() if r.score < r.max_score
    ]


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: ("# réponses\n" + text).encode(
            "cp1252"
        ),  # an accent in a comment, saved by an old Windows editor
        lambda text: ("# réponses\n" + text).encode(
            "utf-16"
        ),  # PowerShell's `>`: UTF-16 with its byte-order mark
        lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
    ],
)
def test_answers_saved_in_a_windows_encoding_are_read(
    tmp_path, course, assignment, ref, master, encode
):
    key = key_answers(master, course, assignment, ref)
    text = "".join(f"{qid}: {json.dumps(value)}\n" for qid, value in key.items())
    results = grade(course, assignment, ref, tmp_path, encode(text))
    assert all(r.score == r.max_score for r in results.values()), [
        r.output for r in results.values() if r.score < r.max_score
    ]


@pytest.mark.parametrize("shape", ["- {qid}: {value}\n", "  {qid}: {value}\n"])
def test_answers_written_as_a_list_of_items_or_under_one_heading_are_read(
    tmp_path, course, assignment, ref, master, shape
):
    key = key_answers(master, course, assignment, ref)
    text = ("answers:\n" if shape.startswith(" ") else "") + "".join(
        shape.format(qid=qid, value=json.dumps(value)) for qid, value in key.items()
    )
    results = grade(course, assignment, ref, tmp_path, text)
    assert all(r.score == r.max_score for r in results.values()), [
        r.output for r in results.values() if r.score < r.max_score
    ]


def test_an_unknown_id_is_named_with_the_likely_question(tmp_path, course, assignment, ref, master):
    key = key_answers(master, course, assignment, ref)
    key["dot-prodcut"] = key.pop("dot-product")
    key["colour"] = "blue"
    results = grade(course, assignment, ref, tmp_path, yaml.safe_dump(key))
    assert results["dot-product"].output.startswith("Not answered.")
    assert (
        "unknown question id 'dot-prodcut' (did you mean 'dot-product'?)"
        in results["dot-product"].output
    )
    assert (
        "unknown question id 'colour'" in results["query-role"].output
    )  # no close match: the first question
    unit = assignment.quiz_points / sum(
        q.points for q in master.questions
    )  # dot-product has weight 1
    assert sum(r.score for r in results.values()) == pytest.approx(assignment.quiz_points - unit)
    assert len(quiz.check_answers_file(tmp_path / "answers.yaml", master)) == 2


def test_an_answer_given_twice_counts_the_last_and_says_so(
    tmp_path, course, assignment, ref, master
):
    results = grade(
        course, assignment, ref, tmp_path, "any-length: false\nquery-role: a\nany-length: true\n"
    )
    assert results["any-length"].outcome == "passed"  # passed, yet the note is in the check
    lines = quiz.check_answers_file(tmp_path / "answers.yaml", master)
    assert lines == ["answers.yaml: any-length is answered on lines 1, 3; the last one counts."]


@pytest.mark.parametrize(
    "text", ["", "# nothing yet\n", "dot-product:\nkey-and-value: []\nquery-role: ''\n"]
)
def test_empty_answers_are_unanswered_not_errors(tmp_path, course, assignment, ref, master, text):
    results = grade(course, assignment, ref, tmp_path, text).values()
    assert all(r.outcome == "failed" and r.output.startswith("Not answered.") for r in results)
    assert quiz.check_answers_file(tmp_path / "answers.yaml", master) == []


def test_numbers_written_with_an_exponent_are_numbers(tmp_path, course, assignment, ref, master):
    value = key_answers(master, course, assignment, ref)["plus-weight-two"]
    results = grade(course, assignment, ref, tmp_path, f"plus-weight-two: {value * 10:.6f}e-1\n")
    assert results["plus-weight-two"].outcome == "passed"


# ---------------------------------------------------------------------------------------------
# The master is validated on load.


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["questions"][0].update(kind="essay"),
            "questions[0].kind: expected one of single, multiple",
        ),
        (
            lambda d: d["questions"][0]["choices"][1].update(correct=True),
            "questions[0].choices: a single choice question needs exactly one correct choice, got 2",
        ),
        (
            lambda d: d["questions"][0].update(answr="a"),
            "questions[0].answr: unknown key (did you mean 'answer'?)",
        ),
        (
            lambda d: d["questions"][0].update(tolerance=0.1),
            "questions[0].tolerance: not used by a single question",
        ),
        (
            lambda d: d["questions"][1].update(id="query-role"),
            "questions[1].id: duplicate id 'query-role'",
        ),
        (
            lambda d: d["questions"][3].update(answer="maybe"),
            "questions[3].answer: expected true or false, got 'maybe'",
        ),
        (
            lambda d: d["questions"][3].update(points="three"),
            "questions[3].points: expected a number, got 'three'",
        ),
        (
            lambda d: d["questions"][5].update(text="q = {q}, k = {kk}"),
            "questions[5].text: {kk} names no input",
        ),
        (
            lambda d: d["questions"][5].update(text="q = {q}"),
            "questions[5].inputs.k: drawn but never shown",
        ),
        (
            lambda d: d["questions"][5].update(answer=3),
            "questions[5].answer: the numbers are drawn per student",
        ),
        (
            lambda d: d["questions"][5].update(answer={"compute": "softmax"}),
            "questions[5].answer.compute: softmax needs the input 'scores'",
        ),
        (
            lambda d: d["questions"][10].update(answer={"compute": "softmax", "pick": 3}),
            "questions[10].answer.pick: 3 is not an index of a list of 3",
        ),
        (
            lambda d: d["questions"][13].update(answer={"fixture": "A"}),
            "questions[13].answer: a vector question needs a list of numbers, got one of shape (3, 3)",
        ),
        (
            lambda d: d["questions"][13].update(answer={"fixture": "A", "row": "minus"}),
            "questions[13].answer.row: 'minus' is not one of two, plus, three",
        ),
        (
            lambda d: d["questions"][15]["traps"][0].update(answer=[0.45, 0.1]),
            "questions[15].traps[0].answer: expected a list of 3 numbers, got a list of 2",
        ),
        (lambda d: d.update(questions=[]), "questions: needs at least one question"),
    ],
)
def test_a_bad_master_is_one_line_naming_the_path_and_value(raw_master, change, message):
    data = copy.deepcopy(raw_master)
    change(data)
    with pytest.raises(QkvError) as err:
        quiz.parse_quiz(data, name="solutions/quiz.yaml", content=CONTENT)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_question_weights_set_each_share_of_the_quiz_points(course, assignment, ref, raw_master):
    data = copy.deepcopy(raw_master)
    data["questions"] = data["questions"][:3]
    data["questions"][0]["points"] = 2  # weights 2, 1, 1 of 20 points
    shares = [
        p.max_score
        for p in quiz.variant(
            quiz.parse_quiz(data, content=CONTENT), course, assignment, "alice", ref
        )
    ]
    assert shares == pytest.approx([10, 5, 5])


# ---------------------------------------------------------------------------------------------
# Release: quiz.md and answers.yaml, no answers.


def test_release_ships_the_quiz_without_answers_and_the_blank_template(course, assignment, master):
    files = release.build(course, assignment)
    assert files["answers.yaml"] == quiz_render.template(master)
    blank = yaml.safe_load(files["answers.yaml"])
    assert list(blank) == [q.id for q in master.questions] and set(blank.values()) == {None}
    text = files["quiz.md"]
    for q in master.questions:
        assert f". {q.id} (" in text
        assert " ".join(q.hint.split()) not in " ".join(text.split())
    assert text.count("qkv quiz show --student <id>") >= 2  # the how-to and each varying question
    assert "[your q]" in text and "{q}" not in text
    assert "quiz.md" in files["README.md"]


@pytest.mark.parametrize(
    "leak",
    [
        lambda r: "        correct: true\n",
        lambda r: (
            "Softmax is a fixed rule\nwith no parameters to learn.\n"
        ),  # a wrong choice's feedback, rewrapped
        lambda r: quiz_render.answer_key(r.quiz, [], "alice"),
    ],
)
def test_a_leaked_quiz_answer_stops_the_release(course, assignment, leak):
    r = release.Release(course, assignment)
    for step in release.STEPS[: release.STEPS.index(release.check_no_secrets)]:
        step(r)
    release.check_no_secrets(r)  # the real release is clean
    r.files["quiz.md"] += leak(r)
    with pytest.raises(QkvError, match="would leak the quiz answer"):
        release.check_no_secrets(r)


# ---------------------------------------------------------------------------------------------
# The command line.


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_quiz_show_prints_the_students_own_numbers_and_no_answers(
    capsys, course, assignment, ref, master
):
    code, out, _ = run(capsys, "quiz", "show", "--student", "alice", "--course", str(course.root))
    assert code == 0 and "Quiz for student alice" in out
    p = posed(master, course, assignment, ref)
    assert " ".join(p["dot-product"].text.split()) in " ".join(out.split())
    assert "Right answer" not in out and quiz_render.KEY_HEADER not in out
    flat = " ".join(out.split())
    assert not [q.id for q in master.questions if " ".join(q.hint.split()) in flat]


def test_quiz_key_prints_an_answers_file_with_full_marks(tmp_path, capsys, course, assignment, ref):
    code, out, _ = run(capsys, "quiz", "key", "--student", "bob", "--course", str(course.root))
    assert code == 0 and out.startswith(quiz_render.KEY_HEADER)
    (tmp_path / "answers.yaml").write_text(out)
    results = quiz.grade_answers(course, assignment, "bob", tmp_path / "answers.yaml", ref)
    assert sum(r.score for r in results) == pytest.approx(20)


def test_check_answers_yaml_reports_the_form(tmp_path, capsys, course, master):
    path = tmp_path / "answers.yaml"
    path.write_text(quiz_render.template(master))
    code, out, _ = run(capsys, "check", str(path), "--course", str(course.root))
    assert (code, out) == (
        0,
        f"answers.yaml: well-formed, 0 of {len(master.questions)} questions answered\n",
    )
    path.write_text("dot-product: 3\nany-length: true\n")
    code, out, _ = run(capsys, "check", str(path), "--course", str(course.root))
    assert (code, out) == (
        0,
        f"answers.yaml: well-formed, 2 of {len(master.questions)} questions answered\n",
    )
    path.write_text("dot-product: three\nany-lenght: true\n")
    code, out, _ = run(capsys, "check", str(path), "--course", str(course.root))
    assert code == 1
    assert out.splitlines() == [
        "answers.yaml: line 1: dot-product: expected a number like 0.25, got 'three'",
        "answers.yaml: line 2: unknown question id 'any-lenght' (did you mean 'any-length'?).",
    ]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["quiz", "show", "--student", "../etc"], "not a usable student id"),
        (
            ["quiz", "key", "--student", "alice", "--assignment", "atention"],
            "did you mean 'attention'",
        ),
    ],
)
def test_quiz_commands_fail_with_one_line_and_exit_2(capsys, course, argv, message):
    code, out, err = run(capsys, *argv, "--course", str(course.root))
    assert code == 2 and message in err and err.count("\n") == 1 and out == ""


def test_an_assignment_without_a_quiz_says_so(tmp_path, capsys, course):
    text = (
        (course.root / "course.yaml")
        .read_text()
        .replace("    quiz: solutions/attention/quiz.yaml\n", "")
    )
    text = text.replace("    quiz_points: 20\n", "").replace(
        "source: solutions/", f"source: {course.root}/solutions/"
    )
    (tmp_path / "course.yaml").write_text(text)
    code, _, err = run(capsys, "quiz", "show", "--student", "alice", "--course", str(tmp_path))
    assert code == 2 and "has no quiz" in err
