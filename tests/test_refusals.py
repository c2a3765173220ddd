"""Options that would grade the wrong thing are refused with one line and exit code 2, before grading."""

import copy

import pytest
import yaml

from course_content import ROOT
from qkv.cli import main


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def subs(tmp_path, course, assignment):
    folder = tmp_path / "subs"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "attention.py").write_text(course.path(assignment.source).read_text())
    return folder


def grade(*args):
    return main(["grade", *map(str, args), "--course", str(ROOT), "--quiet"])


def test_out_inside_the_submissions_is_refused(subs, capsys):
    assert grade(subs, "--out", subs / "graded") == 2
    assert "inside the submissions folder" in one_line_error(capsys)
    assert not (subs / "graded").exists()


def test_out_equal_to_the_submissions_is_refused(subs, capsys):
    assert grade(subs, "--out", subs) == 2
    assert "inside the submissions folder" in one_line_error(capsys)


def test_out_naming_a_file_is_refused(subs, tmp_path, capsys):
    (tmp_path / "out.csv").write_text("x")
    assert grade(subs, "--out", tmp_path / "out.csv") == 2
    assert "out.csv: is a file" in one_line_error(capsys)


@pytest.mark.parametrize("jobs", ["0", "-3"])
def test_jobs_below_one_is_refused(subs, tmp_path, capsys, jobs):
    assert grade(subs, "--out", tmp_path / "out", "--jobs", jobs) == 2
    assert f"--jobs: must be at least 1, got {jobs}" in one_line_error(capsys)


def test_an_empty_submissions_folder_says_so_and_exits_non_zero(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert grade(tmp_path / "empty", "--out", tmp_path / "out") == 2
    assert "no submissions to grade" in one_line_error(capsys)


def test_a_folder_with_nothing_recognisable_names_what_it_skipped(tmp_path, capsys):
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("hello")
    assert grade(tmp_path / "junk", "--out", tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "no submissions to grade" in err and "notes.txt: skipped" in err


def misspelt_course(tmp_path):
    data = yaml.safe_load((ROOT / "course.yaml").read_text())
    data = copy.deepcopy(data)
    data["assignments"][0]["parts"][2]["function"] = "sofmax"
    for a in data["assignments"]:
        for key in ("source", "quiz", "notebook"):
            if a.get(key):
                a[key] = str(ROOT / a[key])
    path = tmp_path / "course.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(
    "command", [["check", "{source}"], ["validate"], ["grade", "{subs}", "--out", "{out}"]]
)
def test_a_part_function_the_reference_lacks_is_one_line_in_every_command(
    tmp_path, subs, capsys, command
):
    course = misspelt_course(tmp_path)
    args = [
        a.format(source=subs / "alice" / "attention.py", subs=subs, out=tmp_path / "out")
        for a in command
    ]
    assert main([*args, "--course", str(course)]) == 2
    err = one_line_error(capsys)
    assert "part function 'sofmax' is not one of" in err and "did you mean 'softmax'" in err
