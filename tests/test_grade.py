"""`qkv grade`: the gradebook and results files, determinism, resuming, odd input, the CLI."""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import jsonschema
import numpy as np
import pytest

from course_content import CONTENT, cases, fixture
from qkv.cli import main
from qkv.content import reference
from qkv.course import seeds
from qkv.grade.batch import grade
from qkv.integrations import gradescope
from qkv.reports import class_report, outputs
from qkv.results import records as results
from qkv.validate import synthetic

KINDS = [
    "honest_reference",
    "honest_loops",
    "mistake_softmax_axis0",
    "mistake_score_scaled",
    "stub",
    "broken_syntax_error",
]


@pytest.fixture(scope="module")
def klass(tmp_path_factory, course, assignment):
    subs = tmp_path_factory.mktemp("class") / "subs"
    synthetic.write_class(CONTENT, subs, kinds=KINDS)
    return subs


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course, klass):
    out = tmp_path_factory.mktemp("graded")
    summary = grade(course, klass, assignment="attention", out=out, jobs=2, progress=False)
    return out, summary


def test_gradebook_has_the_design_header_and_one_sorted_row_per_student(graded):
    out, _ = graded
    rows = list(csv.reader((out / "gradebook.csv").open()))
    assert rows[0] == [
        "student",
        "project",
        "score",
        "softmax",
        "aggregate",
        "attend",
        "quiz",
        "total",
        "submitted_at",
        "credit",
        "final",
        "status",
    ]
    assert [r[0] for r in rows[1:]] == sorted(KINDS)
    by = {r[0]: r for r in rows[1:]}
    # no answers.yaml, no timestamp.txt: full credit
    assert by["honest_reference"][1:] == [
        "20",
        "20",
        "20",
        "20",
        "20",
        "0",
        "100",
        "",
        "100",
        "100",
        "graded",
    ]
    assert by["honest_loops"][7] == "100"
    assert by["stub"][7] == "0"
    assert by["mistake_score_scaled"][2] == "0" and by["mistake_score_scaled"][3] == "20"
    assert by["broken_syntax_error"][11].startswith("ungradable: syntax error on line 3")


def test_results_json_follows_gradescope_format(graded):
    out, _ = graded
    data = json.loads((out / "results" / "mistake_softmax_axis0.json").read_text())
    schema = json.loads(gradescope.SCHEMA.read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data)) == []
    assert set(data) >= {"score", "tests", "output", "visibility"}
    for t in data["tests"]:
        assert set(t) >= {"name", "score", "max_score", "status", "output", "visibility", "tags"}
        assert t["status"] in ("passed", "failed")
    failing = [t for t in data["tests"] if t["status"] == "failed"]
    assert any("normalise along the last axis" in t["output"] for t in failing)
    assert data["score"] == pytest.approx(sum(t["score"] for t in data["tests"]))


def test_hidden_case_messages_reveal_no_expected_numbers_but_public_ones_do(
    tmp_path, course, assignment
):

    subs = tmp_path / "subs"
    subs.mkdir()
    source = course.path(assignment.source).read_text()
    (subs / "off.py").write_text(
        reference.replace_function(source, "score", "def score(Q, K):\n    return Q @ K.T + 0.5\n")
    )
    grade(course, subs, assignment="attention", out=tmp_path / "out", jobs=1, progress=False)
    tests = {
        t.name: t.output
        for t in results.read(tmp_path / "out" / "results" / "off.json").tests
        if t.part == "score"
    }
    assert "expected" in tests["score: two plus three queries and keys"]
    hidden = tests["score: more queries than keys and fewer"]
    said, told = hidden.split(". ", 1)
    assert "differs from the expected values in" in said and " is " not in said
    assert "shifted by a constant of its own in each row" in told  # how, with no number of it


