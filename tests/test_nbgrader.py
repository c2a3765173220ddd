"""`qkv nbgrader export`, and a real nbgrader round trip that scores like `qkv grade`."""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3

from course_content import ASSIGNMENT, CATALOGUE, CONTENT, COURSE
from qkv.cli import main
from qkv.content import loader
from qkv.course.config import load_course
from qkv.errors import QkvError
from qkv.grade.batch import grade
from qkv.integrations import nbgrader_bridge, nbgrader_export
from qkv.results import records as results
from qkv.validate import synthetic

BIN = Path(sys.executable).parent
# student -> kind of submission (autograder.synthetic): full marks, a partial-credit mistake, a chain
# mistake, and the untouched release
STUDENTS = {
    "alice": "honest_reference",
    "bob": "mistake_softmax_no_max",
    "carol": "mistake_attend_returns_ao",
    "dave": "stub",
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory, course, assignment):
    out = tmp_path_factory.mktemp("nbgrader") / "course"
    nbgrader_export.export(course, assignment, out=out)
    return out


def test_export_writes_the_config_the_source_notebook_and_the_kit_files(exported):
    names = {p.relative_to(exported).as_posix() for p in exported.rglob("*") if p.is_file()}
    assert names == {
        "nbgrader_config.py",
        "source/attention/attention.ipynb",
        "source/attention/public_checks.py",
        "source/attention/compare.py",
        "source/attention/public_cases.json",
        "qkv/course.yaml",
        *(f"qkv/{name}" for name in loader.snapshot(COURSE, ASSIGNMENT)),
    }
    assert {
        "qkv/solutions/attention/attention.py",
        "qkv/solutions/attention/quiz.yaml",
        "qkv/solutions/attention/suites/test_softmax.py",
        "qkv/solutions/attention/content.py",
    } <= names
    kit = load_course(exported / "qkv" / "course.yaml")
    assert [a.id for a in kit.assignments] == ["attention"] and kit.path(
        kit.assignments[0].source
    ).is_file()


