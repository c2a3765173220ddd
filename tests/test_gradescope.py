"""The Gradescope autograder: the zip's layout, and run_autograder on real submissions in a fake /autograder."""

import dataclasses
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from course_content import CATALOGUE
from qkv.cli import main
from qkv.integrations import gradescope
from qkv.quiz import grading as quiz
from qkv.quiz import render as quiz_render
from qkv.sandbox import folders

HOSTILE = Path(__file__).parent / "hostile"
METADATA = {
    "id": 123456,
    "created_at": "2026-12-16T09:00:00.000000+00:00",
    "assignment": {
        "due_date": "2026-12-15T23:59:00.000000+00:00",
        "id": 25828,
        "title": "Attention",
    },
    "submission_method": "upload",
    "users": [{"email": "ada@example.edu", "id": 1234, "name": "Ada L"}],
    "previous_submissions": [],
}


@pytest.fixture(scope="module")
def schema():
    data = json.loads(gradescope.SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(data)
    return jsonschema.Draft202012Validator(data)


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory, course):
    out = tmp_path_factory.mktemp("zip") / "autograder.zip"
    assert (
        main(
            [
                "gradescope",
                "--course",
                str(course.root),
                "--assignment",
                "attention",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return out


def fake_autograder_root(
    tmp_path: Path, autograder_zip: Path, files: dict[str, str], metadata=METADATA
) -> Path:
    """/autograder as Gradescope lays it out: source/ unpacked, run_autograder copied, the submission."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(autograder_zip) as z:
        z.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    for name, text in files.items():
        (root / "submission" / name).write_text(text)
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata))
    return root


def run_autograder(root: Path) -> subprocess.CompletedProcess:
    # setup.sh would build a venv; this one already holds every dependency.
    env = {**os.environ, gradescope.ROOT_ENV: str(root), "QKV_GRADESCOPE_PYTHON": sys.executable}
    return subprocess.run(
        ["bash", str(root / "run_autograder")],
        env=env,
        cwd=root.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_zip_has_both_scripts_at_its_root_and_carries_the_kit(autograder_zip):
    with zipfile.ZipFile(autograder_zip) as z:
        infos = {i.filename: i for i in z.infolist()}
    for script in ("setup.sh", "run_autograder"):
        assert stat.S_IMODE(infos[script].external_attr >> 16) == 0o755
    assert {
        "pyproject.toml",
        "README.md",
        "course.yaml",
        "solutions/attention/attention.py",
        "src/qkv/grade/batch.py",
        "solutions/attention/suites/test_softmax.py",
        "solutions/attention/content.py",
        "src/qkv/integrations/schemas/gradescope_results.schema.json",
    } <= set(infos)
    assert not [
        n for n in infos if "__pycache__" in n or n.startswith(("tests/", "exercises/", "."))
    ]


def test_building_the_zip_twice_gives_the_same_bytes(tmp_path, course, autograder_zip):
    again = gradescope.build_zip(
        course, course.root / "course.yaml", assignment="attention", out=tmp_path / "again.zip"
    )
    assert again.read_bytes() == autograder_zip.read_bytes()


@pytest.mark.parametrize("script", ["setup.sh", "run_autograder"])
def test_the_scripts_are_valid_bash(tmp_path, autograder_zip, script):
    with zipfile.ZipFile(autograder_zip) as z:
        z.extract(script, tmp_path)
    result = subprocess.run(["bash", "-n", str(tmp_path / script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def correct(reference_source: str) -> str:
    return reference_source


def buggy(reference_source: str) -> str:
    return CATALOGUE.by_id("softmax_axis0").mutant_source(reference_source)


def hostile(reference_source: str) -> str:
    return (HOSTILE / "monkeypatch_numpy.py").read_text()


def answer_key(course, assignment, ref, student: str) -> str:

    master = quiz.load_quiz(course, assignment)
    return quiz_render.answer_key(
        master, quiz.variant(master, course, assignment, student, ref), student
    )


@pytest.mark.parametrize("make", [correct, buggy, hostile])
def test_run_autograder_writes_valid_gradescope_results(
    tmp_path, autograder_zip, schema, course, assignment, ref, reference_source, make
):
    files = {"attention.py": make(reference_source)}
    if make is correct:
        files["answers.yaml"] = answer_key(course, assignment, ref, METADATA["users"][0]["email"])
    root = fake_autograder_root(tmp_path, autograder_zip, files)
    course_yaml = (
        root / "source" / "course.yaml"
    )  # a visibility other than the default shows where it comes from
    course_yaml.write_text(
        course_yaml.read_text().replace("visibility: after_published", "visibility: after_due_date")
    )
    proc = run_autograder(root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((root / "results" / "results.json").read_text())
    assert list(schema.iter_errors(data)) == []
    assert data["extra_data"]["student"] == "ada@example.edu"
    assert data["visibility"] == "after_due_date" and {t["visibility"] for t in data["tests"]} == {
        "after_due_date"
    }
    if make is correct:
        # code 100, quiz 20; handed in within course.yaml's first late window: 80 % count
        assert sum(t["score"] for t in data["tests"]) == pytest.approx(120) and {
            t["status"] for t in data["tests"]
        } == {"passed"}
        assert data["score"] == 96 and data["extra_data"]["late_credit"]["credit"] == 80
    elif make is buggy:
        assert 0 < data["score"] < 100
        named = [t for t in data["tests"] if t["extra_data"]["mistake"] == "softmax_axis0"]
        assert named and all(CATALOGUE.by_id("softmax_axis0").message in t["output"] for t in named)
    else:
        assert data["score"] == 0


def test_run_autograder_uses_the_kit_unpacked_from_the_zip(
    tmp_path, autograder_zip, reference_source
):
    root = fake_autograder_root(tmp_path, autograder_zip, {"attention.py": reference_source})
    (root / "source" / "solutions" / "attention" / "suites" / "test_attend.py").unlink()
    proc = run_autograder(root)
    assert proc.returncode == 2 and "no hidden suite test_attend.py" in proc.stderr
    assert not (root / "results" / "results.json").exists()


def test_the_submission_metadata_is_kept_and_a_late_submission_marked(
    tmp_path, autograder_zip, course, reference_source
):
    root = fake_autograder_root(tmp_path, autograder_zip, {"attention.py": reference_source})
    data = gradescope.run(course, assignment="attention", root=root)
    facts = data["extra_data"]["gradescope"]
    assert facts["late"] is True and facts["due_date"] == METADATA["assignment"]["due_date"]
    assert facts["submission_id"] == 123456 and facts["users"] == ["ada@example.edu"]
    assert data["execution_time"] > 0 and data["output_format"] == "text"
    assert data["extra_data"]["submitted_at"] == "2026-12-16T09:00:00Z"
    assert data["output"].startswith(
        "Handed in 2026-12-16T09:00:00Z, after the deadline: 80 % of 100 points count, 80."
    )


def test_a_symlink_to_the_reference_is_not_graded(tmp_path, autograder_zip, course, schema):
    root = fake_autograder_root(tmp_path, autograder_zip, {})
    (root / "submission" / "attention.py").symlink_to(
        root / "source" / "solutions" / "attention" / "attention.py"
    )
    data = gradescope.run(course, assignment="attention", root=root)
    assert list(schema.iter_errors(data)) == []
    assert data["score"] == 0 and data["extra_data"]["status"].startswith(
        "ungradable: no attention.py"
    )


def test_a_file_in_a_subfolder_of_the_upload_is_found(
    tmp_path, autograder_zip, course, reference_source
):
    root = fake_autograder_root(tmp_path, autograder_zip, {})
    (root / "submission" / "hw" / "__MACOSX").mkdir(parents=True)
    (root / "submission" / "hw" / "__MACOSX" / "attention.py").write_text("junk(")
    (root / "submission" / "hw" / "attention.py").write_text(reference_source)
    assert (
        gradescope.run(course, assignment="attention", root=root)["score"] == 80
    )  # 100, handed in late


def test_an_upload_with_folders_nested_thousands_deep_is_searched_and_graded(
    tmp_path, autograder_zip, course, reference_source
):
    """rglob recursed once per level, and 3,000 nested folders ended the run with a RecursionError: the
    search goes level by level, to FIND_DEPTH, and the shallowest file wins (of two, the first by path)."""
    root = fake_autograder_root(tmp_path, autograder_zip, {})
    upload = root / "submission"
    fd = os.open(upload, os.O_RDONLY)
    try:
        for _ in range(3000):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    for folder, text in (("z", "junk("), ("b", reference_source), ("c/d", "junk(")):
        (upload / folder).mkdir(parents=True)
        (upload / folder / "attention.py").write_text(text)
    try:
        assert (
            gradescope.run(course, assignment="attention", root=root)["score"] == 80
        )  # b's: 100, handed in late
    finally:
        folders.remove_tree(
            str(upload / "a")
        )  # pytest's own clean-up of old temporary folders recurses too
    deep = upload.joinpath(*["x"] * (gradescope.FIND_DEPTH + 1))
    deep.mkdir(parents=True)
    (deep / "attention.py").write_text(reference_source)
    assert gradescope._find(upload, "attention.py") == upload / "b" / "attention.py"
    for folder in ("b", "c", "z"):
        shutil.rmtree(upload / folder)
    assert gradescope._find(upload, "attention.py") is None  # deeper than FIND_DEPTH
    assert gradescope._find(deep.parent, "attention.py") == deep / "attention.py"


def test_an_upload_with_a_renamed_file_and_answers_yml_is_graded_as_a_folder_of_submissions_is(
    tmp_path, autograder_zip, course, assignment, ref, reference_source
):

    master = quiz.load_quiz(course, assignment)
    student = METADATA["users"][0]["email"]
    key = quiz_render.answer_key(
        master, quiz.variant(master, course, assignment, student, ref), student
    )
    root = fake_autograder_root(
        tmp_path, autograder_zip, {"attention (1).py": reference_source, "answers.yml": key}
    )
    data = gradescope.run(course, assignment="attention", root=root)
    assert data["score"] == pytest.approx(0.8 * 120)  # 100 and the quiz's 20, handed in late


@pytest.mark.parametrize(
    "metadata, student",
    [
        (METADATA, "ada@example.edu"),
        ({"users": [{"email": "not an email", "id": 99, "name": "X"}]}, "user-99"),
        ({"users": []}, "student"),
        ({}, "student"),
    ],
)
def test_the_student_id_comes_from_the_first_submitter(metadata, student):
    assert gradescope.student_of(metadata) == student


@pytest.mark.parametrize(
    "bad",
    [
        {"tests": [{"name": "no score anywhere"}]},
        {"score": 1, "tests": [{"name": "x", "status": "ok"}]},
        {"score": 1, "tests": [{"name": "x", "visibility": "always"}]},
        {"score": 1, "leaderboard": [{"name": "accuracy"}]},
        {"score": "full"},
    ],
)
def test_the_schema_rejects_what_gradescope_would(schema, bad):
    assert list(schema.iter_errors(bad))


def test_gradescope_run_cli_prints_the_score_and_where_it_wrote(
    tmp_path, autograder_zip, course, reference_source, capsys
):
    root = fake_autograder_root(
        tmp_path, autograder_zip, {"attention.py": reference_source}, metadata=None
    )
    assert main(["gradescope-run", "--course", str(course.root), "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("student: 100 points") and str(root / "results" / "results.json") in out


@pytest.mark.parametrize("policy, score", [("last", 0), ("best", 90)])
def test_an_earlier_better_submission_counts_under_best(
    tmp_path, autograder_zip, course, policy, score
):
    earlier = {"submission_time": "2026-12-14T10:00:00.000000+00:00", "score": 90.0, "results": {}}
    root = fake_autograder_root(
        tmp_path,
        autograder_zip,
        {"attention.py": "def nothing(:\n"},
        metadata={**METADATA, "previous_submissions": [earlier]},
    )
    data = gradescope.run(
        dataclasses.replace(course, resubmissions=policy), assignment="attention", root=root
    )
    assert data["score"] == score
    if policy == "best":
        assert data["output"].startswith(
            "Your submission of 2026-12-14T10:00:00.000000+00:00 scored 90"
        )
        assert data["extra_data"]["best_of_resubmissions"]["this_submission"] == 0


def test_a_module_of_the_students_own_beside_the_code_is_staged_and_graded(
    tmp_path, autograder_zip, course, reference_source
):
    helper = (
        "import numpy as np\n\n\ndef stable(S):\n    E = np.exp(S - S.max(axis=-1, keepdims=True))\n"
        "    return E / E.sum(axis=-1, keepdims=True)\n"
    )
    uses = (
        reference_source
        + "\nfrom helpers import stable\n\n\ndef softmax(S):\n    return stable(S)\n"
    )
    root = fake_autograder_root(tmp_path, autograder_zip, {})
    (root / "submission" / "hw").mkdir()
    (root / "submission" / "hw" / "attention.py").write_text(uses)
    (root / "submission" / "hw" / "helpers.py").write_text(helper)
    assert (
        gradescope.run(course, assignment="attention", root=root)["score"] == 80
    )  # 100, handed in late