def test_rerun_is_byte_identical(tmp_path, course, klass, graded):
    out, _ = graded
    again = tmp_path / "again"
    grade(course, klass, assignment="attention", out=again, jobs=1, progress=False)
    assert (again / "gradebook.csv").read_bytes() == (out / "gradebook.csv").read_bytes()
    for path in (out / "results").glob("*.json"):
        assert (again / "results" / path.name).read_bytes() == path.read_bytes()


def _same_files(a, b, folder: str, pattern: str) -> None:
    names = sorted(p.name for p in (a / folder).glob(pattern))
    assert names and names == sorted(p.name for p in (b / folder).glob(pattern))
    for name in names:
        assert (a / folder / name).read_bytes() == (b / folder / name).read_bytes(), name


def test_grading_processes_started_afresh_grade_as_forked_ones_do(tmp_path, course, klass, graded):
    # With another thread running in the grading command, its grading processes are not forked from
    # it but start as fresh interpreters: same results, gradebook and pages.
    out, _ = graded
    stop = threading.Event()
    waiter = threading.Thread(target=stop.wait)
    waiter.start()
    try:
        grade(course, klass, assignment="attention", out=tmp_path / "fresh", jobs=2, progress=False)
    finally:
        stop.set()
        waiter.join()
    assert (tmp_path / "fresh" / "gradebook.csv").read_bytes() == (
        out / "gradebook.csv"
    ).read_bytes()
    _same_files(out, tmp_path / "fresh", "results", "*.json")
    _same_files(out, tmp_path / "fresh", "feedback", "*.html")


def test_pages_written_while_grading_are_those_a_rebuild_writes(
    tmp_path, course, assignment, klass, graded
):
    out, summary = graded
    rebuilt = tmp_path / "rebuilt"
    shutil.copytree(out, rebuilt)
    shutil.rmtree(rebuilt / "feedback")
    (rebuilt / "gradebook.csv").unlink()
    outputs.write(course, assignment, rebuilt, summary.students)
    assert (rebuilt / "gradebook.csv").read_bytes() == (out / "gradebook.csv").read_bytes()
    _same_files(out, rebuilt, "feedback", "*.html")


def test_existing_results_are_reused_unless_forced(tmp_path, course, klass):
    out = tmp_path / "out"
    first = grade(course, klass, assignment="attention", out=out, jobs=1, progress=False)
    assert first.graded == len(KINDS)
    second = grade(course, klass, assignment="attention", out=out, jobs=1, progress=False)
    assert (second.graded, second.reused, second.regraded) == (0, len(KINDS), {})
    forced = grade(
        course, klass, assignment="attention", out=out, jobs=1, progress=False, force=True
    )
    assert forced.graded == len(KINDS)


def test_a_killed_batch_resumes_to_the_same_gradebook(tmp_path, course, assignment, graded):
    subs = tmp_path / "subs"
    synthetic.write_class(CONTENT, subs, 60, kinds=KINDS)
    reference_out, resumed_out = tmp_path / "whole", tmp_path / "resumed"
    grade(course, subs, assignment="attention", out=reference_out, jobs=2, progress=False)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qkv.cli",
            "grade",
            str(subs),
            "--out",
            str(resumed_out),
            "--course",
            str(course.root),
            "--jobs",
            "2",
            "--quiet",
        ],
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list((resumed_out / "results").glob("*.json"))) < 10:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = list((resumed_out / "results").glob("*.json"))
    assert 10 <= len(partial) < 60, "the batch should have been killed part-way"
    for path in partial:
        json.loads(path.read_text())  # no half-written file
    summary = grade(course, subs, assignment="attention", out=resumed_out, jobs=2, progress=False)
    assert summary.reused >= len(partial) - 2 and summary.graded + summary.reused == 60
    assert (resumed_out / "gradebook.csv").read_bytes() == (
        reference_out / "gradebook.csv"
    ).read_bytes()
    assert not list((resumed_out / "results").glob(".*.tmp")), (
        "a rerun clears temporary files of a killed run"
    )


def _suite_rng(course, student, label):
    return seeds.suite_rng(seeds.suite_state(course.seed, "attention", student, label))