def test_each_part_gets_a_hidden_test_cell_worth_its_points(exported, assignment):
    nb = nbformat.read(exported / "source" / "attention" / "attention.ipynb", as_version=4)
    MetadataValidatorV3().validate_nb(nb)
    tests = {c.id: c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
    expected = {f"test_{p.id}": p.points for p in assignment.parts} | {
        "test_quiz": assignment.quiz_points
    }
    assert {k: c.metadata.nbgrader.points for k, c in tests.items()} == expected
    for cell in tests.values():
        meta = cell.metadata.nbgrader
        assert meta.locked and not meta.solution and meta.schema_version == 3
        body = cell.source.split("### BEGIN HIDDEN TESTS\n")[1].split("### END HIDDEN TESTS")[0]
        assert (
            f"part_score('{cell.id.removeprefix('test_')}', assignment='attention', notebook='attention.ipynb')"
            in body
        )
    ids = [c.id for c in nb.cells]
    assert ids.index("test_softmax") == ids.index("check_softmax") + 1


def test_export_keeps_the_instructors_own_nbgrader_config(tmp_path, course, assignment):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n# mine\n")
    written = nbgrader_export.export(course, assignment, out=tmp_path)
    assert (tmp_path / "nbgrader_config.py").read_text().endswith("# mine\n")
    assert tmp_path / "nbgrader_config.py" not in written


def test_the_cli_exports_and_says_what_to_run_next(tmp_path, capsys, course):
    assert main(["nbgrader", "export", str(tmp_path / "c"), "--course", str(course.root)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {tmp_path / 'c' / 'source' / 'attention' / 'attention.ipynb'}" in out
    assert "nbgrader generate_assignment attention" in out


def test_the_bridge_finds_the_course_and_the_student_from_nbgraders_layout(exported):
    folder = exported / "autograded" / "bob" / "attention"
    folder.mkdir(parents=True)
    assert nbgrader_bridge.find_course(folder) == exported / "qkv" / "course.yaml"
    assert nbgrader_bridge.student_of(folder / "attention.ipynb") == "bob"
    assert (
        nbgrader_bridge.student_of(exported / "source" / "attention" / "attention.ipynb")
        == "instructor"
    )


def test_the_bridge_without_an_exported_course_says_what_to_run(tmp_path):
    with pytest.raises(QkvError, match="run `qkv nbgrader export`"):
        nbgrader_bridge.find_course(tmp_path)


# -- the round trip: nbgrader generate_assignment + autograde against qkv grade ------------------


def nbgrader(course_dir: Path, *args: str) -> None:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }  # nbgrader runs `alembic`
    proc = subprocess.run(
        [str(BIN / "nbgrader"), *args],
        cwd=course_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def round_trip(content, tmp_path_factory, course, assignment, ref, reference_source):
    """nbgrader's and qkv's scores, {student: {part: points}}, for the same four notebooks."""
    root = tmp_path_factory.mktemp("roundtrip")
    course_dir = root / "course"
    nbgrader_export.export(course, assignment, out=course_dir)
    nbgrader(course_dir, "generate_assignment", "attention")
    released = (course_dir / "release" / "attention" / "attention.ipynb").read_text()
    sources = synthetic.class_sources(content)
    answers = synthetic.answers_for(course, assignment, content)
    qkv_subs = root / "qkv-submissions"
    for student, kind in STUDENTS.items():
        text = synthetic.notebook_submission(released, sources[kind], answers(student, kind))
        for folder in (course_dir / "submitted" / student / "attention", qkv_subs / student):
            folder.mkdir(parents=True)
            (folder / "attention.ipynb").write_text(text)
    nbgrader(course_dir, "autograde", "attention")

    columns = [p.id for p in assignment.parts] + ["quiz"]
    nb_scores = {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        for student in STUDENTS:
            graded = gb.find_submission_notebook("attention", "attention", student)
            by_cell = {g.name: g.auto_score for g in graded.grades}
            nb_scores[student] = {c: by_cell[f"test_{c}"] for c in columns}
    out = root / "qkv-graded"
    grade(course, qkv_subs, assignment="attention", out=out, jobs=2, progress=False, pages=False)
    qkv_scores = {
        s: {c: results.read(results.path_for(out, s)).part_score(c) for c in columns}
        for s in STUDENTS
    }

    print("\nstudent  kind                         " + "  ".join(f"{c:>15}" for c in columns))
    for s, kind in STUDENTS.items():
        print(
            f"{s:<8} {kind:<28} "
            + "  ".join(f"{nb_scores[s][c]:>6.2f} | {qkv_scores[s][c]:>6.2f}" for c in columns)
        )
    print("(each cell: nbgrader autograde | qkv grade)")
    return course_dir, nb_scores, qkv_scores


def test_generate_assignment_strips_the_hidden_tests_and_the_solutions(
    round_trip, reference_source
):
    course_dir, _, _ = round_trip
    released = (course_dir / "release" / "attention" / "attention.ipynb").read_text()
    cells = json.loads(released)["cells"]
    assert (
        "HIDDEN TESTS" not in released
        and "nbgrader_bridge" not in released
        and "SOLUTION" not in released
    )
    assert "return Q @ K.T  # (n_q, n_k)" in reference_source and "return Q @ K.T" not in released
    assert (
        sum(c["metadata"].get("nbgrader", {}).get("grade", False) for c in cells) == 6
    )  # kept, emptied
    assert (course_dir / "release" / "attention" / "public_checks.py").is_file()
    assert not (course_dir / "release" / "attention" / "course.yaml").exists()


def test_nbgrader_scores_every_part_and_the_quiz_as_qkv_grade_does(round_trip):
    _, nb_scores, qkv_scores = round_trip
    for student in STUDENTS:
        assert nb_scores[student] == pytest.approx(qkv_scores[student], abs=1e-6), student
    assert sum(nb_scores["alice"].values()) == 120
    assert sum(nb_scores["dave"].values()) == 0


def test_partial_credit_within_a_part_reaches_nbgrader(round_trip):
    _, nb_scores, _ = round_trip
    assert 0 < nb_scores["bob"]["softmax"] < 20
    assert nb_scores["carol"]["attend"] < 20 and nb_scores["carol"]["softmax"] == 20


def test_the_graded_notebook_shows_the_teaching_message_of_the_mistake(round_trip):
    course_dir, _, _ = round_trip
    nb = json.loads(
        (course_dir / "autograded" / "bob" / "attention" / "attention.ipynb").read_text()
    )
    cell = next(c for c in nb["cells"] if c["id"] == "test_softmax")
    text = "".join(
        "".join(o.get("text", "")) for o in cell["outputs"] if o["output_type"] == "stream"
    )
    assert CATALOGUE.by_id("softmax_no_max").message in text
    assert not [
        o for o in cell["outputs"] if o["output_type"] == "error" or o.get("name") == "stderr"
    ]


# -- `qkv nbgrader grade`: the same submitted/ tree, graded in the sandbox, scores into nbgrader's gradebook --

# A solution cell that rewrites the scoring the hidden test cells call: under nbgrader's own autograde it
# would run in the grading kernel; here the notebook is never run, and the stubs earn nothing.
PATCH = (
    "\nimport qkv.integrations.nbgrader_bridge as _bridge\n"
    "_bridge.part_score = lambda part, **kw: {'quiz': 20}.get(part, 20)\n"
)
NB_STUDENTS = {"alice": "honest_reference", "bob": "mistake_softmax_no_max", "eve": "stub"}


def _patched(notebook_text: str) -> str:
    nb = json.loads(notebook_text)
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))
    cell["source"] = "".join(cell["source"]) + PATCH
    return json.dumps(nb)


@pytest.fixture(scope="module")
def sandboxed_nbgrader(tmp_path_factory, course, assignment, ref, reference_source):
    course_dir = tmp_path_factory.mktemp("nbgrade") / "course"
    nbgrader_export.export(course, assignment, out=course_dir)
    nbgrader(course_dir, "generate_assignment", "attention")
    released = (course_dir / "release" / "attention" / "attention.ipynb").read_text()
    sources = synthetic.class_sources(CONTENT)
    answers = synthetic.answers_for(course, assignment, CONTENT)
    for student, kind in NB_STUDENTS.items():
        text = synthetic.notebook_submission(released, sources[kind], answers(student, kind))
        folder = course_dir / "submitted" / student / "attention"
        folder.mkdir(parents=True)
        (folder / "attention.ipynb").write_text(_patched(text) if student == "eve" else text)
        (folder / "timestamp.txt").write_text("2026-12-14 10:00:00.000000 UTC")
    assert (
        main(
            [
                "nbgrader",
                "grade",
                str(course_dir),
                "--assignment",
                "attention",
                "--quiet",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    scores = {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        for student in NB_STUDENTS:
            graded = gb.find_submission_notebook("attention", "attention", student)
            scores[student] = {
                g.name.removeprefix("test_"): g.auto_score
                for g in graded.grades
                if g.auto_score is not None
            }
            assert gb.find_submission("attention", student).timestamp.year == 2026
    return course_dir, scores


def test_nbgrader_grade_writes_the_sandboxed_scores_into_nbgraders_gradebook(
    sandboxed_nbgrader, course
):
    course_dir, scores = sandboxed_nbgrader
    qkv = {
        s: results.read(results.path_for(course_dir / "qkv-graded" / "attention", s))
        for s in NB_STUDENTS
    }
    for student, result in qkv.items():
        assert scores[student] == {c: result.part_score(c) for c in result.columns}, student
    assert sum(scores["alice"].values()) == 120 and 0 < scores["bob"]["softmax"] < 20


def test_a_solution_cell_that_patches_the_grading_code_earns_nothing(sandboxed_nbgrader):
    _, scores = sandboxed_nbgrader
    assert sum(scores["eve"].values()) == 0


def test_nbgrader_export_reads_the_scores_qkv_wrote(sandboxed_nbgrader):
    course_dir, _ = sandboxed_nbgrader
    nbgrader(course_dir, "export", "--to", "grades.csv")
    rows = (course_dir / "grades.csv").read_text().splitlines()
    alice = next(r for r in rows if ",alice," in f",{r},")
    assert "120" in alice


def test_qkv_grade_reads_nbgraders_course_folder_as_it_is(sandboxed_nbgrader, tmp_path, course):
    course_dir, _scores = sandboxed_nbgrader
    summary = grade(
        course,
        course_dir,
        assignment="attention",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
        pages=False,
    )
    assert summary.students == sorted(NB_STUDENTS)
    assert results.read(results.path_for(tmp_path / "out", "alice")).total == 120
