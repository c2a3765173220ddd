"""The training assignment end to end: its example learns, its release is in sync, wrong gradients
nobody catalogued still lose their own part (and only the parts that call them), and the feedback
page draws the student's training."""

import csv
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from tests.conftest import ROOT

from qkv.cli import main
from qkv.content import loader
from qkv.grade import batch
from qkv.quiz import master
from qkv.release import notebook as build
from qkv.release import steps as release
from qkv.reports import outputs
from qkv.results.records import StudentResult
from qkv.validate import synthetic


@pytest.fixture(scope="module")
def training(course):
    return course.assignment("training")


@pytest.fixture(scope="module")
def content(course, training):
    return loader.load(course, training)


def test_fixture_json_shows_plus_learning_from_the_course_seed(capsys, course):
    assert (
        main(["fixture", "--course", str(course.root), "--assignment", "training", "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    before, after = data["before"], data["after"]
    assert (
        max(before["plus_row"]) - min(before["plus_row"]) < 0.1
        and abs(before["prediction"] - 5) > 1
    )
    assert (
        after["plus_row"][0] + after["plus_row"][2] >= 0.9 and abs(after["prediction"] - 5) <= 0.1
    )
    assert data["seed"] == course.seed


def test_committed_exercises_are_exactly_what_release_produces(course, training):
    built = release.build(course, training)
    folder = ROOT / "exercises" / "training"
    on_disk = {
        p.relative_to(folder).as_posix(): p.read_text()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert built == on_disk, "run `qkv release` if solutions/ changed, and commit exercises/"


def test_the_release_gives_the_task_and_the_forward_pass_but_no_gradient(course, training):
    stub = release.build(course, training)["training.py"]
    assert "def predict(" in stub and "def attend(" in stub and "def training_sentences(" in stub
    assert (
        "A * (dA - row)" not in stub
        and "dS.T @ Q" not in stub
        and stub.count("raise NotImplementedError()") == 6
    )


def test_bundle_checks_pass_on_the_reference_under_plain_pytest(
    tmp_path, course, training, content
):
    out = tmp_path / "bundle"
    shutil.copytree(ROOT / "exercises" / "training", out)
    (out / "training.py").write_text(content.reference_source)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=out,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and "6 passed" in run.stdout, run.stdout + run.stderr


# Wrong gradients the catalogue does not hold: each must lose its own part, with a sentence, and
# cost nothing in the parts that do not call it.
HELD_OUT = {
    "softmax_backward": "def softmax_backward(A, dA):\n    return A * dA\n",
    "score_backward": "def score_backward(Q, K, dS):\n    return dS @ K, 2 * dS.T @ Q\n",
    "aggregate_backward": "def aggregate_backward(A, V, dO):\n    return dO @ V.T, A.T @ dO + 0.1\n",
    "project_backward": "def project_backward(X, dQ, dK, dV):\n    return X.T @ dQ, X.T @ dQ, X.T @ dV\n",
    "attend_backward": (
        "def attend_backward(X, W_q, W_k, W_v, dO):\n"
        "    Q, K, V = project(X, W_q, W_k, W_v)\n"
        "    A = softmax(score(Q, K))\n"
        "    dA, dV = aggregate_backward(A, V, dO)\n"
        "    dQ, dK = score_backward(Q, K, softmax_backward(A, dA))\n"
        "    return project_backward(X, dK, dQ, dV)\n"
    ),
}


@pytest.fixture(scope="module")
def held_out_results(tmp_path_factory, course, content):
    subs = tmp_path_factory.mktemp("held-out")
    for function, text in HELD_OUT.items():
        folder = subs / subs.name / f"wrong_{function}"
        folder.mkdir(parents=True)
        (folder / "training.py").write_text(
            synthetic._splice(content.reference_source, {function: text})
        )
    out = subs / "out"
    assert (
        main(
            [
                "grade",
                str(subs / subs.name),
                "--course",
                str(course.root),
                "--assignment",
                "training",
                "--out",
                str(out),
                "--quiet",
                "--weak-sandbox",
            ]
        )
        == 0
    )
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    return rows, out


@pytest.mark.parametrize("function", list(HELD_OUT))
def test_a_wrong_gradient_nobody_catalogued_loses_its_part_only(
    held_out_results, training, content, function
):
    rows, out = held_out_results
    row = rows[f"wrong_{function}"]
    points = {p.id: p.points for p in training.parts}
    assert float(row[function]) < points[function]
    callers = set(content.chain) & {
        f for f in content.functions if function in content.catalogue.callees(f, [function])
    }
    for part in points:
        if part not in callers and part != function:
            assert float(row[part]) == points[part], (part, row)
    result = json.loads((out / "results" / f"wrong_{function}.json").read_text())
    failed = [
        t
        for t in result["tests"]
        if t["name"].startswith(f"{function}:") and t["score"] < t["max_score"]
    ]
    assert failed and all(t["output"].strip() for t in failed)
    assert any("finite differences" in t["output"] for t in failed)


def test_feedback_page_draws_the_students_training(held_out_results):
    _, out = held_out_results
    page = (out / "feedback" / "wrong_score_backward.html").read_text()
    assert "How “plus” learned" in page and page.count("data:image/svg+xml") >= 4


def _graded_row(tmp_path, course, source: str) -> dict:
    """The gradebook row of one training.py graded alone through the command line."""
    (tmp_path / "subs" / "student").mkdir(parents=True)
    (tmp_path / "subs" / "student" / "training.py").write_text(source)
    assert (
        main(
            [
                "grade",
                str(tmp_path / "subs"),
                "--course",
                str(course.root),
                "--assignment",
                "training",
                "--out",
                str(tmp_path / "out"),
                "--quiet",
                "--weak-sandbox",
            ]
        )
        == 0
    )
    return next(csv.DictReader((tmp_path / "out" / "gradebook.csv").open()))


def test_train_is_judged_by_outcome_so_a_different_but_sound_loop_passes(tmp_path, course, content):
    """Averaging per-sentence steps into one loop written differently (einsum, a running mean) still passes."""
    variant = content.reference_source.replace(
        "        losses.append(total / len(data))\n",
        "        losses.append(float(np.mean([(predict_error(X, p, t, W_q, W_k)) for X, p, t in data])))\n",
    )
    variant += (
        "\n\ndef predict_error(X, plus, target, W_q, W_k):\n"
        "    O, _ = attend(X, W_q, W_k, value_weights())\n"
        "    return float((O[plus] @ readout_weights() - target) ** 2)\n"
    )
    row = _graded_row(tmp_path, course, variant)
    assert float(row["train"]) == 20


@pytest.mark.parametrize(
    "returned",
    [
        "W_q.tolist(), W_k.tolist(), losses",
        "[W_q, W_k, losses]",
        "W_q, W_k, np.array(losses)[:, None]",
        "W_q, W_k, [np.array([x]) for x in losses]",
    ],
)
def test_train_may_return_its_matrices_and_losses_as_lists_as_the_other_parts_may(
    tmp_path, course, content, returned
):
    """Lists of numbers count as the arrays they spell, in train's checks as everywhere else; losses kept
    as 1-element arrays (a (steps, 1) column) are the same numbers as (steps,)."""
    variant = content.reference_source.replace(
        "return W_q, W_k, np.array(losses)", f"return {returned}"
    )
    assert variant != content.reference_source
    row = _graded_row(tmp_path, course, variant)
    assert float(row["train"]) == 20


@pytest.mark.parametrize(
    "function, args",
    [
        ("score_backward", "Q, K, dS"),
        ("aggregate_backward", "A, V, dO"),
        ("project_backward", "X, dQ, dK, dV"),
        ("attend_backward", "X, W_q, W_k, W_v, dO"),
    ],
)
def test_gradients_may_come_back_as_lists_in_every_check(tmp_path, course, content, function, args):
    """The property checks (a gradient that reaches only its query and key, ...) read lists of numbers
    as the arrays they spell, as the finite-difference checks do: the part keeps full marks."""
    variant = content.reference_source.replace(
        f"def {function}({args}):",
        f"def {function}({args}):\n    return [np.asarray(g).tolist() for g in "
        f"_{function}({args})]\n\n\ndef _{function}({args}):",
        1,
    )
    row = _graded_row(tmp_path, course, variant)
    assert float(row[function]) == content.assignment.part(function).points


def test_finite_differences_of_the_content_agree_with_the_reference(content):
    ref, cases = content.reference, content.cases
    rng = np.random.default_rng(0)
    S, A, dA = cases.softmax_case(rng, ref)
    assert (
        cases.fd_problem(ref.softmax_backward(A, dA), cases.fd_softmax_backward(ref, S, dA)) is None
    )
    assert (
        cases.fd_problem(ref.softmax_backward(A, A), cases.fd_softmax_backward(ref, S, dA))
        is not None
    )
    args = cases.attend_case(rng)
    assert (
        cases.fd_problem(ref.attend_backward(*args), cases.fd_attend_backward(ref, *args)) is None
    )


def test_the_notebook_runs_top_to_bottom_with_the_reference_and_draws_the_training(
    tmp_path, course, training
):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")

    for name in ("public_checks.py", "compare.py", "public_cases.json"):
        shutil.copy(ROOT / "exercises" / "training" / name, tmp_path / name)
    cells = build.master_cells(
        course,
        training,
        master=course.path(training.source).read_text(),
        quiz=master.load_quiz(course, training),
    )
    nb = nbformat.reads(build.dumps(build.notebook_json(cells)), as_version=4)
    nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = {c.id: c.get("outputs", []) for c in nb.cells if c.cell_type == "code"}
    checks = [
        "".join(o.get("text", "") for o in out)
        for cid, out in outputs.items()
        if cid.startswith("check_")
    ]
    assert len(checks) == 6 and all(text.startswith("PASS") for text in checks), checks
    assert any("image/png" in o.get("data", {}) for o in outputs["training_plots"])


def test_train_has_its_own_call_limit_and_the_other_functions_keep_the_course_one(
    tmp_path, content
):
    """A part's timeout_s bounds its function's calls (a whole training run), in one batch or call by call;
    every other function keeps limits.call_timeout_s."""
    course_dir = tmp_path / "course"
    course_dir.mkdir()
    (course_dir / "solutions").symlink_to(ROOT / "solutions")
    text = (ROOT / "course.yaml").read_text().replace("call_timeout_s: 2.0", "call_timeout_s: 0.5")
    text = text.replace(
        "function: train, points: 20, timeout_s: 20", "function: train, points: 20, timeout_s: 6"
    )
    assert "call_timeout_s: 0.5" in text and "timeout_s: 6" in text
    (course_dir / "course.yaml").write_text(text)
    slow = "import time\n" + content.reference_source
    sources = {
        "slow_train": slow.replace(
            "    W_q, W_k = W_q.copy(), W_k.copy()  #",
            "    time.sleep(0.8)\n    W_q, W_k = W_q.copy(), W_k.copy()  #",
        ),
        "slow_softmax_backward": slow.replace(
            "    row = (dA * A).sum(", "    time.sleep(1.0)\n    row = (dA * A).sum("
        ),
    }
    for student, source in sources.items():
        assert source != slow
        (tmp_path / "subs" / student).mkdir(parents=True)
        (tmp_path / "subs" / student / "training.py").write_text(source)
    assert (
        main(
            [
                "grade",
                str(tmp_path / "subs"),
                "--course",
                str(course_dir / "course.yaml"),
                "--assignment",
                "training",
                "--out",
                str(tmp_path / "out"),
                "--quiet",
                "--weak-sandbox",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "out" / "gradebook.csv").open())}
    assert (
        float(rows["slow_train"]["train"]) == 20
        and float(rows["slow_train"]["softmax_backward"]) == 20
    )
    assert float(rows["slow_softmax_backward"]["softmax_backward"]) == 0
    tests = json.loads((tmp_path / "out" / "results" / "slow_softmax_backward.json").read_text())[
        "tests"
    ]
    assert any(
        "softmax_backward() did not return within 0.5 s" in t.get("output", "") for t in tests
    )


def test_weights_that_overflow_cost_their_student_the_checks_not_the_run_its_page_or_the_next_student(
    tmp_path, course, content
):
    """train() returning weights of 1e300 gives a read-out that is not a number: the feedback page says
    so (it used to format None and end the whole run with a traceback, no gradebook written)."""
    huge = content.reference_source.replace(
        "return W_q, W_k, np.array(losses)", "return W_q * 1e300, W_k * -1e300, np.array(losses)"
    )
    assert huge != content.reference_source
    for student, source in {"a_huge": huge, "b_honest": content.reference_source}.items():
        (tmp_path / "subs" / student).mkdir(parents=True)
        (tmp_path / "subs" / student / "training.py").write_text(source)
    assert (
        main(
            [
                "grade",
                str(tmp_path / "subs"),
                "--course",
                str(course.root),
                "--assignment",
                "training",
                "--out",
                str(tmp_path / "out"),
                "--quiet",
                "--weak-sandbox",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "out" / "gradebook.csv").open())}
    assert float(rows["a_huge"]["train"]) < 20 and float(rows["b_honest"]["train"]) == 20
    page = (tmp_path / "out" / "feedback" / "a_huge.html").read_text()
    assert "Reads out no finite number" in page and "could not be drawn" not in page


def test_a_page_whose_figures_fail_is_written_without_them_and_the_grader_is_told(
    tmp_path, course, monkeypatch
):

    training = course.assignment("training")
    shares = outputs.PerStudent(course, training, tmp_path)
    monkeypatch.setattr(type(shares.content), "feedback_section", lambda *a: 1 / 0)
    row, _ = shares(StudentResult("s1", (), tuple(p.id for p in training.parts), "graded", ""))
    page = (tmp_path / "feedback" / "s1.html").read_text()
    assert row[0] == "s1" and "could not be drawn (ZeroDivisionError)" in page
    assert shares.errors == ["feedback page of s1: ZeroDivisionError: division by zero"]


def test_page_errors_of_the_pass_after_grading_reach_the_run_too(
    tmp_path, course, content, monkeypatch
):
    """A student with two hand-ins gets their page once the one that counts is chosen, after grading:
    a drawing that fails there is a grader error of the run as well."""

    for handin in ("h1", "h2"):
        (tmp_path / "subs" / "s1" / handin).mkdir(parents=True)
        (tmp_path / "subs" / "s1" / handin / "training.py").write_text(content.reference_source)
    monkeypatch.setattr(type(content), "feedback_section", lambda *a: 1 / 0)
    summary = batch.grade(
        course,
        tmp_path / "subs",
        assignment="training",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
        weak_sandbox=True,
    )
    assert "feedback page of s1: ZeroDivisionError: division by zero" in summary.errors
    assert "could not be drawn" in (tmp_path / "out" / "feedback" / "s1.html").read_text()