def test_cases_are_the_same_on_regrade_and_differ_between_students(course):
    a = cases.projection(_suite_rng(course, "alice", "test_random_shapes"))
    again = cases.projection(_suite_rng(course, "alice", "test_random_shapes"))
    bob = cases.projection(_suite_rng(course, "bob", "test_random_shapes"))
    other_test = cases.projection(_suite_rng(course, "alice", "test_other"))
    assert all((x == y).all() for x, y in zip(a, again))
    for other in (bob, other_test):
        assert any(x.shape != y.shape or not (x == y).all() for x, y in zip(a, other))


def test_a_kept_generator_put_in_a_students_state_draws_as_a_new_one(course):
    kept = _suite_rng(course, "carol", "test_random_shapes")
    kept.normal(size=50)  # left anywhere by an earlier student
    for student in ("alice", "bob"):
        state = seeds.suite_state(course.seed, "attention", student, "test_random_shapes")
        assert seeds.suite_rng(state, kept) is kept
        assert (kept.normal(size=8) == seeds.suite_rng(state).normal(size=8)).all()


def test_drawn_shapes_keep_confusable_sides_apart(course):
    for i in range(50):
        rng = _suite_rng(course, f"s{i}", "shapes")
        X, W_q, _W_k, W_v = cases.projection(rng)
        assert len({X.shape[0], X.shape[1], W_q.shape[1], W_v.shape[1]}) == 4
        Q, K = cases.queries_keys(rng)
        assert Q.shape[0] != K.shape[0]
        A, _V = cases.weights_values(rng)
        assert A.shape[0] != A.shape[1] and abs(A.sum(axis=1) - 1).max() < 1e-12


def test_drawn_weights_show_a_renormalisation_in_place(course):
    """Every student's weights change when renormalised in place (A /= A.sum(...)), so the
    catalogued aggregate_in_place is caught whatever the draw; they still sum to 1."""
    for i in range(300):
        A, _ = cases.weights_values(_suite_rng(course, f"s{i}", "test_inputs_are_left_unchanged"))
        assert abs(A.sum(axis=1) - 1).max() < 1e-14
        renormalised = A.copy()
        renormalised /= renormalised.sum(axis=-1, keepdims=True)
        assert (renormalised != A).any()


def test_drawn_sizes_are_distinct_in_range_and_every_ordered_choice_comes_up_alike():
    rng = np.random.default_rng(3)
    for k, low, high in ((4, 2, 8), (3, 2, 8), (2, 2, 8), (2, 4, 8), (2, 1, 3)):
        for _ in range(300):
            sizes = cases._distinct(rng, k, low, high)
            assert len(set(sizes)) == k and all(type(n) is int and low <= n < high for n in sizes)
    counts = Counter(tuple(cases._distinct(rng, 2, 2, 6)) for _ in range(12000))
    assert len(counts) == 12  # 4 * 3 ordered pairs, each about 1,000 times
    assert min(counts.values()) > 850 and max(counts.values()) < 1150


