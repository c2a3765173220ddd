"""`qkv check`: a line per function, teaching messages, stubs and broken files handled."""

import json
import shutil
import subprocess
import sys

import pytest
from tests.conftest import ROOT

from course_content import CATALOGUE
from qkv.check import run
from qkv.cli import main
from qkv.validate import synthetic


def run_check(capsys, course, path):
    code = main(["check", str(path), "--course", str(course.root)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_reference_passes_every_public_check(capsys, course, assignment):
    code, out, _ = run_check(capsys, course, course.path(assignment.source))
    assert code == 0
    assert out.count("PASS") == 5 and "5 of 5 functions pass" in out


def test_stubs_are_reported_as_not_implemented(capsys, course):
    code, out, _ = run_check(
        capsys, course, course.root / "exercises" / "attention" / "attention.py"
    )
    assert code == 1
    for f in ("project", "score", "softmax", "aggregate", "attend"):
        assert f"TODO  {f}: not implemented yet" in out


def test_syntax_error_is_one_line_with_its_line_number(tmp_path, capsys, course):
    path = tmp_path / "attention.py"
    path.write_text("import numpy as np\n\ndef softmax(S)\n    return S\n")
    code, out, err = run_check(capsys, course, path)
    assert code == 1
    assert "syntax error on line 3" in out
    assert "Traceback" not in out + err


def test_a_file_whose_coding_line_says_latin_1_is_read_as_python_reads_it(
    tmp_path, capsys, course, assignment
):
    path = tmp_path / "attention.py"
    source = course.path(assignment.source).read_text()
    path.write_bytes(("# -*- coding: latin-1 -*-\n# café\n" + source).encode("latin-1"))
    code, out, _ = run_check(capsys, course, path)
    assert code == 0 and "5 of 5 functions pass" in out


def test_a_file_saved_in_windows_code_page_without_a_coding_line_is_read_as_its_editor_wrote_it(
    tmp_path, capsys, course, assignment
):
    path = tmp_path / "attention.py"
    source = course.path(assignment.source).read_text()
    path.write_bytes(
        ("# José’s attention\n" + source).encode("cp1252")
    )  # Python itself would refuse it
    code, out, _ = run_check(capsys, course, path)
    assert code == 0 and "5 of 5 functions pass" in out


@pytest.mark.parametrize(
    "data", [b"# caf\x81\n", "# -*- coding: utf-8 -*-\n# café\n".encode("latin-1")]
)
def test_non_utf8_file_is_one_clear_line(tmp_path, capsys, course, data):
    """Bytes no code page gives a character, or a coding line the bytes belie."""
    path = tmp_path / "attention.py"
    path.write_bytes(data)
    code, _, err = run_check(capsys, course, path)
    assert code == 2 and "not UTF-8" in err and err.count("\n") == 1


@pytest.mark.parametrize("mistake_id", [m.id for m in CATALOGUE])
def test_each_catalogued_mistake_is_named_by_the_public_checks(
    tmp_path, capsys, course, reference_source, mistake_id
):
    m = CATALOGUE.by_id(mistake_id)
    path = tmp_path / "attention.py"
    path.write_text(m.mutant_source(reference_source))
    code, out, _ = run_check(capsys, course, path)
    assert code == 1
    line = next(line for line in out.splitlines() if line.startswith(f"FAIL  {m.part}:"))
    assert m.message in line


def test_a_failing_attend_points_at_the_failing_function_it_calls(
    tmp_path, capsys, course, reference_source
):
    path = tmp_path / "attention.py"
    path.write_text(CATALOGUE.by_id("softmax_axis0").mutant_source(reference_source))
    _, out, _ = run_check(capsys, course, path)
    attend = next(line for line in out.splitlines() if line.startswith("FAIL  attend:"))
    assert (
        "attend() calls your own functions, and softmax() fails on its own: fix that first."
        in attend
    )


# -- a student's copy of the released folder, alone: no course.yaml anywhere ---------------------


@pytest.fixture
def alone(tmp_path, monkeypatch, course):
    """A copy of exercises/attention/ somewhere else, as the current folder."""

    folder = tmp_path / "my-attention"
    shutil.copytree(course.root / "exercises" / "attention", folder)
    monkeypatch.chdir(folder)
    return folder


def check_here(capsys, *argv):
    code = main(["check", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_released_copy_alone_checks_a_correct_file_five_of_five(alone, capsys, reference_source):
    (alone / "attention.py").write_text(reference_source)
    code, out, err = check_here(capsys, "attention.py")
    assert code == 0, out + err
    assert "5 of 5 functions pass the public checks." in out


def test_a_released_copy_alone_names_a_wrong_softmax_axis(alone, capsys, reference_source):
    (alone / "attention.py").write_text(
        CATALOGUE.by_id("softmax_axis0").mutant_source(reference_source)
    )
    code, out, _ = check_here(capsys, "attention.py")
    assert code == 1
    assert (
        f"FAIL  softmax: on the 'two plus three' scores: {CATALOGUE.by_id('softmax_axis0').message}"
        in out
    )


def test_a_released_copy_alone_checks_the_form_of_answers_with_a_did_you_mean(alone, capsys):
    (alone / "answers.yaml").write_text("dot-product: three\nany-lenght: true\n")
    code, out, _ = check_here(capsys, "answers.yaml")
    assert code == 1
    assert "answers.yaml: line 1: dot-product: expected a number like 0.25, got 'three'" in out
    assert "unknown question id 'any-lenght' (did you mean 'any-length'?)" in out


def test_checking_the_folder_checks_its_code_and_its_answers(alone, capsys, reference_source):
    (alone / "attention.py").write_text(reference_source)
    (alone / "answers.yaml").write_text("any-length: true\n")
    code, out, _ = check_here(capsys, ".")
    assert code == 0
    assert "5 of 5 functions pass" in out and "answers.yaml: well-formed, 1 of" in out


def test_a_file_qkv_check_cannot_check_is_named_not_the_code(alone, capsys):
    code, out, err = check_here(capsys, "README.md")
    assert code == 2 and out == ""
    assert err.strip() == (
        "qkv: error: README.md: qkv check takes attention.py, attention.ipynb, answers.yaml "
        "or a folder holding them"
    )


def test_an_endless_function_costs_only_itself_under_check(alone, capsys, reference_source):

    (alone / "attention.py").write_text(synthetic.endless(reference_source, "softmax"))
    _, out, _ = check_here(capsys, "attention.py")
    assert "FAIL  softmax: on the 'two plus three' scores: did not return within" in out
    assert "PASS  aggregate:" in out and "no longer running" not in out


def test_pytest_runs_the_public_checks_in_a_released_copy_alone(alone, reference_source):

    (alone / "attention.py").write_text(reference_source)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=alone,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and "5 passed" in run.stdout, run.stdout + run.stderr


def test_the_quiz_form_holds_ids_kinds_and_choice_counts_only(course):

    form = json.loads((course.root / "exercises" / "attention" / "quiz_form.json").read_text())
    assert {k for q in form["questions"] for k in q} == {"id", "kind", "choices", "shape"}


def test_a_released_copy_carries_the_call_limits_of_its_functions(course):
    """train() is a whole training run: the released cases give it the course's limit for it, and what a
    copied file says instead is read only as positive numbers of seconds."""

    released = json.loads(
        (course.root / "exercises" / "training" / "public_cases.json").read_text()
    )
    assert (
        run.Target("training", released, None, ("numpy",), None).timeouts
        == course.assignment("training").call_timeouts()
        == {"train": 20.0}
    )
    odd = {
        "timeouts": {
            "train": -1,
            "softmax_backward": "9",
            "score_backward": True,
            "a": 3,
            "b": float("nan"),
        }
    }
    assert run.Target("training", odd, None, ("numpy",), None).timeouts == {"a": 3.0}
    assert run.Target("training", {"timeouts": [1]}, None, ("numpy",), None).timeouts == {}


def test_a_line_of_the_file_that_stopped_while_loading_is_a_note_and_not_a_function(
    tmp_path, capsys, course, assignment
):
    path = tmp_path / "attention.py"
    source = course.path(assignment.source).read_text()
    # Its process has an empty argv (nothing of the grader's): a required argument is missing.
    demo = "import argparse\np = argparse.ArgumentParser()\np.add_argument('path')\nargs = p.parse_args()\n"
    path.write_text(demo + source)
    code, out, _ = run_check(capsys, course, path)
    assert code == 0 and "5 of 5 functions pass" in out
    assert out.startswith(
        "NOTE  attention.py: loading raised SystemExit: 2 (line 4 in <module>: args = "
    )


@pytest.mark.parametrize(
    "name, functions", [("training.py", 6), ("training.ipynb", 6), ("attention.ipynb", 5)]
)
def test_in_a_course_the_file_checked_names_its_assignment(capsys, course, name, functions):
    """`qkv check exercises/training/training.ipynb` at the course's root checks the training
    assignment, not the course's first."""

    path = ROOT / "exercises" / name.split(".")[0] / name
    _code, out, _ = run_check(capsys, course, path)
    assert (
        f"0 of {functions} functions pass the public checks." in out
    )  # the released stubs, not one done