def test_odd_names_and_stray_files_are_skipped_with_one_line_each(
    tmp_path, course, assignment, capsys
):
    subs = tmp_path / "subs"
    subs.mkdir()
    source = course.path(assignment.source).read_text()
    (subs / "alice.py").write_text(source)
    (subs / "bob").mkdir()
    (subs / "bob" / "attention.py").write_text(source)
    (subs / "has space").mkdir()
    (subs / "has space" / "attention.py").write_text(source)
    (subs / "notes.txt").write_text("hi")
    (subs / "empty").mkdir()
    code = main(
        [
            "grade",
            str(subs),
            "--out",
            str(tmp_path / "out"),
            "--course",
            str(course.root),
            "--quiet",
        ]
    )
    assert code == 0
    err = capsys.readouterr().err
    assert "has space" in err and "notes.txt" in err and "Traceback" not in err
    rows = (tmp_path / "out" / "gradebook.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["alice", "bob", "empty"]
    assert rows[3].endswith("ungradable: no attention.py or attention.ipynb in the folder")


def test_missing_submissions_folder_is_one_line_exit_2(tmp_path, course, capsys):
    assert (
        main(
            [
                "grade",
                str(tmp_path / "nope"),
                "--out",
                str(tmp_path / "o"),
                "--course",
                str(course.root),
            ]
        )
        == 2
    )
    assert "not a folder of submissions" in capsys.readouterr().err


def test_run_metadata_records_isolation_seed_and_versions(graded, course):
    out, summary = graded
    meta = json.loads((out / "run.json").read_text())
    assert meta["isolation"] == summary.isolation and meta["course_seed"] == course.seed
    assert {"qkv-kit", "python", "numpy"} <= set(meta["versions"])


def test_hidden_attend_feedback_points_at_the_failing_callee(graded):
    out, _ = graded
    r = results.read(out / "results" / "mistake_softmax_axis0.json")
    attend = [t for t in r.tests if t.part == "attend" and t.outcome == "failed"]
    assert attend and all("softmax() fails on its own" in t.output for t in attend)
    honest = results.read(out / "results" / "mistake_score_scaled.json")
    assert not any("fails on its own" in t.output for t in honest.tests if t.part != "attend")


def test_submission_output_names_the_file_without_the_sandbox_folder(tmp_path, course, assignment):
    """Warnings printed by student code must not carry the random sandbox folder: reruns stay identical."""
    subs = tmp_path / "subs"
    synthetic.write_class(CONTENT, subs, kinds=["mistake_softmax_no_max"])
    for out in ("first", "second"):
        grade(
            course,
            subs,
            assignment="attention",
            out=tmp_path / out,
            jobs=1,
            progress=False,
            pages=False,
        )
    first, second = (
        tmp_path / out / "results" / "mistake_softmax_no_max.json" for out in ("first", "second")
    )
    output = results.read(first).output
    assert "attention.py:" in output and "qkv-sub-" not in output
    assert first.read_bytes() == second.read_bytes()


def test_the_fixture_attention_matrix_is_kept_for_the_feedback_page_even_when_wrong(graded, ref):

    out, _ = graded
    wrong = results.read(out / "results" / "mistake_softmax_axis0.json").recorded.get("attention")
    right = results.read(out / "results" / "honest_reference.json").recorded.get("attention")
    assert wrong is not None and right is not None and wrong != right
    # Kept to far inside the course's tolerance: the full-marks page compares it with the reference's.
    assert abs(sum(right[1]) - 1) < 1e-9
    assert np.allclose(right, fixture.build(ref).A, rtol=1e-11, atol=0)
    assert results.read(out / "results" / "stub.json").recorded.get("attention") is None


def test_a_missing_answers_file_is_not_submitted_and_listed_apart(graded, course, assignment):

    out, summary = graded
    r = results.read(results.path_for(out, "honest_reference"))  # handed in no answers.yaml
    quiz = [t for t in r.tests if t.part == "quiz"]
    assert quiz and {t.outcome for t in quiz} == {"not_submitted"}
    assert all(t.output.startswith("answers.yaml: not submitted") for t in quiz)
    text = class_report.terminal_summary(course, assignment, out, summary.students)
    apart = text.split("Not submitted (")[1]
    assert "honest_reference: quiz" in apart
    problems = (
        text.split("Timed out or not graded")[1].split("Not submitted")[0]
        if "Timed out" in text
        else ""
    )
    assert (
        "honest_reference" not in problems
        and "could not be graded" not in problems.split("broken")[0]
    )
    page = (out / "report.html").read_text()
    assert "<h2>Not submitted</h2>" in page


def test_the_report_never_shows_a_raw_empty_list(graded):
    out, _ = graded
    page = (out / "report.html").read_text()
    assert "[]" not in page
    assert "<dt>grader errors</dt><dd>none</dd>" in page
